#ifndef CCFOREST_FOREST_H_
#define CCFOREST_FOREST_H_

#include <Eigen/Dense>
#include <vector>

#include "Data.h"
#include "Options.h"
#include "Runtime.h"
#include "Tree.h"

namespace ccforest {

/**
 * A grown forest and, when trees were bagged, its out-of-bag predictions:
 * for each training row, the sum of leaf values over the trees whose sample
 * left it out, and how many such trees there were.
 */
struct ForestFit {
  std::vector<Tree> trees;
  Eigen::MatrixXd oob_sum;
  std::vector<int> oob_count;
  /** Mean out-of-bag permutation importance per feature, when requested. */
  std::vector<double> importance;
};

/**
 * Grows options.n_tree trees. Tree t draws only from the stream (seed, t), so
 * the forest is the same for any number of threads; out-of-bag sums are added
 * on the calling thread in tree order, so they are too.
 */
ForestFit train_forest(const Data& data, const ForestOptions& options, const Runtime& runtime,
                       bool permutation_importance = false);

}  // namespace ccforest

#endif  // CCFOREST_FOREST_H_
