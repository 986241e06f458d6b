#ifndef CCFOREST_PREDICTOR_H_
#define CCFOREST_PREDICTOR_H_

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "Data.h"
#include "Model.h"
#include "Projection.h"
#include "Rng.h"
#include "Runtime.h"

namespace ccforest {

/**
 * The leaf record (its position among the leaves of tree t, see
 * ForestModel::leaf) where a row ends. `row` holds the row's
 * value in every column, missing values already imputed for this tree; each
 * split projects it with project_row(), the routine training used.
 */
inline int32_t find_leaf(const ForestModel& model, size_t t, const double* row) {
  const uint64_t* tree = model.tree(t);
  int32_t at = model.root(t);
  while (!is_leaf(at)) {
    const NodeHead& head = ForestModel::head(tree, at);
    const double u = project_row(ForestModel::terms(tree, at), head.count, row, 1);
    at = u <= head.threshold ? head.left : head.right;
  }
  return ~at;
}

/** Rows walk_tree() walks at once. */
constexpr size_t kWalkSlots = 32;

/**
 * Walks rows list[0], ..., list[count - 1] (indices into `row`, each row's
 * values as the tree reads them) down tree t, and calls visit(i, leaf) with
 * each row's leaf record (as find_leaf() returns it) when the row reaches
 * it. Up to kWalkSlots rows walk at once, their steps interleaved so that
 * one row's wait for memory overlaps the others' work; a row that reaches
 * its leaf hands its slot to the next row of the list, so the slots stay
 * full however uneven the rows' depths. Each step is find_leaf()'s
 * projection and comparison, so every row ends in the same leaf.
 */
template <typename Visit>
void walk_tree(const ForestModel& model, size_t t, const double* const* row, const uint32_t* list,
               size_t count, Visit&& visit) {
  const int32_t root = model.root(t);
  if (is_leaf(root)) {
    for (size_t k = 0; k < count; ++k) visit(list[k], ~root);
    return;
  }
  const uint64_t* tree = model.tree(t);
  const uint64_t* leaves = model.leaves(t);
  int32_t at[kWalkSlots];
  uint32_t who[kWalkSlots];
  size_t n_slot = std::min(kWalkSlots, count), next = n_slot;
  for (size_t w = 0; w < n_slot; ++w) {
    at[w] = root;
    who[w] = list[w];
  }
  while (n_slot > 0) {
    for (size_t w = 0; w < n_slot;) {
      if (is_leaf(at[w])) {
        // Reached on the slot's last turn, which asked for its record.
        visit(who[w], ~at[w]);
        if (next == count) {
          --n_slot;
          at[w] = at[n_slot];
          who[w] = who[n_slot];
          continue;
        }
        at[w] = root;
        who[w] = list[next++];
      }
      const NodeHead& head = ForestModel::head(tree, at[w]);
      const double u = project_row(ForestModel::terms(tree, at[w]), head.count, row[who[w]], 1);
      // Which side is a coin toss the branch predictor would lose: select
      // the child arithmetically instead.
      const int32_t go_right = -static_cast<int32_t>(!(u <= head.threshold));
      const int32_t child = head.left ^ ((head.left ^ head.right) & go_right);
      at[w] = child;
      // The slot comes back after the others' turns: ask for what it reads
      // next now, so that the wait for memory overlaps them.
      const uint64_t* ahead = is_leaf(child) ? leaves + ~child : tree + child;
      __builtin_prefetch(ahead);
      __builtin_prefetch(ahead + 8);
      ++w;
    }
  }
}

/** Trees find_leaves() walks at once. */
constexpr size_t kLeafGroup = 16;

/**
 * find_leaf() of one row in trees [first, first + count) of `model`, count
 * at most kLeafGroup, into out[0, count): the trees' walks interleaved, one
 * step of each in turn, because one walk is a chain of dependent loads that
 * a single row cannot otherwise overlap.
 */
void find_leaves(const ForestModel& model, size_t first, size_t count, const double* row,
                 int32_t* out);

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

/** Fills `out` (one value per column) with row `row` of x as a tree sees it. */
inline void tree_row(const MatrixMap& x, Eigen::Index row, bool impute_random,
                     uint64_t impute_key, uint64_t row_hash, double* out) {
  for (Eigen::Index j = 0; j < x.cols(); ++j) {
    out[j] = cell_value(x(row, j), impute_random, impute_key, row_hash, static_cast<int>(j));
  }
}

/**
 * tree_row() of the training data, dense or sparse: a sparse row is its
 * zeros and its stored cells, each as cell_value() reads it, so it is the
 * row the dense matrix of the same cells gives.
 */
inline void tree_row(const Data& data, Eigen::Index row, bool impute_random,
                     uint64_t impute_key, uint64_t row_hash, double* out) {
  if (!data.is_sparse()) {
    tree_row(data.x, row, impute_random, impute_key, row_hash, out);
    return;
  }
  const SparseRows& rows = data.rows();
  std::fill(out, out + data.x.cols(), 0.0);
  for (int k = rows.start[static_cast<size_t>(row)]; k < rows.start[static_cast<size_t>(row) + 1]; ++k) {
    const int j = rows.column[static_cast<size_t>(k)];
    out[j] = cell_value(rows.value[static_cast<size_t>(k)], impute_random, impute_key, row_hash, j);
  }
}

/** How to predict: the imputation of missing values and the trees' global numbers. */
struct PredictOptions {
  uint64_t seed = 0;          // the forest's master seed (keys the imputation)
  bool impute_random = true;  // otherwise NaN counts as the training mean
  /** Global index of the model's first tree (imputation keys follow tree numbers). */
  uint64_t first_tree = 0;
  /**
   * Columns [negate_begin, negate_end) are read with their sign flipped, after
   * imputation: the same as flipping the sign of their coefficients in every
   * split (negation importance). Empty by default.
   */
  int negate_begin = 0;
  int negate_end = 0;
  /**
   * Only the model's first tree_count trees are walked: a forest prepared
   * whole once (see the bindings' prepared models) serves requests for
   * fewer trees without a copy.
   */
  size_t tree_count = std::numeric_limits<size_t>::max();

  size_t trees_of(const ForestModel& model) const { return std::min(model.n_tree(), tree_count); }
};

/** Flips the sign of columns [options.negate_begin, options.negate_end) of a row. */
inline void negate_columns(const PredictOptions& options, double* row) {
  for (int j = options.negate_begin; j < options.negate_end; ++j) row[j] = -row[j];
}

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
