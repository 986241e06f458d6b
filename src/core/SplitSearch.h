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
#include "SortKeys.h"

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
  /** Row weights in node order, or null: each row counts once. */
  const double* weights = nullptr;
  size_t n = 0;
  size_t width = 0;
};

/** The best split seen so far; near-ties are broken uniformly at random. */
struct BestSplit {
  double gain = -std::numeric_limits<double>::infinity();
  double lo = 0.0, hi = 0.0;  // the projected values either side of the split
  int direction = -1;
  size_t n_left = 0;
  size_t ties = 0;
};

/**
 * c log c and its increments (c + 1) log(c + 1) - c log c for counts up to
 * the largest node: built once per forest and shared, read-only, by its trees.
 */
struct EntropyTable {
  explicit EntropyTable(size_t n_max) : xlogx(n_max + 2, 0.0), step(n_max + 1) {
    for (size_t c = 1; c < xlogx.size(); ++c) {
      xlogx[c] = static_cast<double>(c) * std::log(static_cast<double>(c));
    }
    for (size_t c = 0; c <= n_max; ++c) step[c] = xlogx[c + 1] - xlogx[c];
  }
  std::vector<double> xlogx;
  std::vector<double> step;
};

/**
 * Exhaustive search for the best split point of projected values, in one
 * sweep over the sorted values with impurities updated incrementally, so a
 * node of n rows costs O(n log n) per direction.
 *
 * Gains are measured as n times the decrease in impurity (averaged over
 * outputs), which orders splits like the paper's gain G and is additive over
 * nodes. Candidate splits fall between adjacent distinct values (the
 * threshold is chosen between them afterwards, see short_threshold()), and
 * both children must keep at least `min_leaf` rows.
 */
class SplitSearch {
  static constexpr double kInfinity = std::numeric_limits<double>::infinity();

 public:
  /**
   * @param rule impurity criterion.
   * @param n_value number of classes over all outputs (classification) or of outputs.
   * @param entropy the forest's table (entropy rule only), covering the largest node.
   */
  SplitSearch(SplitRule rule, size_t n_value, const EntropyTable* entropy,
              Variant variant = Variant::kCcforest)
      : rule_(rule), paper_(variant == Variant::kPaper), node_count_(n_value, 0),
        left_count_(n_value, 0),
        left_value_(n_value, 0.0), node_weight_(n_value, 0.0), left_weight_(n_value, 0.0) {
    if (rule_ == SplitRule::kEntropy) {
      xlogx_ = entropy->xlogx.data();
      step_ = entropy->step.data();
    }
  }

  /** Sets the node whose rows will be split; returns its base impurity (times n). */
  double set_node(const NodeTargets& targets) {
    targets_ = targets;
    const size_t entries = targets.n * targets.width;
    const double n = static_cast<double>(targets.n);
    const double width = static_cast<double>(targets.width);
    if (targets.weights != nullptr) return set_weighted_node();
    if (rule_ == SplitRule::kVariance) {
      double sum_sq = 0.0;
      for (size_t i = 0; i < entries; ++i) sum_sq += targets.values[i] * targets.values[i];
      base_ = sum_sq / width;
      return base_;
    }
    std::fill(node_count_.begin(), node_count_.end(), 0);
    for (size_t i = 0; i < entries; ++i) ++node_count_[targets.classes[i]];
    node_sum_ = 0.0;
    for (int count : node_count_) node_sum_ += class_term(count);
    base_ = rule_ == SplitRule::kEntropy ? xlogx_[targets.n] - node_sum_ / width
                                         : n - node_sum_ / (width * n);
    return base_;
  }

  /**
   * Gains at or below this are no improvement, and gains this close tie
   * (rounding of the incremental sums): 1e-10 of the node's impurity, or
   * with the authors' rules ten machine epsilons of the gain per row in their
   * units (bits for entropy).
   */
  double tolerance() const {
    if (!paper_) return 1e-10 * base_;
    const double per_row = rule_ == SplitRule::kEntropy ? std::log(2.0) : 1.0;
    return 10.0 * std::numeric_limits<double>::epsilon() * per_row * static_cast<double>(targets_.n);
  }

  /**
   * Projected values closer than `resolution` count as equal: no split
   * falls between them (0: only equal values are; the authors' rules take
   * 1e-10 of a unit-length direction's projections).
   */
  void set_resolution(double resolution) { resolution_ = resolution; }

  /** The gain of sending the rows with u <= threshold left; -inf if a child has no weight. */
  double gain_at(const double* u, double threshold) {
    const auto [n_left, left_total] = tally_left(u, std::nextafter(threshold, kInfinity));
    return cut_gain(n_left, left_total);
  }

