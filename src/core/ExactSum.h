#ifndef CCFOREST_EXACT_SUM_H_
#define CCFOREST_EXACT_SUM_H_

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ccforest {

/**
 * The exact sum of a sequence of doubles (Shewchuk, 1997, "Adaptive precision
 * floating-point arithmetic"; the algorithm of Python's math.fsum).
 *
 * The sum is kept as a non-overlapping expansion: doubles in increasing
 * magnitude whose exact real sum is the exact sum of every number added. The
 * exact sum does not depend on the order or grouping of the terms, so neither
 * do rounded() and canonical(): a forest's importance summed over its trees in
 * one go is the same double as the sums of two ranges of its trees added
 * together, which a floating-point sum cannot promise.
 */
class ExactSum {
 public:
  /** Adds `x` exactly; throws std::overflow_error if the sum leaves the doubles. */
  void add(double x) {
    if (!std::isfinite(x)) throw std::invalid_argument("an exact sum takes finite numbers only");
    size_t kept = 0;
    for (size_t i = 0; i < partials_.size(); ++i) {
      double y = partials_[i];
      if (std::abs(x) < std::abs(y)) std::swap(x, y);
      const double hi = x + y;
      const double lo = y - (hi - x);
      if (lo != 0.0) partials_[kept++] = lo;
      x = hi;
    }
    if (!std::isfinite(x)) throw std::overflow_error("an exact sum overflowed");
    partials_.resize(kept);
    partials_.push_back(x);
  }

  /** The exact sum rounded to the nearest double (ties to even). */
  double rounded() const {
    size_t n = partials_.size();
    if (n == 0) return 0.0;
    double hi = partials_[--n], lo = 0.0;
    while (n > 0) {
      const double x = hi, y = partials_[--n];
      hi = x + y;
      lo = y - (hi - x);
      if (lo != 0.0) break;
    }
    // hi + lo is exact; the partials below lo can only break a tie between
    // rounding hi + lo up or down, in the direction of their sign.
    if (n > 0 && ((lo < 0.0 && partials_[n - 1] < 0.0) || (lo > 0.0 && partials_[n - 1] > 0.0))) {
      const double y = lo * 2.0, x = hi + y;
      if (y == x - hi) hi = x;
    }
    return hi;
  }

  /**
   * The canonical expansion of the exact sum: t[0] is the sum rounded to the
   * nearest double, t[1] the rest rounded, and so on until nothing is left
   * (empty for a zero sum). Two sums of the same real number have the same
   * canonical expansion, however their terms were grouped.
   */
  std::vector<double> canonical() const {
    std::vector<double> terms;
    ExactSum rest = *this;
    // Each term is at most half an ulp of the one before and the sum is a
    // multiple of 2^-1074, so a finite sum needs at most 41 terms.
    for (int i = 0; i < 64; ++i) {
      const double term = rest.rounded();
      if (term == 0.0) return terms;
      terms.push_back(term);
      rest.add(-term);
    }
    throw std::logic_error("an exact sum did not reduce to a canonical expansion");
  }

 private:
  std::vector<double> partials_;
};

}  // namespace ccforest

#endif  // CCFOREST_EXACT_SUM_H_
