#include "Forest.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <utility>

#include "Importance.h"
#include "Predictor.h"
#include "Projection.h"
#include "Sampling.h"
#include "SplitSearch.h"
#include "TreeCodec.h"
#include "TreeTrainer.h"

namespace ccforest {

std::vector<int> column_features(const Data& data) {
  std::vector<int> feature_of(static_cast<size_t>(data.feature_start.back()));
  for (size_t d = 0; d < data.n_feature(); ++d) {
    for (int c = data.feature_start[d]; c < data.feature_start[d + 1]; ++c) {
      feature_of[static_cast<size_t>(c)] = static_cast<int>(d);
    }
  }
  return feature_of;
}

std::vector<double> tree_projection_importance(const Tree& tree, const std::vector<int>& feature_of,
                                               size_t n_feature) {
  std::vector<double> importance(n_feature, 0.0);
  // A feature's weight in a split is the Euclidean norm of its coefficients:
  // |w| for a numeric column, and for a factor's indicator columns a value
  // that does not grow with its number of levels (a sum of |w| would).
  std::vector<std::pair<int, double>> weight;  // (feature, sum of w^2), columns increase
  weight.reserve(std::min(n_feature, tree.column.size()));  // at most one entry per term
  for (size_t s = 0; s < tree.n_splits(); ++s) {
    weight.clear();
    // A column's terms are consecutive (two of them at double precision).
    for (int e = tree.split_begin[s]; e < tree.split_begin[s + 1];) {
      const int column = tree.column[e];
      double c = 0.0;
      for (; e < tree.split_begin[s + 1] && tree.column[e] == column; ++e) c += tree.coef[e];
      const int d = feature_of[static_cast<size_t>(column)];
      if (weight.empty() || weight.back().first != d) weight.emplace_back(d, 0.0);
      weight.back().second += c * c;
    }
    double total = 0.0;
    for (auto& fw : weight) total += fw.second = std::sqrt(fw.second);
    if (!(total > 0.0)) continue;
    for (const auto& fw : weight) {
      importance[static_cast<size_t>(fw.first)] += fw.second / total * tree.gain[s];
    }
  }
  return importance;
}

void grow_forest(const Data& data, const ForestOptions& options, const ModelShape& shape,
                 const Runtime& runtime, const BatchSink& sink) {
  const size_t n_tree = static_cast<size_t>(options.n_tree);
  const size_t n_feature = data.n_feature();
  std::unique_ptr<EntropyTable> entropy;
  if (options.tree.split_rule == SplitRule::kEntropy) {
    entropy = std::make_unique<EntropyTable>(data.n_row());
  }
  // Per tree, until its batch is handed over.
  std::vector<std::vector<uint8_t>> encoded(n_tree);
  std::vector<std::vector<double>> importance(n_tree);
  std::vector<LimitCounts> limits(n_tree);

  const std::vector<int> feature_of = column_features(data);

  // Trainers, one per tree growing at once: a tree borrows one and gives it
  // back, so a trainer's buffers (its task's, split search's, direction
  // finder's and CCA workspace's) are filled a few times per fit instead of
  // again for every tree, about two hundred allocations a small survival
  // tree (heaptrack). A reused trainer grows the tree a fresh one grows (see
  // TreeTrainer), so which trainer a tree gets never shows in the tree
  // (tools/forest-identity.R; test-reproducibility.R across thread counts).
  // A tree that throws takes its trainer with it.
  struct Slot {
    Slot(const Data& data, const TreeOptions& options, const EntropyTable* entropy,
         const Runtime* runtime)
        : trainer(data, options, entropy, runtime) {}
    TreeTrainer trainer;
    std::vector<uint8_t> bytes;  // a tree encoded, then copied out at its size
  };
  std::mutex pool_mutex;
  std::vector<std::unique_ptr<Slot>> pool;
  auto grow = [&](size_t i) {
    std::unique_ptr<Slot> slot;
    {
      std::lock_guard<std::mutex> lock(pool_mutex);
      if (!pool.empty()) {
        slot = std::move(pool.back());
        pool.pop_back();
      }
    }
    if (!slot) slot = std::make_unique<Slot>(data, options.tree, entropy.get(), &runtime);
    const Tree& tree = slot->trainer.grow(options.seed, options.first_tree + i);
    limits[i] = slot->trainer.limit_counts();
    importance[i] = tree_projection_importance(tree, feature_of, n_feature);
    encode_tree(tree, shape, slot->bytes);
    encoded[i].assign(slot->bytes.begin(), slot->bytes.end());
    std::lock_guard<std::mutex> lock(pool_mutex);
    pool.push_back(std::move(slot));
  };
  auto hand_over = [&](size_t begin, size_t end) {
    GrownBatch batch;
    batch.encoded.resize(end - begin);
    batch.importance.reserve((end - begin) * n_feature);
    for (size_t i = begin; i < end; ++i) {
      batch.encoded[i - begin].swap(encoded[i]);
      batch.importance.insert(batch.importance.end(), importance[i].begin(), importance[i].end());
      std::vector<double>().swap(importance[i]);
    }
    batch.limits.assign(limits.begin() + static_cast<std::ptrdiff_t>(begin),
                        limits.begin() + static_cast<std::ptrdiff_t>(end));
    sink(begin, batch);
  };
  run_batched(runtime, n_tree, grow, hand_over);
}

namespace {

/** Tree t of `trees` alone, decoded. */
ForestModel one_tree(const EncodedTrees& trees, const ModelShape& shape, size_t t) {
  return decode_forest(trees, shape, t, t + 1);
}

}  // namespace

OutOfBag out_of_bag(const EncodedTrees& trees, const ModelShape& shape, const Data& data,
                    const ForestSource& source, const Runtime& runtime,
                    const ForestModel* decoded) {
  const size_t n_tree = trees.size();
  OutOfBag out;
  out.sum = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(data.n_row()), shape.n_value());
  out.count.assign(data.n_row(), 0);
  // Per tree, its out-of-bag rows' leaf values, kept only until the batch is
  // summed (in tree order), so memory stays bounded by the batch.
  std::vector<std::vector<std::pair<int, std::pair<int, double>>>> found(n_tree);
  auto visit = [&](size_t t) {
    ForestModel own;
    if (decoded == nullptr) own = one_tree(trees, shape, t);
    const ForestModel& model = decoded != nullptr ? *decoded : own;
    const size_t at = decoded != nullptr ? t : 0;
    const uint64_t tree = source.first_tree + t;
    const std::vector<char> bag = in_bag(data, source.sample, source.seed, tree);
    const uint64_t key = tree_impute_key(source.seed, tree);
    std::vector<double> row_values(static_cast<size_t>(data.x.cols()));
    for (size_t row = 0; row < bag.size(); ++row) {
      if (bag[row]) continue;
      if (row % 4096 == 0) runtime.throw_if_cancelled();
      tree_row(data, static_cast<Eigen::Index>(row), source.impute_random, key,
               data.row_hash[row], row_values.data());
      const int32_t leaf = find_leaf(model, at, row_values.data());
      const int32_t* index = model.leaf_index(at, leaf);
      const double* value = model.leaf_values(at, leaf);
      for (int32_t e = 0; e < model.leaf(at, leaf).count; ++e) {
        found[t].push_back({static_cast<int>(row), {index[e], value[e]}});
      }
      found[t].push_back({static_cast<int>(row), {-1, 0.0}});
    }
  };
  const Eigen::Index n_output = static_cast<Eigen::Index>(data.n_output());
  out.error_sum = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(n_tree), n_output);
  out.n_seen.assign(n_tree, 0);
  Eigen::MatrixXd row_loss = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(data.n_row()),
                                                   n_output);
  Eigen::VectorXd total = Eigen::VectorXd::Zero(n_output);
  int seen = 0;
  // A row's loss, from its sums so far, replaces its previous loss in the total.
  auto update_loss = [&](int row) {
    for (Eigen::Index m = 0; m < n_output; ++m) {
      double loss;
      if (data.is_classification()) {
        int best = data.class_offset[m];
        for (int k = best + 1; k < data.class_offset[m + 1]; ++k) {
          if (out.sum(row, k) > out.sum(row, best)) best = k;
        }
        loss = best - data.class_offset[m] != data.y_class(row, m) ? 1.0 : 0.0;
      } else {
        const double diff = out.sum(row, m) / out.count[static_cast<size_t>(row)] -
                            data.y_real(row, m);
        loss = diff * diff;
      }
      total(m) += loss - row_loss(row, m);
      row_loss(row, m) = loss;
    }
  };
  auto sum = [&](size_t begin, size_t end) {
    for (size_t t = begin; t < end; ++t) {
      for (const auto& entry : found[t]) {
        if (entry.second.first < 0) {
          if (out.count[static_cast<size_t>(entry.first)]++ == 0) ++seen;
          update_loss(entry.first);
        } else {
          out.sum(entry.first, entry.second.first) += entry.second.second;
        }
      }
      std::vector<std::pair<int, std::pair<int, double>>>().swap(found[t]);
      out.error_sum.row(static_cast<Eigen::Index>(t)) = total.transpose();
      out.n_seen[t] = seen;
    }
  };
  run_batched(runtime, n_tree, visit, sum);
  return out;
}

