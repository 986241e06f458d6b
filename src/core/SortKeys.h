#ifndef CCFOREST_SORT_KEYS_H_
#define CCFOREST_SORT_KEYS_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "Buffer.h"

namespace ccforest {

/**
 * Orders n values by (value, position), the order of a stable sort.
 *
 * Split search sorts every projection at every node, so this is the hottest
 * loop of training. Each value becomes a 32-bit key that preserves order
 * (equal keys for close values are allowed), packed with the value's position
 * into one 64-bit key; sorting those orders the values up to runs of equal
 * keys, and a final pass puts such runs in exact order.
 *
 * Small inputs take the top 32 bits of the value's order-preserving 64-bit
 * image and std::sort. Larger ones map the value's offset from the smallest
 * onto 16 bits (12 below 128 values, 22 from 4,096), whose two radix passes
 * (6-, 8- or 11-bit digits) are about half the work of four over the raw
 * bits; a node's values spread over that range, so few distinct ones share a
 * key. From 128 values, inputs of at most 16 distinct values (projections
 * on factors) are counted instead, with the same result.
 */
class KeySorter {
 public:
  /**
   * Sorts u[0..n); afterwards value(k) is the k-th smallest and position(k)
   * where it was.
   * Positions take the keys' low 32 bits: n < 2^31 (Data refuses more rows).
   */
  void sort(const double* u, size_t n) {
    keys_.resize(n);
    values_.resize(n);
    positions_.resize(n);
    if (n == 0) return;
    if (n >= kFewValuesMin && few_values_sort(u, n)) return;
    if (n < kRadixMin || !radix_sort(u, n)) {
      for (size_t i = 0; i < n; ++i) keys_[i] = (ordered_bits(u[i]) & kHighHalf) | i;
      std::sort(keys_.begin(), keys_.end());
    }
    // A run of equal keys is out of order only where some neighbours in it
    // are, which is rare: note those places while gathering, and order
    // only the runs around them. Keys never decrease as values grow, so a
    // value below its predecessor's shares its key: comparing values is
    // enough, and that branch is rarely taken (whether neighbouring keys are
    // equal is not predictable when values tie often).
    disorder_.clear();
    const uint64_t* keys = keys_.data();
    double* values = values_.data();
    int* positions = positions_.data();
    double previous = -kInfinity;
    for (size_t k = 0; k < n; ++k) {
      const int i = static_cast<int>(keys[k] & ~kHighHalf);
      const double v = u[i];
      positions[k] = i;
      values[k] = v;
      if (v < previous) disorder_.push_back(k);
      previous = v;
    }
    size_t ordered_to = 0;  // runs before this position are in order
    for (size_t k : disorder_) {
      if (k < ordered_to) continue;
      const uint64_t high = keys_[k] & kHighHalf;
      size_t begin = k, end = k + 1;
      while (begin > 0 && (keys_[begin - 1] & kHighHalf) == high) --begin;
      while (end < n && (keys_[end] & kHighHalf) == high) ++end;
      order_run(begin, end);
      ordered_to = end;
    }
  }

  const double* values() const { return values_.data(); }
  const int* positions() const { return positions_.data(); }

