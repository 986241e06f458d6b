// Tests of src/core built without R: the core must compile and behave on its
// own (it never includes R headers). Run with `make core-test`, which builds
// this file with AddressSanitizer and UndefinedBehaviorSanitizer.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <cstdlib>
#include <string>
#include <vector>

#include "Bagging.h"
#include "Bytes.h"
#include "Cca.h"
#include "Data.h"
#include "ExactSum.h"
#include "FeatureWeights.h"
#include "Forest.h"
#include "PerTree.h"
#include "Predictor.h"
#include "Projection.h"
#include "Rng.h"
#include "Sampling.h"
#include "SmallDense.h"
#include "TreeCodec.h"
#include "SortKeys.h"
#include "SplitSearch.h"
#include "TreeTrainer.h"

using namespace ccforest;

namespace {

int failures = 0, checks = 0;

void check(bool ok, const std::string& what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::printf("FAILED: %s\n", what.c_str());
    std::fflush(stdout);  // seen even if a later test aborts
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
  // Ties, values that agree in their top 32 bits (1 + 1e-9 k), wide ranges;
  // an outlier that crowds all other values into a few keys; ranges whose
  // width or scale overflows (the radix path declines them); infinities.
  // Around each sorting path: std::sort below 16 values, 12-bit keys below
  // 128, 16-bit keys below 4,096, 22-bit keys above.
  const double huge = std::numeric_limits<double>::max() / 4;
  const double inf = std::numeric_limits<double>::infinity();
  for (int n : {1, 5, 15, 16, 40, 127, 128, 300, 2047, 4095, 4096, 5000}) {
    for (int kind = 0; kind < 7; ++kind) {
      std::vector<double> u(n);
      for (int i = 0; i < n; ++i) {
        const double t = values(gen);
        switch (kind) {
          case 0: u[i] = t * 0.25; break;
          case 1: u[i] = 1.0 + 1e-9 * t; break;
          case 2: u[i] = normal(gen) * 1e6; break;
          case 3: u[i] = i == n / 2 ? 1e300 : normal(gen); break;
          case 4: u[i] = t * huge / 50; break;
          case 5: u[i] = t * 1e-320; break;
          default: u[i] = t == 50 ? inf : t == -50 ? -inf : t;
        }
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

  // A bootstrap sample given as row indices is gathered while centring: the
  // same directions as the sample copied out first (up to rounding only:
  // with AVX, Eigen's vectorised sums start where the buffer is aligned).
  std::vector<size_t> sample(n);
  std::uniform_int_distribution<size_t> draw(0, n - 1);
  for (size_t& s : sample) s = draw(gen);
  Eigen::MatrixXd copied(n, 3), y_sample(n, 1);
  std::vector<int> sample_codes(n);
  for (int i = 0; i < n; ++i) {
    copied.row(i) = x.row(static_cast<Eigen::Index>(sample[i]));
    y_sample(i, 0) = y(static_cast<Eigen::Index>(sample[i]), 0);
    sample_codes[i] = codes[sample[i]];
  }
  auto same = [](const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() && a.cols() > 0 &&
           (a - b).cwiseAbs().maxCoeff() < 1e-12;
  };
  CcaWorkspace work;
  check(same(cca_classes(x, sample.data(), n, sample_codes.data(), 3, 1e-4, work).directions,
             cca_classes(copied, sample_codes.data(), 3, 1e-4).directions),
        "class CCA of rows given by index equals that of the rows copied out");
  // Fewer indices than x has rows (a bootstrap sample capped in size).
  const int fewer = n / 3;
  check(same(cca_classes(x, sample.data(), fewer, sample_codes.data(), 3, 1e-4, work).directions,
             cca_classes(copied.topRows(fewer), sample_codes.data(), 3, 1e-4).directions),
        "class CCA of fewer rows given by index equals that of those rows copied out");
  check(same(cca(x, sample.data(), y_sample.topRows(fewer), 1e-4, work).directions,
             cca(copied.topRows(fewer), y_sample.topRows(fewer), 1e-4).directions),
        "CCA of fewer rows given by index equals that of those rows copied out");
  check(same(cca(x, sample.data(), y_sample, 1e-4, work).directions,
             cca(copied, y_sample, 1e-4).directions),
        "CCA of rows given by index equals that of the rows copied out");
  check(!same(cca(x, y_sample, 1e-4).directions, cca(copied, y_sample, 1e-4).directions),
        "ignoring the row indices gives other directions (the checks above have teeth)");

  Eigen::MatrixXd constant = Eigen::MatrixXd::Ones(n, 2);
  check(cca(constant, y, 1e-4).directions.cols() == 0, "constant x gives no direction");
}

// The hand-written kernels against Eigen's general ones, and the wide case
// (no more rows than columns), where every canonical correlation is 1.
void test_small_dense() {
  std::mt19937_64 gen(7);
  std::normal_distribution<double> normal;
  for (int p : {1, 2, 5, 9}) {
    Eigen::MatrixXd b(p + 3, p), a;
    for (int i = 0; i < b.size(); ++i) b(i) = normal(gen);
    a = b.transpose() * b;  // symmetric positive definite
    Eigen::MatrixXd l = a;
    check(cholesky_lower(l.data(), p), "cholesky_lower accepts a positive definite matrix");
    const Eigen::MatrixXd lower = l.triangularView<Eigen::Lower>();
    check((lower - Eigen::LLT<Eigen::MatrixXd>(a).matrixL().toDenseMatrix()).cwiseAbs().maxCoeff() < 1e-12,
          "cholesky_lower agrees with Eigen's LLT, p = " + std::to_string(p));
    Eigen::MatrixXd e = a, vectors(p, p);
    Eigen::VectorXd values(p);
    jacobi_eigen(e.data(), p, values.data(), vectors.data());
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> reference(a);
    const Eigen::VectorXd expected = reference.eigenvalues().reverse();
    bool ok = (values - expected).cwiseAbs().maxCoeff() < 1e-10 * expected(0);
    ok = ok && (a * vectors - vectors * values.asDiagonal()).cwiseAbs().maxCoeff() < 1e-10 * expected(0);
    ok = ok && (vectors.transpose() * vectors - Eigen::MatrixXd::Identity(p, p)).cwiseAbs().maxCoeff() < 1e-12;
    check(ok, "jacobi_eigen gives Eigen's eigenvalues, in decreasing order, and orthonormal vectors, p = " +
                  std::to_string(p));
    Eigen::MatrixXd not_definite = -a;
    check(!cholesky_lower(not_definite.data(), p), "cholesky_lower refuses a negative definite matrix");
  }
  // Jacobi's angles come from entries divided by the largest: any scale,
  // indefinite matrices, equal eigenvalues and the largest size it takes.
  for (int p : {2, 3, 4, 5, 6, 16}) {
    for (const char* label : {"1e-280", "1", "1e280"}) {
      const double scale = std::strtod(label, nullptr);
      Eigen::MatrixXd b(p, p);
      for (int i = 0; i < b.size(); ++i) b(i) = normal(gen);
      Eigen::MatrixXd a = (b + b.transpose()) * scale;  // indefinite
      if (p >= 4) a.topLeftCorner(2, 2) = Eigen::MatrixXd::Identity(2, 2) * scale;  // a repeated eigenvalue nearby
      Eigen::MatrixXd e = a, vectors(p, p);
      Eigen::VectorXd values(p);
      jacobi_eigen(e.data(), p, values.data(), vectors.data());
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> reference(a);
      const Eigen::VectorXd expected = reference.eigenvalues().reverse();
      const double size = expected.cwiseAbs().maxCoeff();
      bool ok = values.allFinite() && vectors.allFinite();
      ok = ok && (values - expected).cwiseAbs().maxCoeff() < 1e-12 * size;
      ok = ok && (a * vectors - vectors * values.asDiagonal()).cwiseAbs().maxCoeff() < 1e-12 * size;
      ok = ok && (vectors.transpose() * vectors - Eigen::MatrixXd::Identity(p, p)).cwiseAbs().maxCoeff() < 1e-12;
      check(ok, "jacobi_eigen decomposes a symmetric indefinite matrix at scale " + std::string(label) +
                    ", p = " + std::to_string(p));
    }
  }
  {
    Eigen::MatrixXd zero = Eigen::MatrixXd::Zero(3, 3), vectors(3, 3);
    Eigen::VectorXd values(3);
    jacobi_eigen(zero.data(), 3, values.data(), vectors.data());
    check(values.isZero(0.0) && vectors.isIdentity(0.0), "jacobi_eigen of a zero matrix: zeros and the axes");
  }
  // Pivoted QR, full rank and with a dependent column (rank 3 of 4), tall and wide.
  for (int n : {3, 6, 40}) {
    Eigen::MatrixXd x(n, 4);
    for (int i = 0; i < x.size(); ++i) x(i) = normal(gen);
    x.col(2) = x.col(0) - 2.0 * x.col(3);
    Eigen::MatrixXd qr = x;
    std::vector<int> columns(4);
    std::vector<double> norms(8);
    const std::ptrdiff_t rank = pivoted_qr(qr.data(), n, 4, 1e-8, columns.data(), norms.data());
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> reference(x);
    reference.setThreshold(1e-8);
    check(rank == std::min<std::ptrdiff_t>(reference.rank(), 3), "pivoted_qr finds the numerical rank, n = " + std::to_string(n));
    // R'R equals the Gram matrix of the pivoted columns kept.
    const Eigen::MatrixXd r = qr.topLeftCorner(rank, rank).triangularView<Eigen::Upper>();
    Eigen::MatrixXd kept(n, rank);
    for (std::ptrdiff_t j = 0; j < rank; ++j) kept.col(j) = x.col(columns[j]);
    check(((r.transpose() * r) - kept.transpose() * kept).cwiseAbs().maxCoeff() < 1e-10 * x.squaredNorm(),
          "pivoted_qr: R'R is the Gram matrix of the columns it keeps, n = " + std::to_string(n));
    check(std::abs(std::abs(r(0, 0)) - x.colwise().norm().maxCoeff()) < 1e-12 * x.norm(),
          "pivoted_qr takes the column of largest norm first");
  }
  // Wide: 4 rows, 6 columns, two classes; the one canonical direction makes
  // each class a single value.
  Eigen::MatrixXd wide(4, 6);
  for (int i = 0; i < wide.size(); ++i) wide(i) = normal(gen);
  const int codes[4] = {0, 1, 1, 0};
  const CcaResult r = cca_classes(wide, codes, 2, 1e-4);
  check(r.directions.cols() == 1, "a wide two-class block has one canonical direction");
  const Eigen::VectorXd u = wide * r.directions.col(0);
  check(std::abs(u(0) - u(3)) < 1e-10 * u.cwiseAbs().maxCoeff() &&
            std::abs(u(1) - u(2)) < 1e-10 * u.cwiseAbs().maxCoeff() &&
            std::abs(u(0) - u(1)) > 1e-3 * u.cwiseAbs().maxCoeff(),
        "the wide block's direction is constant within each class and separates them");
}

void test_split_search() {
  // Classes 0 0 0 1 1 1 along u: the best split is between 3 and 4, gain = n H(0.5).
  const std::vector<double> u = {1, 2, 3, 4, 5, 6};
  const std::vector<int> classes = {0, 0, 0, 1, 1, 1};
  NodeTargets t;
  t.classes = classes.data();
  t.n = 6;
  t.width = 1;
  const EntropyTable table(6);
  SplitSearch search(SplitRule::kEntropy, 2, &table);
  search.set_node(t);
  Rng rng(1, 1);
  BestSplit best;
  search.sweep(u.data(), 1, 0, rng, best);
  check(best.n_left == 3 && best.lo == 3 && best.hi == 4, "the pure split is found between 3 and 4");
  check(short_threshold(best.lo, best.hi) == 3.5, "and its threshold is the short 3.5");
  check(std::abs(best.gain - 6.0 * std::log(2.0)) < 1e-12, "its gain is n log 2");
  BestSplit none;
  search.sweep(u.data(), 4, 0, rng, none);
  check(none.direction < 0, "min_leaf larger than half the node allows no split");
}

/** How a sweep agreed with a brute-force search, over many nodes. */
struct SweepAgreement {
  bool gains = true, cuts = true, none = true;
};

/**
 * Sweeps u with `search` (already set to the node) and compares the result
 * with a brute-force search: brute(order, cut) is the gain of the cut after
 * sorted position cut, order the rows sorted by u (stably), evaluated at
 * every cut min_leaf allows between distinct values. `scale` sizes the
 * tolerance on gains.
 */
void compare_sweep(
    SplitSearch& search, const std::vector<double>& u, size_t min_leaf, uint64_t stream,
    const std::function<double(const std::vector<size_t>&, size_t)>& brute, double scale,
    SweepAgreement& agree) {
  const size_t n = u.size();
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return u[a] < u[b]; });
  double best_gain = -std::numeric_limits<double>::infinity();
  for (size_t cut = 0; cut + 1 < n; ++cut) {
    if (cut + 1 < min_leaf || n - cut - 1 < min_leaf) continue;
    if (!(u[order[cut]] < u[order[cut + 1]])) continue;
    best_gain = std::max(best_gain, brute(order, cut));
  }
  Rng rng(3, stream);
  BestSplit best;
  search.sweep(u.data(), min_leaf, 0, rng, best);
  if (!std::isfinite(best_gain)) {
    agree.none = agree.none && best.direction < 0;
    return;
  }
  const size_t cut = best.n_left - 1;
  const double tol = 1e-9 * (1.0 + scale);
  agree.gains = agree.gains && best.direction == 0 && std::abs(best.gain - best_gain) <= tol;
  agree.cuts = agree.cuts && best.lo == u[order[cut]] && best.hi == u[order[cut + 1]] &&
               best.lo < best.hi && best.n_left >= min_leaf && n - best.n_left >= min_leaf &&
               std::abs(brute(order, cut) - best_gain) <= tol;
}

void test_split_search_reference() {
  // Small nodes with many tied values (the sweep must never cut inside a
  // run of equal values) against every allowed cut evaluated from scratch:
  // n times the decrease in entropy or Gini impurity.
  std::mt19937_64 gen(11);
  SweepAgreement agree;
  for (int trial = 0; trial < 3000; ++trial) {
    const size_t n = 2 + gen() % 40;
    const int n_class = 2 + static_cast<int>(gen() % 4);
    const int n_value = 1 + static_cast<int>(gen() % 8);
    const size_t min_leaf = 1 + gen() % 4;
    const bool entropy = gen() % 2 == 0;
    std::vector<double> u(n);
    std::vector<int> classes(n);
    for (size_t i = 0; i < n; ++i) {
      u[i] = static_cast<double>(gen() % static_cast<uint64_t>(n_value));
      classes[i] = static_cast<int>(gen() % static_cast<uint64_t>(n_class));
    }
    auto impurity_times_n = [&](const std::vector<size_t>& order, size_t begin, size_t end) {
      std::vector<double> count(static_cast<size_t>(n_class), 0.0);
      for (size_t k = begin; k < end; ++k) count[static_cast<size_t>(classes[order[k]])] += 1.0;
      const double size = static_cast<double>(end - begin);
      double out = 0.0;
      for (double c : count) {
        if (c > 0.0) out += entropy ? -c * std::log(c / size) : c * (1.0 - c / size);
      }
      return out;
    };
    auto brute = [&](const std::vector<size_t>& order, size_t cut) {
      return impurity_times_n(order, 0, n) - impurity_times_n(order, 0, cut + 1) -
             impurity_times_n(order, cut + 1, n);
    };
    NodeTargets t;
    t.classes = classes.data();
    t.n = n;
    t.width = 1;
    const EntropyTable table(n);
    SplitSearch search(entropy ? SplitRule::kEntropy : SplitRule::kGini,
                       static_cast<size_t>(n_class), &table);
    search.set_node(t);
    compare_sweep(search, u, min_leaf, static_cast<uint64_t>(trial), brute, static_cast<double>(n),
                  agree);
  }
  check(agree.gains, "the sweep finds the best gain of a brute-force search (ties, min_leaf)");
  check(agree.cuts, "the chosen cut lies between distinct values and attains that gain");
  check(agree.none, "no split is offered when every cut falls inside a tie or breaks min_leaf");
}

void test_split_search_values_reference() {
  // The variance sweep on tied values, one and two outputs, against the
  // decrease in squared error of every allowed cut computed from scratch.
  std::mt19937_64 gen(17);
  std::normal_distribution<double> normal;
  SweepAgreement agree;
  for (int trial = 0; trial < 3000; ++trial) {
    const size_t n = 2 + gen() % 40, width = 1 + gen() % 2;
    const int n_value = 1 + static_cast<int>(gen() % 8);
    const size_t min_leaf = 1 + gen() % 4;
    std::vector<double> u(n), y(n * width);
    for (size_t i = 0; i < n; ++i) u[i] = static_cast<double>(gen() % static_cast<uint64_t>(n_value));
    for (double& v : y) v = normal(gen);
    for (size_t m = 0; m < width; ++m) {  // centred at the node, as the trainer gives them
      double mean = 0.0;
      for (size_t i = 0; i < n; ++i) mean += y[i * width + m] / static_cast<double>(n);
      for (size_t i = 0; i < n; ++i) y[i * width + m] -= mean;
    }
    auto sse = [&](const std::vector<size_t>& order, size_t begin, size_t end) {
      double out = 0.0;
      for (size_t m = 0; m < width; ++m) {
        double mean = 0.0;
        for (size_t k = begin; k < end; ++k) mean += y[order[k] * width + m];
        mean /= static_cast<double>(end - begin);
        for (size_t k = begin; k < end; ++k) {
          out += (y[order[k] * width + m] - mean) * (y[order[k] * width + m] - mean);
        }
      }
      return out / static_cast<double>(width);
    };
    auto brute = [&](const std::vector<size_t>& order, size_t cut) {
      return sse(order, 0, n) - sse(order, 0, cut + 1) - sse(order, cut + 1, n);
    };
    std::vector<size_t> identity(n);
    for (size_t i = 0; i < n; ++i) identity[i] = i;
    NodeTargets t;
    t.values = y.data();
    t.n = n;
    t.width = width;
    SplitSearch search(SplitRule::kVariance, width, nullptr);
    search.set_node(t);
    compare_sweep(search, u, min_leaf, static_cast<uint64_t>(trial), brute, sse(identity, 0, n),
                  agree);
  }
  check(agree.gains, "the variance sweep finds the best decrease in squared error (ties, min_leaf)");
  check(agree.cuts, "its cut lies between distinct values and attains that decrease");
  check(agree.none, "the variance sweep offers nothing when no cut is allowed");
}

void test_binned_search() {
  // Nodes searched binned (exact_max_rows 1: every node of two rows or more)
  // against the impurity decrease of every allowed cut from scratch: every
  // rule, one and two outputs, with and without weights. The cut found must
  // be a cut the exhaustive search could make (between distinct values, at
  // least min_leaf rows a side) with the gain it reports, at least as good
  // as the best cut between two of the 256 bins, and the best cut of all
  // when that one lies near the best boundary (a clean threshold).
  std::mt19937_64 gen(29);
  std::normal_distribution<double> normal;
  bool valid = true, beats_bins = true, clean = true, none = true;
  int searched = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const size_t n = 2 + gen() % 700, width = 1 + gen() % 2, min_leaf = 1 + gen() % 4;
    const int rule_code = static_cast<int>(gen() % 3), n_class = 2 + static_cast<int>(gen() % 5);
    const SplitRule rule = static_cast<SplitRule>(rule_code);
    const bool values = rule == SplitRule::kVariance, weighted = gen() % 2 == 0;
    const bool threshold = trial % 3 == 0;  // outputs decided by u alone
    std::vector<double> u(n), y(n * width), w(n, 1.0);
    std::vector<int> classes(n * width);
    const double cut_at = normal(gen);
    for (size_t i = 0; i < n; ++i) {
      u[i] = trial % 2 == 0 ? normal(gen) : static_cast<double>(gen() % 50) / 7.0;
      if (weighted) w[i] = 0.25 + static_cast<double>(gen() % 8);
      for (size_t m = 0; m < width; ++m) {
        const int code = threshold ? (u[i] > cut_at ? 1 : 0) : static_cast<int>(gen() % n_class);
        classes[i * width + m] = static_cast<int>(m) * n_class + code;
        y[i * width + m] = threshold ? (u[i] > cut_at ? 2.0 : -1.0) : normal(gen);
      }
    }
    if (values) {  // centred at the node's (weighted) means, as the trainer gives them
      for (size_t m = 0; m < width; ++m) {
        double sum = 0.0, total = 0.0;
        for (size_t i = 0; i < n; ++i) {
          sum += w[i] * y[i * width + m];
          total += w[i];
        }
        for (size_t i = 0; i < n; ++i) y[i * width + m] -= sum / total;
      }
    }
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return u[a] < u[b]; });
    auto impurity = [&](size_t begin, size_t end) {
      double out = 0.0;
      for (size_t m = 0; m < width; ++m) {
        if (values) {
          double sum = 0.0, total = 0.0;
          for (size_t k = begin; k < end; ++k) {
            sum += w[order[k]] * y[order[k] * width + m];
            total += w[order[k]];
          }
          for (size_t k = begin; k < end; ++k) {
            const double d = y[order[k] * width + m] - sum / total;
            out += w[order[k]] * d * d;
          }
          continue;
        }
        std::vector<double> count(static_cast<size_t>(n_class) * width, 0.0);
        double total = 0.0;
        for (size_t k = begin; k < end; ++k) {
          count[static_cast<size_t>(classes[order[k] * width + m])] += w[order[k]];
          total += w[order[k]];
        }
        for (double c : count) {
          if (c > 0.0) out += rule == SplitRule::kEntropy ? -c * std::log(c / total) : c * (1.0 - c / total);
        }
      }
      return out / static_cast<double>(width);
    };
    auto gain = [&](size_t left) { return impurity(0, n) - impurity(0, left) - impurity(left, n); };
    double best_gain = -std::numeric_limits<double>::infinity(), best_bins = best_gain;
    const double lo = u[order[0]], hi = u[order[n - 1]];
    const double scale = 256.0 * (1.0 - 1e-9) / (hi - lo);
    auto bin = [&](double v) { return std::min<size_t>(255, static_cast<size_t>((v - lo) * scale)); };
    for (size_t left = min_leaf; left + min_leaf <= n; ++left) {
      if (!(u[order[left - 1]] < u[order[left]])) continue;
      const double g = gain(left);
      best_gain = std::max(best_gain, g);
      if (bin(u[order[left - 1]]) < bin(u[order[left]])) best_bins = std::max(best_bins, g);
    }
    const EntropyTable table(n);
    SearchSettings binned_everywhere;
    binned_everywhere.exact_max_rows = 1;
    SplitSearch search(rule, values ? width : static_cast<size_t>(n_class) * width, &table,
                       binned_everywhere);
    NodeTargets t;
    t.classes = classes.data();
    t.values = y.data();
    t.weights = weighted ? w.data() : nullptr;
    t.n = n;
    t.width = width;
    search.set_node(t);
    Rng rng(5, static_cast<uint64_t>(trial));
    BestSplit best;
    search.sweep(u.data(), min_leaf, 0, rng, best);
    if (!std::isfinite(best_gain)) {
      none = none && best.direction < 0;
      continue;
    }
    if (best.direction < 0) {
      valid = false;
      continue;
    }
    ++searched;
    const size_t left = best.n_left;
    const double tol = 1e-9 * (1.0 + impurity(0, n));
    valid = valid && left >= min_leaf && n - left >= min_leaf && best.lo == u[order[left - 1]] &&
            best.hi == u[order[left]] && best.lo < best.hi && std::abs(best.gain - gain(left)) <= tol;
    beats_bins = beats_bins && (!std::isfinite(best_bins) || best.gain >= best_bins - tol);
    if (threshold) clean = clean && best.gain >= best_gain - tol;
  }
  check(searched > 1000, "the binned search ran on most trial nodes");
  check(valid, "a binned search's cut is one the exhaustive search could make, with its gain");
  check(beats_bins, "the binned search's cut gains at least as much as the best between bins");
  check(clean, "the binned search finds a clean threshold, the exhaustive search's cut");
  check(none, "the binned search offers nothing when no cut is allowed");
}

