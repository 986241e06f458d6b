#ifndef CCFOREST_PREDICTOR_H_
#define CCFOREST_PREDICTOR_H_

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>

#include "Data.h"
#include "Runtime.h"
#include "Tree.h"

namespace ccforest {

/**
 * A read-only view of a stored forest: the trees' flat arrays concatenated,
 * tree t owning nodes [node_start[t], node_start[t + 1]). Child indices are
 * local to their tree; payload offsets are global. Nothing is copied.
 */
struct ForestView {
  int n_tree = 0;
  const int* node_start = nullptr;
  const int* child_left = nullptr;
  const double* threshold = nullptr;
  const int* payload_start = nullptr;
  const int* payload_index = nullptr;
  const double* payload_value = nullptr;
};

/**
 * The leaf (index local to tree t) reached by a row whose column values are
 * given by value(column). The projection sums in stored order, as in
 * training, so training rows fall on the side of each threshold they were
 * assigned to.
 */
template <typename Value>
int find_leaf_by(const ForestView& forest, int t, Value value) {
  const int base = forest.node_start[t];
  int node = 0;
  for (;;) {
    const int g = base + node;
    const int left = forest.child_left[g];
    if (left == 0) return node;
    double u = 0.0;
    for (int e = forest.payload_start[g]; e < forest.payload_start[g + 1]; ++e) {
      u += forest.payload_value[e] * value(forest.payload_index[e]);
    }
    node = u <= forest.threshold[g] ? left : left + 1;
  }
}

/**
 * The leaf (index local to the tree) that row `row` of x reaches in tree t.
 * Missing values are imputed with the tree's key and the row's hash, exactly
 * as in training.
 */
int find_leaf(const ForestView& forest, int t, const MatrixMap& x, Eigen::Index row,
              uint64_t row_hash, uint64_t impute_key, bool impute_random);

/** A view of one in-memory tree; `node_start` must outlive the view. */
ForestView tree_view(const Tree& tree, const int (&node_start)[2]);

/** How to fill in missing values of new rows. */
struct PredictOptions {
  uint64_t seed = 0;           // the forest's master seed (keys the imputation)
  bool impute_random = true;   // otherwise NaN counts as the training mean
  int n_tree = 0;              // use trees [0, n_tree)
  size_t n_value = 0;          // width of the leaf value vectors
};

/**
 * Averages the leaf values of the first n_tree trees for each row of x.
 * Each row sums its trees in tree order, so results do not depend on threads.
 *
 * @return n x n_value matrix of class probabilities or (standardised) means.
 */
Eigen::MatrixXd predict_forest(const ForestView& forest, const MatrixMap& x,
                               const PredictOptions& options, const Runtime& runtime);

}  // namespace ccforest

#endif  // CCFOREST_PREDICTOR_H_
