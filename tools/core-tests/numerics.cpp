// Core tests: random streams, sort keys, CCA, the small eigensolver, exact sums.
#include "core_test.h"

namespace ccforest_test {

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

void test_sorter_few_values() {
  // Projections on coarse features (factors' indicator columns) repeat a few
  // values, which KeySorter orders by counting from 128 values on, when they
  // number at most min(16, n / 8) and its radix sort would run: the result must be the
  // radix sort's, (value, position) with -0 and +0 equal, on each side of
  // that limit; where the radix sort declines (a range whose scale
  // overflows, an infinity) so must the counting, and std::sort's keys put
  // -0 before +0.
  std::mt19937_64 gen(3);
  std::normal_distribution<double> normal;
  auto sorted_as = [](const std::vector<double>& u, bool zeros_equal) {
    std::vector<std::pair<double, int>> expected(u.size());
    for (size_t i = 0; i < u.size(); ++i) expected[i] = {u[i], static_cast<int>(i)};
    std::stable_sort(expected.begin(), expected.end(), [zeros_equal](const auto& x, const auto& y) {
      if (x.first < y.first) return true;
      return !zeros_equal && x.first == y.first && std::signbit(x.first) && !std::signbit(y.first);
    });
    return expected;
  };
  auto agrees = [](KeySorter& sorter, const std::vector<double>& u,
                   const std::vector<std::pair<double, int>>& expected) {
    sorter.sort(u.data(), u.size());
    bool same = true;
    for (size_t k = 0; k < u.size(); ++k) {
      const double v = sorter.values()[k];
      same = same && std::memcmp(&v, &expected[k].first, sizeof v) == 0 &&
             sorter.positions()[k] == expected[k].second;
    }
    return same;
  };
  KeySorter sorter;  // one sorter throughout, as a split search keeps it
  for (int n : {16, 17, 40, 127, 128, 255, 256, 300, 1000, 4095, 4096, 5000}) {
    const int cap = std::min(16, n / 8);
    for (int d : {1, 2, 3, 12, cap, cap + 1, 40}) {
      if (d < 1) continue;
      // Sums of three coefficients, as one-hot rows project, with -0 and +0
      // among the values.
      std::vector<double> pool(d);
      for (int j = 0; j < d; ++j) pool[j] = normal(gen) + normal(gen) + normal(gen);
      pool[0] = -0.0;
      if (d > 1) pool[1] = 0.0;
      std::vector<double> u(n);
      for (int i = 0; i < n; ++i) u[i] = pool[gen() % d];
      check(agrees(sorter, u, sorted_as(u, true)),
            "few distinct values sort as the radix sort does, n = " + std::to_string(n) +
                ", distinct " + std::to_string(d));
    }
    std::vector<double> tiny(n), infinite(n);
    const double denormal = std::numeric_limits<double>::denorm_min();
    const double inf = std::numeric_limits<double>::infinity();
    for (int i = 0; i < n; ++i) {
      const unsigned r = static_cast<unsigned>(gen() % 3);
      tiny[i] = r == 0 ? -0.0 : r == 1 ? 0.0 : denormal;
      infinite[i] = r == 0 ? -1.5 : r == 1 ? 2.0 : inf;
    }
    check(agrees(sorter, tiny, sorted_as(tiny, false)),
          "few values whose radix scale overflows keep std::sort's order, n = " + std::to_string(n));
    check(agrees(sorter, infinite, sorted_as(infinite, true)),
          "few values with an infinity sort by value, n = " + std::to_string(n));
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
void test_cross_product() {
  // cca()'s cross product of the centred blocks must be Eigen's own, to the
  // bit (forests would change otherwise), at every shape: below and above
  // Eigen's coefficient-wise threshold and its depth blocking (a few hundred
  // rows), and with the four or more columns left to Eigen.
  std::mt19937_64 gen(38);
  std::normal_distribution<double> normal;
  int differing = 0, shapes = 0;
  for (Eigen::Index n : {1, 5, 15, 16, 17, 18, 19, 20, 64, 250, 503, 504, 505, 511, 700, 1100, 2600}) {
    for (Eigen::Index p : {1, 2, 3, 5, 7}) {
      for (Eigen::Index q : {1, 2, 3, 4, 6}) {
        Eigen::MatrixXd x(n, p), y(n, q), ours;
        for (Eigen::Index i = 0; i < x.size(); ++i) x(i) = normal(gen) * std::exp(3.0 * normal(gen));
        for (Eigen::Index i = 0; i < y.size(); ++i) y(i) = normal(gen);
        const Eigen::MatrixXd eigen = x.transpose() * y;
        cross_product(x.data(), y.data(), n, p, q, ours);
        ++shapes;
        differing += ours.rows() != p || ours.cols() != q ||
                     std::memcmp(ours.data(), eigen.data(), sizeof(double) * static_cast<size_t>(p * q)) != 0;
      }
    }
  }
  check(differing == 0, "cross_product() is Eigen's product bit for bit (" +
                            std::to_string(differing) + " of " + std::to_string(shapes) + " shapes differ)");
}

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

}  // namespace ccforest_test
