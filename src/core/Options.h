#ifndef CCFOREST_OPTIONS_H_
#define CCFOREST_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ccforest {

/**
 * Every enumerated option has its names here, in the order of its values:
 * the bindings read options by these names, so the codes live in one place.
 */
enum class SplitRule { kEntropy = 0, kGini = 1, kVariance = 2, kLogRank = 3 };
constexpr const char* kSplitRuleNames[] = {"entropy", "gini", "variance", "logrank"};

/**
 * How a node turns its sampled features into candidate directions: canonical
 * correlations with the outputs (CCF), a uniformly random rotation (random
 * rotation forest), principal components, or the features' own axes (a
 * random forest).
 */
enum class Projection { kCca = 0, kRotation = 1, kPca = 2, kAxis = 3 };
constexpr const char* kProjectionNames[] = {"cca", "rotation", "pca", "axis"};

/**
 * Whether the sampled features' own axes join a node's canonical directions,
 * and how they are cut: at one point drawn uniformly between the node's
 * smallest and largest values (extremely randomised trees), or at the best
 * of all points.
 */
enum class AxisCandidates { kNone = 0, kRandom = 1, kSearch = 2 };
constexpr const char* kAxisCandidatesNames[] = {"none", "random", "search"};

/**
 * Whose rules decide the details the paper leaves open. kPaper follows the
 * authors' code (github twgr/ccfs, growCCT.m): split points halfway between
 * adjacent projected values; ties between directions go to the first
 * (strongest); values within 1e-10 count as equal; a regression node whose
 * outputs all vary less than 1e-6 of the tree's total variance is a leaf; a
 * node whose bootstrap sample holds two distinct rows is split halfway
 * between them; coefficients kept to double precision. kCcforest departs
 * where that measured better or costs less (see NEWS and ?ccforest).
 */
enum class Variant { kCcforest = 0, kPaper = 1 };
constexpr const char* kVariantNames[] = {"ccforest", "paper"};

/** The value whose name is `name` among `names`; std::invalid_argument naming `what` otherwise. */
template <typename Enum, size_t N>
Enum enum_from_name(const char* const (&names)[N], const std::string& name, const char* what) {
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<Enum>(i);
  }
  throw std::invalid_argument(std::string("unknown ") + what + " \"" + name + "\"");
}

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

/** Settings for growing one tree; check() enforces the invariants. */
struct TreeOptions {
  int mtry = 1;
  int min_split = 2;
  int min_leaf = 1;
  int max_depth = 0;  // 0 means unlimited
  /** Survival (the log-rank rule): the least rows with an event in each child. */
  int min_events = 1;
  /**
   * Survival: a node whose best cut has a log-rank statistic below this is a
   * leaf (aorsf's split_min_stat); 0 splits wherever a cut is allowed.
   */
  double min_statistic = 0.0;
  SplitRule split_rule = SplitRule::kEntropy;
  Projection projection = Projection::kCca;
  bool projection_bootstrap = true;
  bool impute_random = true;
  /** The CCA's rank tolerance (the paper's epsilon, Appendix A). */
  double rank_tolerance = 1e-4;
  /**
   * Canonical (or principal) directions searched per node, the strongest
   * first; 0 searches all of them, as the paper does.
   */
  int max_directions = 0;
  /**
   * Classification: of those, a canonical direction after the first is
   * searched only when its canonical correlation is at least this fraction
   * of the first's; 0 searches them all (the paper). Other tasks, principal
   * directions, rotations and axes are not affected.
   */
  double direction_ratio = 0.0;
  /**
   * Regression with one output: the CCA's output block is the output's
   * quantile bins at the node (this many, equal counts) instead of the output
   * itself; 0 keeps the paper's CCA. The split is still chosen by variance.
   */
  int output_bins = 0;
  /**
   * Projection bootstrapping: a node with more rows draws this many for its
   * CCA (or principal components) instead of as many as it has; 0 draws as
   * many (the paper).
   */
  int bootstrap_max_rows = 0;
  /**
   * Nodes with more rows search each direction's cuts binned first (see
   * SplitSearch), where the criterion can; 0 searches every node
   * exhaustively (the paper).
   */
  int exact_split_max_rows = 0;
  /** The sampled features' own axes, after the CCA's directions, and how they are cut. */
  AxisCandidates axis_candidates = AxisCandidates::kNone;
  Variant variant = Variant::kCcforest;
  /**
   * The rows the tree is grown on: every row (projection bootstrapping, the
   * default) or a sample (bagging's bootstrap sample by default). A tree
   * grown on a sample drawn in proportion to the case weights is itself
   * unweighted.
   */
  RowSample sample;
  /**
   * One weight per feature: features are sampled at a node with probability
   * in proportion to their weight, without replacement, and a feature of
   * weight 0 never; empty samples them uniformly (the paper).
   */
  std::vector<double> feature_weights;

