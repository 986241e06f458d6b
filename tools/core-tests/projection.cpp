// Core tests: projecting rows and rounding split coefficients.
#include "core_test.h"

namespace ccforest_test {

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

}  // namespace ccforest_test
