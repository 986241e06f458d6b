#ifndef CCFOREST_FOREST_H_
#define CCFOREST_FOREST_H_

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <vector>

#include "Data.h"
#include "Model.h"
#include "Options.h"
#include "Runtime.h"
#include "Tree.h"

namespace ccforest {

/**
 * A batch of grown trees: `encoded[i]` is tree begin + i in stored form,
 * `importance` its projection importance (n_feature values per tree) and
 * `limits` the limits that acted while it grew (one per tree). The receiver
 * may take the vectors' contents (they are not used again).
 */
struct GrownBatch {
  std::vector<std::vector<uint8_t>> encoded;
  std::vector<double> importance;
  std::vector<LimitCounts> limits;
};

/** Receives each batch of grown trees on the calling thread, in tree order. */
using BatchSink = std::function<void(size_t begin, GrownBatch& batch)>;

/**
 * Grows trees options.first_tree, ..., options.first_tree + options.n_tree - 1
 * of the forest with options.seed. Tree t depends only on (data, options,
 * seed, t), never on threads, batches or the other trees, so ranges grown
 * apart and put together in order give the same forest as one run.
 */
void grow_forest(const Data& data, const ForestOptions& options, const ModelShape& shape,
                 const Runtime& runtime, const BatchSink& sink);

/** The feature (of data.n_feature()) of each column of data's matrix. */
std::vector<int> column_features(const Data& data);

/**
 * A split's gain shared among the original features of its hyperplane in
 * proportion to the norm of each feature's coefficients (|coefficient| for a
 * numeric column), summed per feature over the tree; `feature_of` is
 * column_features() of the data the tree was grown on.
 */
std::vector<double> tree_projection_importance(const Tree& tree, const std::vector<int>& feature_of,
                                               size_t n_feature);

/** Where the stored trees of a forest came from, to redraw what was not stored. */
struct ForestSource {
  uint64_t seed = 0;
  uint64_t first_tree = 0;   // global number of trees[0]
  RowSample sample;          // the rows each tree was grown on
  bool impute_random = true;
};

/**
 * Out-of-bag sums: for each training row, the sum of the leaf values of the
 * trees whose sample left it out (added in tree order) and their
 * number. Samples are redrawn from (seed, tree). `decoded`, when given, is
 * `trees` already decoded (a fit's prepared model), walked instead of
 * decoding each tree again.
 */
struct OutOfBag {
  Eigen::MatrixXd sum;
  std::vector<int> count;
  /**
   * The out-of-bag error as trees are added: after the first k + 1 trees,
   * error_sum(k, m) sums output m's loss (0/1 misclassification, or the
   * squared error of the standardised output) over the n_seen[k] rows that
   * at least one of them left out.
   */
  Eigen::MatrixXd error_sum;
  std::vector<int> n_seen;
};
OutOfBag out_of_bag(const EncodedTrees& trees, const ModelShape& shape, const Data& data,
                    const ForestSource& source, const Runtime& runtime,
                    const ForestModel* decoded = nullptr);

/**
 * A tree's out-of-bag score per feature, from its global number, the tree
 * alone and its in-bag flags; empty when the tree has no out-of-bag rows.
 */
using TreeScore = std::function<std::vector<double>(uint64_t tree, const ForestModel& model,
                                                    const std::vector<char>& in_bag)>;

/**
 * The mean of `score` over the trees that have out-of-bag rows, summed in
 * tree order (samples redrawn from (seed, tree)): the common frame of the
 * out-of-bag importances.
 */
std::vector<double> oob_tree_mean(const EncodedTrees& trees, const ModelShape& shape,
                                  const Data& data, const ForestSource& source,
                                  const Runtime& runtime, const TreeScore& score);

/**
 * Mean out-of-bag permutation importance per feature over the trees that
 * have out-of-bag rows (see Importance.h), summed in tree order.
 */
std::vector<double> oob_permutation_importance(const EncodedTrees& trees, const ModelShape& shape,
                                               const Data& data, const ForestSource& source,
                                               const Runtime& runtime);

}  // namespace ccforest

#endif  // CCFOREST_FOREST_H_
