// A TreeTrainer grows many trees of a fit, one after another (grow_forest()
// keeps one per tree growing at once): each tree must be the one a fresh
// trainer grows, bit for bit, whatever trees the trainer grew before. The
// data make every per-tree state act (dropped features, imputed missing
// values, case weights, sparse marks, weighted feature draws, binned
// searches and capped bootstrap samples, classes, values and survival), so
// that anything one tree left behind would show in the next.
#include "core_test.h"

namespace ccforest_test {

namespace {

bool same_tree(const Tree& a, const Tree& b) {
  return a.is_split == b.is_split && a.threshold == b.threshold && a.gain == b.gain &&
         a.precision == b.precision && a.split_begin == b.split_begin && a.column == b.column &&
         a.coef == b.coef && a.leaf_begin == b.leaf_begin && a.leaf_index == b.leaf_index &&
         a.leaf_value == b.leaf_value;
}

bool same_counts(const LimitCounts& a, const LimitCounts& b) {
  return a.max_directions == b.max_directions && a.direction_ratio == b.direction_ratio &&
         a.bootstrap_max_rows == b.bootstrap_max_rows &&
         a.exact_split_max_rows == b.exact_split_max_rows;
}

/**
 * Grows trees of two seeds, in an order that revisits earlier trees, with
 * one trainer, and checks each against a fresh trainer's tree and limit
 * counts; returns the number of splits grown (so a case that grew only
 * stumps can be told apart).
 */
size_t check_reuse(const Data& data, const TreeOptions& options, const std::string& what) {
  const EntropyTable entropy(data.n_row());
  TreeTrainer reused(data, options, &entropy);
  const std::vector<std::pair<uint64_t, uint64_t>> order = {
      {3, 0}, {3, 1}, {11, 0}, {3, 2}, {3, 0}, {11, 5}, {3, 7}, {11, 0}, {3, 1}, {3, 9}};
  bool trees = true, counts = true;
  size_t splits = 0;
  for (const auto& [seed, t] : order) {
    TreeTrainer fresh(data, options, &entropy);
    const Tree& expected = fresh.grow(seed, t);
    const Tree& got = reused.grow(seed, t);
    trees = trees && same_tree(got, expected);
    counts = counts && same_counts(reused.limit_counts(), fresh.limit_counts());
    splits += got.n_splits();
  }
  check(trees, what + ": a reused trainer grows a fresh trainer's trees");
  check(counts, what + ": a reused trainer counts only its tree's limits");
  return splits;
}

}  // namespace

void test_trainer_reuse() {
  std::mt19937_64 gen(6);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int n = 160;
  // Features: 0-2 numeric (1 with missing values), 3 binary (constant in
  // many nodes, so dropped there), 4 constant (dropped at every root), 5 a
  // factor of three levels (three indicator columns).
  const int p = 8;
  std::vector<double> x(static_cast<size_t>(n) * p);
  auto cell = [&](int i, int j) -> double& { return x[static_cast<size_t>(j) * n + i]; };
  std::vector<int> y(n), time_rank(n), event(n);
  std::vector<double> y_real(n), weight(n);
  for (int i = 0; i < n; ++i) {
    cell(i, 0) = normal(gen);
    cell(i, 1) = unit(gen) < 0.1 ? std::numeric_limits<double>::quiet_NaN() : normal(gen);
    cell(i, 2) = normal(gen);
    cell(i, 3) = unit(gen) < 0.3 ? 1.0 : 0.0;
    cell(i, 4) = 2.5;
    const int level = static_cast<int>(unit(gen) * 3);
    for (int k = 0; k < 3; ++k) cell(i, 5 + k) = level == k ? 1.0 : 0.0;
    const double a = cell(i, 0) + (std::isnan(cell(i, 1)) ? 0.0 : cell(i, 1)) + 0.7 * level;
    y[i] = a + 0.5 * normal(gen) > 0.5 ? 1 : 0;
    y_real[i] = a + 0.3 * normal(gen);
    weight[i] = 0.5 + unit(gen);
    // Survival: 40 event times, two causes, about a fifth censored.
    time_rank[i] = std::min(39, std::max(-1, static_cast<int>(20 + 8 * a + 4 * normal(gen))));
    event[i] = unit(gen) < 0.2 ? 0 : (unit(gen) < 0.7 ? 1 : 2);
    if (time_rank[i] < 0) event[i] = 0;
  }
  const std::vector<int> feature_start = {0, 1, 2, 3, 4, 5, 8};
  const std::vector<char> indicators = {0, 0, 0, 0, 0, 1};
  std::vector<int> no_class;
  std::vector<double> no_real;
  const Data classes(MatrixMap(x.data(), n, p), feature_start, indicators,
                     IntMatrixMap(y.data(), n, 1), {2}, MatrixMap(no_real.data(), n, 0));
  const Data weighted(MatrixMap(x.data(), n, p), feature_start, indicators,
                      IntMatrixMap(y.data(), n, 1), {2}, MatrixMap(no_real.data(), n, 0),
                      weight.data());
  const Data values(MatrixMap(x.data(), n, p), feature_start, indicators,
                    IntMatrixMap(no_class.data(), n, 0), {}, MatrixMap(y_real.data(), n, 1));
  SurvivalOutcome outcome;
  outcome.time_rank = time_rank.data();
  outcome.event = event.data();
  outcome.n_time = 40;
  outcome.n_cause = 2;
  outcome.intervals = 2;
  const Data survival(MatrixMap(x.data(), n, p), feature_start, indicators,
                      IntMatrixMap(no_class.data(), n, 0), {}, MatrixMap(no_real.data(), n, 0),
                      nullptr, false, outcome);

  // The same cells, compressed by column (zeros not stored).
  std::vector<int> start(1, 0), row;
  std::vector<double> value;
  for (int j = 0; j < p; ++j) {
    for (int i = 0; i < n; ++i) {
      if (cell(i, j) != 0.0) {
        row.push_back(i);
        value.push_back(cell(i, j));
      }
    }
    start.push_back(static_cast<int>(row.size()));
  }
  const Data sparse(sparse_columns(start, row, value), n, p, feature_start, indicators,
                    IntMatrixMap(y.data(), n, 1), {2}, MatrixMap(no_real.data(), n, 0));

  TreeOptions plain = tree_options(3, 2, 1, 0, SplitRule::kEntropy, Projection::kCca, true, true);
  size_t splits = check_reuse(classes, plain, "classification, bagged");
  TreeOptions limits = plain;
  limits.exact_split_max_rows = 40;
  limits.bootstrap_max_rows = 50;
  limits.max_directions = 1;
  limits.direction_ratio = 0.5;
  limits.axis_candidates = AxisCandidates::kRandom;
  splits += check_reuse(classes, limits, "classification with every limit and random axes");
  TreeOptions by_weight = tree_options(2, 2, 1, 0, SplitRule::kGini, Projection::kCca, true, false);
  splits += check_reuse(weighted, by_weight, "case weights, every row");
  TreeOptions drawn = plain;
  drawn.feature_weights = {1.0, 2.0, 0.5, 1.0, 1.0, 0.0};
  splits += check_reuse(classes, drawn, "weighted feature draws");
  TreeOptions paper = plain;
  paper.variant = Variant::kPaper;
  splits += check_reuse(classes, paper, "the authors' rules");
  splits += check_reuse(sparse, plain, "sparse");
  TreeOptions small_sparse = plain;
  small_sparse.mtry = 1;
  splits += check_reuse(sparse, small_sparse, "sparse, one feature a node");
  // Stumps on columns of two stored cells each: every tree's last marked
  // node is its root, the same range as the next tree's root over other
  // rows, whose marks must not be the last tree's.
  const int q = 30;
  std::vector<int> thin_start(1, 0), thin_row;
  std::vector<double> thin_value;
  for (int j = 0; j < q; ++j) {
    const int a = static_cast<int>(unit(gen) * n), b = static_cast<int>(unit(gen) * n);
    for (int i = 0; i < n; ++i) {
      if (i != a && i != b) continue;
      thin_row.push_back(i);
      thin_value.push_back(1.0 + normal(gen));
    }
    thin_start.push_back(static_cast<int>(thin_row.size()));
  }
  std::vector<int> thin_features(q + 1);
  for (int j = 0; j <= q; ++j) thin_features[j] = j;
  const Data thin(sparse_columns(thin_start, thin_row, thin_value), n, q, thin_features,
                  std::vector<char>(q, 0), IntMatrixMap(y.data(), n, 1), {2},
                  MatrixMap(no_real.data(), n, 0));
  TreeOptions stumps = tree_options(6, 2, 1, 1, SplitRule::kGini, Projection::kCca, false, true);
  splits += check_reuse(thin, stumps, "sparse stumps");
  TreeOptions regression = tree_options(3, 5, 2, 0, SplitRule::kVariance, Projection::kCca, true, true);
  splits += check_reuse(values, regression, "regression");
  regression.variant = Variant::kPaper;
  splits += check_reuse(values, regression, "regression, the authors' variance rule");
  TreeOptions bins = tree_options(3, 5, 2, 0, SplitRule::kVariance, Projection::kCca, true, true);
  bins.output_bins = 4;
  splits += check_reuse(values, bins, "regression, output bins");
  TreeOptions log_rank = tree_options(3, 10, 3, 0, SplitRule::kLogRank, Projection::kCca, true, true);
  log_rank.min_events = 2;
  splits += check_reuse(survival, log_rank, "survival, two causes");
  log_rank.min_statistic = 1.0;
  log_rank.exact_split_max_rows = 30;
  splits += check_reuse(survival, log_rank, "survival, min_statistic, binned");
  check(splits > 500, "the reuse cases grow trees with splits (" + std::to_string(splits) + ")");
}

}  // namespace ccforest_test
