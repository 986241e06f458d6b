#ifndef CCFOREST_OPTIONS_H_
#define CCFOREST_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ccforest {

enum class SplitRule { kEntropy = 0, kGini = 1, kVariance = 2 };

/**
 * How a node turns its sampled features into candidate directions: canonical
 * correlations with the outputs (CCF), a uniformly random rotation (random
 * rotation forest), principal components, or the features' own axes (a
 * random forest).
 */
enum class Projection { kCca = 0, kRotation = 1, kPca = 2, kAxis = 3 };

/**
 * Whether the sampled features' own axes join a node's canonical directions,
 * and how they are cut: at one point drawn uniformly between the node's
 * smallest and largest values (extremely randomised trees), or at the best
 * of all points.
 */
enum class AxisCandidates { kNone = 0, kRandom = 1, kSearch = 2 };

/**
 * Which rows each tree is grown on (see draw_sample() in Sampling.h): every
 * row once, or a sample of `size` rows (0: as many as there are rows of
 * positive weight) drawn with or without replacement, or per class of the
 * output, class_size[k] rows of class k.
 */
struct RowSample {
  bool every_row = true;
  bool replace = true;
  size_t size = 0;
  std::vector<size_t> class_size;

  /** Bagging's bootstrap sample, or every row once. */
  static RowSample bootstrap(bool bagging) {
    RowSample sample;
    sample.every_row = !bagging;
    return sample;
  }
};

/** Settings for growing one tree; the constructor enforces the invariants. */
struct TreeOptions {
  TreeOptions(int mtry, int min_split, int min_leaf, int max_depth, SplitRule split_rule,
              Projection projection, bool projection_bootstrap, bool bagging,
              bool impute_random, double rank_tolerance = 1e-4, int max_directions = 0,
              int output_bins = 0,
              AxisCandidates axis_candidates = AxisCandidates::kNone)
      : mtry(mtry), min_split(min_split), min_leaf(min_leaf), max_depth(max_depth),
        split_rule(split_rule), projection(projection),
        projection_bootstrap(projection_bootstrap), bagging(bagging),
        impute_random(impute_random), rank_tolerance(rank_tolerance),
        max_directions(max_directions), output_bins(output_bins),
        axis_candidates(axis_candidates), sample(RowSample::bootstrap(bagging)) {
    if (output_bins < 0 || output_bins == 1) {
      throw std::invalid_argument("output_bins must be 0 (off) or >= 2");
    }
    if (static_cast<int>(axis_candidates) < 0 || static_cast<int>(axis_candidates) > 2) {
      throw std::invalid_argument("axis_candidates must be none (0), random (1) or search (2)");
    }
    if (max_directions < 0) throw std::invalid_argument("max_directions must be >= 0 (0 = all)");
    if (mtry < 1) throw std::invalid_argument("mtry must be >= 1");
    if (min_split < 1) throw std::invalid_argument("min_split must be >= 1");
    if (min_leaf < 1) throw std::invalid_argument("min_leaf must be >= 1");
    if (max_depth < 0) throw std::invalid_argument("max_depth must be >= 0 (0 = unlimited)");
    if (!(rank_tolerance > 0.0 && rank_tolerance < 1.0)) {
      throw std::invalid_argument("rank_tolerance must lie in (0, 1)");
    }
  }

  int mtry;
  int min_split;
  int min_leaf;
  int max_depth;  // 0 means unlimited
  SplitRule split_rule;
  Projection projection;
  bool projection_bootstrap;
  bool bagging;
  bool impute_random;
  double rank_tolerance;
  /**
   * Canonical (or principal) directions searched per node, the strongest
   * first; 0 searches all of them, as the paper does.
   */
  int max_directions;
  /**
   * Regression with one output: the CCA's output block is the output's
   * quantile bins at the node (this many, equal counts) instead of the output
   * itself; 0 keeps the paper's CCA. The split is still chosen by variance.
   */
  int output_bins;
  /** The sampled features' own axes, after the CCA's directions, and how they are cut. */
  AxisCandidates axis_candidates;
  /**
   * The rows the tree is grown on; by default bagging's bootstrap sample, or
   * every row under projection bootstrapping. A tree grown on a sample drawn
   * in proportion to the case weights is itself unweighted.
   */
  RowSample sample;
};

/** Settings for a whole forest, or for the range of its trees grown in one call. */
struct ForestOptions {
  ForestOptions(int n_tree, uint64_t seed, TreeOptions tree, uint64_t first_tree = 0)
      : n_tree(n_tree), seed(seed), first_tree(first_tree), tree(tree) {
    if (n_tree < 1) throw std::invalid_argument("n_tree must be >= 1");
  }

  int n_tree;
  uint64_t seed;
  uint64_t first_tree;  // global number of the first tree grown
  TreeOptions tree;
};

/** The key of tree t's imputation draws: distinct from its training stream. */
inline uint64_t tree_impute_key(uint64_t seed, uint64_t tree) {
  return seed * 0x9e3779b97f4a7c15ULL + tree * 0xc2b2ae3d27d4eb4fULL + 0x165667b19e3779f9ULL;
}

}  // namespace ccforest

#endif  // CCFOREST_OPTIONS_H_