  void check() const {
    if (mtry < 1) throw std::invalid_argument("mtry must be >= 1");
    if (min_split < 1) throw std::invalid_argument("min_split must be >= 1");
    if (min_leaf < 1) throw std::invalid_argument("min_leaf must be >= 1");
    if (max_depth < 0) throw std::invalid_argument("max_depth must be >= 0 (0 = unlimited)");
    if (min_events < 1) throw std::invalid_argument("min_events must be >= 1");
    if (!(min_statistic >= 0.0)) throw std::invalid_argument("min_statistic must be >= 0");
    if (!(rank_tolerance > 0.0 && rank_tolerance < 1.0)) {
      throw std::invalid_argument("rank_tolerance must lie in (0, 1)");
    }
    if (max_directions < 0) throw std::invalid_argument("max_directions must be >= 0 (0 = all)");
    if (!(direction_ratio >= 0.0 && direction_ratio <= 1.0)) {
      throw std::invalid_argument("direction_ratio must lie in [0, 1]");
    }
    if (bootstrap_max_rows < 0) {
      throw std::invalid_argument("bootstrap_max_rows must be >= 0 (0 = as many as the node has)");
    }
    if (exact_split_max_rows < 0) {
      throw std::invalid_argument("exact_split_max_rows must be >= 0 (0 = every node)");
    }
    if (output_bins < 0 || output_bins == 1) {
      throw std::invalid_argument("output_bins must be 0 (off) or >= 2");
    }
    if (static_cast<int>(axis_candidates) < 0 || static_cast<int>(axis_candidates) > 2) {
      throw std::invalid_argument("axis_candidates must be none, random or search");
    }
  }
};

/**
 * How often the limits ccforest adds to the paper acted while trees grew,
 * so that a fit can say which of them changed it (print() in R) without
 * repeating the core's rules: nodes whose ranked directions were cut short
 * by max_directions (the limit reached) or else by direction_ratio (a
 * direction too weak against the first); nodes whose projection
 * bootstrap drew bootstrap_max_rows rows instead of as many as the node
 * had; directions searched binned because their node had more than
 * exact_split_max_rows rows.
 */
struct LimitCounts {
  uint64_t max_directions = 0;
  uint64_t direction_ratio = 0;
  uint64_t bootstrap_max_rows = 0;
  uint64_t exact_split_max_rows = 0;

  LimitCounts& operator+=(const LimitCounts& other) {
    max_directions += other.max_directions;
    direction_ratio += other.direction_ratio;
    bootstrap_max_rows += other.bootstrap_max_rows;
    exact_split_max_rows += other.exact_split_max_rows;
    return *this;
  }
};

/** Settings for a whole forest, or for the range of its trees grown in one call. */
struct ForestOptions {
  ForestOptions(int n_tree, uint64_t seed, TreeOptions tree, uint64_t first_tree = 0)
      : n_tree(n_tree), seed(seed), first_tree(first_tree), tree(tree) {
    if (n_tree < 1) throw std::invalid_argument("n_tree must be >= 1");
    this->tree.check();
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
