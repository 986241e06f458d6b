#include "PerTree.h"

#include <algorithm>

#include "Options.h"

namespace ccforest {

namespace {

constexpr size_t kRowBlock = 256;

/**
 * Calls visit(i, t, leaf) for every row i of x and tree t of the model, with
 * the leaf record the row reaches; blocks of rows run in parallel, so visit
 * must only write what belongs to row i.
 */
template <typename Visit>
void walk_all(const ForestModel& model, const MatrixMap& x, const std::vector<uint64_t>& row_hash,
              const PredictOptions& options, const Runtime& runtime, Visit visit) {
  const size_t n = static_cast<size_t>(x.rows()), p = static_cast<size_t>(x.cols());
  const size_t n_block = (n + kRowBlock - 1) / kRowBlock;
  Runtime all_at_once = runtime;
  all_at_once.batch_size = n_block;
  run_rows(all_at_once, n_block, n, [&](size_t block) {
    runtime.throw_if_cancelled();
    const size_t begin = block * kRowBlock, end = std::min(n, begin + kRowBlock);
    std::vector<double> row(p);
    for (size_t t = 0; t < options.trees_of(model); ++t) {
      const uint64_t key = tree_impute_key(options.seed, options.first_tree + t);
      for (size_t i = begin; i < end; ++i) {
        tree_row(x, static_cast<Eigen::Index>(i), options.impute_random, key, row_hash[i],
                 row.data());
        visit(i, t, find_leaf(model, t, row.data()));
      }
    }
  });
}

}  // namespace

std::vector<int32_t> leaf_node_numbers(const ForestModel& model, size_t t) {
  std::vector<int32_t> number(static_cast<size_t>(model.n_leaves[t]), 0);
  std::vector<int32_t> queue{model.root(t)};
  const uint64_t* tree = model.tree(t);
  for (size_t j = 0; j < queue.size(); ++j) {
    const int32_t at = queue[j];
    if (is_leaf(at)) {
      number[static_cast<size_t>(model.leaf(t, ~at).number)] = static_cast<int32_t>(j);
      continue;
    }
    queue.push_back(ForestModel::head(tree, at).left);
    queue.push_back(ForestModel::head(tree, at).right);
  }
  return number;
}

void per_tree_values(const ForestModel& model, const MatrixMap& x,
                     const std::vector<uint64_t>& row_hash, const PredictOptions& options,
                     const Runtime& runtime, double* out) {
  const size_t n = static_cast<size_t>(x.rows());
  const size_t n_value = static_cast<size_t>(model.shape.n_value());
  std::fill(out, out + n * n_value * options.trees_of(model), 0.0);
  walk_all(model, x, row_hash, options, runtime, [&](size_t i, size_t t, int32_t leaf) {
    const int32_t count = model.leaf(t, leaf).count;
    const int32_t* index = model.leaf_index(t, leaf);
    const double* value = model.leaf_values(t, leaf);
    for (int32_t e = 0; e < count; ++e) {
      out[i + n * (static_cast<size_t>(index[e]) + n_value * t)] = value[e];
    }
  });
}

void terminal_nodes(const ForestModel& model, const MatrixMap& x,
                    const std::vector<uint64_t>& row_hash, const PredictOptions& options,
                    const Runtime& runtime, int32_t* out) {
  const size_t n = static_cast<size_t>(x.rows());
  std::vector<std::vector<int32_t>> numbers(options.trees_of(model));
  for (size_t t = 0; t < numbers.size(); ++t) numbers[t] = leaf_node_numbers(model, t);
  walk_all(model, x, row_hash, options, runtime, [&](size_t i, size_t t, int32_t leaf) {
    out[i + n * t] = numbers[t][static_cast<size_t>(model.leaf(t, leaf).number)];
  });
}

}  // namespace ccforest
