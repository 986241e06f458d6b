// A sparse matrix's column statistics and scaled cells (issue 38), in one
// pass over its slots each: the same in R took several vectors as long as
// the cells (their columns, squares, selections), which outlived the fit's
// own copies until a garbage collection and set its peak.
#include <Rcpp.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

struct SparseSlots {
  int n_row = 0, n_column = 0;
  const int* start = nullptr;
  const int* row = nullptr;
  const double* value = nullptr;
};

SparseSlots slots_of(SEXP x) {
  auto slot = [&](const char* name, SEXPTYPE type) {
    SEXP value = R_do_slot(x, Rf_install(name));
    if (TYPEOF(value) != type) Rcpp::stop(std::string("internal error: sparse slot `") + name + "`");
    return value;
  };
  SEXP dim = slot("Dim", INTSXP), start = slot("p", INTSXP), row = slot("i", INTSXP),
       value = slot("x", REALSXP);
  SparseSlots out;
  out.n_row = INTEGER(dim)[0];
  out.n_column = INTEGER(dim)[1];
  if (XLENGTH(start) != static_cast<R_xlen_t>(out.n_column) + 1 ||
      XLENGTH(row) != XLENGTH(value) || INTEGER(start)[out.n_column] != XLENGTH(row)) {
    Rcpp::stop("internal error: a malformed sparse matrix");
  }
  out.start = INTEGER(start);
  out.row = INTEGER(row);
  out.value = REAL(value);
  return out;
}

}  // namespace

// Per column of the dgCMatrix `x`: `scale`, the population standard
// deviation over the rows `stat_rows` (a logical vector, or NULL for all),
// zeros included and missing cells left out (NaN when no cell is observed),
// computed as scaled_moments() computes it (divided by the largest
// magnitude, so that squares neither overflow nor underflow, then two
// passes); `missing`, its missing cells over all rows; and `infinite`, the
// first column (1-based) with an infinite cell, 0 for none.
// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_sparse_stats_cpp(SEXP x, SEXP stat_rows) {
  const SparseSlots s = slots_of(x);
  const int* counted_row = nullptr;
  int n_stat = s.n_row;
  if (stat_rows != R_NilValue) {
    if (TYPEOF(stat_rows) != LGLSXP || XLENGTH(stat_rows) != s.n_row) {
      Rcpp::stop("internal error: stat_rows");
    }
    counted_row = LOGICAL(stat_rows);
    n_stat = static_cast<int>(std::count(counted_row, counted_row + s.n_row, 1));
  }
  Rcpp::NumericVector scale(s.n_column);
  Rcpp::IntegerVector missing(s.n_column);
  int infinite = 0;
  for (int j = 0; j < s.n_column; ++j) {
    int n_missing_stat = 0, n_stored = 0;
    double largest = 0.0;
    for (int k = s.start[j]; k < s.start[j + 1]; ++k) {
      const double v = s.value[k];
      const bool counted = counted_row == nullptr || counted_row[s.row[k]] == 1;
      if (std::isnan(v)) {
        ++missing[j];
        if (counted) ++n_missing_stat;
        continue;
      }
      if (std::isinf(v) && infinite == 0) infinite = j + 1;
      if (!counted) continue;
      ++n_stored;
      largest = std::max(largest, std::abs(v));
    }
    const int n_observed = n_stat - n_missing_stat;
    if (n_observed == 0) {
      scale[j] = R_NaN;
      continue;
    }
    if (largest == 0.0 || !std::isfinite(largest)) {
      scale[j] = largest == 0.0 ? 0.0 : R_NaN;
      continue;
    }
    auto each = [&](auto visit) {
      for (int k = s.start[j]; k < s.start[j + 1]; ++k) {
        const double v = s.value[k];
        if (std::isnan(v) || (counted_row != nullptr && counted_row[s.row[k]] != 1)) continue;
        visit(v / largest);
      }
    };
    double sum = 0.0;
    each([&](double v) { sum += v; });
    const double mean = sum / n_observed;
    double deviation = static_cast<double>(n_observed - n_stored) * mean * mean;
    each([&](double v) { deviation += (v - mean) * (v - mean); });
    scale[j] = std::sqrt(deviation / n_observed) * largest;
  }
  return Rcpp::List::create(Rcpp::Named("scale") = scale, Rcpp::Named("missing") = missing,
                            Rcpp::Named("infinite") = infinite);
}

// The cells of the dgCMatrix `x` divided by their column's `scale`, a
// missing cell NA, or 0 when `missing_as_zero` (the value a missing z-score
// gets under impute_mean).
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector ccf_sparse_scaled_cpp(SEXP x, Rcpp::NumericVector scale, bool missing_as_zero) {
  const SparseSlots s = slots_of(x);
  if (scale.size() != s.n_column) Rcpp::stop("internal error: one scale per column is needed");
  Rcpp::NumericVector out(Rcpp::no_init(s.start[s.n_column]));
  for (int j = 0; j < s.n_column; ++j) {
    for (int k = s.start[j]; k < s.start[j + 1]; ++k) {
      const double v = s.value[k] / scale[j];
      out[k] = std::isnan(v) ? (missing_as_zero ? 0.0 : NA_REAL) : v;
    }
  }
  return out;
}