 private:
  static constexpr uint64_t kHighHalf = 0xFFFFFFFF00000000ULL;
  // Measured on projections (bench/instruments/node-phases.R with a clock around the
  // sort, letter): from 16 values the radix sort beats std::sort, whose
  // comparisons the branch predictor cannot guess (16-127 rows: 49.5 -> 28.5
  // ms of a 0.86 s fit; from 8 values it lost at the smallest nodes); below
  // 128 values 12-bit keys (6-bit digits, 64-entry histograms) beat 16-bit
  // ones; 16-bit keys are faster up to a few thousand values, 22-bit ones
  // (two passes of 11 bits, fewer shared keys) above.
  static constexpr size_t kRadixMin = 16;
  static constexpr size_t kNarrowKeysMax = 128;
  static constexpr size_t kWideKeysMin = 4096;
  static constexpr double kInfinity = std::numeric_limits<double>::infinity();
  // Projections on factors' indicator columns and other coarse features take
  // a few distinct values over hundreds of rows (prostateSurvival's factors,
  // two of three at a node: at most 12 over 1,000 rows), where a counting
  // sort by distinct value beats the radix passes (bench/results/survival-speed.md,
  // fifth session). The attempt gives up at the (cap + 1)-th distinct value,
  // or when the first kProbeRows are all distinct, so continuous projections
  // pay a dozen probes: 1-2% of their sort from 128 values; below, where
  // that is more, inputs are not tried.
  static constexpr size_t kFewValuesMin = 128;
  static constexpr size_t kProbeRows = 12;
  // More values than this are not worth hashing: at 20-60 distinct ones an
  // attempt often got far before giving up (bfeed: 2% of growing in
  // abandoned attempts with a cap of 32).
  static constexpr size_t kFewValuesMax = 16;
  static constexpr int kTableBits = 6;  // 64 slots: a quarter full at most
  static constexpr size_t kTableSize = size_t{1} << kTableBits;

  /**
   * The radix sort's result by a counting sort over the distinct values,
   * when there are at most min(kFewValuesMax, n / 8) of them (n >=
   * kFewValuesMin) and the radix sort would run (finite values whose range
   * and scale are finite); false, with nothing sorted, otherwise. Equal values (+0 and -0 among them, as
   * the radix keys make them) keep their positions' order.
   */
  bool few_values_sort(const double* u, size_t n) {
    const size_t cap = std::min(kFewValuesMax, n / 8);
    if (++stamp_ == 0) {  // stamps wrapped: no slot may look filled
      table_.fill(Slot());
      stamp_ = 1;
    }
    distinct_.clear();
    value_id_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const double v = u[i] + 0.0;  // -0 becomes +0, the same key
      uint64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      size_t slot = static_cast<size_t>((bits * 0x9E3779B97F4A7C15ULL) >> (64 - kTableBits));
      for (;;) {
        Slot& entry = table_[slot];
        if (entry.bits == bits && entry.stamp == stamp_) break;
        if (entry.stamp != stamp_) {
          // Continuous projections are given up on early: the first
          // kProbeRows values all distinct (under 1% of 16-value inputs).
          if (distinct_.size() == cap || (i + 1 == kProbeRows && distinct_.size() + 1 == kProbeRows)) {
            return false;
          }
          entry.stamp = stamp_;
          entry.bits = bits;
          entry.id = static_cast<uint32_t>(distinct_.size());
          distinct_.push_back(v);
          break;
        }
        slot = (slot + 1) & (kTableSize - 1);
      }
      value_id_[i] = static_cast<uint8_t>(table_[slot].id);
    }
    const size_t d = distinct_.size();
    double lo = distinct_[0], hi = distinct_[0];
    for (double v : distinct_) {
      if (!(v - v == 0.0)) return false;  // not finite (x - x is 0 exactly for finite x)
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    const double range = hi - lo;
    if (range > 0.0) {  // the radix sort's own conditions
      const bool wide = n >= kWideKeysMin, narrow = n < kNarrowKeysMax;
      const double scale = std::ldexp(1.0, wide ? 22 : narrow ? 12 : 16) * (1.0 - 1e-9) / range;
      if (!(range < kInfinity) || !(scale < kInfinity)) return false;
    }
    // The distinct values in order (all differ). Rows are counted and placed
    // in four streams, one per quarter of the positions, each with its own
    // counters: consecutive rows of one value would otherwise wait on each
    // other's increment of a single counter. Each quarter's rows of a value
    // follow the previous quarter's, so the order stays (value, position).
    by_value_.resize(d);
    for (size_t j = 0; j < d; ++j) by_value_[j] = static_cast<uint8_t>(j);
    std::sort(by_value_.begin(), by_value_.end(),
              [this](uint8_t a, uint8_t b) { return distinct_[a] < distinct_[b]; });
    constexpr size_t kStreams = 4;
    size_t bound[kStreams + 1];
    for (size_t q = 0; q <= kStreams; ++q) bound[q] = q * n / kStreams;
    const size_t common = n / kStreams;  // every stream's length is at least this
    std::array<std::array<uint32_t, kFewValuesMax>, kStreams> next{};
    const uint8_t* id = value_id_.data();
    for (size_t k = 0; k < common; ++k) {
      for (size_t q = 0; q < kStreams; ++q) ++next[q][id[bound[q] + k]];
    }
    for (size_t q = 0; q < kStreams; ++q) {
      for (size_t i = bound[q] + common; i < bound[q + 1]; ++i) ++next[q][id[i]];
    }
    uint32_t offset = 0;
    for (size_t j = 0; j < d; ++j) {
      for (size_t q = 0; q < kStreams; ++q) {
        const uint32_t here = next[q][by_value_[j]];
        next[q][by_value_[j]] = offset;
        offset += here;
      }
    }
    double* values = values_.data();
    int* positions = positions_.data();
    for (size_t k = 0; k < common; ++k) {
      for (size_t q = 0; q < kStreams; ++q) {
        const size_t i = bound[q] + k;
        const uint32_t at = next[q][id[i]]++;
        positions[at] = static_cast<int>(i);
        values[at] = u[i];
      }
    }
    for (size_t q = 0; q < kStreams; ++q) {
      for (size_t i = bound[q] + common; i < bound[q + 1]; ++i) {
        const uint32_t at = next[q][id[i]]++;
        positions[at] = static_cast<int>(i);
        values[at] = u[i];
      }
    }
    return true;
  }