void test_random_cut_reference() {
  // One cut drawn uniformly between the smallest and largest value, against
  // the same draw from a copy of the generator and the decrease in impurity
  // of that partition computed from scratch: every rule, one and two
  // outputs, with and without case weights, on tied values.
  std::mt19937_64 gen(23);
  std::normal_distribution<double> normal;
  bool gains = true, sides = true, none = true;
  int offered = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const size_t n = 2 + gen() % 30, width = 1 + gen() % 2, min_leaf = 1 + gen() % 3;
    const int rule_code = static_cast<int>(gen() % 3), n_class = 2 + static_cast<int>(gen() % 3);
    const SplitRule rule = static_cast<SplitRule>(rule_code);
    const bool weighted = gen() % 2 == 0, values = rule == SplitRule::kVariance;
    const int n_distinct = 1 + static_cast<int>(gen() % 6);
    std::vector<double> u(n), y(n * width), w(n, 1.0);
    std::vector<int> classes(n * width);
    for (size_t i = 0; i < n; ++i) {
      u[i] = static_cast<double>(gen() % static_cast<uint64_t>(n_distinct)) * 0.7 - 1.0;
      if (weighted) w[i] = 0.25 + static_cast<double>(gen() % 8) / 4.0;
      for (size_t m = 0; m < width; ++m) {
        y[i * width + m] = normal(gen);
        // Each output's classes in their own range, as the trainer numbers them.
        classes[i * width + m] = static_cast<int>(m) * n_class +
                                 static_cast<int>(gen() % static_cast<uint64_t>(n_class));
      }
    }
    for (size_t m = 0; m < width && values; ++m) {  // centred at the weighted node mean
      double sum = 0.0, total = 0.0;
      for (size_t i = 0; i < n; ++i) sum += w[i] * y[i * width + m], total += w[i];
      for (size_t i = 0; i < n; ++i) y[i * width + m] -= sum / total;
    }
    // n times the impurity of a set of rows (weights as counts), averaged over outputs.
    auto impurity = [&](const std::vector<size_t>& rows) {
      double out = 0.0;
      for (size_t m = 0; m < width; ++m) {
        double total = 0.0, sum = 0.0;
        std::vector<double> count(static_cast<size_t>(n_class) * width, 0.0);
        for (size_t i : rows) {
          total += w[i];
          sum += w[i] * y[i * width + m];
          count[static_cast<size_t>(classes[i * width + m])] += w[i];
        }
        if (values) {
          for (size_t i : rows) {
            const double d = y[i * width + m] - sum / total;
            out += w[i] * d * d;
          }
        } else {
          for (double c : count) {
            if (!(c > 0.0)) continue;
            out += rule == SplitRule::kEntropy ? -c * std::log(c / total) : c * (1.0 - c / total);
          }
        }
      }
      return out / static_cast<double>(width);
    };
    NodeTargets t;
    t.classes = classes.data();
    t.values = y.data();
    t.weights = weighted ? w.data() : nullptr;
    t.n = n;
    t.width = width;
    const EntropyTable table(n);
    SplitSearch search(rule, values ? width : static_cast<size_t>(n_class) * width, &table);
    search.set_node(t);
    Rng rng(5, static_cast<uint64_t>(trial));
    Rng twin = rng;
    BestSplit best;
    search.random_cut(u.data(), min_leaf, 3, rng, best);

    const double lo = *std::min_element(u.begin(), u.end());
    const double hi = *std::max_element(u.begin(), u.end());
    std::vector<size_t> left, right, all;
    if (lo < hi) {
      const double cut = lo + twin.uniform() * (hi - lo);
      for (size_t i = 0; i < n; ++i) (u[i] < cut ? left : right).push_back(i);
    }
    for (size_t i = 0; i < n; ++i) all.push_back(i);
    if (left.size() < min_leaf || right.size() < min_leaf) {
      none = none && best.direction < 0;
      continue;
    }
    const double expected = impurity(all) - impurity(left) - impurity(right);
    double left_max = -1e300, right_min = 1e300;
    for (size_t i : left) left_max = std::max(left_max, u[i]);
    for (size_t i : right) right_min = std::min(right_min, u[i]);
    ++offered;
    gains = gains && best.direction == 3 &&
            std::abs(best.gain - expected) <= 1e-9 * (1.0 + impurity(all));
    sides = sides && best.n_left == left.size() && best.lo == left_max && best.hi == right_min;
  }
  check(offered > 1000,
        "random cuts were offered in most trials (" + std::to_string(offered) + ")");
  check(gains,
        "a random cut's gain is the decrease in impurity of its partition (every rule, weights)");
  check(sides,
        "a random cut keeps the rows below the draw left, its threshold between them and the rest");
  check(none, "a random cut that breaks min_leaf, or a constant projection, offers nothing");

  // The draw is uniform over the range: with values 0, 1 and 3 the cut falls
  // between 0 and 1 a third of the time.
  const std::vector<double> u = {3, 0, 1};
  const std::vector<int> classes = {0, 1, 0};
  NodeTargets t;
  t.classes = classes.data();
  t.n = 3;
  t.width = 1;
  const EntropyTable table(3);
  SplitSearch search(SplitRule::kGini, 2, &table);
  search.set_node(t);
  Rng rng(9, 9);
  int first_gap = 0;
  const int draws = 30000;
  for (int k = 0; k < draws; ++k) {
    BestSplit best;
    search.random_cut(u.data(), 1, 0, rng, best);
    first_gap += best.n_left == 1;
  }
  check(std::abs(first_gap / static_cast<double>(draws) - 1.0 / 3.0) < 0.01,
        "random cuts are uniform over the range (" + std::to_string(first_gap) +
            " of 30000 in the first third)");
}

