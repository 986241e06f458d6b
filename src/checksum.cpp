// A checksum of a fitted object's contents (see seal_ccforest() in
// R/object-checksum.R): 64 bits that change with any change to the values, lengths,
// types, names or other attributes of what it covers, the same on every
// platform.
#include <Rcpp.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

/**
 * Folds 64-bit words into a state. Each step, (h ^ w) * odd then h ^= h >> 29,
 * is a bijection of the state for a given word and gives distinct states for
 * distinct words: two inputs of the same length that differ in one word (a
 * flipped bit, say) always end in different states; other differences
 * collide with probability about 2^-64.
 */
class Checksum {
 public:
  void word(uint64_t w) {
    h_ = (h_ ^ w) * 0x9e3779b97f4a7c15ULL;
    h_ ^= h_ >> 29;
  }

  /** Bytes as little-endian words, whatever the host's byte order. */
  void bytes(const unsigned char* p, size_t n) {
    word(n);
    for (; n >= 8; n -= 8, p += 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
      w = __builtin_bswap64(w);
#endif
      word(w);
    }
    uint64_t tail = 0;
    for (size_t k = 0; k < n; ++k) tail |= static_cast<uint64_t>(p[k]) << (8 * k);
    if (n > 0) word(tail);
  }

  void string(SEXP s) {
    if (s == NA_STRING) {
      word(0xffffffffffffffffULL);
      return;
    }
    bytes(reinterpret_cast<const unsigned char*>(CHAR(s)), static_cast<size_t>(LENGTH(s)));
  }

  void object(SEXP x) {
    const int type = TYPEOF(x);
    word(static_cast<uint64_t>(type));
    switch (type) {
      case NILSXP:
        return;
      case SYMSXP:
        string(PRINTNAME(x));
        return;
      case LISTSXP:
      case LANGSXP:
        for (SEXP cell = x; cell != R_NilValue; cell = CDR(cell)) {
          object(TAG(cell));
          object(CAR(cell));
        }
        break;
      case LGLSXP:
      case INTSXP: {
        const R_xlen_t n = XLENGTH(x);
        const int* v = type == INTSXP ? INTEGER(x) : LOGICAL(x);
        word(static_cast<uint64_t>(n));
        R_xlen_t i = 0;
        for (; i + 1 < n; i += 2) {
          word(static_cast<uint32_t>(v[i]) | static_cast<uint64_t>(static_cast<uint32_t>(v[i + 1])) << 32);
        }
        if (i < n) word(static_cast<uint32_t>(v[i]));
        break;
      }
      case REALSXP:
      case CPLXSXP: {
        const R_xlen_t n = type == REALSXP ? XLENGTH(x) : 2 * XLENGTH(x);
        const double* v = type == REALSXP ? REAL(x) : reinterpret_cast<const double*>(COMPLEX(x));
        word(static_cast<uint64_t>(n));
        for (R_xlen_t i = 0; i < n; ++i) {
          uint64_t bits;  // every bit, NaN payloads (NA or NaN) included
          std::memcpy(&bits, &v[i], 8);
          word(bits);
        }
        break;
      }
      case STRSXP: {
        const R_xlen_t n = XLENGTH(x);
        word(static_cast<uint64_t>(n));
        for (R_xlen_t i = 0; i < n; ++i) string(STRING_ELT(x, i));
        break;
      }
      case RAWSXP:
        bytes(RAW(x), static_cast<size_t>(XLENGTH(x)));
        break;
      case VECSXP:
      case EXPRSXP: {
        const R_xlen_t n = XLENGTH(x);
        word(static_cast<uint64_t>(n));
        for (R_xlen_t i = 0; i < n; ++i) object(VECTOR_ELT(x, i));
        break;
      }
      default:
        // Environments, functions and the like: only their kind (a
        // formula's environment is no part of the model).
        return;
    }
    for (SEXP a = ATTRIB(x); a != R_NilValue; a = CDR(a)) {
      object(TAG(a));
      object(CAR(a));
    }
  }

  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0x6a09e667f3bcc908ULL;
};

}  // namespace

// The checksum of the elements `names` of the list `object` that it has,
// each with its name, in the list's order, as 16 hexadecimal digits.
// [[Rcpp::export(rng = false)]]
std::string ccf_checksum_cpp(SEXP object, const Rcpp::CharacterVector& names) {
  if (TYPEOF(object) != VECSXP) Rcpp::stop("internal error: a checksum is of a list");
  SEXP element_names = Rf_getAttrib(object, R_NamesSymbol);
  Checksum sum;
  const R_xlen_t n = XLENGTH(object);
  if (TYPEOF(element_names) != STRSXP || XLENGTH(element_names) != n) {
    Rcpp::stop("internal error: a checksum is of a named list");
  }
  for (R_xlen_t i = 0; i < n; ++i) {
    SEXP name = STRING_ELT(element_names, i);
    bool covered = false;
    for (R_xlen_t k = 0; k < names.size() && !covered; ++k) {
      covered = name != NA_STRING && std::strcmp(CHAR(name), CHAR(names[k])) == 0;
    }
    if (!covered) continue;
    sum.string(name);
    sum.object(VECTOR_ELT(object, i));
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(sum.value()));
  return text;
}