  /**
   * Sweeps the projected values `u` (one per node row) and offers each valid
   * split to `best`.
   */
  void sweep(const double* u, size_t min_leaf, int direction, Rng& rng, BestSplit& best) {
    const size_t n = targets_.n;
    sorter_.sort(u, n);
    sorted_ = sorter_.values();
    rows_ = sorter_.positions();
    if (targets_.weights != nullptr) {
      if (rule_ == SplitRule::kVariance) {
        sweep_weighted_values(min_leaf, direction, rng, best);
      } else {
        sweep_weighted_classes(min_leaf, direction, rng, best);
      }
      return;
    }
    switch (rule_) {
      case SplitRule::kEntropy:
        if (targets_.width == 1) {
          sweep_classes<true, true>(min_leaf, direction, rng, best);
        } else {
          sweep_classes<true, false>(min_leaf, direction, rng, best);
        }
        break;
      case SplitRule::kGini:
        if (targets_.width == 1) {
          sweep_classes<false, true>(min_leaf, direction, rng, best);
        } else {
          sweep_classes<false, false>(min_leaf, direction, rng, best);
        }
        break;
      case SplitRule::kVariance:
        if (targets_.width == 1) {
          sweep_values<true>(min_leaf, direction, rng, best);
        } else {
          sweep_values<false>(min_leaf, direction, rng, best);
        }
        break;
    }
  }

  /**
   * Offers one cut of `u` drawn uniformly between its smallest and largest
   * values, as extremely randomised trees cut a feature (Geurts, Ernst and
   * Wehenkel, 2006): rows below the draw go left. One pass, no sort; nothing
   * is offered when the draw leaves fewer than min_leaf rows on a side.
   */
  void random_cut(const double* u, size_t min_leaf, int direction, Rng& rng, BestSplit& best) {
    const size_t n = targets_.n;
    if (n < 2) return;
    // Two running minima and maxima, so that consecutive rows do not wait on
    // each other.
    double low[2] = {u[0], u[n - 1]}, high[2] = {u[0], u[n - 1]};
    for (size_t i = 0; i + 1 < n; i += 2) {
      for (size_t k = 0; k < 2; ++k) {
        low[k] = std::min(low[k], u[i + k]);
        high[k] = std::max(high[k], u[i + k]);
      }
    }
    const double lo = std::min(low[0], low[1]), hi = std::max(high[0], high[1]);
    if (!(lo < hi)) return;
    const double cut = lo + rng.uniform() * (hi - lo);
    const auto [n_left, left_total] = tally_left(u, cut);
    const size_t least = std::max<size_t>(min_leaf, 1);
    if (n_left < least || n - n_left < least) return;
    const double gain = cut_gain(n_left, left_total);
    // The values either side of the cut (for its threshold) only when it may
    // be taken, which is rare: the tally's loop stays short.
    if (!(gain >= reach(best))) return;
    double left_max = -kInfinity, right_min = kInfinity;
    for (size_t i = 0; i < n; ++i) {
      if (u[i] < cut) {
        left_max = std::max(left_max, u[i]);
      } else {
        right_min = std::min(right_min, u[i]);
      }
    }
    offer_cut(gain, left_max, right_min, n_left, direction, rng, best);
  }

 private:
  /**
   * The rows with u below the cut: their count and total weight, and their
   * sums (left_value_) or class totals (left_count_, left_weight_). Which
   * side a row falls on is a coin toss, so the loops take no branch on it:
   * each row adds itself times 0 or 1.
   */
  std::pair<size_t, double> tally_left(const double* u, double cut) {
    const size_t n = targets_.n, w = targets_.width;
    const double* weights = targets_.weights;
    size_t n_left = 0;
    double left_total = 0.0;
    if (rule_ == SplitRule::kVariance && w == 1 && weights == nullptr) {
      double left_sum = 0.0;  // in a register: the common case, one output
      for (size_t i = 0; i < n; ++i) {
        const bool left = u[i] < cut;
        n_left += left;
        left_sum += left ? targets_.values[i] : 0.0;
      }
      left_value_[0] = left_sum;
      return {n_left, static_cast<double>(n_left)};
    }
    std::fill(left_count_.begin(), left_count_.end(), 0);
    std::fill(left_value_.begin(), left_value_.end(), 0.0);
    std::fill(left_weight_.begin(), left_weight_.end(), 0.0);
    for (size_t i = 0; i < n; ++i) {
      const bool left = u[i] < cut;
      const double weight = (left ? 1.0 : 0.0) * (weights != nullptr ? weights[i] : 1.0);
      n_left += left;
      left_total += weight;
      for (size_t m = 0; m < w; ++m) {
        if (rule_ == SplitRule::kVariance) {
          left_value_[m] += weight * targets_.values[i * w + m];
        } else if (weights != nullptr) {
          left_weight_[static_cast<size_t>(targets_.classes[i * w + m])] += weight;
        } else {
          left_count_[static_cast<size_t>(targets_.classes[i * w + m])] += left;
        }
      }
    }
    return {n_left, left_total};
  }

