#ifndef CCFOREST_PREDICTOR_H_
#define CCFOREST_PREDICTOR_H_

#include <cmath>
#include <cstdint>
#include <vector>

#include "Data.h"
#include "Model.h"
#include "Projection.h"
#include "Rng.h"
#include "Runtime.h"

namespace ccforest {

/**
 * The node (index within tree t) where a row ends, given value(column), the
 * row's value in a column with missing values already imputed. Each split's
 * values are gathered into `scratch` (model.max_count entries) and projected
 * by project_row(), the routine training used.
 */
template <typename Value>
int32_t find_leaf(const ForestModel& model, size_t t, Value value, double* scratch) {
  const Node* nodes = model.nodes.data() + model.tree_start[t];
  int32_t j = 0;
  for (;;) {
    const Node& node = nodes[j];
    if (node.left == 0) return j;
    const int32_t* column = model.column.data() + node.begin;
    for (int32_t e = 0; e < node.count; ++e) scratch[e] = value(column[e]);
    const double u = project_row(model.coef.data() + node.begin, scratch, node.count);
    j = u <= node.threshold ? node.left : node.left + 1;
  }
}

/**
 * A row's value in a column as every tree sees it: the cell itself, or for a
 * missing cell the tree's draw keyed on the row's content (random
 * imputation) or 0, the training mean of a z-scored column.
 */
inline double cell_value(double v, bool impute_random, uint64_t impute_key, uint64_t row_hash,
                         int column) {
  if (!std::isnan(v)) return v;
  return impute_random ? imputed_normal(impute_key, row_hash, static_cast<uint64_t>(column)) : 0.0;
}

/** How to predict: the imputation of missing values and the trees' global numbers. */
struct PredictOptions {
  uint64_t seed = 0;          // the forest's master seed (keys the imputation)
  bool impute_random = true;  // otherwise NaN counts as the training mean
  /** Global index of the model's first tree (imputation keys follow tree numbers). */
  uint64_t first_tree = 0;
};

/**
 * Adds the leaf values of every tree of `model`, in tree order, to each row's
 * entry of `out` (column-major, x.rows() x n_value). Calling it on
 * consecutive batches of trees therefore gives the same sums as one call on
 * all of them, whatever the threads.
 */
void add_tree_predictions(const ForestModel& model, const MatrixMap& x,
                          const std::vector<uint64_t>& row_hash, const PredictOptions& options,
                          const Runtime& runtime, double* out);

}  // namespace ccforest

#endif  // CCFOREST_PREDICTOR_H_
