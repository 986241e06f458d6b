// Rows of new data to the z-scored matrix the core reads, for the usual
// served request: a data.frame of plain numbers and factors (or strings) for
// a forest of numeric features and one-hot factors, given by name. R's apply_blueprint() is the general path and the
// reference; this one gives its matrix, value for value, in one pass.
#include <Rcpp.h>

#include <cmath>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "r_convert.h"

using namespace ccforest;

namespace {

enum class Kind { kNumber, kFactor, kOther };

Kind kind_of(SEXP type) {
  const char* name = CHAR(type);
  if (std::strcmp(name, "numeric") == 0 || std::strcmp(name, "integer") == 0 ||
      std::strcmp(name, "logical") == 0) {
    return Kind::kNumber;
  }
  return std::strcmp(name, "factor") == 0 ? Kind::kFactor : Kind::kOther;
}

bool plain_numbers(SEXP column, R_xlen_t n) {
  const int type = TYPEOF(column);
  return (type == REALSXP || type == INTSXP || type == LGLSXP) && !OBJECT(column) &&
         Rf_getAttrib(column, R_DimSymbol) == R_NilValue && XLENGTH(column) == n;
}

/** A factor, or plain strings, of n values. */
bool plain_labels(SEXP column, R_xlen_t n) {
  if (XLENGTH(column) != n || Rf_getAttrib(column, R_DimSymbol) != R_NilValue) return false;
  if (TYPEOF(column) == STRSXP) return !OBJECT(column);
  return Rf_isFactor(column) && TYPEOF(Rf_getAttrib(column, R_LevelsSymbol)) == STRSXP;
}

/** The 1-based position of `label` among `known`, or 0. */
int level_of(SEXP label, SEXP known) {
  // As match(): NA matches no label (a level NA is left to the general path).
  if (label == NA_STRING) return 0;
  const char* text = Rf_translateCharUTF8(label);
  for (R_xlen_t k = 0; k < XLENGTH(known); ++k) {
    const SEXP level = STRING_ELT(known, k);
    if (level != NA_STRING && std::strcmp(text, Rf_translateCharUTF8(level)) == 0) {
      return static_cast<int>(k) + 1;
    }
  }
  return 0;
}

/**
 * Each row's level among the fitted `known` ones (1-based), NA_INTEGER for a
 * missing value, or an empty vector if a row has a level the forest has not
 * seen (the general path warns about it).
 */
std::vector<int> level_codes(SEXP column, SEXP known) {
  const R_xlen_t n = XLENGTH(column);
  std::vector<int> codes(static_cast<size_t>(n));
  if (TYPEOF(column) == STRSXP) {
    for (R_xlen_t i = 0; i < n; ++i) {
      const SEXP label = STRING_ELT(column, i);
      const int code = label == NA_STRING ? NA_INTEGER : level_of(label, known);
      if (code == 0) return {};
      codes[static_cast<size_t>(i)] = code;
    }
    return codes;
  }
  const SEXP given = Rf_getAttrib(column, R_LevelsSymbol);
  std::vector<int> to_known(static_cast<size_t>(XLENGTH(given)));
  for (R_xlen_t k = 0; k < XLENGTH(given); ++k) {
    to_known[static_cast<size_t>(k)] = level_of(STRING_ELT(given, k), known);
  }
  for (R_xlen_t i = 0; i < n; ++i) {
    const int g = INTEGER(column)[i];
    if (g == NA_INTEGER) {
      codes[static_cast<size_t>(i)] = NA_INTEGER;
      continue;
    }
    if (g < 1 || g > static_cast<int>(to_known.size()) || to_known[static_cast<size_t>(g - 1)] == 0) {
      return {};
    }
    codes[static_cast<size_t>(i)] = to_known[static_cast<size_t>(g - 1)];
  }
  return codes;
}

/** zscore() and encode_values() of one value, as zscore_columns() in R. */
inline double encoded(double v, double center, double scale, bool impute_mean) {
  double value = (v - center) / scale;
  if (!std::isfinite(value) && std::isfinite(v)) value = v / scale - center / scale;
  return std::isnan(value) ? (impute_mean ? 0.0 : NA_REAL) : value;
}

bool is_ascii(SEXP name) {
  for (const char* c = CHAR(name); *c != '\0'; ++c) {
    if (static_cast<unsigned char>(*c) >= 0x80) return false;
  }
  return true;
}

/**
 * The 1-based positions of the named features among data's columns, as R's
 * match() gives them, or none when a feature is absent or a column name
 * repeats. Names are R's cached strings, the same pointer for the same text
 * when ASCII: other names are left to the general path, which compares them
 * across encodings.
 */
std::vector<int> feature_positions(SEXP data, SEXP feature_names) {
  const SEXP names = Rf_getAttrib(data, R_NamesSymbol);
  if (TYPEOF(names) != STRSXP || TYPEOF(feature_names) != STRSXP) return {};
  std::unordered_map<SEXP, int> column_of;
  column_of.reserve(static_cast<size_t>(XLENGTH(names)));
  for (R_xlen_t j = 0; j < XLENGTH(names); ++j) {
    const SEXP name = STRING_ELT(names, j);
    if (!is_ascii(name) || !column_of.emplace(name, static_cast<int>(j + 1)).second) return {};
  }
  std::vector<int> position(static_cast<size_t>(XLENGTH(feature_names)));
  for (R_xlen_t d = 0; d < XLENGTH(feature_names); ++d) {
    const auto found = column_of.find(STRING_ELT(feature_names, d));
    if (found == column_of.end()) return {};
    position[static_cast<size_t>(d)] = found->second;
  }
  return position;
}

}  // namespace

