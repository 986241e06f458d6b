// Pseudo-random keys of rows drawn from a seed without R's generator (whose
// stream belongs to the user): ordering rows by them shuffles them the same
// way for the same seed on every platform.
#include <Rcpp.h>

#include <cmath>
#include <cstdint>

#include "core/Rng.h"

// Keys of rows 1, ..., n for `seed`: doubles in [0, 1) with 53 random bits.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector ccf_row_keys_cpp(double seed, int n) {
  if (!(seed >= 0.0 && seed <= 2147483647.0) || seed != std::floor(seed) || n < 0) {
    Rcpp::stop("internal error: row keys need a whole seed and a count");
  }
  Rcpp::NumericVector out(n);
  for (int i = 0; i < n; ++i) {
    out[i] = ccforest::bits_to_unit(
        ccforest::mix64(static_cast<uint64_t>(seed) ^ 0x666f6c6473ULL, static_cast<uint64_t>(i)));
  }
  return out;
}
