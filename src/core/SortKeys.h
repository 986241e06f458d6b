#ifndef CCFOREST_SORT_KEYS_H_
#define CCFOREST_SORT_KEYS_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace ccforest {

/**
 * Sorts (value, row) pairs by value, ties in input order, for finite values.
 *
 * Split search sorts every projection at every node, so this is the hottest
 * loop of training. Large inputs use a least-significant-digit radix sort on
 * the order-preserving integer image of the doubles (6 passes of 11 bits,
 * skipping passes where all keys share a digit); small ones use std::sort.
 */
class KeySorter {
 public:
  void sort(std::vector<std::pair<double, int>>& items) {
    const size_t n = items.size();
    if (n < kRadixMin) {
      // Rows enter in increasing order, so sorting the pairs (value, row)
      // orders ties by row: the same result as a stable sort, without its
      // buffer.
      std::sort(items.begin(), items.end());
      return;
    }
    keys_.resize(n);
    rows_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      keys_[i] = ordered_bits(items[i].first);
      rows_[i] = items[i].second;
    }
    std::array<std::array<uint32_t, kBuckets>, kPasses> counts{};
    for (size_t i = 0; i < n; ++i) {
      const uint64_t key = keys_[i];
      for (int pass = 0; pass < kPasses; ++pass) ++counts[pass][digit(key, pass)];
    }
    key_buffer_.resize(n);
    row_buffer_.resize(n);
    for (int pass = 0; pass < kPasses; ++pass) {
      std::array<uint32_t, kBuckets>& count = counts[pass];
      if (count[digit(keys_[0], pass)] == n) continue;  // every key shares this digit
      uint32_t offset = 0;
      for (uint32_t& c : count) {
        const uint32_t here = c;
        c = offset;
        offset += here;
      }
      for (size_t i = 0; i < n; ++i) {
        const uint32_t slot = count[digit(keys_[i], pass)]++;
        key_buffer_[slot] = keys_[i];
        row_buffer_[slot] = rows_[i];
      }
      keys_.swap(key_buffer_);
      rows_.swap(row_buffer_);
    }
    for (size_t i = 0; i < n; ++i) items[i] = {from_ordered_bits(keys_[i]), rows_[i]};
  }

 private:
  static constexpr size_t kRadixMin = 256;
  // 11-bit digits: six passes cover 64 bits, with histograms that stay in L1.
  static constexpr int kBits = 11;
  static constexpr int kPasses = 6;
  static constexpr size_t kBuckets = size_t{1} << kBits;

  static size_t digit(uint64_t key, int pass) {
    return static_cast<size_t>((key >> (kBits * pass)) & (kBuckets - 1));
  }

  /** Maps doubles to unsigned integers with the same order (finite values). */
  static uint64_t ordered_bits(double value) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return (bits & 0x8000000000000000ULL) ? ~bits : bits | 0x8000000000000000ULL;
  }

  static double from_ordered_bits(uint64_t bits) {
    bits = (bits & 0x8000000000000000ULL) ? bits & ~0x8000000000000000ULL : ~bits;
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }

  std::vector<uint64_t> keys_, key_buffer_;
  std::vector<int> rows_, row_buffer_;
};

}  // namespace ccforest

#endif  // CCFOREST_SORT_KEYS_H_