  /**
   * The gain of the cut whose left child random_cut() has just tallied
   * (n_left rows of total weight left_total), by the sweeps' formulas; -inf
   * when a child has no weight.
   */
  double cut_gain(size_t n_left, double left_total) const {
    const size_t n = targets_.n;
    const double width = static_cast<double>(targets_.width);
    const bool weighted = targets_.weights != nullptr;
    const double nl = weighted ? left_total : static_cast<double>(n_left);
    const double nr = weighted ? node_total_ - left_total : static_cast<double>(n - n_left);
    if (!(nl > 0.0) || !(nr > 0.0)) return -kInfinity;
    if (rule_ == SplitRule::kVariance) {
      double between = 0.0;
      for (double s : left_value_) between += s * s;
      return between * (1.0 / nl + 1.0 / nr) / width;
    }
    double left_sum = 0.0, right_sum = 0.0;
    for (size_t k = 0; k < node_count_.size(); ++k) {
      if (weighted) {
        left_sum += weighted_term(left_weight_[k]);
        right_sum += weighted_term(node_weight_[k] - left_weight_[k]);
      } else {
        left_sum += class_term(left_count_[k]);
        right_sum += class_term(node_count_[k] - left_count_[k]);
      }
    }
    if (rule_ == SplitRule::kEntropy) {
      const double children = weighted ? weighted_term(nl) + weighted_term(nr)
                                       : xlogx_[n_left] + xlogx_[n - n_left];
      return base_ - (children - (left_sum + right_sum) / width);
    }
    return base_ - (nl + nr - (left_sum / nl + right_sum / nr) / width);
  }

  /** f(w) = w log w (entropy) or w^2 (gini), for weighted class totals. */
  double weighted_term(double w) const {
    return rule_ == SplitRule::kEntropy ? (w > 0.0 ? w * std::log(w) : 0.0) : w * w;
  }

  // With weights, a row counts as its weight wherever it would count once:
  // class totals, node sizes in the criterion, and sums of centred values.
  double set_weighted_node() {
    const size_t n = targets_.n, w = targets_.width;
    const double width = static_cast<double>(w);
    node_total_ = 0.0;
    for (size_t i = 0; i < n; ++i) node_total_ += targets_.weights[i];
    if (rule_ == SplitRule::kVariance) {
      double sum_sq = 0.0;
      for (size_t i = 0; i < n; ++i) {
        for (size_t m = 0; m < w; ++m) {
          const double v = targets_.values[i * w + m];
          sum_sq += targets_.weights[i] * v * v;
        }
      }
      base_ = sum_sq / width;
      return base_;
    }
    std::fill(node_weight_.begin(), node_weight_.end(), 0.0);
    for (size_t i = 0; i < n; ++i) {
      for (size_t m = 0; m < w; ++m) node_weight_[targets_.classes[i * w + m]] += targets_.weights[i];
    }
    node_sum_ = 0.0;
    for (double total : node_weight_) node_sum_ += weighted_term(total);
    base_ = rule_ == SplitRule::kEntropy ? weighted_term(node_total_) - node_sum_ / width
                                         : node_total_ - node_sum_ / (width * node_total_);
    return base_;
  }