void test_projection_rows() {
  // project_rows() must give project_row()'s bits for every row, in the
  // vectorised blocks and the rows after them, under any compiler flags.
  std::mt19937_64 gen(13);
  std::normal_distribution<double> normal;
  bool same = true;
  for (int k = 0; k <= 7; ++k) {
    for (size_t n : {size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{23}, size_t{64}}) {
      const int p = 7;
      std::vector<double> x(n * p);
      for (double& v : x) v = normal(gen) * std::ldexp(1.0, static_cast<int>(gen() % 60) - 30);
      std::vector<SplitTerm> terms;
      for (int e = 0; e < k; ++e) {
        terms.push_back({static_cast<int32_t>(gen() % p),
                         decode_coefficient(encode_coefficient(normal(gen)))});
      }
      std::vector<double> block(n);
      project_rows(terms.data(), k, x.data(), static_cast<std::ptrdiff_t>(n), n, block.data());
      for (size_t i = 0; i < n; ++i) {
        const double one = project_row(terms.data(), k, x.data() + i, static_cast<std::ptrdiff_t>(n));
        same = same && std::memcmp(&one, &block[i], sizeof one) == 0;
      }
    }
  }
  check(same, "project_rows() equals project_row() bit for bit");
}

void test_coefficients() {
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  bool exact_float = true, close = true, one = true;
  for (int i = 0; i < 100000; ++i) {
    const double c = unit(gen) * std::ldexp(1.0, -static_cast<int>(gen() % 30));
    if (std::abs(c) < kSmallestCoefficient) continue;
    const double back = decode_coefficient(encode_coefficient(c));
    exact_float = exact_float && static_cast<double>(static_cast<float>(back)) == back;
    close = close && std::abs(back - c) <= std::abs(c) * std::ldexp(1.0, -11);
  }
  for (double c : {1.0, -1.0, 1.0 + 1e-12, 0.5, -0.25}) {
    one = one && decode_coefficient(encode_coefficient(c)) == (std::abs(c) > 0.9 ? (c > 0 ? 1.0 : -1.0) : c);
  }
  check(exact_float, "every coefficient code is exactly a float");
  check(close, "coefficients round to within 2^-11 relative");
  check(one, "1, powers of two and near-1 values round exactly");

  bool inside = true, short_enough = true;
  std::normal_distribution<double> normal;
  for (int i = 0; i < 100000; ++i) {
    const double lo = normal(gen) * std::ldexp(1.0, static_cast<int>(gen() % 40) - 20);
    const double gap = std::abs(lo) * std::ldexp(1.0, -static_cast<int>(gen() % 52)) + 1e-300;
    const double hi = lo + gap;
    if (!(lo < hi)) continue;
    const double t = short_threshold(lo, hi);
    inside = inside && lo <= t && t < hi;
    const double mid = lo + 0.5 * (hi - lo);
    if (mid > lo && mid < hi && lo + 0.25 * (hi - lo) < hi - 0.25 * (hi - lo)) {
      short_enough = short_enough && (t >= lo + 0.25 * (hi - lo) || t == mid);
    }
  }
  check(inside, "short thresholds lie in [lo, hi)");
  check(short_enough, "short thresholds lie in the middle half of the gap (or are the midpoint)");
}