std::vector<double> oob_tree_mean(const EncodedTrees& trees, const ModelShape& shape,
                                  const Data& data, const ForestSource& source,
                                  const Runtime& runtime, const TreeScore& score) {
  const size_t n_tree = trees.size();
  std::vector<std::vector<double>> per_tree(n_tree);
  std::vector<double> total(data.n_feature(), 0.0);
  size_t n_scored = 0;
  auto visit = [&](size_t t) {
    const ForestModel model = one_tree(trees, shape, t);
    const uint64_t tree = source.first_tree + t;
    per_tree[t] = score(tree, model, in_bag(data, source.sample, source.seed, tree));
  };
  auto sum = [&](size_t begin, size_t end) {
    for (size_t t = begin; t < end; ++t) {
      if (per_tree[t].empty()) continue;
      for (size_t d = 0; d < total.size(); ++d) total[d] += per_tree[t][d];
      ++n_scored;
      std::vector<double>().swap(per_tree[t]);
    }
  };
  run_batched(runtime, n_tree, visit, sum);
  for (double& value : total) value /= static_cast<double>(std::max<size_t>(1, n_scored));
  return total;
}

std::vector<double> oob_permutation_importance(const EncodedTrees& trees, const ModelShape& shape,
                                               const Data& data, const ForestSource& source,
                                               const Runtime& runtime) {
  return oob_tree_mean(trees, shape, data, source, runtime,
                       [&](uint64_t tree, const ForestModel& model, const std::vector<char>& bag) {
    // Permutations come from their own stream, so that asking for importance
    // changes nothing else.
    Rng rng(mix64(source.seed, 0x696d706f7274ULL), tree);
    return tree_permutation_importance(data, model, bag, tree_impute_key(source.seed, tree),
                                       source.impute_random, rng, runtime);
  });
}

}  // namespace ccforest
