#include "Predictor.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "Options.h"

namespace ccforest {

namespace {

// Rows are copied a block at a time into row-major order, so that a split
// reads its few columns from one cache line or two instead of from one
// column of the matrix each.
constexpr size_t kRowBlock = 1024;
// Trees walked at once by a block of at most kInlineRows rows.
constexpr size_t kTreeGroup = 16;

}  // namespace

void find_leaves(const ForestModel& model, size_t first, size_t count, const double* row,
                 int32_t* out) {
  int32_t at[kLeafGroup];
  for (size_t u = 0; u < count; ++u) at[u] = model.root(first + u);
  for (bool walking = true; walking;) {
    walking = false;
    for (size_t u = 0; u < count; ++u) {
      if (is_leaf(at[u])) continue;
      walking = true;
      const uint64_t* tree = model.tree(first + u);
      const NodeHead& head = ForestModel::head(tree, at[u]);
      const double v = project_row(ForestModel::terms(tree, at[u]), head.count, row, 1);
      at[u] = v <= head.threshold ? head.left : head.right;
      // Asked for now, read on the tree's next turn: a record's head and
      // its first terms; or the leaf's record, which every caller reads.
      if (!is_leaf(at[u])) {
        __builtin_prefetch(tree + at[u]);
        __builtin_prefetch(tree + at[u] + 8);
      } else {
        __builtin_prefetch(model.leaves(first + u) + ~at[u]);
      }
    }
  }
  for (size_t u = 0; u < count; ++u) out[u] = ~at[u];
}

void add_tree_predictions(const ForestModel& model, const MatrixMap& x,
                          const std::vector<uint64_t>& row_hash, const PredictOptions& options,
                          const Runtime& runtime, double* out) {
  const size_t n = static_cast<size_t>(x.rows()), p = static_cast<size_t>(x.cols());
  const size_t n_tree = options.trees_of(model);
  const size_t n_block = (n + kRowBlock - 1) / kRowBlock;
  // Ctrl-C is polled while a batch runs, so all blocks can go in one batch,
  // which lets the threads balance the load among themselves.
  Runtime all_at_once = runtime;
  all_at_once.batch_size = n_block;
  run_rows(all_at_once, n_block, n, [&](size_t block) {
    runtime.throw_if_cancelled();
    const size_t begin = block * kRowBlock, end = std::min(n, begin + kRowBlock);
    std::vector<double> rows((end - begin) * p);
    std::vector<size_t> with_na;
    for (size_t j = 0; j < p; ++j) {
      const double* from = x.data() + j * n;
      for (size_t i = begin; i < end; ++i) rows[(i - begin) * p + j] = from[i];
    }
    for (size_t i = begin; i < end; ++i) {
      if (row_hash[i] != 0) with_na.push_back(i);
    }
    if (options.negate_end > options.negate_begin) {
      for (size_t i = begin; i < end; ++i) negate_columns(options, rows.data() + (i - begin) * p);
    }
    std::vector<double> imputed(with_na.size() * p);
    // Each row's values as the trees read them: its row-major copy, or its
    // imputed copy (refilled for every tree, at the same place).
    const size_t m = end - begin;
    std::vector<const double*> row(m);
    for (size_t i = 0, k = 0; i < m; ++i) {
      const bool missing = k < with_na.size() && with_na[k] == begin + i;
      row[i] = missing ? imputed.data() + (k++) * p : rows.data() + i * p;
    }
    auto add_leaf_of = [&](size_t t, int32_t leaf, size_t i) {
      const int32_t count = model.leaf(t, leaf).count;
      const int32_t* index = model.leaf_index(t, leaf);
      const double* value = model.leaf_values(t, leaf);
      for (int32_t e = 0; e < count; ++e) {
        out[static_cast<size_t>(index[e]) * n + begin + i] += value[e];
      }
    };
    if (m <= kInlineRows) {
      // A row's walk down one tree is a chain of loads, each split's record
      // read before the next is known, which rows alone cannot overlap when
      // there are few of them: walk kTreeGroup trees at once, their steps
      // interleaved, then add their leaves in tree order.
      std::vector<double> tree_rows(kTreeGroup * with_na.size() * p);
      const double* row_at[kTreeGroup * kInlineRows];
      int32_t at[kTreeGroup * kInlineRows];
      for (size_t t0 = 0; t0 < n_tree; t0 += kTreeGroup) {
        runtime.throw_if_cancelled();
        const size_t g = std::min(kTreeGroup, n_tree - t0), n_slot = g * m;
        for (size_t u = 0; u < g; ++u) {
          const uint64_t key = tree_impute_key(options.seed, options.first_tree + t0 + u);
          for (size_t i = 0, k = 0; i < m; ++i) {
            if (k < with_na.size() && with_na[k] == begin + i) {
              double* filled = tree_rows.data() + (u * with_na.size() + k) * p;
              tree_row(x, static_cast<Eigen::Index>(with_na[k]), options.impute_random, key,
                       row_hash[with_na[k]], filled);
              negate_columns(options, filled);
              row_at[u * m + i] = filled;
              ++k;
            } else {
              row_at[u * m + i] = rows.data() + i * p;
            }
            at[u * m + i] = model.root(t0 + u);
          }
        }
        for (bool walking = true; walking;) {
          walking = false;
          for (size_t s = 0; s < n_slot; ++s) {
            if (is_leaf(at[s])) continue;
            walking = true;
            const size_t t = t0 + s / m;
            const uint64_t* tree = model.tree(t);
            const NodeHead& head = ForestModel::head(tree, at[s]);
            const double u = project_row(ForestModel::terms(tree, at[s]), head.count, row_at[s], 1);
            const int32_t go_right = -static_cast<int32_t>(!(u <= head.threshold));
            const int32_t child = head.left ^ ((head.left ^ head.right) & go_right);
            at[s] = child;
            const uint64_t* ahead = is_leaf(child) ? model.leaves(t) + ~child : tree + child;
            __builtin_prefetch(ahead);
            __builtin_prefetch(ahead + 8);
          }
        }
        for (size_t s = 0; s < n_slot; ++s) add_leaf_of(t0 + s / m, ~at[s], s % m);
      }
      return;
    }
    // Trees outermost within the block keeps one tree's nodes in cache; each
    // row still adds its trees' values in tree order.
    std::vector<uint32_t> every_row(m);
    for (size_t i = 0; i < m; ++i) every_row[i] = static_cast<uint32_t>(i);
    for (size_t t = 0; t < n_tree; ++t) {
      // A block of a large forest takes long: look for Ctrl-C between trees.
      if (t % 16 == 15) runtime.throw_if_cancelled();
      const uint64_t key = tree_impute_key(options.seed, options.first_tree + t);
      for (size_t k = 0; k < with_na.size(); ++k) {
        tree_row(x, static_cast<Eigen::Index>(with_na[k]), options.impute_random, key,
                 row_hash[with_na[k]], imputed.data() + k * p);
        negate_columns(options, imputed.data() + k * p);
      }
      walk_tree(model, t, row.data(), every_row.data(), m,
                [&](uint32_t i, int32_t leaf) { add_leaf_of(t, leaf, i); });
    }
  });
}

}  // namespace ccforest