// The encoded matrix of `n` rows of `data`, whose features are its columns
// named as the blueprint's features, or NULL where the general
// path must decide (a formula term other than a name, a feature that is not
// a number or a one-hot factor, a column that is not plain numbers, or a
// factor or strings, of n values, a level not seen when fitting, an
// infinite value, or a missing one with na_action = "fail").
// [[Rcpp::export(rng = false)]]
SEXP ccf_plain_rows_cpp(SEXP data, int n, SEXP exprs, const Rcpp::List& bp,
                        const std::string& na_action) {
  if (n < 1 || TYPEOF(data) != VECSXP) return R_NilValue;
  const std::vector<int> position = feature_positions(data, list_value<SEXP>(bp, "feature_names"));
  if (position.empty()) return R_NilValue;
  if (exprs != R_NilValue) {
    if (TYPEOF(exprs) != VECSXP) return R_NilValue;
    for (R_xlen_t k = 0; k < XLENGTH(exprs); ++k) {
      if (TYPEOF(VECTOR_ELT(exprs, k)) != SYMSXP) return R_NilValue;
    }
  }
  const SEXP types = list_value<SEXP>(bp, "feature_type");
  const SEXP start = list_value<SEXP>(bp, "feature_start");
  const SEXP levels = list_value<SEXP>(bp, "levels");
  const SEXP center = list_value<SEXP>(bp, "center"), scale = list_value<SEXP>(bp, "scale");
  const SEXP column_names = list_value<SEXP>(bp, "column_names");
  const R_xlen_t p = static_cast<R_xlen_t>(position.size()), width = XLENGTH(column_names);
  if (TYPEOF(types) != STRSXP || XLENGTH(types) != p || TYPEOF(start) != INTSXP ||
      XLENGTH(start) != p + 1 || TYPEOF(center) != REALSXP || TYPEOF(scale) != REALSXP ||
      XLENGTH(center) != width || XLENGTH(scale) != width || TYPEOF(levels) != VECSXP ||
      XLENGTH(levels) != p || INTEGER(start)[0] != 0 || INTEGER(start)[p] != width) {
    return R_NilValue;
  }
  std::vector<Kind> kinds(static_cast<size_t>(p));
  for (R_xlen_t d = 0; d < p; ++d) {
    const int at = position[static_cast<size_t>(d)];
    if (at < 1 || at > XLENGTH(data)) return R_NilValue;
    const SEXP column = VECTOR_ELT(data, at - 1);
    const int width_d = INTEGER(start)[d + 1] - INTEGER(start)[d];
    const Kind kind = kind_of(STRING_ELT(types, d));
    const bool fits =
        kind == Kind::kNumber
            ? width_d == 1 && plain_numbers(column, n)
            : kind == Kind::kFactor && TYPEOF(VECTOR_ELT(levels, d)) == STRSXP &&
                  XLENGTH(VECTOR_ELT(levels, d)) == width_d && plain_labels(column, n);
    if (!fits) return R_NilValue;
    kinds[static_cast<size_t>(d)] = kind;
  }
  const bool fail = na_action == "fail", impute_mean = na_action == "impute_mean";
  Rcpp::NumericMatrix out(Rcpp::Shield<SEXP>(alloc_matrix(REALSXP, n, width)));
  for (R_xlen_t d = 0; d < p; ++d) {
    const SEXP column = VECTOR_ELT(data, position[static_cast<size_t>(d)] - 1);
    const int first = INTEGER(start)[d];
    if (kinds[static_cast<size_t>(d)] == Kind::kFactor) {
      const SEXP known = VECTOR_ELT(levels, d);
      const std::vector<int> codes = level_codes(column, known);
      if (codes.empty()) return R_NilValue;
      for (R_xlen_t k = 1; k <= XLENGTH(known); ++k) {
        const R_xlen_t j = first + k - 1;
        const double c = REAL(center)[j], s = REAL(scale)[j];
        double* z = out.begin() + j * n;
        for (R_xlen_t i = 0; i < n; ++i) {
          const int code = codes[static_cast<size_t>(i)];
          if (code == NA_INTEGER && fail) return R_NilValue;
          z[i] = encoded(code == NA_INTEGER ? NA_REAL : (code == k ? 1.0 : 0.0), c, s,
                         impute_mean);
        }
      }
      continue;
    }
    const double c = REAL(center)[first], s = REAL(scale)[first];
    double* z = out.begin() + static_cast<R_xlen_t>(first) * n;
    for (R_xlen_t i = 0; i < n; ++i) {
      double v;
      if (TYPEOF(column) == REALSXP) {
        v = REAL(column)[i];
      } else {
        const int k = TYPEOF(column) == INTSXP ? INTEGER(column)[i] : LOGICAL(column)[i];
        v = k == NA_INTEGER ? NA_REAL : static_cast<double>(k);
      }
      if (std::isinf(v) || (fail && std::isnan(v))) return R_NilValue;
      z[i] = encoded(v, c, s, impute_mean);
    }
  }
  out.attr("dimnames") = Rcpp::List::create(R_NilValue, column_names);
  return out;
}
