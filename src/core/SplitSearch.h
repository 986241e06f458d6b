#ifndef CCFOREST_SPLIT_SEARCH_H_
#define CCFOREST_SPLIT_SEARCH_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "Buffer.h"
#include "Options.h"
#include "Rng.h"
#include "SortKeys.h"
#include "SplitCriterion.h"

namespace ccforest {

/** What a SplitSearch may do beyond its rule, each named. */
struct SearchSettings {
  bool authors_tolerance = false;  // the authors' tolerance for gains (Rules::authors_tolerance())
  size_t exact_max_rows = 0;  // larger nodes are searched binned; 0: none (the paper)
  size_t min_events = 1;      // the log-rank rule's least rows with an event in a child
};

/**
 * The criterion of a split rule (see SplitCriterion.h); `min_events`: the
 * log-rank rule's least number of rows with an event in each child.
 */
std::unique_ptr<SplitCriterion> make_criterion(SplitRule rule, size_t n_value,
                                               const EntropyTable* entropy, size_t min_events = 1);

/**
 * Finds a node's best split along projected values, whatever the criterion:
 * the exhaustive search sorts the values and lets the criterion sweep them
 * (O(n log n) per direction), candidate cuts falling between adjacent
 * distinct values (the threshold is chosen between them afterwards, see
 * short_threshold()) with at least `min_leaf` rows on each side; a random
 * cut (extremely randomised trees) is one pass.
 *
 * Nodes of more than `exact_max_rows` rows (0: none) are searched binned
 * where the criterion can (see SplitCriterion::best_bin()): the projected
 * values' range is cut into kBins equal bins, the criterion's totals per bin
 * give the best boundary between bins, and the cuts among the rows of the
 * two bins on either side of it are searched exhaustively. That costs one
 * pass over the rows and one over the bins, instead of a sort, and finds the
 * exhaustive search's cut unless a better one lies inside a bin away from
 * the best boundary.
 */
class SplitSearch {
 public:
  /**
   * @param n_value number of classes over all outputs (classification), of
   *   outputs (regression) or of causes (survival).
   * @param entropy the forest's table (entropy rule only), covering the largest node.
   */
  SplitSearch(SplitRule rule, size_t n_value, const EntropyTable* entropy,
              const SearchSettings& settings = SearchSettings())
      : rule_(rule), authors_tolerance_(settings.authors_tolerance),
        exact_max_rows_(settings.exact_max_rows),
        criterion_(make_criterion(rule, n_value, entropy, settings.min_events)) {}

  /** Bins of the binned search (see the class comment): a byte per row. */
  static constexpr size_t kBins = 256;

  /** Sets the node whose rows will be split; returns its base impurity (times n). */
  double set_node(const NodeTargets& targets) {
    n_ = targets.n;
    base_ = criterion_->set_node(targets);
    return base_;
  }

  /**
   * Gains at or below this are no improvement, and gains this close tie
   * (rounding of the incremental sums): 1e-10 of the node's impurity, or
   * with the authors' rules ten machine epsilons of the gain per row in their
   * units (bits for entropy).
   */
  double tolerance() const;

  /**
   * Projected values closer than `resolution` count as equal: no split
   * falls between them (0: only equal values are; the authors' rules take
   * 1e-10 of a unit-length direction's projections).
   */
  void set_resolution(double resolution) { resolution_ = resolution; }

  /** Sweeps the projected values `u` (one per node row) and offers each valid split to `best`. */
  void sweep(const double* u, size_t min_leaf, int direction, Rng& rng, BestSplit& best);

  /**
   * Offers one cut of `u` drawn uniformly between its smallest and largest
   * values, as extremely randomised trees cut a feature (Geurts, Ernst and
   * Wehenkel, 2006): rows below the draw go left. One pass, no sort; nothing
   * is offered when the draw leaves fewer than min_leaf rows on a side.
   */
  void random_cut(const double* u, size_t min_leaf, int direction, Rng& rng, BestSplit& best);

  /** Starts a tree: the count of binned searches is the tree's own. */
  void start_tree() { binned_searches_ = 0; }

  /** Directions searched binned in the tree so far (see LimitCounts). */
  uint64_t binned_searches() const { return binned_searches_; }

  /** The gain of sending the rows with u <= threshold left; -inf if a child has no weight. */
  double gain_at(const double* u, double threshold);

 private:
  /**
   * bar_[pos]: +inf when the value at sorted position pos ties the next one,
   * where no cut is possible, else 0. A gain is offered when gain - bar_[pos]
   * reaches the finite CutOffers::reach(), which a tie's -inf (or NaN for an
   * infinite gain) never does: this keeps ties out of the sweeps' branches,
   * since whether a value ends a run of equal ones is unpredictable when
   * values tie often (features with few distinct values).
   */
  void mark_ties(const double* sorted, size_t n);
  /** The binned search; false when it cannot run (the exhaustive one does). */
  bool binned_sweep(const double* u, size_t min_leaf, int direction, Rng& rng, BestSplit& best);

  SplitRule rule_;
  bool authors_tolerance_;
  size_t exact_max_rows_;
  uint64_t binned_searches_ = 0;
  std::unique_ptr<SplitCriterion> criterion_;
  size_t n_ = 0;
  double base_ = 0.0;
  double resolution_ = 0.0;
  KeySorter sorter_;
  Buffer<double> bar_;
  Buffer<uint8_t> bins_;          // each row's bin (binned search)
  std::array<uint32_t, kBins> bin_rows_;  // rows per bin
  Buffer<double> window_values_;  // the window's projected values, in node order
  Buffer<int> window_rows_;       // their node rows
  Buffer<int> sorted_rows_;       // the window's node rows by increasing value
};

}  // namespace ccforest

#endif  // CCFOREST_SPLIT_SEARCH_H_
