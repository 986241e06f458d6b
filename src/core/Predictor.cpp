#include "Predictor.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "Options.h"
#include "Rng.h"

namespace ccforest {

namespace {

constexpr size_t kRowBlock = 256;

}  // namespace

int find_leaf(const ForestView& forest, int t, const MatrixMap& x, Eigen::Index row,
              uint64_t row_hash, uint64_t impute_key, bool impute_random) {
  return find_leaf_by(forest, t, [&](int column) {
    const double v = x(row, column);
    if (!std::isnan(v)) return v;
    return impute_random ? imputed_normal(impute_key, row_hash, static_cast<uint64_t>(column))
                         : 0.0;
  });
}

ForestView tree_view(const Tree& tree, const int (&node_start)[2]) {
  ForestView view;
  view.n_tree = 1;
  view.node_start = node_start;
  view.child_left = tree.child_left.data();
  view.threshold = tree.threshold.data();
  view.payload_start = tree.payload_start.data();
  view.payload_index = tree.payload_index.data();
  view.payload_value = tree.payload_value.data();
  return view;
}

namespace {

template <typename Visit>
void for_each_leaf(const ForestView& forest, const MatrixMap& x, const PredictOptions& options,
                   const Runtime& runtime, Visit visit) {
  const size_t n = static_cast<size_t>(x.rows());
  const std::vector<uint64_t> hash = row_hashes(x);
  const size_t n_block = (n + kRowBlock - 1) / kRowBlock;
  run_batched(runtime, n_block, [&](size_t block) {
    const size_t begin = block * kRowBlock, end = std::min(n, begin + kRowBlock);
    // Trees outermost within a block keeps one tree's nodes in cache.
    for (int t = 0; t < options.n_tree; ++t) {
      const uint64_t key = tree_impute_key(options.seed, static_cast<uint64_t>(t));
      for (size_t i = begin; i < end; ++i) {
        const Eigen::Index row = static_cast<Eigen::Index>(i);
        visit(row, t, find_leaf(forest, t, x, row, hash[i], key, options.impute_random));
      }
    }
  });
}

}  // namespace

Eigen::MatrixXd predict_forest(const ForestView& forest, const MatrixMap& x,
                               const PredictOptions& options, const Runtime& runtime) {
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(x.rows(), static_cast<Eigen::Index>(options.n_value));
  for_each_leaf(forest, x, options, runtime, [&](Eigen::Index row, int t, int leaf) {
    const int g = forest.node_start[t] + leaf;
    for (int e = forest.payload_start[g]; e < forest.payload_start[g + 1]; ++e) {
      out(row, forest.payload_index[e]) += forest.payload_value[e];
    }
  });
  if (options.n_tree > 0) out /= static_cast<double>(options.n_tree);
  return out;
}

}  // namespace ccforest
