// Tests of src/core built without R: the core must compile and behave on its
// own (it never includes R headers). Run with `make core-test`, which builds
// this file with AddressSanitizer and UndefinedBehaviorSanitizer.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "Cca.h"
#include "Data.h"
#include "Forest.h"
#include "Predictor.h"
#include "Rng.h"
#include "SortKeys.h"
#include "SplitSearch.h"

using namespace ccforest;

namespace {

int failures = 0, checks = 0;

void check(bool ok, const std::string& what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::printf("FAILED: %s\n", what.c_str());
  }
}

void test_rng() {
  Rng a(42, 7), b(42, 7), c(42, 8);
  bool same = true, differs = false, in_range = true;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = a.next(), y = b.next(), z = c.next();
    same = same && x == y;
    differs = differs || x != z;
  }
  for (int i = 0; i < 10000; ++i) {
    const double u = a.uniform();
    const size_t k = a.index(7);
    in_range = in_range && u >= 0.0 && u < 1.0 && k < 7;
  }
  check(same, "a stream is determined by (seed, stream)");
  check(differs, "different streams differ");
  check(in_range, "uniform in [0, 1) and index in [0, n)");
  double mean = 0.0, sq = 0.0;
  for (int i = 0; i < 20000; ++i) {
    const double z = a.normal();
    mean += z;
    sq += z * z;
  }
  mean /= 20000;
  check(std::abs(mean) < 0.05 && std::abs(sq / 20000 - 1.0) < 0.05, "normal draws have mean 0, variance 1");
}

