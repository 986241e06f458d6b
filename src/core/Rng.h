#ifndef CCFOREST_RNG_H_
#define CCFOREST_RNG_H_

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace ccforest {

/** One step of SplitMix64: advances `state` and returns a well-mixed 64-bit value. */
inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/** Hashes two words into one; used to derive independent streams and keys. */
inline uint64_t mix64(uint64_t a, uint64_t b) {
  uint64_t state = a ^ (b * 0xd1342543de82ef95ULL + 0x632be59bd9b4e019ULL);
  splitmix64(state);
  return splitmix64(state);
}

/** Maps 64 random bits to a double in [0, 1) with 53 bits of precision. */
inline double bits_to_unit(uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

/** Box-Muller transform of two uniforms; u1 must lie in (0, 1]. */
inline double box_muller(double u1, double u2) {
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

/**
 * xoshiro256** generator with its own uniform, integer and normal draws.
 *
 * The standard library's distributions differ between libstdc++, libc++ and
 * MSVC, so a forest grown from the same seed would differ across platforms.
 * Every draw here is defined bit for bit. A stream is keyed by (seed, stream)
 * so each tree owns one independent of thread scheduling.
 */
class Rng {
 public:
  Rng(uint64_t seed, uint64_t stream) {
    uint64_t state = mix64(seed, stream);
    for (uint64_t& word : s_) word = splitmix64(state);
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /** Uniform double in [0, 1). */
  double uniform() { return bits_to_unit(next()); }

  /** Uniform integer in [0, n), n > 0, without modulo bias (Lemire's method). */
  size_t index(size_t n) {
    const uint64_t range = static_cast<uint64_t>(n);
    uint64_t x = next();
    u128 m = static_cast<u128>(x) * range;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < range) {
      const uint64_t threshold = (0 - range) % range;
      while (low < threshold) {
        x = next();
        m = static_cast<u128>(x) * range;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<size_t>(m >> 64);
  }

  /** Standard normal draw. */
  double normal() {
    const double u1 = 1.0 - uniform();
    return box_muller(u1, uniform());
  }

 private:
  __extension__ typedef unsigned __int128 u128;
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

/**
 * The value a tree imputes for a missing cell. It depends only on the tree's
 * key, the row's content hash and the column, never on the row's position, so
 * a row gets the same imputation at fit and at predict time, whatever other
 * rows it is predicted with.
 */
inline double imputed_normal(uint64_t tree_key, uint64_t row_hash, uint64_t column) {
  uint64_t state = mix64(mix64(tree_key, row_hash), column);
  const double u1 = 1.0 - bits_to_unit(splitmix64(state));
  const double u2 = bits_to_unit(splitmix64(state));
  return box_muller(u1, u2);
}

}  // namespace ccforest

#endif  // CCFOREST_RNG_H_