  void sweep_weighted_classes(size_t min_leaf, int direction, Rng& rng, BestSplit& best) {
    const size_t n = targets_.n, w = targets_.width;
    const double width = static_cast<double>(w);
    std::fill(left_weight_.begin(), left_weight_.end(), 0.0);
    double left_sum = 0.0, right_sum = node_sum_, left_total = 0.0;
    for (size_t pos = 0; pos + 1 < n; ++pos) {
      const size_t row = static_cast<size_t>(rows_[pos]);
      const double weight = targets_.weights[row];
      left_total += weight;
      for (size_t m = 0; m < w; ++m) {
        const int k = targets_.classes[row * w + m];
        const double l = left_weight_[k], r = node_weight_[k] - l;
        left_sum += weighted_term(l + weight) - weighted_term(l);
        right_sum += weighted_term(r - weight) - weighted_term(r);
        left_weight_[k] = l + weight;
      }
      const size_t n_left = pos + 1, n_right = n - n_left;
      if (n_left < min_leaf) continue;
      if (n_right < min_leaf) break;
      if (!(sorted_[pos + 1] - sorted_[pos] > resolution_)) continue;
      const double right_total = node_total_ - left_total;
      if (!(left_total > 0.0) || !(right_total > 0.0)) continue;
      double gain;
      if (rule_ == SplitRule::kEntropy) {
        gain = base_ - (weighted_term(left_total) + weighted_term(right_total) -
                        (left_sum + right_sum) / width);
      } else {
        gain = base_ - (left_total + right_total -
                        (left_sum / left_total + right_sum / right_total) / width);
      }
      offer(gain, pos, direction, rng, best);
    }
  }

  // Values are centred at the node's weighted mean, so the right child's
  // weighted sums are minus the left's, and the decrease in weighted squared
  // error is |S_left|^2 (1/W_left + 1/W_right).
  void sweep_weighted_values(size_t min_leaf, int direction, Rng& rng, BestSplit& best) {
    const size_t n = targets_.n, w = targets_.width;
    const double width = static_cast<double>(w);
    std::fill(left_value_.begin(), left_value_.end(), 0.0);
    double left_total = 0.0;
    for (size_t pos = 0; pos + 1 < n; ++pos) {
      const size_t row = static_cast<size_t>(rows_[pos]);
      const double weight = targets_.weights[row];
      left_total += weight;
      for (size_t m = 0; m < w; ++m) left_value_[m] += weight * targets_.values[row * w + m];
      const size_t n_left = pos + 1, n_right = n - n_left;
      if (n_left < min_leaf) continue;
      if (n_right < min_leaf) break;
      if (!(sorted_[pos + 1] - sorted_[pos] > resolution_)) continue;
      const double right_total = node_total_ - left_total;
      if (!(left_total > 0.0) || !(right_total > 0.0)) continue;
      double between = 0.0;
      for (size_t m = 0; m < w; ++m) between += left_value_[m] * left_value_[m];
      offer(between * (1.0 / left_total + 1.0 / right_total) / width, pos, direction, rng, best);
    }
  }

  double class_term(int count) const {
    const double c = static_cast<double>(count);
    return rule_ == SplitRule::kEntropy ? xlogx_[static_cast<size_t>(count)] : c * c;
  }

  /**
   * The least gain offer() does not ignore, given the best so far: finite
   * (never below the lowest double), so a tie's gain - bar_[pos] of -inf or
   * NaN never reaches it.
   */
  double reach(const BestSplit& best) const {
    return std::max(best.gain - tolerance(), std::numeric_limits<double>::lowest());
  }

  /** Cuts after sorted positions [first, last) leave min_leaf rows on each side. */
  static std::pair<size_t, size_t> allowed_cuts(size_t n, size_t min_leaf) {
    return {std::max<size_t>(min_leaf, 1) - 1, n > min_leaf ? std::min(n - 1, n - min_leaf) : 0};
  }

  /** Offers the split after position `pos` of the sorted order. */
  void offer(double gain, size_t pos, int direction, Rng& rng, BestSplit& best) const {
    offer_cut(gain, sorted_[pos], sorted_[pos + 1], pos + 1, direction, rng, best);
  }

  /** Offers the split between projected values lo < hi with n_left rows left. */
  void offer_cut(double gain, double lo, double hi, size_t n_left, int direction, Rng& rng,
                 BestSplit& best) const {
    const double tol = tolerance();
    if (gain > best.gain + tol) {
      best.ties = 1;
    } else if (gain >= best.gain - tol) {
      ++best.ties;
      if (rng.index(best.ties) != 0) return;
    } else {
      return;
    }
    best.gain = std::max(gain, best.gain);
    best.lo = lo;
    best.hi = hi;
    best.direction = direction;
    best.n_left = n_left;
  }

