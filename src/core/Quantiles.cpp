#include "Quantiles.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "Sampling.h"
#include "TreeCodec.h"

namespace ccforest {

std::vector<std::vector<int32_t>> leaf_samples(const EncodedTrees& trees, const ModelShape& shape,
                                               const Data& data, const ForestSource& source,
                                               const Runtime& runtime) {
  std::vector<std::vector<int32_t>> out(trees.size());
  run_batched(runtime, trees.size(), [&](size_t t) {
    const ForestModel model = decode_forest(trees, shape, t, t + 1);
    const uint64_t tree = source.first_tree + t;
    Rng rng(source.seed, tree);
    std::vector<int> rows;
    draw_sample(data, source.sample, rng, rows);
    const uint64_t key = tree_impute_key(source.seed, tree);
    const size_t n_leaf = static_cast<size_t>(model.n_leaves[0]);
    std::vector<std::pair<int32_t, int32_t>> leaf_row;  // (leaf, row)
    leaf_row.reserve(rows.size());
    std::vector<double> values(static_cast<size_t>(data.x.cols()));
    for (size_t i = 0; i < rows.size(); ++i) {
      if (i % 4096 == 0) runtime.throw_if_cancelled();
      tree_row(data.x, rows[i], source.impute_random, key,
               data.row_hash[static_cast<size_t>(rows[i])], values.data());
      leaf_row.emplace_back(model.leaf(0, find_leaf(model, 0, values.data())).number, rows[i]);
    }
    std::sort(leaf_row.begin(), leaf_row.end());
    std::vector<int32_t>& sample = out[t];
    sample.assign(n_leaf, 0);
    for (const auto& lr : leaf_row) ++sample[static_cast<size_t>(lr.first)];
    for (const auto& lr : leaf_row) sample.push_back(lr.second);
  });
  return out;
}

namespace {

/** Leaf l's rows within a stored sample, checked against the tree. */
struct LeafIndex {
  std::vector<size_t> begin;  // position of each leaf's first row; n_leaf + 1 values
};

LeafIndex index_sample(const LeafSample& sample, size_t n_leaf, size_t n_train) {
  if (sample.second < n_leaf) throw DamagedModel("its quantile data do not match its trees");
  LeafIndex index;
  index.begin.assign(n_leaf + 1, n_leaf);
  for (size_t l = 0; l < n_leaf; ++l) {
    const int32_t size = sample.first[l];
    if (size < 0) throw DamagedModel("its quantile data do not match its trees");
    index.begin[l + 1] = index.begin[l] + static_cast<size_t>(size);
  }
  if (index.begin[n_leaf] != sample.second) {
    throw DamagedModel("its quantile data do not match its trees");
  }
  for (size_t i = n_leaf; i < sample.second; ++i) {
    if (sample.first[i] < 0 || static_cast<size_t>(sample.first[i]) >= n_train) {
      throw DamagedModel("its quantile data refer to a training row out of range");
    }
  }
  return index;
}

}  // namespace

void predict_quantiles(const ForestModel& model, const std::vector<LeafSample>& samples,
                       const MatrixMap& x, const std::vector<uint64_t>& row_hash,
                       const PredictOptions& options, const double* y, const double* weight,
                       size_t n_train, const std::vector<double>& probs, const Runtime& runtime,
                       double* out) {
  const size_t n_tree = model.n_tree(), n = static_cast<size_t>(x.rows());
  const size_t p = static_cast<size_t>(x.cols());
  if (samples.size() != n_tree) throw DamagedModel("its quantile data do not match its trees");
  std::vector<LeafIndex> index(n_tree);
  for (size_t t = 0; t < n_tree; ++t) {
    index[t] = index_sample(samples[t], static_cast<size_t>(model.n_leaves[t]), n_train);
  }
  Runtime all_at_once = runtime;
  all_at_once.batch_size = n;
  run_batched(all_at_once, n, [&](size_t i) {
    if (i % 256 == 0) runtime.throw_if_cancelled();
    std::vector<double> row(p);
    std::vector<std::pair<double, double>> mass;  // (output, weight)
    for (size_t t = 0; t < n_tree; ++t) {
      tree_row(x, static_cast<Eigen::Index>(i), options.impute_random,
               tree_impute_key(options.seed, options.first_tree + t), row_hash[i], row.data());
      const size_t leaf = static_cast<size_t>(model.leaf(t, find_leaf(model, t, row.data())).number);
      const int32_t* rows = samples[t].first;
      const size_t first = index[t].begin[leaf], last = index[t].begin[leaf + 1];
      double total = 0.0;
      for (size_t k = first; k < last; ++k) total += weight ? weight[rows[k]] : 1.0;
      if (!(total > 0.0)) continue;
      for (size_t k = first; k < last; ++k) {
        const double w = weight ? weight[rows[k]] : 1.0;
        mass.emplace_back(y[rows[k]], w / total);
      }
    }
    std::sort(mass.begin(), mass.end());
    double all = 0.0;
    for (const auto& m : mass) all += m.second;
    // The smallest output whose cumulative weight reaches prob times the
    // total: the quantile of the weighted empirical distribution.
    size_t k = 0;
    double cumulative = 0.0;
    for (size_t q = 0; q < probs.size(); ++q) {
      const double target = probs[q] * all;
      while (k < mass.size() && (cumulative + mass[k].second < target || mass[k].second == 0.0)) {
        cumulative += mass[k].second;
        ++k;
      }
      out[q * n + i] = mass.empty() ? std::numeric_limits<double>::quiet_NaN()
                                    : mass[std::min(k, mass.size() - 1)].first;
    }
  });
}

}  // namespace ccforest