/** Tree options from the few fields a test sets. */
TreeOptions tree_options(int mtry, int min_split, int min_leaf, int max_depth, SplitRule rule,
                         Projection projection, bool projection_bootstrap, bool bagging,
                         double rank_tolerance = 1e-4,
                         AxisCandidates axes = AxisCandidates::kNone) {
  TreeOptions o;
  o.mtry = mtry;
  o.min_split = min_split;
  o.min_leaf = min_leaf;
  o.max_depth = max_depth;
  o.split_rule = rule;
  o.projection = projection;
  o.projection_bootstrap = projection_bootstrap;
  o.sample = RowSample::bootstrap(bagging);
  o.rank_tolerance = rank_tolerance;
  o.axis_candidates = axes;
  return o;
}

/** A forest's encoded trees, collected from grow_forest(). */
struct Grown {
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<double> importance;
  EncodedTrees view() const {
    EncodedTrees out;
    for (const auto& b : bytes) out.emplace_back(b.data(), b.size());
    return out;
  }
};

Grown grow(const Data& data, const ForestOptions& options, const ModelShape& shape,
           const Runtime& runtime) {
  Grown out;
  out.bytes.resize(static_cast<size_t>(options.n_tree));
  grow_forest(data, options, shape, runtime,
              [&](size_t begin, std::vector<std::vector<uint8_t>>& encoded, std::vector<double>& imp) {
                for (size_t i = 0; i < encoded.size(); ++i) out.bytes[begin + i].swap(encoded[i]);
                out.importance.insert(out.importance.end(), imp.begin(), imp.end());
              });
  return out;
}

