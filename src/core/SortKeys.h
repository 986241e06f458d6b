#ifndef CCFOREST_SORT_KEYS_H_
#define CCFOREST_SORT_KEYS_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "Buffer.h"

namespace ccforest {

/**
 * Orders n values by (value, position), the order of a stable sort.
 *
 * Split search sorts every projection at every node, so this is the hottest
 * loop of training. Each value's order-preserving 64-bit image is cut to its
 * top 32 bits (sign, exponent, 20 bits of mantissa) and packed with the
 * value's position into one 64-bit key: sorting those keys orders the values
 * up to runs whose top bits agree, and a final pass puts such runs in exact
 * order. Large inputs sort the keys with a least-significant-digit radix
 * sort over the top half (the position half is already in order because the
 * sort is stable), small ones with std::sort.
 */
class KeySorter {
 public:
  /**
   * Sorts u[0..n); afterwards value(k) is the k-th smallest and position(k)
   * where it was. Positions take the keys' low 32 bits: n < 2^31 (Data
   * refuses more rows).
   */
  void sort(const double* u, size_t n) {
    keys_.resize(n);
    for (size_t i = 0; i < n; ++i) keys_[i] = (ordered_bits(u[i]) & kHighHalf) | i;
    if (n < kRadixMin) {
      std::sort(keys_.begin(), keys_.end());
    } else {
      radix_sort_high_half();
    }
    values_.resize(n);
    positions_.resize(n);
    // A run of equal top halves is out of order only if some neighbours in it
    // are, which is rare (values within a relative 1e-6), so look for that here.
    bool disordered = false;
    uint64_t previous_high = ~uint64_t{0};
    double previous = 0.0;
    for (size_t k = 0; k < n; ++k) {
      const uint64_t key = keys_[k];
      const int i = static_cast<int>(key & ~kHighHalf);
      const double v = u[i];
      positions_[k] = i;
      values_[k] = v;
      disordered |= (key & kHighHalf) == previous_high && v < previous;
      previous_high = key & kHighHalf;
      previous = v;
    }
    if (disordered) order_runs();
  }

  const double* values() const { return values_.data(); }
  const int* positions() const { return positions_.data(); }

 private:
  static constexpr uint64_t kHighHalf = 0xFFFFFFFF00000000ULL;
  // Measured on projections with ties: the radix sort is faster than
  // std::sort from about 64 values; 8-bit digits (four small histograms to
  // clear) are faster up to a few thousand values, 11-bit ones (three passes)
  // above.
  static constexpr size_t kRadixMin = 64;
  static constexpr size_t kWideDigitsMin = 2048;

  void radix_sort_high_half() {
    if (keys_.size() < kWideDigitsMin) {
      radix_passes<8>();
    } else {
      radix_passes<11>();
    }
  }

  template <int kBits>
  void radix_passes() {
    constexpr int kPasses = (32 + kBits - 1) / kBits;
    constexpr size_t kBuckets = size_t{1} << kBits;
    auto digit = [](uint64_t key, int pass) {
      return static_cast<size_t>((key >> (32 + kBits * pass)) & (kBuckets - 1));
    };
    const size_t n = keys_.size();
    std::array<std::array<uint32_t, kBuckets>, kPasses> counts{};
    for (size_t i = 0; i < n; ++i) {
      const uint64_t key = keys_[i];
      for (int pass = 0; pass < kPasses; ++pass) ++counts[pass][digit(key, pass)];
    }
    buffer_.resize(n);
    for (int pass = 0; pass < kPasses; ++pass) {
      std::array<uint32_t, kBuckets>& count = counts[pass];
      if (count[digit(keys_[0], pass)] == n) continue;  // every key shares this digit
      uint32_t offset = 0;
      for (uint32_t& c : count) {
        const uint32_t here = c;
        c = offset;
        offset += here;
      }
      for (size_t i = 0; i < n; ++i) buffer_[count[digit(keys_[i], pass)]++] = keys_[i];
      keys_.swap(buffer_);
    }
  }

  /** Puts runs of equal top halves in (value, position) order. */
  void order_runs() {
    const size_t n = keys_.size();
    size_t begin = 0;
    while (begin < n) {
      const uint64_t high = keys_[begin] & kHighHalf;
      size_t end = begin + 1;
      while (end < n && (keys_[end] & kHighHalf) == high) ++end;
      if (end - begin > 1) order_run(begin, end);
      begin = end;
    }
  }

  void order_run(size_t begin, size_t end) {
    bool sorted = true;
    for (size_t k = begin + 1; k < end && sorted; ++k) sorted = values_[k - 1] <= values_[k];
    if (sorted) return;
    pairs_.clear();
    for (size_t k = begin; k < end; ++k) pairs_.emplace_back(values_[k], positions_[k]);
    std::sort(pairs_.begin(), pairs_.end());
    for (size_t k = begin; k < end; ++k) {
      values_[k] = pairs_[k - begin].first;
      positions_[k] = pairs_[k - begin].second;
    }
  }

  /** Maps doubles to unsigned integers with the same order (finite values). */
  static uint64_t ordered_bits(double value) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return (bits & 0x8000000000000000ULL) ? ~bits : bits | 0x8000000000000000ULL;
  }

  Buffer<uint64_t> keys_, buffer_;
  Buffer<double> values_;
  Buffer<int> positions_;
  std::vector<std::pair<double, int>> pairs_;
};

}  // namespace ccforest

#endif  // CCFOREST_SORT_KEYS_H_