  /** False, doing nothing, unless the values, their range and its scale are finite. */
  bool radix_sort(const double* u, size_t n) {
    double lo = u[0], hi = u[0];
    bool finite = true;  // x - x is 0 exactly for finite x
    for (size_t i = 0; i < n; ++i) {
      lo = std::min(lo, u[i]);
      hi = std::max(hi, u[i]);
      finite &= u[i] - u[i] == 0.0;
    }
    if (!finite) return false;
    const bool wide = n >= kWideKeysMin, narrow = n < kNarrowKeysMax;
    // Subtraction and multiplication round monotonically, so this map
    // preserves order; the factor just below 1 keeps the largest key inside
    // the range.
    const double range = hi - lo;
    if (!(range > 0.0)) {
      for (size_t i = 0; i < n; ++i) keys_[i] = i;  // all equal: position order
      return true;
    }
    const double scale = std::ldexp(1.0, wide ? 22 : narrow ? 12 : 16) * (1.0 - 1e-9) / range;
    if (!(range < kInfinity) || !(scale < kInfinity)) return false;
    for (size_t i = 0; i < n; ++i) {
      keys_[i] = (static_cast<uint64_t>((u[i] - lo) * scale) << 32) | i;
    }
    if (wide) {
      radix_passes<11, 2>();
    } else if (narrow) {
      radix_passes<6, 2>();
    } else {
      radix_passes<8, 2>();
    }
    return true;
  }

  template <int kBits, int kPasses>
  void radix_passes() {
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

  /** Puts the run of equal keys keys_[begin, end) in (value, position) order. */
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
  std::vector<size_t> disorder_;  // positions whose value is below their predecessor's
  std::vector<std::pair<double, int>> pairs_;
  // few_values_sort(): an open-addressing table of the distinct values'
  // bits, a slot filled when its stamp is the current call's (no clearing
  // per call), each row's distinct value, and the distinct values in value
  // order.
  uint32_t stamp_ = 0;
  struct Slot {
    uint64_t bits = 0;
    uint32_t stamp = 0;
    uint32_t id = 0;
  };
  std::array<Slot, kTableSize> table_{};
  std::vector<double> distinct_;
  Buffer<uint8_t> value_id_;
  std::vector<uint8_t> by_value_;
};

}  // namespace ccforest

#endif  // CCFOREST_SORT_KEYS_H_
