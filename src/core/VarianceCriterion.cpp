#include "VarianceCriterion.h"

#include <algorithm>
#include <limits>

namespace ccforest {

double VarianceCriterion::set_node(const NodeTargets& targets) {
  targets_ = targets;
  const size_t n = targets.n, w = targets.width;
  const double width = static_cast<double>(w);
  double sum_squares = 0.0;
  if (targets.weights != nullptr) {
    node_total_ = 0.0;
    for (size_t i = 0; i < n; ++i) node_total_ += targets.weights[i];
    for (size_t i = 0; i < n; ++i) {
      for (size_t m = 0; m < w; ++m) {
        const double v = targets.values[i * w + m];
        sum_squares += targets.weights[i] * v * v;
      }
    }
    return sum_squares / width;
  }
  for (size_t i = 0; i < n * w; ++i) sum_squares += targets.values[i] * targets.values[i];
  return sum_squares / width;
}

void VarianceCriterion::sweep(const int* rows, const double* bar, size_t first, size_t last,
                              CutOffers& offers) {
  if (targets_.weights != nullptr) {
    sweep_weights(rows, bar, first, last, offers);
  } else if (targets_.width == 1) {
    sweep_rows<true>(rows, bar, first, last, offers);
  } else {
    sweep_rows<false>(rows, bar, first, last, offers);
  }
}

// Ties take no branch, as in the class sweep; with one output the left sum
// stays in a register.
template <bool kOneOutput>
void VarianceCriterion::sweep_rows(const int* rows, const double* bar, size_t first, size_t last,
                                   CutOffers& offers) {
  const size_t n = targets_.n, w = kOneOutput ? 1 : targets_.width;
  const double width = static_cast<double>(w);
  std::fill(left_value_.begin(), left_value_.end(), 0.0);
  double left = 0.0;  // one output's left sum
  double reach = offers.reach();
  for (size_t pos = 0; pos < last; ++pos) {
    const double* v = targets_.values + static_cast<size_t>(rows[pos]) * w;
    double between = 0.0;
    if (kOneOutput) {
      left += v[0];
      between += left * left;
    } else {
      for (size_t m = 0; m < w; ++m) left_value_[m] += v[m];
      for (size_t m = 0; m < w; ++m) between += left_value_[m] * left_value_[m];
    }
    if (pos < first) continue;
    const size_t n_left = pos + 1, n_right = n - n_left;
    const double gain = between *
                        (1.0 / static_cast<double>(n_left) + 1.0 / static_cast<double>(n_right)) /
                        width;
    if (gain - bar[pos] >= reach) {
      offers.offer(gain, pos);
      reach = offers.reach();
    }
  }
}

void VarianceCriterion::sweep_weights(const int* rows, const double* bar, size_t first,
                                      size_t last, CutOffers& offers) {
  const size_t w = targets_.width;
  const double width = static_cast<double>(w);
  std::fill(left_value_.begin(), left_value_.end(), 0.0);
  double left_total = 0.0;
  for (size_t pos = 0; pos < last; ++pos) {
    const size_t row = static_cast<size_t>(rows[pos]);
    const double weight = targets_.weights[row];
    left_total += weight;
    for (size_t m = 0; m < w; ++m) left_value_[m] += weight * targets_.values[row * w + m];
    if (pos < first || bar[pos] != 0.0) continue;
    const double right_total = node_total_ - left_total;
    if (!(left_total > 0.0) || !(right_total > 0.0)) continue;
    double between = 0.0;
    for (size_t m = 0; m < w; ++m) between += left_value_[m] * left_value_[m];
    offers.offer(between * (1.0 / left_total + 1.0 / right_total) / width, pos);
  }
}

double VarianceCriterion::cut_gain(const double* u, double cut, size_t& n_left) {
  // Which side a row falls on is a coin toss, so the loops take no branch on
  // it: each row adds itself times 0 or 1.
  const size_t n = targets_.n, w = targets_.width;
  const double* weights = targets_.weights;
  const double width = static_cast<double>(w);
  n_left = 0;
  double left_total = 0.0;
  if (w == 1 && weights == nullptr) {
    double left_sum = 0.0;  // in a register: the common case, one output
    for (size_t i = 0; i < n; ++i) {
      const bool left = u[i] < cut;
      n_left += left;
      left_sum += left ? targets_.values[i] : 0.0;
    }
    left_value_[0] = left_sum;
    left_total = static_cast<double>(n_left);
  } else {
    std::fill(left_value_.begin(), left_value_.end(), 0.0);
    for (size_t i = 0; i < n; ++i) {
      const bool left = u[i] < cut;
      const double weight = (left ? 1.0 : 0.0) * (weights != nullptr ? weights[i] : 1.0);
      n_left += left;
      left_total += weight;
      for (size_t m = 0; m < w; ++m) left_value_[m] += weight * targets_.values[i * w + m];
    }
  }
  const bool weighted = weights != nullptr;
  const double nl = weighted ? left_total : static_cast<double>(n_left);
  const double nr = weighted ? node_total_ - left_total : static_cast<double>(n - n_left);
  if (!(nl > 0.0) || !(nr > 0.0)) return -std::numeric_limits<double>::infinity();
  double between = 0.0;
  for (double s : left_value_) between += s * s;
  return between * (1.0 / nl + 1.0 / nr) / width;
}

double VarianceCriterion::gain_of(double left_total) const {
  const double node = targets_.weights != nullptr ? node_total_ : static_cast<double>(targets_.n);
  const double right_total = node - left_total;
  if (!(left_total > 0.0) || !(right_total > 0.0)) return -std::numeric_limits<double>::infinity();
  double between = 0.0;
  for (double v : left_value_) between += v * v;
  return between * (1.0 / left_total + 1.0 / right_total) / static_cast<double>(targets_.width);
}

long VarianceCriterion::best_bin(const uint8_t* bins, const uint32_t* bin_rows, size_t n_bins,
                                 size_t min_leaf) {
  const size_t n = targets_.n, w = targets_.width;
  const double* weights = targets_.weights;
  n_bins_ = n_bins;
  bin_total_.assign(n_bins, 0.0);
  bin_sums_.assign(n_bins * w, 0.0);
  if (weights == nullptr && w == 1) {
    for (size_t i = 0; i < n; ++i) bin_sums_[bins[i]] += targets_.values[i];
    for (size_t b = 0; b < n_bins; ++b) bin_total_[b] = static_cast<double>(bin_rows[b]);
  } else {
    for (size_t i = 0; i < n; ++i) {
      const size_t b = bins[i];
      const double weight = weights != nullptr ? weights[i] : 1.0;
      bin_total_[b] += weight;
      for (size_t m = 0; m < w; ++m) bin_sums_[b * w + m] += weight * targets_.values[i * w + m];
    }
  }
  std::fill(left_value_.begin(), left_value_.end(), 0.0);
  const size_t least = std::max<size_t>(min_leaf, 1);
  double left_total = 0.0, best = -std::numeric_limits<double>::infinity();
  size_t n_left = 0;
  long best_bin = -1;
  for (size_t b = 0; b + 1 < n_bins; ++b) {
    if (bin_rows[b] == 0) continue;
    for (size_t m = 0; m < w; ++m) left_value_[m] += bin_sums_[b * w + m];
    left_total += bin_total_[b];
    n_left += bin_rows[b];
    if (n_left < least || n - n_left < least) continue;
    const double gain = gain_of(left_total);
    if (gain > best) {
      best = gain;
      best_bin = static_cast<long>(b);
    }
  }
  return best_bin;
}

void VarianceCriterion::sweep_window(size_t first_bin, const int* rows, size_t m,
                                     const double* bar, size_t min_leaf, CutOffers& offers) {
  const size_t n = targets_.n, w = targets_.width;
  const double* weights = targets_.weights;
  std::fill(left_value_.begin(), left_value_.end(), 0.0);
  double left_total = 0.0;
  size_t n_left = offers.before();
  for (size_t b = 0; b < first_bin && b < n_bins_; ++b) {
    for (size_t o = 0; o < w; ++o) left_value_[o] += bin_sums_[b * w + o];
    left_total += bin_total_[b];
  }
  const size_t least = std::max<size_t>(min_leaf, 1);
  for (size_t pos = 0; pos < m; ++pos) {
    const size_t row = static_cast<size_t>(rows[pos]);
    const double weight = weights != nullptr ? weights[row] : 1.0;
    for (size_t o = 0; o < w; ++o) left_value_[o] += weight * targets_.values[row * w + o];
    left_total += weight;
    ++n_left;
    if (bar[pos] != 0.0 || n_left < least || n - n_left < least) continue;
    offers.offer(gain_of(left_total), pos);
  }
}

}  // namespace ccforest
