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
constexpr size_t kGroup = 32;

}  // namespace

void add_tree_predictions(const ForestModel& model, const MatrixMap& x,
                          const std::vector<uint64_t>& row_hash, const PredictOptions& options,
                          const Runtime& runtime, double* out) {
  const size_t n = static_cast<size_t>(x.rows()), p = static_cast<size_t>(x.cols());
  const size_t n_tree = model.n_tree();
  const size_t n_block = (n + kRowBlock - 1) / kRowBlock;
  // Ctrl-C is polled while a batch runs, so all blocks can go in one batch,
  // which lets the threads balance the load among themselves.
  Runtime all_at_once = runtime;
  all_at_once.batch_size = n_block;
  run_batched(all_at_once, n_block, [&](size_t block) {
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
    std::vector<double> imputed(with_na.size() * p);
    // Trees outermost within the block keeps one tree's nodes in cache; each
    // row still adds its trees' values in tree order.
    for (size_t t = 0; t < n_tree; ++t) {
      const uint64_t* tree = model.tree(t);
      const uint64_t key = tree_impute_key(options.seed, options.first_tree + t);
      for (size_t k = 0; k < with_na.size(); ++k) {
        tree_row(x, static_cast<Eigen::Index>(with_na[k]), options.impute_random, key,
                 row_hash[with_na[k]], imputed.data() + k * p);
      }
      // Rows walk the tree in groups whose steps interleave, so that the
      // cache misses of one row's walk overlap with the others' work.
      for (size_t group = begin, k = 0; group < end; group += kGroup) {
        const size_t size = std::min(kGroup, end - group);
        const double* row[kGroup];
        int32_t at[kGroup];
        for (size_t g = 0; g < size; ++g) {
          const size_t i = group + g;
          const bool missing = k < with_na.size() && with_na[k] == i;
          row[g] = missing ? imputed.data() + (k++) * p : rows.data() + (i - begin) * p;
          at[g] = 0;
        }
        for (size_t active = size; active > 0;) {
          active = 0;
          for (size_t g = 0; g < size; ++g) {
            const NodeHead& head = ForestModel::head(tree, at[g]);
            if (head.left == 0) continue;
            const double u = project_row(ForestModel::coefficients(tree, at[g]), row[g],
                                         ForestModel::offsets(tree, at[g]), head.count);
            at[g] = u <= head.threshold ? head.left : head.right;
            // The row comes back to this tree after the others' steps: ask for
            // its next node now, so that the wait for memory overlaps them.
            __builtin_prefetch(tree + at[g]);
            __builtin_prefetch(tree + at[g] + 8);
            ++active;
          }
        }
        for (size_t g = 0; g < size; ++g) {
          const int32_t leaf = at[g];
          const NodeHead& head = ForestModel::head(tree, leaf);
          const int32_t* index = ForestModel::value_index(tree, leaf);
          const double* value = ForestModel::values(tree, leaf);
          for (int32_t e = 0; e < head.count; ++e) {
            out[static_cast<size_t>(index[e]) * n + group + g] += value[e];
          }
        }
      }
    }
  });
}

}  // namespace ccforest
