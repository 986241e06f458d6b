#ifndef CCFOREST_PROJECTION_H_
#define CCFOREST_PROJECTION_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

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
 * How precisely a split's coefficients are stored. Most splits need little:
 * 16-bit codes (kShort, below) move each row's projection by a tiny fraction
 * of the projections' spread. Where features are nearly collinear, the
 * direction that separates the classes is a small difference of large
 * coefficients, and that rounding would swamp it: those splits keep each
 * coefficient as a float (kSingle), or as the sum of two floats (kDouble,
 * two terms per column, hi then lo, about 48 significant bits), whichever is
 * the least that keeps the canonical correlation analysis's affine
 * invariance (see choose_precision()). Every stored term is a float, so
 * decoded splits keep one layout whatever their precision.
 */
enum class Precision : uint8_t { kShort = 0, kSingle = 1, kDouble = 2 };

/** Stored terms per coefficient: two (hi, lo) for kDouble, else one. */
inline int terms_per_coefficient(Precision precision) {
  return precision == Precision::kDouble ? 2 : 1;
}

/**
 * The stored form of coefficient c (|c| <= 1: directions are scaled so that
 * their largest coefficient is exactly 1) at a precision: `hi` (and `lo` for
 * kDouble; 0 otherwise), the stored value being hi + lo. Returns false when
 * c is too small to be stored at that precision (the coefficient is then
 * dropped: its whole value is the rounding error).
 */
bool round_coefficient(double c, Precision precision, float& hi, float& lo);

/**
 * Whether a direction rounded to some precision is precise enough: the
 * rounding moves the projection of any row by at most `error` in spread
 * (sum_j |stored_j - exact_j| sd_j over the node's columns j, an upper bound
 * of the standard deviation of the change), and this must stay below
 * kPrecisionTolerance of the spread of the projections themselves, `spread`
 * (their standard deviation at the node), so that the rounded direction
 * orders the node's rows as the exact one does, up to rows closer than that
 * fraction of the spread.
 */
constexpr double kPrecisionTolerance = 0x1.0p-10;
inline bool precise_enough(double error, double spread) {
  return error <= kPrecisionTolerance * (spread - error);
}

/**
 * Split directions are stored with 16-bit coefficients by default: the direction is
 * scaled so that its largest coefficient is exactly 1, and every other one is
 * rounded to 11 significant bits (a relative error below 2^-11) with a
 * binary exponent down to 2^-31 (kShort). Trees project their training rows
 * with the stored coefficients, whatever their precision, so what is stored
 * is exactly what was used.
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
inline float decode_coefficient(uint16_t code) {
  // (1 + m / 1024) 2^-e with e <= 31 is a normal float: its bits are the
  // code's sign, the biased exponent 127 - e and m as the top mantissa bits.
  const uint32_t e = (code >> 10) & 0x1fu;
  const uint32_t bits = (static_cast<uint32_t>(code & 0x8000u) << 16) | ((127u - e) << 23) |
                        (static_cast<uint32_t>(code & 0x3ffu) << 13);
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

/**
 * A threshold t with lo <= t < hi that has as few significant bits as
 * possible within the middle half of (lo, hi), so that it compresses well,
 * while `u <= t` still separates the two values exactly as their midpoint
 * would. Falls back to the midpoint when the gap is too narrow.
 */
double short_threshold(double lo, double hi);

/** The point halfway between lo < hi (the paper's split point), or lo if rounding reaches hi. */
inline double midpoint_threshold(double lo, double hi) {
  const double mid = lo + 0.5 * (hi - lo);
  return mid >= lo && mid < hi ? mid : lo;
}

}  // namespace ccforest

#endif  // CCFOREST_PROJECTION_H_
