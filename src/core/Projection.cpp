#include "Projection.h"

#include <cmath>
#include <cstring>

namespace ccforest {

#if defined(__GNUC__) || defined(__clang__)
#define CCFOREST_NOINLINE __attribute__((noinline))
#else
#define CCFOREST_NOINLINE
#endif

namespace {

// Projects kLanes consecutive rows: row w's value in a column is at
// base[column * stride + w].
// Two running sums (even and odd terms) halve the chain of dependent
// additions; the order is fixed. One row (prediction) and a block of rows
// (training) run this same code, term by term, lane by lane, so each lane
// computes what a single row would: a compiler that fuses multiply and add
// does so in both, since every accumulation is the same expression.
template <int kLanes>
inline void project_lanes(const SplitTerm* term, int k, const double* base, std::ptrdiff_t stride,
                          double* out) {
  double even[kLanes], odd[kLanes];
  for (int w = 0; w < kLanes; ++w) even[w] = odd[w] = 0.0;
  int e = 0;
  for (; e + 1 < k; e += 2) {
    const double ce = static_cast<double>(term[e].coef), co = static_cast<double>(term[e + 1].coef);
    const double* xe = base + term[e].column * stride;
    const double* xo = base + term[e + 1].column * stride;
    for (int w = 0; w < kLanes; ++w) {
      even[w] += ce * xe[w];
      odd[w] += co * xo[w];
    }
  }
  if (e < k) {
    const double ce = static_cast<double>(term[e].coef);
    const double* xe = base + term[e].column * stride;
    for (int w = 0; w < kLanes; ++w) even[w] += ce * xe[w];
  }
  for (int w = 0; w < kLanes; ++w) out[w] = even[w] + odd[w];
}

}  // namespace

// Out of line on purpose (see the header): inlined copies could be compiled
// differently from each other.
CCFOREST_NOINLINE double project_row(const SplitTerm* term, int k, const double* base,
                                     std::ptrdiff_t stride) {
  double out;
  project_lanes<1>(term, k, base, stride, &out);
  return out;
}

CCFOREST_NOINLINE void project_rows(const SplitTerm* term, int k, const double* base,
                                    std::ptrdiff_t stride, size_t n, double* out) {
  constexpr size_t kBlock = 8;
  size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) project_lanes<kBlock>(term, k, base + i, stride, out + i);
  for (; i < n; ++i) project_lanes<1>(term, k, base + i, stride, out + i);
}

uint16_t encode_coefficient(double c) {
  const double a = std::abs(c);
  uint64_t bits;
  std::memcpy(&bits, &a, sizeof bits);
  const int biased = static_cast<int>(bits >> 52);
  int e;
  long m;
  if (biased > 0 && biased < 0x7ff) {
    // A normal number, (1 + F 2^-52) 2^(biased - 1023): read off its bits
    // what frexp() and lround() below give (half a step rounds up), every
    // split's coefficients pass here.
    const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
    e = 1023 - biased;
    m = static_cast<long>((fraction + (uint64_t{1} << 41)) >> 42);
  } else {
    int exponent = 0;
    // a = f 2^exponent with f in [0.5, 1), so a = 2f 2^(exponent - 1), 2f in [1, 2).
    const double f = std::frexp(a, &exponent);
    e = 1 - exponent;
    m = std::lround((2.0 * f - 1.0) * 1024.0);
  }
  if (m == 1024) {  // rounded up to the next power of two
    m = 0;
    --e;
  }
  if (e < 0) {  // |c| rounds to 2 or more: keep the largest code below 2
    e = 0;
    m = 1023;
  }
  if (e > 31) {  // below the smallest code: callers drop such entries
    e = 31;
    m = 0;
  }
  return static_cast<uint16_t>((c < 0.0 ? 0x8000 : 0) | (e << 10) | static_cast<int>(m));
}

bool round_coefficient(double c, Precision precision, float& hi, float& lo) {
  lo = 0.0f;
  const double a = std::abs(c);
  switch (precision) {
    case Precision::kShort:
      if (!(a >= kSmallestCoefficient)) return false;
      hi = decode_coefficient(encode_coefficient(c));
      return true;
    case Precision::kSingle:
      hi = static_cast<float>(c);
      return std::isnormal(hi);
    case Precision::kDouble:
      hi = static_cast<float>(c);
      if (!std::isnormal(hi)) return false;
      lo = static_cast<float>(c - static_cast<double>(hi));
      if (!std::isnormal(lo)) lo = 0.0f;
      return true;
  }
  return false;
}

double short_threshold(double lo, double hi) {
  const double mid = lo + 0.5 * (hi - lo);
  if (!(mid >= lo && mid < hi)) return lo;
  const double quarter = 0.25 * (hi - lo);
  const double from = lo + quarter, to = hi - quarter;
  if (mid == 0.0 || !(from <= to) || !std::isfinite(quarter)) return mid;
  int exponent = 0;
  std::frexp(mid, &exponent);
  for (int bits = 1; bits <= 53; ++bits) {
    const double step = std::ldexp(1.0, exponent - bits);
    if (step == 0.0) break;
    const double t = std::nearbyint(mid / step) * step;
    if (t >= from && t <= to && t >= lo && t < hi) return t;
  }
  return mid;
}

}  // namespace ccforest
