#ifndef CCFOREST_PER_TREE_H_
#define CCFOREST_PER_TREE_H_

#include <cstdint>
#include <vector>

#include "Data.h"
#include "Model.h"
#include "Predictor.h"
#include "Runtime.h"

namespace ccforest {

/**
 * Node numbers of tree t's leaves, indexed by LeafHead::number: a node's
 * number is its position in breadth-first order over all nodes (splits and
 * leaves, left child before right), the numbering of tree_info().
 */
std::vector<int32_t> leaf_node_numbers(const ForestModel& model, size_t t);

/**
 * Each tree's own prediction for each row of x: out[i + n * (v + n_value * t)]
 * is value v (a class's share, or a standardised output) of the leaf that row
 * i reaches in tree t (n = x.rows()). Rows are routed as add_tree_predictions()
 * routes them, imputation included, so the trees' average is the forest's
 * prediction.
 */
void per_tree_values(const ForestModel& model, const MatrixMap& x,
                     const std::vector<uint64_t>& row_hash, const PredictOptions& options,
                     const Runtime& runtime, double* out);

/**
 * The node (numbered as by leaf_node_numbers()) where each row of x ends in
 * each tree: out[i + n * t].
 */
void terminal_nodes(const ForestModel& model, const MatrixMap& x,
                    const std::vector<uint64_t>& row_hash, const PredictOptions& options,
                    const Runtime& runtime, int32_t* out);

}  // namespace ccforest

#endif  // CCFOREST_PER_TREE_H_
