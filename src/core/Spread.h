#ifndef CCFOREST_SPREAD_H_
#define CCFOREST_SPREAD_H_

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace ccforest {

/**
 * The population standard deviation of v[0..n), from deviations about v[0]
 * (accurate when the mean is far from 0). Four independent running sums
 * keep the additions from waiting on each other (a compiler may not reorder
 * floating-point sums itself); their order is fixed, so every platform gets
 * the same value.
 */
inline double spread(const double* v, size_t n) {
  if (n < 2) return 0.0;
  double sum[4] = {0.0, 0.0, 0.0, 0.0}, squares[4] = {0.0, 0.0, 0.0, 0.0};
  const double origin = v[0];
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (size_t k = 0; k < 4; ++k) {
      const double d = v[i + k] - origin;
      sum[k] += d;
      squares[k] += d * d;
    }
  }
  for (; i < n; ++i) {
    const double d = v[i] - origin;
    sum[0] += d;
    squares[0] += d * d;
  }
  const double total = (sum[0] + sum[1]) + (sum[2] + sum[3]);
  const double total_squares = (squares[0] + squares[1]) + (squares[2] + squares[3]);
  const double count = static_cast<double>(n);
  return std::sqrt(std::max(0.0, (total_squares - total * total / count) / count));
}

}  // namespace ccforest

#endif  // CCFOREST_SPREAD_H_