void test_forest() {
  // Few distinct values per feature, z-scored as R would (like the letter
  // data): rows whose projections are equal in exact arithmetic differ only by
  // rounding, so any difference between the projections of training and of
  // prediction (fused multiply-adds in one and not the other, say) shows up
  // as rows on the wrong side of a threshold.
  std::mt19937_64 gen(3);
  std::uniform_int_distribution<int> level(0, 7);
  const int n = 3000, p = 6;
  std::vector<double> x(n * p), y_real(0);
  std::vector<int> y(n);
  const double centre[] = {3.4, 3.6, 3.5, 3.45, 3.55, 3.3}, spread[] = {2.3, 2.1, 2.2, 2.25, 2.35, 2.15};
  for (int i = 0; i < n; ++i) {
    int raw[p];
    for (int j = 0; j < p; ++j) {
      raw[j] = level(gen);
      x[j * n + i] = (raw[j] - centre[j]) / spread[j];
    }
    if (i % 17 == 0) x[2 * n + i] = std::nan("");
    y[i] = (raw[0] + raw[1] + raw[3] * raw[4] / 4 + static_cast<int>(gen() % 3)) % 2;
  }
  const Data data(MatrixMap(x.data(), n, p), {0, 1, 2, 3, 4, 5, 6}, {0, 0, 0, 0, 0, 0},
                  IntMatrixMap(y.data(), n, 1), {2}, MatrixMap(y_real.data(), n, 0));
  // Only column 2 has missing values: the others are gathered unchecked.
  check(data.column_missing == std::vector<char>({0, 0, 1, 0, 0, 0}),
        "the columns with missing values are found");
  check(data.row_hash[0] != 0 && data.row_hash[1] == 0, "rows with missing values are hashed");
  ModelShape shape;
  shape.n_column = p;
  shape.n_class = {2};
  const std::pair<Projection, AxisCandidates> kinds[] = {
      {Projection::kCca, AxisCandidates::kNone}, {Projection::kRotation, AxisCandidates::kNone},
      {Projection::kAxis, AxisCandidates::kNone}, {Projection::kCca, AxisCandidates::kRandom},
      {Projection::kCca, AxisCandidates::kSearch}};
  for (const auto& [projection, axes] : kinds) {
    const TreeOptions tree =
        tree_options(4, 2, 1, 0, SplitRule::kEntropy, projection, true, false, 1e-4, axes);
    const ForestOptions options(12, 99, tree);
    Runtime forward;
    Runtime backward;  // another schedule: trees grown in reverse order
    backward.parallel_for = [](size_t begin, size_t end, const std::function<void(size_t)>& body) {
      for (size_t i = end; i > begin; --i) body(i - 1);
    };
    backward.batch_size = 5;
    const Grown a = grow(data, options, shape, forward), b = grow(data, options, shape, backward);
    check(a.bytes == b.bytes && a.importance == b.importance,
          "trees do not depend on the order or batches they are grown in");
    // Trees 4..11 grown on their own are trees 4..11 of the whole forest.
    const ForestOptions tail_options(8, 99, tree, 4);
    const Grown tail = grow(data, tail_options, shape, forward);
    check(std::equal(tail.bytes.begin(), tail.bytes.end(), a.bytes.begin() + 4),
          "a range of trees grown apart equals that range of the whole forest");

    // Every training row (all rows here: projection bootstrapping) reaches a
    // leaf that holds its class: leaves keep every class of the rows grown
    // into them. This is what one projection routine for training and
    // prediction guarantees, whatever the compiler does with it.
    const ForestModel model = decode_forest(a.view(), shape, 0, a.bytes.size());
    int wrong_leaf = 0;
    std::vector<double> row(p);
    for (size_t t = 0; t < model.n_tree(); ++t) {
      const uint64_t key = tree_impute_key(99, t);
      for (int i = 0; i < n; ++i) {
        tree_row(data.x, i, true, key, data.row_hash[i], row.data());
        const int32_t leaf = find_leaf(model, t, row.data());
        const int32_t* index = model.leaf_index(t, leaf);
        const int32_t count = model.leaf(t, leaf).count;
        wrong_leaf += std::find(index, index + count, y[i]) == index + count;
      }
    }
    check(wrong_leaf == 0, "training rows reach a leaf holding their class (" +
                               std::to_string(wrong_leaf) + " did not), projection " +
                               std::to_string(static_cast<int>(projection)) + ", axes " +
                               std::to_string(static_cast<int>(axes)));

    std::vector<double> prob(static_cast<size_t>(n) * 2, 0.0);
    PredictOptions po;
    po.seed = 99;
    add_tree_predictions(model, data.x, data.row_hash, po, forward, prob.data());
    bool sums = true;
    for (int i = 0; i < n; ++i) {
      sums = sums && std::abs(prob[i] + prob[n + i] - static_cast<double>(model.n_tree())) < 1e-9;
    }
    check(sums, "class probabilities sum to one");
  }
}

void test_feature_groups() {
  // One numeric feature and one feature of three independent columns, the
  // class given by the group's last column. A factor's 1-of-K indicators sum
  // to one, so a node leaves the last varying one out of its CCA; a group of
  // independent columns (a factor valued on several axes) keeps them all.
  std::mt19937_64 gen(5);
  std::normal_distribution<double> normal;
  const int n = 400, p = 4;
  std::vector<double> x(n * p), y_real(0);
  std::vector<int> y(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < p; ++j) x[j * n + i] = normal(gen);
    y[i] = x[3 * n + i] > 0;
  }
  ModelShape shape;
  shape.n_column = p;
  shape.n_class = {2};
  const TreeOptions tree = tree_options(2, 2, 1, 0, SplitRule::kEntropy, Projection::kCca, true, false);
  const ForestOptions options(5, 7, tree);
  auto terms_on_last = [&](std::vector<char> indicators, int& splits) {
    const Data data(MatrixMap(x.data(), n, p), {0, 1, 4}, std::move(indicators),
                    IntMatrixMap(y.data(), n, 1), {2}, MatrixMap(y_real.data(), n, 0));
    const Grown grown = grow(data, options, shape, Runtime());
    const ForestModel model = decode_forest(grown.view(), shape, 0, grown.bytes.size());
    int on_last = 0;
    splits = 0;
    for (size_t t = 0; t < model.n_tree(); ++t) {
      const uint64_t* records = model.tree(t);
      size_t at = 0;
      while (at < model.tree_words(t)) {
        const int32_t here = static_cast<int32_t>(at);
        const SplitTerm* terms = ForestModel::terms(records, here);
        ++splits;
        for (int32_t e = 0; e < ForestModel::head(records, here).count; ++e) {
          on_last += terms[e].column == 3;
        }
        at += ForestModel::record_words(records, here);
      }
    }
    return on_last;
  };
  int splits_onehot = 0, splits_axes = 0;
  const int onehot = terms_on_last({0, 1}, splits_onehot), axes = terms_on_last({0, 0}, splits_axes);
  check(splits_onehot > 0 && onehot == 0,
        "a 1-of-K group leaves its last varying column out of every split");
  check(axes > 0, "a group of independent columns keeps all of them (" + std::to_string(axes) +
                      " terms on the last of " + std::to_string(splits_axes) + " splits)");
  bool refused = false;
  try {
    const Data bad(MatrixMap(x.data(), n, p), {0, 1, 4}, {0}, IntMatrixMap(y.data(), n, 1), {2},
                   MatrixMap(y_real.data(), n, 0));
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  check(refused, "data without one indicator flag per feature is refused");
}


/** The fields of two trees that the stored form keeps (gains are not stored). */
bool same_stored(const Tree& a, const Tree& b) {
  return a.is_split == b.is_split && a.precision == b.precision && a.split_begin == b.split_begin &&
         a.column == b.column && a.coef == b.coef && a.threshold == b.threshold &&
         a.leaf_begin == b.leaf_begin && a.leaf_index == b.leaf_index && a.leaf_value == b.leaf_value;
}

