#ifndef CCFOREST_BYTES_H_
#define CCFOREST_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "Model.h"

namespace ccforest {

/**
 * The byte-level pieces of the stored tree format (TreeCodec.h): unsigned
 * varints (7 bits a byte, least significant first) and words split into byte
 * planes (all most significant bytes first, then the next, ...), so that
 * general-purpose compression finds the regularity in exponents and signs.
 * Numbers are written byte by byte, so the format is the same on every
 * platform.
 */
inline void put_varint(std::vector<uint8_t>& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<uint8_t>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<uint8_t>(value));
}

inline uint64_t bits_of(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline uint32_t bits_of(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline double as_double(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

inline float as_float(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

/** Appends `width`-byte words as byte planes, most significant plane first. */
template <typename Word>
void put_planes(std::vector<uint8_t>& out, const std::vector<Word>& words, int width) {
  for (int plane = width - 1; plane >= 0; --plane) {
    for (Word w : words) out.push_back(static_cast<uint8_t>(w >> (8 * plane)));
  }
}

/**
 * `count` words of `width` bytes stored as byte planes (put_planes()), read
 * in place: word i without first gathering all of them.
 */
template <typename Word>
struct Planes {
  const uint8_t* bytes;
  size_t count;
  int width;

  Word operator[](size_t i) const {
    uint64_t w = 0;
    for (int b = 0; b < width; ++b) w = (w << 8) | bytes[static_cast<size_t>(b) * count + i];
    return static_cast<Word>(w);
  }
};

/**
 * Reads an encoded tree front to back. Every read is bounds-checked, and
 * every count that sizes an allocation is first checked against the bytes
 * left (each item it counts takes at least one byte), so damaged bytes can
 * neither be read past nor make the reader allocate more than a small
 * multiple of their own size.
 */
class Reader {
 public:
  Reader(const uint8_t* bytes, size_t size) : p_(bytes), end_(bytes + size) {}

  size_t remaining() const { return static_cast<size_t>(end_ - p_); }

  uint8_t byte() {
    if (p_ == end_) throw DamagedModel("a tree is truncated");
    return *p_++;
  }

  /** A varint no larger than `max`. */
  uint64_t varint(uint64_t max) {
    // Most stored numbers (column steps, class codes, counts) take one byte:
    // that path is inlined where it is read, the rest is not.
    if (p_ != end_ && *p_ < 0x80) {
      const uint64_t value = *p_++;
      if (value > max) out_of_range();
      return value;
    }
    return long_varint(max);
  }

  /** Throws unless `count` items of at least `bytes_each` bytes can follow. */
  void expect(uint64_t count, size_t bytes_each) const {
    if (count > remaining() / bytes_each) throw DamagedModel("a tree is truncated");
  }

  /** `count` words of `width` bytes stored as planes. */
  template <typename Word>
  void planes(size_t count, int width, std::vector<Word>& words) {
    expect(count, static_cast<size_t>(width));
    words.assign(count, 0);
    for (int plane = width - 1; plane >= 0; --plane) {
      for (size_t i = 0; i < count; ++i) words[i] |= static_cast<Word>(*p_++) << (8 * plane);
    }
  }

  /** The same, read where they lie (see Planes). */
  template <typename Word>
  Planes<Word> planes_in_place(size_t count, int width) {
    expect(count, static_cast<size_t>(width));
    const uint8_t* at = p_;
    p_ += count * static_cast<size_t>(width);
    return Planes<Word>{at, count, width};
  }

  /**
   * Moves past `count` varints without reading their values (their ranges
   * are checked by whoever reads them).
   */
  void skip_varints(uint64_t count) {
    expect(count, 1);
    for (; count > 0; --count) {
      int length = 1;
      while (byte() & 0x80) {
        if (++length > 10) throw DamagedModel("a tree holds a malformed number");
      }
    }
  }

  const uint8_t* take(size_t count) {
    expect(count, 1);
    const uint8_t* at = p_;
    p_ += count;
    return at;
  }

 private:
  uint64_t long_varint(uint64_t max);
  [[noreturn]] static void out_of_range();

  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace ccforest

#endif  // CCFOREST_BYTES_H_
