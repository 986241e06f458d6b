#include "LogRankCriterion.h"

#include <limits>

namespace ccforest {

namespace {

/** Adds `value` at position `at` of a Fenwick tree over `size` positions. */
void fenwick_add(double* tree, size_t size, size_t at, double value) {
  for (size_t i = at + 1; i <= size; i += i & (~i + 1)) tree[i - 1] += value;
}

/** The sum of the values at positions [0, end) of a Fenwick tree. */
double fenwick_sum(const double* tree, size_t end) {
  double sum = 0.0;
  for (size_t i = end; i > 0; i -= i & (~i + 1)) sum += tree[i - 1];
  return sum;
}

}  // namespace

double LogRankCriterion::set_node(const NodeTargets& targets) {
  targets_ = targets;
  const size_t k = n_cause_;
  hazard_.fit(targets.time_rank, targets.event, targets.weights, targets.n, static_cast<int>(k));
  n_times_ = hazard_.n_times();
  lambda_.resize(n_times_ * k);
  linear_.resize(n_times_ * k);
  running_.resize(n_times_ * k);
  step_.resize(n_times_ * k);
  scale_.assign(k, 0.0);
  double events = 0.0;
  for (size_t c = 0; c < k; ++c) {
    double linear = 0.0, running = 0.0;
    for (size_t q = 0; q < n_times_; ++q) {
      const double y = hazard_.at_risk(q), d = hazard_.events(q, static_cast<int>(c + 1));
      // The hypergeometric variance of a 2 x 2 table at this time: none
      // with one row at risk.
      const double v = y > 1.0 ? d * (y - d) / (y * y * (y - 1.0)) : 0.0;
      linear += v * y;
      running += v;
      scale_[c] += v * y * y;
      lambda_[q * k + c] = hazard_.cumulative_hazard(static_cast<int>(q), static_cast<int>(c + 1));
      linear_[q * k + c] = linear;
      running_[q * k + c] = running;
      step_[q * k + c] = v;
    }
  }
  for (size_t q = 0; q < n_times_; ++q) events += hazard_.all_events(q);
  return events;
}

void LogRankCriterion::reset_left() {
  const size_t k = n_cause_;
  u_.assign(k, 0.0);
  linear_left_.assign(k, 0.0);
  quadratic_.assign(k, 0.0);
  count_tree_.assign(n_times_, 0.0);
  cross_tree_.assign(n_times_ * k, 0.0);
  left_weight_ = 0.0;
  left_events_ = 0;
}

void LogRankCriterion::add_left(size_t row) {
  const int s = hazard_.position(row);
  if (s < 0) return;  // never at risk at the node's event times: no term
  const size_t k = n_cause_, at = static_cast<size_t>(s);
  const double w = hazard_.weight(row);
  const int e = hazard_.event(row);
  left_events_ += e > 0;
  // Weight of the left rows at or after this row's position.
  const double later = left_weight_ - fenwick_sum(count_tree_.data(), at);
  for (size_t c = 0; c < k; ++c) {
    const double running = running_[at * k + c];
    double* cross = cross_tree_.data() + c * n_times_;
    const double shared = running * later + fenwick_sum(cross, at);
    quadratic_[c] += w * w * running + 2.0 * w * shared;
    u_[c] += w * ((e == static_cast<int>(c + 1) ? 1.0 : 0.0) - lambda_[at * k + c]);
    linear_left_[c] += w * linear_[at * k + c];
    fenwick_add(cross, n_times_, at, w * running);
  }
  fenwick_add(count_tree_.data(), n_times_, at, w);
  left_weight_ += w;
}

double LogRankCriterion::statistic() const {
  double chi_square = 0.0;
  for (size_t c = 0; c < n_cause_; ++c) {
    const double v = linear_left_[c] - quadratic_[c];
    if (v > 1e-12 * scale_[c]) chi_square += u_[c] * u_[c] / v;
  }
  return chi_square;
}

void LogRankCriterion::sweep(const int* rows, const double* bar, size_t first, size_t last,
                             CutOffers& offers) {
  reset_left();
  const size_t node_events = hazard_.event_rows();
  double reach = offers.reach();
  for (size_t pos = 0; pos < last; ++pos) {
    add_left(static_cast<size_t>(rows[pos]));
    if (pos < first || bar[pos] != 0.0) continue;
    if (left_events_ < min_events_ || node_events - left_events_ < min_events_) continue;
    const double gain = statistic();
    if (gain >= reach) {
      offers.offer(gain, pos);
      reach = offers.reach();
    }
  }
}

double LogRankCriterion::cut_gain(const double* u, double cut, size_t& n_left) {
  const size_t n = targets_.n, k = n_cause_;
  const double minus_infinity = -std::numeric_limits<double>::infinity();
  n_left = 0;
  u_.assign(k, 0.0);
  linear_left_.assign(k, 0.0);
  quadratic_.assign(k, 0.0);
  left_at_risk_.assign(n_times_ + 1, 0.0);
  size_t left_events = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!(u[i] < cut)) continue;
    ++n_left;
    const int s = hazard_.position(i);
    if (s < 0) continue;
    const size_t at = static_cast<size_t>(s);
    const double w = hazard_.weight(i);
    const int e = hazard_.event(i);
    left_events += e > 0;
    left_at_risk_[at] += w;
    for (size_t c = 0; c < k; ++c) {
      u_[c] += w * ((e == static_cast<int>(c + 1) ? 1.0 : 0.0) - lambda_[at * k + c]);
      linear_left_[c] += w * linear_[at * k + c];
    }
  }
  const size_t node_events = hazard_.event_rows();
  if (n_left == 0 || n_left == n || left_events < min_events_ ||
      node_events - left_events < min_events_) {
    return minus_infinity;
  }
  // Y_Lq: the left rows at positions q or later.
  for (size_t q = n_times_; q-- > 0;) left_at_risk_[q] += left_at_risk_[q + 1];
  for (size_t c = 0; c < k; ++c) {
    for (size_t q = 0; q < n_times_; ++q) {
      quadratic_[c] += step_[q * k + c] * left_at_risk_[q] * left_at_risk_[q];
    }
  }
  return statistic();
}

}  // namespace ccforest