/** A tree of three splits, one at each precision, and four leaves. */
Tree three_precisions(bool classification) {
  Tree t;
  t.is_split = {1, 1, 0, 1, 0, 0, 0};
  t.precision = {0, 1, 2};
  t.split_begin = {0, 2, 5, 9};
  t.column = {0, 3, 1, 2, 3, 0, 0, 2, 2};
  t.coef = {1.0f, decode_coefficient(encode_coefficient(-0.3)), 0.1234567f, 1.0f, -0.987654f,
            1.0f, 0.0f, -0.33333334f, 1.1e-8f};
  t.threshold = {0.25, -1.5, 3.0};
  t.gain = {1, 1, 1};
  if (classification) {
    t.leaf_begin = {0, 1, 3, 4, 6};
    t.leaf_index = {0, 0, 2, 1, 1, 2};
    t.leaf_value = {1.0, 0.25, 0.75, 1.0, 0.5, 0.5};
  } else {
    t.leaf_begin = {0, 1, 2, 3, 4};
    t.leaf_index = {0, 0, 0, 0};
    t.leaf_value = {1.5, -2.25, 1e-300, 7.0};
  }
  return t;
}

void test_codec_round_trip() {
  ModelShape classes;
  classes.n_column = 4;
  classes.n_class = {3};
  ModelShape values;
  values.n_column = 4;
  values.n_output_real = 1;
  for (bool classification : {true, false}) {
    const ModelShape& shape = classification ? classes : values;
    const Tree tree = three_precisions(classification);
    const std::vector<uint8_t> bytes = encode_tree(tree, shape);
    check(bytes[0] == 3, "new trees are stored in format 3");
    const Tree back = parse_tree(bytes.data(), bytes.size(), shape);
    check(same_stored(tree, back) && back.gain.empty(),
          "a parsed tree is the encoded one, every precision kept");
    check(encode_tree(back, shape) == bytes, "encoding a parsed tree gives its bytes back");
  }
  // Format 2 (ccforest 0.2.0): no precisions, every split 16-bit codes. A
  // regression stump on column 1 with coefficient 1, threshold 0.5, leaves 1 and 2.
  std::vector<uint8_t> old = {2, 3, 0x01, 1, 1, 0x00, 0x00};
  const uint64_t threshold = bits_of(0.5), one = bits_of(1.0), two = bits_of(2.0);
  for (int plane = 7; plane >= 0; --plane) old.push_back(static_cast<uint8_t>(threshold >> (8 * plane)));
  for (int plane = 7; plane >= 0; --plane) {
    old.push_back(static_cast<uint8_t>(one >> (8 * plane)));
    old.push_back(static_cast<uint8_t>(two >> (8 * plane)));
  }
  ModelShape stump_shape;
  stump_shape.n_column = 2;
  stump_shape.n_output_real = 1;
  const Tree stump = parse_tree(old.data(), old.size(), stump_shape);
  check(stump.n_splits() == 1 && stump.precision[0] == 0 && stump.column == std::vector<int>{1} &&
            stump.coef == std::vector<float>{1.0f} && stump.threshold[0] == 0.5 &&
            stump.leaf_value == std::vector<double>{1.0, 2.0},
        "format 2 trees are still read, as 16-bit coefficients");
}

void test_layout() {
  // layout_tree() alone: walks of rows through the laid-out records follow
  // the parsed tree's splits, with every term (two per column at kDouble).
  ModelShape shape;
  shape.n_column = 4;
  shape.n_output_real = 1;
  const Tree tree = three_precisions(false);
  ForestModel model;
  model.shape = shape;
  layout_tree(tree, model);
  check(model.n_tree() == 1 && model.n_leaves[0] == 4 && model.max_count == 4,
        "a laid-out tree has its leaves and its widest split's terms");
  std::mt19937_64 gen(21);
  std::normal_distribution<double> normal;
  bool same = true;
  for (int trial = 0; trial < 2000; ++trial) {
    double row[4];
    for (double& v : row) v = 3.0 * normal(gen);
    // The parsed tree walked by hand, node by node.
    size_t node = 0, split = 0, leaf = 0;
    while (true) {
      if (!tree.is_split[node]) {
        leaf = 0;
        for (size_t j = 0; j < node; ++j) leaf += !tree.is_split[j];
        break;
      }
      split = 0;
      for (size_t j = 0; j < node; ++j) split += tree.is_split[j];
      std::vector<SplitTerm> terms;
      for (int e = tree.split_begin[split]; e < tree.split_begin[split + 1]; ++e) {
        terms.push_back({tree.column[e], tree.coef[e]});
      }
      const double sum = project_row(terms.data(), static_cast<int>(terms.size()), row, 1);
      node = sum <= tree.threshold[split] ? 2 * split + 1 : 2 * split + 2;
    }
    const int32_t found = find_leaf(model, 0, row);
    same = same && model.leaf(0, found).number == static_cast<int32_t>(leaf) &&
           model.leaf_values(0, found)[0] == tree.leaf_value[leaf];
  }
  check(same, "rows reach the same leaf in the parsed and the laid-out tree");
}

void test_precision() {
  float hi = 0.0f, lo = 0.0f;
  check(round_coefficient(0.1, Precision::kShort, hi, lo) &&
            hi == decode_coefficient(encode_coefficient(0.1)) && lo == 0.0f,
        "kShort rounds to a 16-bit code");
  check(round_coefficient(0.1, Precision::kSingle, hi, lo) && hi == 0.1f && lo == 0.0f,
        "kSingle rounds to a float");
  check(round_coefficient(0.1, Precision::kDouble, hi, lo) && hi == 0.1f &&
            std::abs(static_cast<double>(hi) + static_cast<double>(lo) - 0.1) < 1e-15,
        "kDouble keeps the rest of the coefficient in a second float");
  check(!round_coefficient(1e-12, Precision::kShort, hi, lo) &&
            round_coefficient(1e-12, Precision::kSingle, hi, lo),
        "coefficients below 2^-31 are dropped at kShort only");

  // x3 = 0.6 x1 + 0.8 x2 + s z, the class the sign of z: the canonical
  // direction is nearly a difference of unit coefficients. With the rank
  // tolerance low enough to keep it, a stump's stored direction must
  // partition the rows as the exact direction does at its threshold, so the
  // precision must rise with 1 / s, and no further than needed.
  std::mt19937_64 gen(8);
  std::normal_distribution<double> normal;
  const int n = 400;
  for (double s : {3.0, 1e-2, 1e-6}) {
    std::vector<double> x(3 * n), y_real(0);
    std::vector<int> y(n);
    for (int i = 0; i < n; ++i) {
      const double a = normal(gen), b = normal(gen), z = normal(gen);
      x[i] = a;
      x[n + i] = b;
      x[2 * n + i] = 0.6 * a + 0.8 * b + s * z;
      y[i] = z > 0;
    }
    const Data data(MatrixMap(x.data(), n, 3), {0, 1, 2, 3}, {0, 0, 0},
                    IntMatrixMap(y.data(), n, 1), {2}, MatrixMap(y_real.data(), n, 0));
    const double tolerance = 1e-13;
    // Every row, every feature: the tree's CCA is this one, bit for bit.
    const TreeOptions options =
        tree_options(3, 2, 1, 1, SplitRule::kEntropy, Projection::kCca, false, false, tolerance);
    const EntropyTable entropy(n);
    TreeTrainer trainer(data, options, 5, 0, &entropy);
    const Tree tree = trainer.grow();
    const Eigen::MatrixXd a = cca_classes(MatrixMap(x.data(), n, 3), y.data(), 2, tolerance).directions;
    if (tree.n_splits() != 1 || a.cols() != 1) {
      check(false, "a stump splits on the one canonical direction, s = " + std::to_string(s));
      continue;
    }
    Eigen::Index pivot = 0;
    a.col(0).cwiseAbs().maxCoeff(&pivot);
    std::vector<SplitTerm> terms;
    for (size_t e = 0; e < tree.column.size(); ++e) terms.push_back({tree.column[e], tree.coef[e]});
    std::vector<double> stored(n);
    project_rows(terms.data(), static_cast<int>(terms.size()), x.data(), n, n, stored.data());
    int differ = 0;
    for (int i = 0; i < n; ++i) {
      double exact = 0.0;
      for (int j = 0; j < 3; ++j) exact += a(j, 0) / a(pivot, 0) * x[j * n + i];
      differ += (stored[i] <= tree.threshold[0]) != (exact <= tree.threshold[0]);
    }
    const int expected = s >= 1.0 ? 0 : s >= 1e-3 ? 1 : 2;
    check(differ == 0, "a stored direction partitions its node as the exact one, s = " +
                           std::to_string(s) + " (" + std::to_string(differ) + " rows differ)");
    check(tree.precision[0] == expected, "precision rises only as far as needed, s = " +
                                             std::to_string(s) + " (" +
                                             std::to_string(tree.precision[0]) + ")");
  }
}

