#ifndef CCFOREST_PROJECTION_H_
#define CCFOREST_PROJECTION_H_

#include <cstddef>
#include <cstdint>

namespace ccforest {

/** One entry of a split direction: a column and its coefficient. */
struct SplitTerm {
  int32_t column;
  float coef;  // every stored coefficient is exactly a float
};
static_assert(sizeof(SplitTerm) == 8, "a term is one word");

/**
 * The projection of one row on a split direction: the sum over terms e of
 * coef * base[column * stride], in a fixed order (even and odd terms summed
 * apart, then added). Prediction passes a row-major row (base) and stride 1;
 * training passes a node row within its column-major block of gathered
 * columns, whose stride is the node's rows.
 *
 * Training, prediction, out-of-bag estimates and importance all call this one
 * out-of-line function, so the same machine code computes every projection:
 * whatever the compiler does with it (fused multiply-add, say), a training row
 * lands on the same side of each threshold at prediction as when the tree was
 * grown.
 */
#if defined(__GNUC__) || defined(__clang__)
// Called once per node a row visits: hidden, the call is direct rather than
// through the shared library's procedure linkage table.
__attribute__((visibility("hidden")))
#endif
double project_row(const SplitTerm* term, int k, const double* base, std::ptrdiff_t stride);

/**
 * project_row() of the n rows base + i, i < n, into out[i]: training's
 * projections of a node's block of gathered columns, a few rows at a time,
 * with results equal to project_row()'s bit for bit.
 */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((visibility("hidden")))
#endif
void project_rows(const SplitTerm* term, int k, const double* base, std::ptrdiff_t stride,
                  size_t n, double* out);

/**
 * Split directions are stored with 16-bit coefficients: the direction is
 * scaled so that its largest coefficient is exactly 1, and every other one is
 * rounded to 11 significant bits (a relative error below 2^-11) with a
 * binary exponent down to 2^-31. Trees project their training rows with the
 * rounded coefficients, so what is stored is exactly what was used.
 *
 * Every such value is exactly a float, so decoded trees keep coefficients as
 * floats, and project_row() widens them exactly.
 *
 * Code layout: bit 15 the sign, bits 10-14 the exponent e, bits 0-9 the
 * mantissa m; the value is +-(1 + m / 1024) 2^-e.
 */
constexpr double kSmallestCoefficient = 0x1.0p-31;

/** The code of the representable value nearest to c, for 2^-31 <= |c| < 2. */
uint16_t encode_coefficient(double c);

/** The exact value of a code (every code is exactly a float). */
float decode_coefficient(uint16_t code);

/**
 * A threshold t with lo <= t < hi that has as few significant bits as
 * possible within the middle half of (lo, hi), so that it compresses well,
 * while `u <= t` still separates the two values exactly as their midpoint
 * would. Falls back to the midpoint when the gap is too narrow.
 */
double short_threshold(double lo, double hi);

}  // namespace ccforest

#endif  // CCFOREST_PROJECTION_H_
