#ifndef CCFOREST_SPLIT_SEARCH_H_
#define CCFOREST_SPLIT_SEARCH_H_

#include <cstddef>
#include <memory>

#include "Buffer.h"
#include "Options.h"
#include "Rng.h"
#include "SortKeys.h"
#include "SplitCriterion.h"

namespace ccforest {

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
 */
class SplitSearch {
 public:
  /**
   * @param n_value number of classes over all outputs (classification), of
   *   outputs (regression) or of causes (survival).
   * @param entropy the forest's table (entropy rule only), covering the largest node.
   * @param min_events the log-rank rule's least number of events in a child.
   */
  SplitSearch(SplitRule rule, size_t n_value, const EntropyTable* entropy,
              Variant variant = Variant::kCcforest, size_t min_events = 1)
      : rule_(rule), paper_(variant == Variant::kPaper),
        criterion_(make_criterion(rule, n_value, entropy, min_events)) {}

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

  SplitRule rule_;
  bool paper_;
  std::unique_ptr<SplitCriterion> criterion_;
  size_t n_ = 0;
  double base_ = 0.0;
  double resolution_ = 0.0;
  KeySorter sorter_;
  Buffer<double> bar_;
};

}  // namespace ccforest

#endif  // CCFOREST_SPLIT_SEARCH_H_