void test_paper_rules() {
  // Two identical features, their own axes as the candidate directions:
  // every cut ties. The authors' rules give the tie to the first direction,
  // which is the first feature sampled at the root (the root's first draw
  // from the tree's stream, rng.index(2), without bagging or weights);
  // ccforest's break it at random.
  const int n = 60;
  std::vector<double> x(2 * n), y_real(0);
  std::vector<int> y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = x[n + i] = i % 10;
    y[i] = i % 10 < 4;
  }
  const Data data(MatrixMap(x.data(), n, 2), {0, 1, 2}, {0, 0}, IntMatrixMap(y.data(), n, 1), {2},
                  MatrixMap(y_real.data(), n, 0));
  const EntropyTable entropy(n);
  TreeOptions options = tree_options(2, 2, 1, 1, SplitRule::kEntropy, Projection::kAxis, false, false);
  int first_paper = 0, first_ccforest = 0;
  const int trees = 200;
  for (uint64_t t = 0; t < trees; ++t) {
    Rng rng(17, t);
    const int first = static_cast<int>(rng.index(2));
    for (Variant variant : {Variant::kPaper, Variant::kCcforest}) {
      options.variant = variant;
      TreeTrainer trainer(data, options, 17, t, &entropy);
      const Tree tree = trainer.grow();
      const bool is_first = tree.n_splits() == 1 && tree.column[0] == first;
      (variant == Variant::kPaper ? first_paper : first_ccforest) += is_first;
    }
  }
  check(first_paper == trees, "the authors' rules give ties between directions to the first (" +
                                  std::to_string(first_paper) + " of 200)");
  check(first_ccforest > 60 && first_ccforest < 140,
        "ccforest's rules break ties between directions at random (" +
            std::to_string(first_ccforest) + " of 200 to the first)");

  // Values less than 1e-10 apart are one value under the authors' rules:
  // a feature that varies by 1e-11 does not vary, so the node is a leaf.
  std::vector<double> tiny(n);
  for (int i = 0; i < n; ++i) tiny[i] = 1.0 + 1e-11 * (i % 2);
  for (int i = 0; i < n; ++i) y[i] = i % 2;
  const Data flat(MatrixMap(tiny.data(), n, 1), {0, 1}, {0}, IntMatrixMap(y.data(), n, 1), {2},
                  MatrixMap(y_real.data(), n, 0));
  options = tree_options(1, 2, 1, 0, SplitRule::kEntropy, Projection::kCca, false, false);
  options.variant = Variant::kPaper;
  check(TreeTrainer(flat, options, 1, 0, &entropy).grow().n_splits() == 0,
        "the authors' rules see no variation below 1e-10");
  options.variant = Variant::kCcforest;
  const Tree exact = TreeTrainer(flat, options, 1, 0, &entropy).grow();
  check(exact.n_splits() == 1 && exact.threshold[0] > 1.0 && exact.threshold[0] < 1.0 + 1e-11,
        "ccforest's rules split between any two distinct values");

  // Split points: halfway between adjacent projected values (the paper), or
  // a short number in the middle half of the gap (ccforest).
  for (int i = 0; i < n; ++i) {
    tiny[i] = 0.1 + 0.37 * (i % 7);
    y[i] = i % 7 < 3;
  }
  options.variant = Variant::kPaper;
  const Tree paper = TreeTrainer(flat, options, 1, 0, &entropy).grow();
  check(paper.n_splits() == 1 && paper.threshold[0] == 0.1 + 0.37 * 2 + 0.5 * 0.37,
        "the authors' rules split halfway between adjacent values");
}

void test_codec_damage() {
  std::vector<double> x(40), y_real(0);
  std::vector<int> y(20);
  for (int i = 0; i < 20; ++i) {
    x[i] = i;
    x[20 + i] = (i * 7) % 5;
    y[i] = i % 3 == 0;
  }
  const Data data(MatrixMap(x.data(), 20, 2), {0, 1, 2}, {0, 0}, IntMatrixMap(y.data(), 20, 1),
                  {2}, MatrixMap(y_real.data(), 20, 0));
  ModelShape shape;
  shape.n_column = 2;
  shape.n_class = {2};
  const TreeOptions tree = tree_options(2, 2, 1, 0, SplitRule::kGini, Projection::kCca, true, false);
  const Grown g = grow(data, ForestOptions(1, 7, tree), shape, Runtime());
  std::mt19937_64 gen(11);
  int refused = 0, decoded = 0, crashed = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<uint8_t> bytes = g.bytes[0];
    const int kind = trial % 3;
    if (kind == 0) {
      bytes[gen() % bytes.size()] ^= static_cast<uint8_t>(1u << (gen() % 8));
    } else if (kind == 1) {
      bytes.resize(gen() % bytes.size());
    } else {
      for (int k = 0; k < 4; ++k) bytes[gen() % bytes.size()] = static_cast<uint8_t>(gen());
    }
    ForestModel model;
    model.shape = shape;
    try {
      decode_tree(bytes.data(), bytes.size(), model);
      ++decoded;
      // A tree that decodes must be walkable to a leaf for any row.
      std::vector<double> row = {1.0, 2.0};
      const int32_t leaf = find_leaf(model, 0, row.data());
      crashed += !(leaf >= 0 && static_cast<size_t>(leaf) < model.leaves[0].size()) ||
                 model.leaf(0, leaf).count < 1;
    } catch (const DamagedModel&) {
      ++refused;
    }
  }
  check(crashed == 0 && refused + decoded == 20000 && refused > 10000,
        "damaged trees are refused or decode to walkable trees (" + std::to_string(refused) +
            " refused)");
}

}  // namespace

void test_exact_sum() {
  auto sum_of = [](const std::vector<double>& v) {
    ExactSum s;
    for (double x : v) s.add(x);
    return s;
  };
  check(sum_of({1e100, 1.0, -1e100}).rounded() == 1.0, "exact sum survives cancellation");
  check(sum_of({1.0, std::ldexp(1.0, -53)}).rounded() == 1.0, "a tie rounds to even");
  check(sum_of({1.0, std::ldexp(1.0, -53), std::ldexp(1.0, -100)}).rounded() ==
            1.0 + std::ldexp(1.0, -52),
        "a tie broken by a smaller term rounds up");
  check(sum_of({}).canonical().empty(), "an empty sum has no terms");
  const std::vector<double> tail = sum_of({1.0, std::ldexp(1.0, -60)}).canonical();
  check(tail.size() == 2 && tail[0] == 1.0 && tail[1] == std::ldexp(1.0, -60),
        "the canonical expansion keeps what rounding drops");
  // Values over 24 orders of magnitude: any order and any grouping give the
  // same canonical expansion.
  std::mt19937_64 gen(5);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> power(-12.0, 12.0);
  std::vector<double> v(500);
  for (double& x : v) x = normal(gen) * std::pow(10.0, power(gen));
  const std::vector<double> whole = sum_of(v).canonical();
  std::vector<double> shuffled = v;
  std::shuffle(shuffled.begin(), shuffled.end(), gen);
  check(sum_of(shuffled).canonical() == whole, "exact sums do not depend on order");
  std::vector<double> parts = sum_of(std::vector<double>(v.begin(), v.begin() + 200)).canonical();
  const std::vector<double> rest = sum_of(std::vector<double>(v.begin() + 200, v.end())).canonical();
  parts.insert(parts.end(), rest.begin(), rest.end());
  check(sum_of(parts).canonical() == whole, "exact sums of parts add up to the whole");
}

