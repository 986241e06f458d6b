#include "LogRankCriterion.h"

#include <limits>

namespace ccforest {

double LogRankCriterion::set_node(const NodeTargets& targets) {
  targets_ = targets;
  const size_t k = n_cause_;
  if (targets.hazard != nullptr) {
    fit_ = targets.hazard;
  } else {
    own_hazard_.fit(targets.time_rank, targets.event, targets.weights, targets.n, static_cast<int>(k));
    fit_ = &own_hazard_;
  }
  const NodeHazard& hazard = *fit_;
  n_times_ = hazard.n_times();
  lambda_.resize(n_times_ * k);
  linear_.resize(n_times_ * k);
  running_.resize(n_times_ * k);
  step_.resize(n_times_ * k);
  scale_.assign(k, 0.0);
  double events = 0.0;
  for (size_t c = 0; c < k; ++c) {
    double linear = 0.0, running = 0.0;
    for (size_t q = 0; q < n_times_; ++q) {
      const double y = hazard.at_risk(q), d = hazard.events(q, static_cast<int>(c + 1));
      // The hypergeometric variance of a 2 x 2 table at this time: none
      // with one row at risk.
      const double v = y > 1.0 ? d * (y - d) / (y * y * (y - 1.0)) : 0.0;
      linear += v * y;
      running += v;
      scale_[c] += v * y * y;
      lambda_[q * k + c] = hazard.cumulative_hazard(static_cast<int>(q), static_cast<int>(c + 1));
      linear_[q * k + c] = linear;
      running_[q * k + c] = running;
      step_[q * k + c] = v;
    }
  }
  for (size_t q = 0; q < n_times_; ++q) events += hazard.all_events(q);
  return events;
}

void LogRankCriterion::reset_left() {
  const size_t k = n_cause_;
  u_.assign(k, 0.0);
  linear_left_.assign(k, 0.0);
  quadratic_.assign(k, 0.0);
  trees_.assign(n_times_ * (k + 1), 0.0);
  left_weight_ = 0.0;
  left_events_ = 0;
}

template <size_t kCauses>
void LogRankCriterion::add_left(size_t row) {
  const NodeHazard& hazard = *fit_;
  const int s = hazard.position(row);
  if (s < 0) return;  // never at risk at the node's event times: no term
  const size_t k = kCauses > 0 ? kCauses : n_cause_, stride = k + 1;
  const size_t at = static_cast<size_t>(s);
  const double w = hazard.weight(row);
  const int e = hazard.event(row);
  left_events_ += e > 0;
  // The weight and the causes' cross terms of the left rows before this
  // row's position: one walk down the interleaved Fenwick trees reads them
  // all (each tree is summed in the order its own walk would).
  double before[kCauses > 0 ? kCauses + 1 : 1];
  std::vector<double>& prefix = prefix_;
  double* sums = kCauses > 0 ? before : (prefix.resize(stride), prefix.data());
  for (size_t j = 0; j < stride; ++j) sums[j] = 0.0;
  for (size_t i = at; i > 0; i -= i & (~i + 1)) {
    const double* node = trees_.data() + (i - 1) * stride;
    for (size_t j = 0; j < stride; ++j) sums[j] += node[j];
  }
  // Weight of the left rows at or after this row's position.
  const double later = left_weight_ - sums[0];
  for (size_t c = 0; c < k; ++c) {
    const double running = running_[at * k + c];
    const double shared = running * later + sums[c + 1];
    quadratic_[c] += w * w * running + 2.0 * w * shared;
    u_[c] += w * ((e == static_cast<int>(c + 1) ? 1.0 : 0.0) - lambda_[at * k + c]);
    linear_left_[c] += w * linear_[at * k + c];
    sums[c + 1] = w * running;
  }
  sums[0] = w;
  for (size_t i = at + 1; i <= n_times_; i += i & (~i + 1)) {
    double* node = trees_.data() + (i - 1) * stride;
    for (size_t j = 0; j < stride; ++j) node[j] += sums[j];
  }
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

void LogRankCriterion::sweep_one_cause(const int* rows, const double* bar, size_t first,
                                       size_t last, CutOffers& offers) {
  // add_left<1>() and statistic() with the left child's sums in locals: in
  // the members (vectors) they are stored and loaded again around every
  // Fenwick update, which might alias them, and the sweep is the hottest loop
  // of a survival tree. The same operations in the same order, so the same
  // statistics to the last bit.
  const NodeHazard& hazard = *fit_;
  const size_t node_events = hazard.event_rows(), n_times = n_times_;
  double* trees = trees_.data();  // interleaved: the weight, then w C(s)
  const double* lambda = lambda_.data();
  const double* linear = linear_.data();
  const double* running_sum = running_.data();
  const double scale = scale_[0];
  double u = 0.0, linear_left = 0.0, quadratic = 0.0, left_weight = 0.0;
  size_t left_events = 0;
  double reach = offers.reach();
  for (size_t pos = 0; pos < last; ++pos) {
    const size_t row = static_cast<size_t>(rows[pos]);
    const int s = hazard.position(row);
    if (s >= 0) {
      const size_t at = static_cast<size_t>(s);
      const double w = hazard.weight(row);
      const int e = hazard.event(row);
      left_events += e > 0;
      double weight_before = 0.0, cross_before = 0.0;
      for (size_t i = at; i > 0; i -= i & (~i + 1)) {
        weight_before += trees[2 * (i - 1)];
        cross_before += trees[2 * (i - 1) + 1];
      }
      const double later = left_weight - weight_before;
      const double running = running_sum[at];
      const double shared = running * later + cross_before;
      quadratic += w * w * running + 2.0 * w * shared;
      u += w * ((e == 1 ? 1.0 : 0.0) - lambda[at]);
      linear_left += w * linear[at];
      const double cross = w * running;
      for (size_t i = at + 1; i <= n_times; i += i & (~i + 1)) {
        trees[2 * (i - 1)] += w;
        trees[2 * (i - 1) + 1] += cross;
      }
      left_weight += w;
    }
    if (pos < first || bar[pos] != 0.0) continue;
    if (left_events < min_events_ || node_events - left_events < min_events_) continue;
    double gain = 0.0;
    const double v = linear_left - quadratic;
    if (v > 1e-12 * scale) gain += u * u / v;
    if (gain >= reach) {
      offers.offer(gain, pos);
      reach = offers.reach();
    }
  }
  u_[0] = u;
  linear_left_[0] = linear_left;
  quadratic_[0] = quadratic;
  left_weight_ = left_weight;
  left_events_ = left_events;
}

void LogRankCriterion::sweep(const int* rows, const double* bar, size_t first, size_t last,
                             CutOffers& offers) {
  reset_left();
  if (n_cause_ == 1) {
    sweep_one_cause(rows, bar, first, last, offers);
    return;
  }
  const size_t node_events = fit_->event_rows();
  double reach = offers.reach();
  for (size_t pos = 0; pos < last; ++pos) {
    add_left<0>(static_cast<size_t>(rows[pos]));
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
  const NodeHazard& hazard = *fit_;
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
    const int s = hazard.position(i);
    if (s < 0) continue;
    const size_t at = static_cast<size_t>(s);
    const double w = hazard.weight(i);
    const int e = hazard.event(i);
    left_events += e > 0;
    left_at_risk_[at] += w;
    for (size_t c = 0; c < k; ++c) {
      u_[c] += w * ((e == static_cast<int>(c + 1) ? 1.0 : 0.0) - lambda_[at * k + c]);
      linear_left_[c] += w * linear_[at * k + c];
    }
  }
  const size_t node_events = hazard.event_rows();
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
