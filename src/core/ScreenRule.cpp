#include "ScreenRule.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace ccforest {

namespace {

// The continued fraction of the regularised incomplete beta function
// I_x(a, b), by the modified Lentz method; it converges fast for
// x < (a + 1) / (a + b + 2), where it is used.
double beta_fraction(double x, double a, double b) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-15;
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double step = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + step * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + step / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    step = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + step * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + step / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < kEps) break;
  }
  return h;
}

// I_x(a, b) for x in (0, 1) where the fraction converges.
double lower_by_fraction(double x, double a, double b) {
  const double log_front = a * std::log(x) + b * std::log1p(-x) + std::lgamma(a + b) - std::lgamma(a) -
                           std::lgamma(b);
  return std::exp(log_front) * beta_fraction(x, a, b) / a;
}

}  // namespace

double beta_upper_tail(double x, double a, double b) {
  if (!(a > 0.0) || !(b > 0.0)) throw std::invalid_argument("beta_upper_tail: a and b must be positive");
  if (!(x > 0.0)) return 1.0;
  if (!(x < 1.0)) return 0.0;
  // The upper tail is I_{1-x}(b, a); each side computed where its fraction
  // converges, so a small tail is never 1 minus a number close to 1.
  if (x > (a + 1.0) / (a + b + 2.0)) return lower_by_fraction(1.0 - x, b, a);
  return 1.0 - lower_by_fraction(x, a, b);
}

double beta_upper_quantile(double tail, double a, double b) {
  if (!(tail > 0.0) || !(tail < 1.0)) throw std::invalid_argument("beta_upper_quantile: tail must be in (0, 1)");
  double low = 0.0;
  double high = 1.0;
  // The tail falls from 1 to 0 over (0, 1): bisection to double precision.
  for (int i = 0; i < 200 && high - low > 4.0 * std::numeric_limits<double>::epsilon(); ++i) {
    const double mid = 0.5 * (low + high);
    if (beta_upper_tail(mid, a, b) > tail) {
      low = mid;
    } else {
      high = mid;
    }
  }
  return 0.5 * (low + high);
}

ScreenDecision decide_screen(const std::vector<double>& r2, size_t n_row, size_t rank, size_t mtry) {
  ScreenDecision decision;
  const size_t p = r2.size();
  if (p == 0 || rank == 0 || mtry >= p || n_row <= rank + 1) return decision;
  constexpr double kFamilyLevel = 0.05;  // the chance that any noise feature stands out
  constexpr double kWideRatio = 10.0;    // p >= 10 n: wide as gene expression data are
  constexpr double kSparseShare = 0.5;   // standing-out features a node's draws meet on average
  const double a = 0.5 * static_cast<double>(rank);
  const double b = 0.5 * static_cast<double>(n_row - 1 - rank);
  decision.threshold = beta_upper_quantile(kFamilyLevel / static_cast<double>(p), a, b);
  for (double value : r2) {
    if (value > decision.threshold) ++decision.standing_out;
  }
  const bool sparse_signal = static_cast<double>(mtry) * static_cast<double>(decision.standing_out) <
                             kSparseShare * static_cast<double>(p);
  const bool wide = static_cast<double>(p) >= kWideRatio * static_cast<double>(n_row);
  decision.acts = decision.standing_out > 0 && (sparse_signal || wide);
  return decision;
}

}  // namespace ccforest
