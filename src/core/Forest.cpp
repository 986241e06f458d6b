#include "Forest.h"

#include "TreeTrainer.h"

namespace ccforest {

std::vector<Tree> train_forest(const Data& data, const ForestOptions& options,
                               const Runtime& runtime) {
  std::vector<Tree> trees(static_cast<size_t>(options.n_tree));
  run_batched(runtime, trees.size(), [&](size_t t) {
    TreeTrainer trainer(data, options.tree, options.seed, t);
    trees[t] = trainer.grow();
  });
  return trees;
}

}  // namespace ccforest
