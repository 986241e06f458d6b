#ifndef CCFOREST_SPLIT_CRITERION_H_
#define CCFOREST_SPLIT_CRITERION_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "Rng.h"

namespace ccforest {

class NodeHazard;

/**
 * The outputs of the rows at a node, in node order, row-major with `width`
 * entries per row. For classification an entry is a global class index (the
 * output's class offset plus its code); for regression it is the output's
 * value centred at the node mean. A survival node's rows carry their time
 * rank and event (see SurvivalOutcome in Data.h).
 */
struct NodeTargets {
  const int* classes = nullptr;
  const double* values = nullptr;
  const int* time_rank = nullptr;
  const int* event = nullptr;
  /** Row weights in node order, or null: each row counts once. */
  const double* weights = nullptr;
  /**
   * A survival node's Nelson-Aalen fit of these rows (time ranks, events
   * and weights), when the task has made it already; null: the criterion
   * fits it.
   */
  const NodeHazard* hazard = nullptr;
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
 * Where a criterion's sweep offers its cuts, for one direction: keeps the
 * best in `best`, breaking near-ties (gains within `tolerance`) uniformly at
 * random with the tree's stream.
 */
class CutOffers {
 public:
  /**
   * @param sorted the projected values in increasing order (of the rows
   *   swept); `before` more rows lie below all of them (a window of them,
   *   see SplitCriterion::sweep_window()).
   */
  CutOffers(const double* sorted, int direction, double tolerance, Rng& rng, BestSplit& best,
            size_t before = 0)
      : sorted_(sorted), direction_(direction), tolerance_(tolerance), before_(before), rng_(rng),
        best_(best) {}

  /**
   * The least gain worth offering: finite (never below the lowest double),
   * so that a tie's gain - bar of -inf or NaN never reaches it.
   */
  double reach() const {
    return std::max(best_.gain - tolerance_, std::numeric_limits<double>::lowest());
  }

  /** Rows below the sorted values (see the constructor). */
  size_t before() const { return before_; }

  /** Offers the cut after sorted position `pos` (before + pos + 1 rows go left). */
  void offer(double gain, size_t pos) {
    offer_cut(gain, sorted_[pos], sorted_[pos + 1], before_ + pos + 1);
  }

  /** Offers the cut between projected values lo < hi with n_left rows left. */
  void offer_cut(double gain, double lo, double hi, size_t n_left) {
    if (gain > best_.gain + tolerance_) {
      best_.ties = 1;
    } else if (gain >= best_.gain - tolerance_) {
      ++best_.ties;
      if (rng_.index(best_.ties) != 0) return;
    } else {
      return;
    }
    best_.gain = std::max(gain, best_.gain);
    best_.lo = lo;
    best_.hi = hi;
    best_.direction = direction_;
    best_.n_left = n_left;
  }

 private:
  const double* sorted_;
  int direction_;
  double tolerance_;
  size_t before_;
  Rng& rng_;
  BestSplit& best_;
};

/**
 * A split criterion: how good it is to send some of a node's rows to the
 * left child and the rest to the right. A new criterion (a new task) is one
 * more class behind this interface (see make_criterion() in SplitSearch.h).
 *
 * Gains are measured as the node's impurity minus its children's, each
 * times its rows (or weight), averaged over outputs: they order splits like
 * the paper's gain G and add up over nodes.
 */
class SplitCriterion {
 public:
  virtual ~SplitCriterion() = default;

  /** Sets the node whose rows will be split; returns its impurity times its rows (or weight). */
  virtual double set_node(const NodeTargets& targets) = 0;

  /**
   * Offers every cut between sorted positions pos and pos + 1 for first <= pos
   * < last whose bar[pos] is 0 (+inf marks a value tied with the next one,
   * where no cut is possible): rows[pos] is the node row of the pos-th
   * smallest projected value. Rows move one at a time from the right child
   * to the left, so a node of n rows costs O(n) here.
   */
  virtual void sweep(const int* rows, const double* bar, size_t first, size_t last,
                     CutOffers& offers) = 0;

  /**
   * The gain of sending the rows with u[i] < cut left, and their number in
   * `n_left`: one pass, no sort (the random cuts of extremely randomised
   * trees); -inf when a child has no weight.
   */
  virtual double cut_gain(const double* u, double cut, size_t& n_left) = 0;

  /** best_bin()'s answer for a criterion without a binned search. */
  static constexpr long kNoBinnedSearch = -2;

  /**
   * The binned search of a large node (see SplitSearch): `bins[i]` is node
   * row i's bin, of `n_bins`, bins increasing with the projected values,
   * and bin_rows[b] the number of rows in bin b.
   * Returns the bin b whose upper boundary (the rows of bins 0..b left)
   * gains most with at least min_leaf rows on each side (the first of equal
   * ones), -1 if no boundary qualifies, or kNoBinnedSearch when the
   * criterion has none (the exhaustive search then runs). A criterion that
   * has one keeps its bins' totals for sweep_window().
   */
  virtual long best_bin(const uint8_t* bins, const uint32_t* bin_rows, size_t n_bins,
                        size_t min_leaf) {
    (void)bins;
    (void)bin_rows;
    (void)n_bins;
    (void)min_leaf;
    return kNoBinnedSearch;
  }

  /**
   * After best_bin(): offers every cut among the m node rows `rows`, sorted
   * by projected value, that bar (as in sweep()) allows and that leaves
   * min_leaf rows on each side, the rows of bins below `first_bin` being
   * left of them all (offers counts them in its `before`).
   */
  virtual void sweep_window(size_t first_bin, const int* rows, size_t m, const double* bar,
                            size_t min_leaf, CutOffers& offers) {
    (void)first_bin;
    (void)rows;
    (void)m;
    (void)bar;
    (void)min_leaf;
    (void)offers;
  }
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

}  // namespace ccforest

#endif  // CCFOREST_SPLIT_CRITERION_H_
