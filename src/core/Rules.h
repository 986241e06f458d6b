#ifndef CCFOREST_RULES_H_
#define CCFOREST_RULES_H_

#include <cmath>
#include <cstddef>

#include "Options.h"
#include "Projection.h"

namespace ccforest {

/**
 * The details the paper leaves open, decided once per forest by its variant:
 * the authors' MATLAB code (variant "paper") or ccforest's own choices. The
 * trainer, the direction finder, the split search and the task strategies
 * ask these named rules instead of testing the variant, so a new variant
 * (or one rule changed alone, for a benchmark) is one place.
 */
struct Rules {
  explicit Rules(Variant variant) : authors_(variant == Variant::kPaper) {}

  /** The authors' rules: values closer than this are equal (their 1e-10). */
  static constexpr double kAuthorsResolution = 1e-10;
  /** The authors' rules: a regression node varying less than this of the tree is a leaf. */
  static constexpr double kAuthorsVarianceRatio = 1e-6;

  /**
   * How far apart two consecutive values of a gathered column must be for
   * the column to vary at the node: any difference (ccforest) or more than
   * 1e-10 (the authors' queryIfColumnsVary()).
   */
  double column_resolution() const { return authors_ ? kAuthorsResolution : 0.0; }

  /**
   * Projected values closer than this count as equal in the cut search, for
   * a direction of squared norm `norm2`: 1e-10 of the unit-length
   * direction's projections (the authors), or only equal values (ccforest).
   */
  double cut_resolution(double norm2) const {
    return authors_ ? kAuthorsResolution * std::sqrt(norm2) : 0.0;
  }

  /**
   * Directions searched one at a time, ties within a direction broken at
   * random and between directions the first (strongest) kept (the authors),
   * or all offered to one best split, near-ties broken at random (ccforest).
   */
  bool first_direction_wins_ties() const { return authors_; }

  /** The threshold stored between the two projected values either side of a cut. */
  double threshold(double lo, double hi) const {
    return authors_ ? midpoint_threshold(lo, hi) : short_threshold(lo, hi);
  }

  /**
   * Appendix B as the authors' code runs it: when the CCA's sample holds two
   * distinct rows, split halfway between them whatever the node's others.
   */
  bool cut_between_two_rows() const { return authors_; }

  /**
   * Regression: a node whose outputs all vary less than 1e-6 of the tree's
   * own variance is a leaf, and a projection bootstrap sample varying less
   * says nothing (the authors); ccforest stops only on equal outputs.
   */
  bool relative_variance_leaves() const { return authors_; }

  /**
   * A projection bootstrap sample's features vary when some column has two
   * consecutive sampled values more than 1e-10 apart (the authors), or when
   * two sampled rows differ (ccforest).
   */
  bool authors_sample_tests() const { return authors_; }

  /** The precision a direction is first stored at: double (the authors) or the least that keeps it. */
  Precision first_precision() const { return authors_ ? Precision::kDouble : Precision::kShort; }

  /**
   * The least gain that counts, and how close gains tie: ten machine
   * epsilons per row in the rule's units (the authors) or 1e-10 of the
   * node's impurity (ccforest). See SplitSearch::tolerance().
   */
  bool authors_tolerance() const { return authors_; }

  /** Whether large nodes may be searched binned (never in the authors' code). */
  bool binned_search() const { return !authors_; }

 private:
  bool authors_;
};

}  // namespace ccforest

#endif  // CCFOREST_RULES_H_