void test_per_tree_and_bagging() {
  // A small bagged regression forest: each tree's own predictions, terminal
  // nodes, in-bag counts, the infinitesimal jackknife, jackknife+ and
  // negated columns, each against a brute-force computation here.
  std::mt19937_64 gen(5);
  std::normal_distribution<double> normal(0.0, 1.0);
  const int n = 120, p = 3, n_tree = 9;
  std::vector<double> x(n * p), y(n);
  std::vector<int> no_class;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < p; ++j) x[j * n + i] = normal(gen);
    y[i] = x[i] + 0.5 * x[n + i] * x[n + i] + 0.3 * normal(gen);
  }
  const Data data(MatrixMap(x.data(), n, p), {0, 1, 2, 3}, {0, 0, 0},
                  IntMatrixMap(no_class.data(), n, 0), {}, MatrixMap(y.data(), n, 1));
  ModelShape shape;
  shape.n_column = p;
  shape.n_output_real = 1;
  const TreeOptions tree = tree_options(3, 6, 3, 0, SplitRule::kVariance, Projection::kCca, false, true);
  const ForestOptions options(n_tree, 17, tree);
  Runtime runtime;
  const Grown grown = grow(data, options, shape, runtime);
  const ForestModel model = decode_forest(grown.view(), shape, 0, n_tree);
  PredictOptions po;
  po.seed = 17;

  std::vector<double> per_tree(static_cast<size_t>(n) * n_tree), mean(n, 0.0);
  per_tree_values(model, data.x, data.row_hash, po, runtime, per_tree.data());
  add_tree_predictions(model, data.x, data.row_hash, po, runtime, mean.data());
  std::vector<int32_t> nodes(static_cast<size_t>(n) * n_tree);
  terminal_nodes(model, data.x, data.row_hash, po, runtime, nodes.data());
  bool average = true, walk = true;
  std::vector<double> row(p);
  for (int i = 0; i < n; ++i) {
    double sum = 0.0;
    for (int t = 0; t < n_tree; ++t) {
      sum += per_tree[i + n * t];
      tree_row(data.x, i, true, tree_impute_key(17, t), data.row_hash[i], row.data());
      const int32_t leaf = find_leaf(model, t, row.data());
      walk = walk && per_tree[i + n * t] == model.leaf_values(t, leaf)[0] &&
             nodes[i + n * t] == leaf_node_numbers(model, t)[model.leaf(t, leaf).number];
    }
    average = average && std::abs(sum - mean[i]) < 1e-9;
  }
  check(average, "per-tree values add up to the forest's sums");
  check(walk, "per-tree values and terminal nodes are the leaves each row reaches");

  BagSource source;
  source.n_row = n;
  source.seed = 17;
  const std::vector<uint16_t> counts = in_bag_counts(source, n_tree, runtime);
  bool same_bag = true;
  for (int t = 0; t < n_tree; ++t) {
    const std::vector<char> flags = in_bag(data, RowSample::bootstrap(true), 17, t);
    int total = 0;
    for (int i = 0; i < n; ++i) {
      same_bag = same_bag && (counts[i + n * t] > 0) == (flags[i] != 0);
      total += counts[i + n * t];
    }
    same_bag = same_bag && total == n;
  }
  check(same_bag, "in-bag counts are the samples out-of-bag estimates redraw");

  // Infinitesimal jackknife of the first five rows' predictions, by loops.
  const int m = 5;
  std::vector<double> values(static_cast<size_t>(m) * n_tree);
  for (int j = 0; j < m; ++j) {
    for (int t = 0; t < n_tree; ++t) values[j + m * t] = per_tree[j + n * t];
  }
  const JackknifeVariance ij = infinitesimal_jackknife(counts, n, n_tree, values.data(), m, runtime);
  bool ij_ok = true;
  for (int j = 0; j < m; ++j) {
    double t_mean = 0.0;
    for (int t = 0; t < n_tree; ++t) t_mean += values[j + m * t] / n_tree;
    double raw = 0.0, sum_var = 0.0, var_t = 0.0;
    for (int t = 0; t < n_tree; ++t) var_t += std::pow(values[j + m * t] - t_mean, 2) / n_tree;
    for (int i = 0; i < n; ++i) {
      double n_mean = 0.0, cov = 0.0, var = 0.0;
      for (int t = 0; t < n_tree; ++t) n_mean += counts[i + n * t] / static_cast<double>(n_tree);
      for (int t = 0; t < n_tree; ++t) {
        cov += (counts[i + n * t] - n_mean) * (values[j + m * t] - t_mean) / n_tree;
        var += std::pow(counts[i + n * t] - n_mean, 2) / n_tree;
      }
      raw += cov * cov;
      sum_var += var;
    }
    ij_ok = ij_ok && std::abs(ij.raw[j] - raw) < 1e-9 * (1 + raw) &&
            std::abs(ij.bias[j] - sum_var * var_t / n_tree) < 1e-9 * (1 + ij.bias[j]);
  }
  check(ij_ok, "the infinitesimal jackknife is the sum of squared covariances, less its bias");

  // Jackknife+ with ranks 3 and n_used - 2, by sorting.
  std::vector<double> residual(n, std::nan(""));
  std::vector<int> used;
  for (int i = 0; i < n; ++i) {
    int out = 0;
    for (int t = 0; t < n_tree; ++t) out += counts[i + n * t] == 0;
    if (out > 0 && i % 3 != 0) {
      residual[i] = std::abs(normal(gen));
      used.push_back(i);
    }
  }
  const size_t n_used = used.size();
  std::vector<double> lower(m), upper(m);
  jackknife_plus(counts, n, n_tree, values.data(), m, residual.data(), 3, n_used - 2, runtime,
                 lower.data(), upper.data());
  bool jab_ok = true;
  for (int j = 0; j < m; ++j) {
    std::vector<double> lo, hi;
    for (int i : used) {
      double sum = 0.0;
      int out = 0;
      for (int t = 0; t < n_tree; ++t) {
        if (counts[i + n * t] == 0) {
          sum += values[j + m * t];
          ++out;
        }
      }
      lo.push_back(sum / out - residual[i]);
      hi.push_back(sum / out + residual[i]);
    }
    std::sort(lo.begin(), lo.end());
    std::sort(hi.begin(), hi.end());
    jab_ok = jab_ok && std::abs(lower[j] - lo[2]) < 1e-12 && std::abs(upper[j] - hi[n_used - 3]) < 1e-12;
  }
  check(jab_ok, "jackknife+ bounds are the ranked leave-one-out values");

  // Reading column 1 negated is predicting rows whose column 1 is negated.
  std::vector<double> flipped(x);
  for (int i = 0; i < n; ++i) flipped[n + i] = -flipped[n + i];
  const MatrixMap flipped_x(flipped.data(), n, p);
  std::vector<double> a(n, 0.0), b(n, 0.0);
  PredictOptions negated = po;
  negated.negate_begin = 1;
  negated.negate_end = 2;
  add_tree_predictions(model, data.x, data.row_hash, negated, runtime, a.data());
  add_tree_predictions(model, flipped_x, row_hashes(flipped_x), po, runtime, b.data());
  check(a == b, "a negated column range is read as the negated data");
}

void test_weighted_features() {
  // Draws without replacement in proportion to the weights; weight 0 never,
  // even after many removals and restorations (integer sums are exact).
  const std::vector<double> weights = {0.0, 1.0, 3.0, 0.0, 6.0, 1e-300};
  WeightedFeatureSampler sampler(weights);
  Rng rng(7, 1);
  std::vector<int> first(weights.size(), 0);
  const int rounds = 20000;
  bool zero_drawn = false, repeated = false, all_positive_drawn = true;
  for (int r = 0; r < rounds; ++r) {
    if (r % 3 == 0) sampler.remove(4);  // as a feature an ancestor found constant
    std::vector<char> seen(weights.size(), 0);
    size_t drawn = 0;
    while (sampler.any_left()) {
      const size_t f = sampler.draw(rng);
      if (drawn == 0 && r % 3 != 0) ++first[f];
      zero_drawn |= weights[f] == 0.0;
      repeated |= seen[f] != 0;
      seen[f] = 1;
      ++drawn;
    }
    all_positive_drawn &= drawn == (r % 3 == 0 ? 3u : 4u);
    sampler.restore();
  }
  check(!zero_drawn, "weighted sampling never draws a feature of weight 0");
  check(!repeated, "weighted sampling draws without replacement");
  check(all_positive_drawn, "weighted sampling reaches every feature of positive weight");
  const double n = static_cast<double>(rounds - (rounds + 2) / 3);
  check(std::abs(first[4] / n - 0.6) < 0.02 && std::abs(first[2] / n - 0.3) < 0.02 &&
            std::abs(first[1] / n - 0.1) < 0.02,
        "weighted sampling's first draw follows the weights");
  bool refused = false;
  try {
    WeightedFeatureSampler none(std::vector<double>{0.0, 0.0});
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  check(refused, "all-zero feature weights are refused");
}

int main() {
  test_rng();
  test_weighted_features();
  test_sorter();
  test_cca();
  test_small_dense();
  test_split_search();
  test_split_search_reference();
  test_split_search_values_reference();
  test_binned_search();
  test_random_cut_reference();
  test_projection_rows();
  test_coefficients();
  test_forest();
  test_feature_groups();
  test_codec_damage();
  test_codec_round_trip();
  test_layout();
  test_precision();
  test_paper_rules();
  test_exact_sum();
  test_per_tree_and_bagging();
  std::printf("%d passed, %d failed\n", checks - failures, failures);
  return failures == 0 ? 0 : 1;
}