  // Class counts move one row at a time from the right child to the left, and
  // the sums of c log c (entropy) or c^2 (gini) follow in O(outputs) per row.
  // kOneOutput lets the compiler drop the loop over outputs (dividing by a
  // width of 1 is exact, so both versions give the same gains).
  //
  // Every position's gain is computed; ties only raise the bar (mark_ties())
  // of the one branch left, rarely taken: whether the gain reaches the best
  // so far.
  template <bool kEntropy, bool kOneOutput>
  void sweep_classes(size_t min_leaf, int direction, Rng& rng, BestSplit& best) {
    const size_t n = targets_.n, w = kOneOutput ? 1 : targets_.width;
    const double width = static_cast<double>(w);
    std::fill(left_count_.begin(), left_count_.end(), 0);
    // One output: gather the classes in sorted order first, a loop without
    // dependencies, so the sweep below reads them in sequence.
    const int* classes = targets_.classes;
    if (kOneOutput) {
      sorted_classes_.resize(n);
      for (size_t pos = 0; pos < n; ++pos) sorted_classes_[pos] = classes[rows_[pos]];
      classes = sorted_classes_.data();
    }
    mark_ties(n);
    const auto [first, last] = allowed_cuts(n, min_leaf);
    double left_sum = 0.0, right_sum = node_sum_;
    double bar = reach(best);
    for (size_t pos = 0; pos < last; ++pos) {
      const int* c = kOneOutput ? classes + pos : classes + static_cast<size_t>(rows_[pos]) * w;
      for (size_t m = 0; m < w; ++m) {
        const int l = left_count_[c[m]]++;
        const int r = node_count_[c[m]] - l;  // the right child's count before the move
        if (kEntropy) {
          left_sum += step_[l];
          right_sum -= step_[r - 1];
        } else {
          left_sum += 2.0 * l + 1.0;
          right_sum -= 2.0 * r - 1.0;
        }
      }
      if (pos < first) continue;
      const size_t n_left = pos + 1, n_right = n - n_left;
      double gain;
      if (kEntropy) {
        gain = base_ - (xlogx_[n_left] + xlogx_[n_right] - (left_sum + right_sum) / width);
      } else {
        const double nl = static_cast<double>(n_left), nr = static_cast<double>(n_right);
        gain = base_ - (nl + nr - (left_sum / nl + right_sum / nr) / width);
      }
      if (gain - bar_[pos] >= bar) {
        offer(gain, pos, direction, rng, best);
        bar = reach(best);
      }
    }
  }

  // Values are centred at the node, so the right sums are minus the left ones
  // and the decrease in squared error is |S_left|^2 (1/n_left + 1/n_right).
  // Ties take no branch, as in sweep_classes(); with one output the left sum
  // stays in a register.
  template <bool kOneOutput>
  void sweep_values(size_t min_leaf, int direction, Rng& rng, BestSplit& best) {
    const size_t n = targets_.n, w = kOneOutput ? 1 : targets_.width;
    const double width = static_cast<double>(w);
    mark_ties(n);
    const auto [first, last] = allowed_cuts(n, min_leaf);
    std::fill(left_value_.begin(), left_value_.end(), 0.0);
    double left = 0.0;  // one output's left sum
    double bar = reach(best);
    for (size_t pos = 0; pos < last; ++pos) {
      const double* v = targets_.values + static_cast<size_t>(rows_[pos]) * w;
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
      if (gain - bar_[pos] >= bar) {
        offer(gain, pos, direction, rng, best);
        bar = reach(best);
      }
    }
  }

  /**
   * bar_[pos]: +inf when the value at sorted position pos ties the next one,
   * where no cut is possible, else 0. A gain is offered when gain - bar_[pos]
   * reaches the finite reach(), which a tie's -inf (or NaN for an infinite
   * gain) never does: this keeps ties out of the sweeps' branches, since
   * whether a value ends a run of equal ones is unpredictable when values
   * tie often (features with few distinct values), and compilers turn
   * `tie ? a : b` into a branch too.
   */
  void mark_ties(size_t n) {
    bar_.resize(n);
    for (size_t pos = 0; pos + 1 < n; ++pos) {
      bar_[pos] = sorted_[pos + 1] - sorted_[pos] > resolution_ ? 0.0 : kInfinity;
    }
  }

  SplitRule rule_;
  bool paper_;
  double resolution_ = 0.0;
  NodeTargets targets_;
  double base_ = 0.0;
  double node_sum_ = 0.0;
  const double* xlogx_ = nullptr;  // c log c
  const double* step_ = nullptr;   // (c + 1) log(c + 1) - c log c
  std::vector<int> node_count_, left_count_;
  std::vector<double> left_value_;
  std::vector<double> node_weight_, left_weight_;  // weighted class totals
  double node_total_ = 0.0;                          // the node's total weight
  KeySorter sorter_;
  Buffer<int> sorted_classes_;
  Buffer<double> bar_;
  const double* sorted_ = nullptr;  // the projected values in increasing order
  const int* rows_ = nullptr;       // the node row of each sorted value
};

}  // namespace ccforest

#endif  // CCFOREST_SPLIT_SEARCH_H_
