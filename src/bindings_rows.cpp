// Rows of new data to the z-scored matrix the core reads, for the usual
// served request: a data.frame of plain numbers for a forest of numeric
// features given by name. R's apply_blueprint() is the general path and the
// reference; this one gives its matrix, value for value, in one pass.
#include <Rcpp.h>

#include <cmath>
#include <cstring>

#include "r_convert.h"

using namespace ccforest;

namespace {

bool numeric_type(SEXP type) {
  const char* name = CHAR(type);
  return std::strcmp(name, "numeric") == 0 || std::strcmp(name, "integer") == 0 ||
         std::strcmp(name, "logical") == 0;
}

bool plain_numbers(SEXP column, R_xlen_t n) {
  const int type = TYPEOF(column);
  return (type == REALSXP || type == INTSXP || type == LGLSXP) && !OBJECT(column) &&
         Rf_getAttrib(column, R_DimSymbol) == R_NilValue && XLENGTH(column) == n;
}

}  // namespace

// The encoded matrix of `n` rows of `data`, whose features are its columns
// at `position` (1-based, matched by name in R), or NULL where the general
// path must decide (a formula term other than a name, a feature that is not
// a number, a column that is not plain numbers of n values, an infinite
// value, or a missing one with na_action = "fail").
// [[Rcpp::export(rng = false)]]
SEXP ccf_plain_rows_cpp(SEXP data, const Rcpp::IntegerVector& position, int n, SEXP exprs,
                        const Rcpp::List& bp, const std::string& na_action) {
  if (n < 1 || TYPEOF(data) != VECSXP) return R_NilValue;
  if (exprs != R_NilValue) {
    if (TYPEOF(exprs) != VECSXP) return R_NilValue;
    for (R_xlen_t k = 0; k < XLENGTH(exprs); ++k) {
      if (TYPEOF(VECTOR_ELT(exprs, k)) != SYMSXP) return R_NilValue;
    }
  }
  const SEXP types = list_value<SEXP>(bp, "feature_type");
  const SEXP start = list_value<SEXP>(bp, "feature_start");
  const SEXP center = list_value<SEXP>(bp, "center"), scale = list_value<SEXP>(bp, "scale");
  const SEXP column_names = list_value<SEXP>(bp, "column_names");
  const R_xlen_t p = position.size(), width = XLENGTH(column_names);
  if (TYPEOF(types) != STRSXP || XLENGTH(types) != p || TYPEOF(start) != INTSXP ||
      XLENGTH(start) != p + 1 || TYPEOF(center) != REALSXP || TYPEOF(scale) != REALSXP ||
      XLENGTH(center) != width || XLENGTH(scale) != width) {
    return R_NilValue;
  }
  for (R_xlen_t d = 0; d < p; ++d) {
    const int at = position[d];
    const int j = INTEGER(start)[d];
    if (!numeric_type(STRING_ELT(types, d)) || at < 1 || at > XLENGTH(data) || j < 0 ||
        j >= width || !plain_numbers(VECTOR_ELT(data, at - 1), n)) {
      return R_NilValue;
    }
  }
  const bool fail = na_action == "fail", impute_mean = na_action == "impute_mean";
  Rcpp::NumericMatrix out(Rcpp::Shield<SEXP>(alloc_matrix(REALSXP, n, width)));
  std::fill(out.begin(), out.end(), NA_REAL);
  for (R_xlen_t d = 0; d < p; ++d) {
    const SEXP column = VECTOR_ELT(data, position[d] - 1);
    const int j = INTEGER(start)[d];
    const double c = REAL(center)[j], s = REAL(scale)[j];
    double* z = out.begin() + static_cast<R_xlen_t>(j) * n;
    for (R_xlen_t i = 0; i < n; ++i) {
      double v;
      if (TYPEOF(column) == REALSXP) {
        v = REAL(column)[i];
      } else {
        const int k = TYPEOF(column) == INTSXP ? INTEGER(column)[i] : LOGICAL(column)[i];
        v = k == NA_INTEGER ? NA_REAL : static_cast<double>(k);
      }
      if (std::isinf(v) || (fail && std::isnan(v))) return R_NilValue;
      // zscore() and encode_values(): as zscore_columns() in R.
      double value = (v - c) / s;
      if (!std::isfinite(value) && std::isfinite(v)) value = v / s - c / s;
      z[i] = std::isnan(value) ? (impute_mean ? 0.0 : NA_REAL) : value;
    }
  }
  out.attr("dimnames") = Rcpp::List::create(R_NilValue, column_names);
  return out;
}
