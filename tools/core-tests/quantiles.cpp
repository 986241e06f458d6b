// Core tests: quantile regression forests' predictions against the weighted
// distribution of the leaves' training outputs, computed here by brute force.
#include "Quantiles.h"
#include "core_test.h"

namespace ccforest_test {

namespace {

/**
 * Each row's quantiles by brute force: the shares of its leaves' rows added
 * up per training row, in output order, and the smallest output whose total
 * reaches the target (less a tolerance far below any gap between totals).
 */
std::vector<double> brute_quantiles(const ForestModel& model,
                                    const std::vector<std::vector<int32_t>>& samples,
                                    const Data& data, const std::vector<double>& y,
                                    const std::vector<double>& w, uint64_t seed,
                                    const std::vector<double>& probs) {
  const size_t n = static_cast<size_t>(data.x.rows()), n_tree = model.n_tree();
  std::vector<int32_t> order(y.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return y[a] < y[b]; });
  std::vector<double> out(n * probs.size());
  std::vector<double> row(static_cast<size_t>(data.x.cols()));
  for (size_t i = 0; i < n; ++i) {
    std::vector<double> mass(y.size(), 0.0);
    double trees = 0.0;
    for (size_t t = 0; t < n_tree; ++t) {
      tree_row(data.x, static_cast<Eigen::Index>(i), true, tree_impute_key(seed, t),
               data.row_hash[i], row.data());
      const size_t number = static_cast<size_t>(model.leaf(t, find_leaf(model, t, row.data())).number);
      const std::vector<int32_t>& s = samples[t];
      const size_t n_leaf = static_cast<size_t>(model.n_leaves[t]);
      size_t begin = n_leaf;
      for (size_t l = 0; l < number; ++l) begin += static_cast<size_t>(s[l]);
      const size_t end = begin + static_cast<size_t>(s[number]);
      double total = 0.0;
      for (size_t k = begin; k < end; ++k) total += w[static_cast<size_t>(s[k])];
      if (total == 0.0) continue;
      trees += 1.0;
      for (size_t k = begin; k < end; ++k) mass[static_cast<size_t>(s[k])] += w[static_cast<size_t>(s[k])] / total;
    }
    for (size_t q = 0; q < probs.size(); ++q) {
      double cumulative = 0.0, answer = std::nan("");
      for (int32_t r : order) {
        if (mass[static_cast<size_t>(r)] == 0.0) continue;
        cumulative += mass[static_cast<size_t>(r)];
        answer = y[static_cast<size_t>(r)];
        if (cumulative >= probs[q] * trees - 1e-9) break;
      }
      out[q * n + i] = answer;
    }
  }
  return out;
}

}  // namespace

void test_quantiles() {
  // Two regimes of predict_quantiles(): few training rows for the leaves'
  // entries (a pass over the outputs' ranks) and many (selection among the
  // entries), each with outputs tied at one decimal and case weights.
  const std::vector<double> probs = {0.0, 0.05, 0.25, 0.5, 0.75, 0.9, 1.0};
  const struct {
    int n, n_tree, min_leaf;
  } regimes[] = {{400, 30, 4}, {5000, 2, 2}};
  for (const auto& regime : regimes) {
    std::mt19937_64 gen(static_cast<uint64_t>(regime.n));
    std::normal_distribution<double> normal(0.0, 1.0);
    const int n = regime.n, p = 2;
    std::vector<double> x(static_cast<size_t>(n) * p), y(static_cast<size_t>(n)), w(y.size());
    std::vector<int> no_class;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < p; ++j) x[static_cast<size_t>(j * n + i)] = normal(gen);
      y[static_cast<size_t>(i)] = std::round(10.0 * (x[static_cast<size_t>(i)] + normal(gen))) / 10.0;
      w[static_cast<size_t>(i)] = i % 3 == 0 ? 2.0 : (i % 3 == 1 ? 0.5 : 1.0);
    }
    const Data data(MatrixMap(x.data(), n, p), {0, 1, 2}, {0, 0},
                    IntMatrixMap(no_class.data(), n, 0), {}, MatrixMap(y.data(), n, 1));
    ModelShape shape;
    shape.n_column = p;
    shape.n_output_real = 1;
    const TreeOptions tree =
        tree_options(2, 2 * regime.min_leaf, regime.min_leaf, 0, SplitRule::kVariance,
                     Projection::kCca, true, false);
    const ForestOptions options(regime.n_tree, 23, tree);
    Runtime runtime;
    const Grown grown = grow(data, options, shape, runtime);
    const ForestModel model = decode_forest(grown.view(), shape, 0, grown.bytes.size());
    ForestSource source;
    source.seed = 23;
    source.sample = tree.sample;
    const std::vector<std::vector<int32_t>> samples =
        leaf_samples(grown.view(), shape, data, source, runtime);
    std::vector<LeafSample> views;
    for (const auto& s : samples) views.emplace_back(s.data(), s.size());
    const QuantileSamples prepared(model, views, y.data(), w.data(), y.size(), runtime);
    PredictOptions po;
    po.seed = 23;
    std::vector<double> got(static_cast<size_t>(n) * probs.size());
    predict_quantiles(model, prepared, data.x, data.row_hash, po, probs, runtime, got.data());
    const std::vector<double> expected = brute_quantiles(model, samples, data, y, w, 23, probs);
    size_t differ = 0;
    for (size_t k = 0; k < got.size(); ++k) differ += got[k] != expected[k];
    check(differ == 0, "quantiles are the weighted leaf distribution's (" +
                           std::to_string(differ) + " differ, " + std::to_string(n) + " rows, " +
                           std::to_string(regime.n_tree) + " trees)");
  }
}

}  // namespace ccforest_test
