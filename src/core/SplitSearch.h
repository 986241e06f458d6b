#ifndef CCFOREST_SPLIT_SEARCH_H_
#define CCFOREST_SPLIT_SEARCH_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include "Options.h"
#include "Rng.h"

namespace ccforest {

/**
 * The outputs of the rows at a node, in node order, row-major with `width`
 * entries per row. For classification an entry is a global class index (the
 * output's class offset plus its code); for regression it is the output's
 * value centred at the node mean.
 */
struct NodeTargets {
  const int* classes = nullptr;
  const double* values = nullptr;
  size_t n = 0;
  size_t width = 0;
};

/** The best split seen so far; near-ties are broken uniformly at random. */
struct BestSplit {
  double gain = -std::numeric_limits<double>::infinity();
  double threshold = 0.0;
  int direction = -1;
  size_t n_left = 0;
  size_t ties = 0;
};

/**
 * Exhaustive search for the best split point of projected values, in one
 * sweep over the sorted values with impurities updated incrementally, so a
 * node of n rows costs O(n log n) per direction.
 *
 * Gains are measured as n times the decrease in impurity (averaged over
 * outputs), which orders splits like the paper's gain G and is additive over
 * nodes. Candidate thresholds are midpoints between adjacent distinct values,
 * and both children must keep at least `min_leaf` rows.
 */
class SplitSearch {
 public:
  /**
   * @param rule impurity criterion.
   * @param n_value number of classes over all outputs (classification) or of outputs.
   * @param n_max largest node size that will be searched.
   */
  SplitSearch(SplitRule rule, size_t n_value, size_t n_max)
      : rule_(rule), left_(n_value, 0.0), right_(n_value, 0.0) {
    if (rule_ == SplitRule::kEntropy) {
      xlogx_.resize(n_max + 1, 0.0);
      for (size_t c = 1; c <= n_max; ++c) {
        xlogx_[c] = static_cast<double>(c) * std::log(static_cast<double>(c));
      }
    }
  }

  /** Sets the node whose rows will be split; returns its base impurity (times n). */
  double set_node(const NodeTargets& targets) {
    targets_ = targets;
    const double n = static_cast<double>(targets.n);
    const double width = static_cast<double>(targets.width);
    std::fill(right_.begin(), right_.end(), 0.0);
    if (rule_ == SplitRule::kVariance) {
      double sum_sq = 0.0;
      for (size_t i = 0; i < targets.n * targets.width; ++i) {
        sum_sq += targets.values[i] * targets.values[i];
      }
      base_ = sum_sq / width;
    } else {
      for (size_t i = 0; i < targets.n * targets.width; ++i) right_[targets.classes[i]] += 1.0;
      double total = 0.0;
      for (double count : right_) total += class_term(count);
      base_ = rule_ == SplitRule::kEntropy ? xlogx(targets.n) - total / width
                                           : n - total / (width * n);
    }
    return base_;
  }

  /** Gains at or below this are no improvement (rounding of the incremental sums). */
  double tolerance() const { return 1e-10 * base_; }

  /**
   * Sweeps the projected values `u` (one per node row) and offers each valid
   * split to `best`.
   */
  void sweep(const double* u, size_t min_leaf, int direction, Rng& rng, BestSplit& best) {
    const size_t n = targets_.n;
    order_.resize(n);
    for (size_t i = 0; i < n; ++i) order_[i] = {u[i], static_cast<int>(i)};
    std::sort(order_.begin(), order_.end());
    reset_sweep();
    const double tol = tolerance();
    for (size_t pos = 0; pos + 1 < n; ++pos) {
      move_left(static_cast<size_t>(order_[pos].second));
      const size_t n_left = pos + 1, n_right = n - n_left;
      if (n_left < min_leaf) continue;
      if (n_right < min_leaf) break;
      const double lo = order_[pos].first, hi = order_[pos + 1].first;
      if (!(lo < hi)) continue;
      const double gain = gain_at(n_left, n_right);
      if (gain > best.gain + tol) {
        best.ties = 1;
      } else if (gain >= best.gain - tol) {
        ++best.ties;
        if (rng.index(best.ties) != 0) continue;
      } else {
        continue;
      }
      best.gain = std::max(gain, best.gain);
      best.threshold = midpoint(lo, hi);
      best.direction = direction;
      best.n_left = n_left;
    }
  }

  /** A threshold t with lo <= t < hi, so `u <= t` reproduces the sweep's partition. */
  static double midpoint(double lo, double hi) {
    const double mid = lo + 0.5 * (hi - lo);
    return (mid >= lo && mid < hi) ? mid : lo;
  }

 private:
  double xlogx(size_t c) const { return xlogx_[c]; }

  double class_term(double count) const {
    return rule_ == SplitRule::kEntropy ? xlogx(static_cast<size_t>(count)) : count * count;
  }

  void reset_sweep() {
    left_sum_ = 0.0;
    if (rule_ == SplitRule::kVariance) {
      std::fill(left_.begin(), left_.end(), 0.0);
      return;
    }
    // Class counts of the whole node start on the right.
    std::fill(left_.begin(), left_.end(), 0.0);
    std::fill(right_.begin(), right_.end(), 0.0);
    right_sum_ = 0.0;
    for (size_t i = 0; i < targets_.n * targets_.width; ++i) right_[targets_.classes[i]] += 1.0;
    for (double count : right_) right_sum_ += class_term(count);
  }

  void move_left(size_t row) {
    const size_t w = targets_.width;
    if (rule_ == SplitRule::kVariance) {
      const double* v = targets_.values + row * w;
      for (size_t m = 0; m < w; ++m) left_[m] += v[m];
      return;
    }
    const int* c = targets_.classes + row * w;
    for (size_t m = 0; m < w; ++m) {
      double& l = left_[c[m]];
      double& r = right_[c[m]];
      left_sum_ += class_term(l + 1.0) - class_term(l);
      right_sum_ += class_term(r - 1.0) - class_term(r);
      l += 1.0;
      r -= 1.0;
    }
  }

  double gain_at(size_t n_left, size_t n_right) const {
    const double width = static_cast<double>(targets_.width);
    const double nl = static_cast<double>(n_left), nr = static_cast<double>(n_right);
    switch (rule_) {
      case SplitRule::kEntropy:
        return base_ - (xlogx(n_left) + xlogx(n_right) - (left_sum_ + right_sum_) / width);
      case SplitRule::kGini:
        return base_ - (nl + nr - (left_sum_ / nl + right_sum_ / nr) / width);
      case SplitRule::kVariance: {
        // Values are centred at the node, so the right sums are minus the left ones.
        double between = 0.0;
        for (size_t m = 0; m < targets_.width; ++m) between += left_[m] * left_[m];
        return between * (1.0 / nl + 1.0 / nr) / width;
      }
    }
    return 0.0;
  }

  SplitRule rule_;
  NodeTargets targets_;
  double base_ = 0.0;
  std::vector<double> xlogx_;
  std::vector<double> left_, right_;
  double left_sum_ = 0.0, right_sum_ = 0.0;
  std::vector<std::pair<double, int>> order_;
};

}  // namespace ccforest

#endif  // CCFOREST_SPLIT_SEARCH_H_
