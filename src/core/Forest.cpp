#include "Forest.h"

#include <algorithm>
#include <utility>

#include "Importance.h"
#include "Predictor.h"
#include "TreeTrainer.h"

namespace ccforest {

ForestFit train_forest(const Data& data, const ForestOptions& options, const Runtime& runtime,
                       bool permutation_importance) {
  const size_t n_tree = static_cast<size_t>(options.n_tree);
  const bool bagging = options.tree.bagging;
  ForestFit fit;
  fit.trees.resize(n_tree);
  // Per tree, the (row, leaf) pairs of its out-of-bag rows; kept only until
  // the batch is summed, so memory stays bounded by the batch size.
  std::vector<std::vector<std::pair<int, int>>> oob_leaves(bagging ? n_tree : 0);
  const bool importance = bagging && permutation_importance;
  std::vector<std::vector<double>> tree_importance(importance ? n_tree : 0);
  size_t n_scored = 0;
  if (importance) fit.importance.assign(data.n_feature(), 0.0);
  if (bagging) {
    fit.oob_sum = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(data.n_row()),
                                        static_cast<Eigen::Index>(data.n_value()));
    fit.oob_count.assign(data.n_row(), 0);
  }

  auto grow = [&](size_t t) {
    TreeTrainer trainer(data, options.tree, options.seed, t);
    fit.trees[t] = trainer.grow();
    if (!bagging) return;
    const int node_start[2] = {0, static_cast<int>(fit.trees[t].n_nodes())};
    const ForestView view = tree_view(fit.trees[t], node_start);
    const uint64_t key = tree_impute_key(options.seed, t);
    const std::vector<char>& in_bag = trainer.in_bag();
    for (size_t row = 0; row < in_bag.size(); ++row) {
      if (in_bag[row]) continue;
      const int leaf = find_leaf(view, 0, data.x, static_cast<Eigen::Index>(row),
                                 data.row_hash[row], key, options.tree.impute_random);
      oob_leaves[t].emplace_back(static_cast<int>(row), leaf);
    }
    if (importance) {
      // Permutations come from their own stream so that asking for importance
      // does not change the forest.
      Rng rng(mix64(options.seed, 0x696d706f7274ULL), t);
      tree_importance[t] = tree_permutation_importance(data, fit.trees[t], in_bag, key,
                                                       options.tree.impute_random, rng);
    }
  };
  auto sum_batch = [&](size_t begin, size_t end) {
    if (!bagging) return;
    for (size_t t = begin; t < end; ++t) {
      const Tree& tree = fit.trees[t];
      for (const auto& row_leaf : oob_leaves[t]) {
        const int leaf = row_leaf.second;
        for (int e = tree.payload_start[leaf]; e < tree.payload_start[leaf + 1]; ++e) {
          fit.oob_sum(row_leaf.first, tree.payload_index[e]) += tree.payload_value[e];
        }
        ++fit.oob_count[row_leaf.first];
      }
      std::vector<std::pair<int, int>>().swap(oob_leaves[t]);
      if (importance && !tree_importance[t].empty()) {
        for (size_t d = 0; d < fit.importance.size(); ++d) {
          fit.importance[d] += tree_importance[t][d];
        }
        ++n_scored;
      }
    }
  };
  run_batched(runtime, n_tree, grow, sum_batch);
  for (double& value : fit.importance) value /= static_cast<double>(std::max<size_t>(1, n_scored));
  return fit;
}

}  // namespace ccforest