void test_sorter() {
  std::mt19937_64 gen(1);
  std::uniform_int_distribution<int> values(-50, 50);
  std::normal_distribution<double> normal;
  // Ties, values that agree in their top 32 bits (1 + 1e-9 k), and wide ranges,
  // around both sorting paths (std::sort below 64 values, radix above).
  for (int n : {1, 5, 63, 64, 300, 2047, 5000}) {
    for (int kind = 0; kind < 3; ++kind) {
      std::vector<double> u(n);
      for (int i = 0; i < n; ++i) {
        u[i] = kind == 0 ? values(gen) * 0.25 : kind == 1 ? 1.0 + 1e-9 * values(gen) : normal(gen) * 1e6;
      }
      std::vector<std::pair<double, int>> expected(n);
      for (int i = 0; i < n; ++i) expected[i] = {u[i], i};
      std::stable_sort(expected.begin(), expected.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      KeySorter sorter;
      sorter.sort(u.data(), n);
      bool same = true;
      for (int k = 0; k < n; ++k) {
        same = same && sorter.values()[k] == expected[k].first && sorter.positions()[k] == expected[k].second;
      }
      check(same, "sorter and stable sort agree, n = " + std::to_string(n) + ", kind " + std::to_string(kind));
    }
  }
}

void test_cca() {
  std::mt19937_64 gen(2);
  std::normal_distribution<double> normal;
  const int n = 200;
  Eigen::MatrixXd x(n, 3), y(n, 1);
  std::vector<int> codes(n);
  for (int i = 0; i < n; ++i) {
    const double t = normal(gen);
    x(i, 0) = normal(gen);
    x(i, 1) = t;
    x(i, 2) = x(i, 0) + 0.5 * normal(gen);
    y(i, 0) = 3.0 * t + 1.0;
    codes[i] = t > 0.5 ? 2 : (t > -0.5 ? 1 : 0);
  }
  const CcaResult r = cca(x, y, 1e-4);
  check(r.directions.cols() == 1, "one output gives one direction");
  const Eigen::VectorXd d = r.directions.col(0).normalized();
  check(std::abs(std::abs(d(1)) - 1.0) < 1e-8 && r.correlations(0) > 1.0 - 1e-10,
        "an exact linear relation is found with correlation 1");

  Eigen::MatrixXd onehot = Eigen::MatrixXd::Zero(n, 3);
  for (int i = 0; i < n; ++i) onehot(i, codes[i]) = 1.0;
  const CcaResult general = cca(x, onehot, 1e-4), classes = cca_classes(x, codes.data(), 3, 1e-4);
  check(classes.directions.cols() == 2 && general.directions.cols() == 2,
        "three classes give two directions");
  bool agree = (general.correlations - classes.correlations).cwiseAbs().maxCoeff() < 1e-10;
  for (int k = 0; k < 2; ++k) {
    const double cosine = general.directions.col(k).normalized().dot(classes.directions.col(k).normalized());
    agree = agree && std::abs(std::abs(cosine) - 1.0) < 1e-8;
  }
  check(agree, "the class shortcut equals CCA on the indicator matrix");

  // Blocks of extreme magnitude are rescaled by a power of two, ordinary
  // ones are not; both must give the same directions.
  bool same_scaled = true;
  for (double scale : {std::ldexp(1.0, 300), std::ldexp(1.0, -300)}) {
    const CcaResult big = cca_classes(x * scale, codes.data(), 3, 1e-4);
    same_scaled = same_scaled && big.directions.cols() == classes.directions.cols() &&
                  (big.directions - classes.directions).cwiseAbs().maxCoeff() < 1e-12;
  }
  check(same_scaled, "rescaling x by 2^+-300 leaves the class CCA directions unchanged");

  Eigen::MatrixXd constant = Eigen::MatrixXd::Ones(n, 2);
  check(cca(constant, y, 1e-4).directions.cols() == 0, "constant x gives no direction");
}

void test_split_search() {
  // Classes 0 0 0 1 1 1 along u: the best split is between 3 and 4, gain = n H(0.5).
  const std::vector<double> u = {1, 2, 3, 4, 5, 6};
  const std::vector<int> classes = {0, 0, 0, 1, 1, 1};
  NodeTargets t;
  t.classes = classes.data();
  t.n = 6;
  t.width = 1;
  SplitSearch search(SplitRule::kEntropy, 2, 6);
  search.set_node(t);
  Rng rng(1, 1);
  BestSplit best;
  search.sweep(u.data(), 1, 0, rng, best);
  check(best.n_left == 3 && best.threshold == 3.5, "the pure split is found at the midpoint");
  check(std::abs(best.gain - 6.0 * std::log(2.0)) < 1e-12, "its gain is n log 2");
  BestSplit none;
  search.sweep(u.data(), 4, 0, rng, none);
  check(none.direction < 0, "min_leaf larger than half the node allows no split");
}

void test_forest() {
  std::mt19937_64 gen(3);
  std::normal_distribution<double> normal;
  const int n = 300, p = 4;
  std::vector<double> x(n * p), y_real(0);
  std::vector<int> y(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < p; ++j) x[j * n + i] = normal(gen);
    x[2 * n + i] = i % 10 == 0 ? std::nan("") : x[2 * n + i];
    y[i] = x[0 * n + i] + x[1 * n + i] > 0 ? 1 : 0;
  }
  const Data data(MatrixMap(x.data(), n, p), {0, 1, 2, 3, 4}, IntMatrixMap(y.data(), n, 1), {2},
                  MatrixMap(y_real.data(), n, 0));
  const TreeOptions tree(2, 2, 1, 0, SplitRule::kEntropy, Projection::kCca, true, false, true);
  const ForestOptions options(20, 99, tree);

  Runtime forward;
  Runtime backward;  // another schedule: trees grown in reverse order
  backward.parallel_for = [](size_t begin, size_t end, const std::function<void(size_t)>& body) {
    for (size_t i = end; i > begin; --i) body(i - 1);
  };
  const ForestFit a = train_forest(data, options, forward);
  const ForestFit b = train_forest(data, options, backward);
  bool same = true;
  for (size_t t = 0; t < a.trees.size(); ++t) {
    same = same && a.trees[t].child_left == b.trees[t].child_left &&
           a.trees[t].threshold == b.trees[t].threshold &&
           a.trees[t].payload_value == b.trees[t].payload_value;
  }
  check(same, "trees do not depend on the order they are grown in");

  std::vector<int> node_start(1, 0), child_left, payload_start(1, 0), payload_index;
  std::vector<double> threshold, payload_value;
  for (const Tree& t : a.trees) {
    const int offset = static_cast<int>(payload_index.size());
    child_left.insert(child_left.end(), t.child_left.begin(), t.child_left.end());
    threshold.insert(threshold.end(), t.threshold.begin(), t.threshold.end());
    for (size_t j = 1; j < t.payload_start.size(); ++j) payload_start.push_back(offset + t.payload_start[j]);
    payload_index.insert(payload_index.end(), t.payload_index.begin(), t.payload_index.end());
    payload_value.insert(payload_value.end(), t.payload_value.begin(), t.payload_value.end());
    node_start.push_back(static_cast<int>(child_left.size()));
  }
  ForestView view;
  view.n_tree = static_cast<int>(a.trees.size());
  view.node_start = node_start.data();
  view.child_left = child_left.data();
  view.threshold = threshold.data();
  view.payload_start = payload_start.data();
  view.payload_index = payload_index.data();
  view.payload_value = payload_value.data();
  PredictOptions po;
  po.seed = 99;
  po.n_tree = view.n_tree;
  po.n_value = 2;
  const Eigen::MatrixXd prob = predict_forest(view, data.x, po, forward);
  int errors = 0;
  bool sums = true;
  for (int i = 0; i < n; ++i) {
    errors += (prob(i, 1) > prob(i, 0) ? 1 : 0) != y[i];
    sums = sums && std::abs(prob(i, 0) + prob(i, 1) - 1.0) < 1e-12;
  }
  check(sums, "class probabilities sum to one");
  check(errors == 0, "fully grown trees fit distinct training rows, missing values included");
}

}  // namespace

int main() {
  test_rng();
  test_sorter();
  test_cca();
  test_split_search();
  test_forest();
  std::printf("%d passed, %d failed\n", checks - failures, failures);
  return failures == 0 ? 0 : 1;
}
