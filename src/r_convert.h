#ifndef CCFOREST_R_CONVERT_H_
#define CCFOREST_R_CONVERT_H_

// Conversions between R objects and the core's views, shared by the bindings.
#include <Rcpp.h>

#include <cstdint>
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/Data.h"
#include "core/Model.h"
#include "core/Options.h"

namespace ccforest {

/**
 * Allocates an R vector such that, if R cannot (a heap limit, say), the
 * failure unwinds the C++ stack as an exception, so that every C++ object on
 * it is destroyed before R reports the error. A plain allocation would jump
 * over those destructors and leak what they own.
 */
inline SEXP alloc_vector(SEXPTYPE type, R_xlen_t length) {
  return Rcpp::unwindProtect([&] { return Rf_allocVector(type, length); });
}

/** An R matrix allocated as alloc_vector() does, with its dimensions set. */
inline SEXP alloc_matrix(SEXPTYPE type, R_xlen_t nrow, R_xlen_t ncol) {
  return Rcpp::unwindProtect([&] {
    SEXP m = PROTECT(Rf_allocVector(type, nrow * ncol));
    SEXP dim = PROTECT(Rf_allocVector(INTSXP, 2));
    INTEGER(dim)[0] = static_cast<int>(nrow);
    INTEGER(dim)[1] = static_cast<int>(ncol);
    Rf_setAttrib(m, R_DimSymbol, dim);
    UNPROTECT(2);
    return m;
  });
}

/** R vectors of the usual types, allocated as alloc_vector() does. */
inline Rcpp::NumericVector new_numeric(R_xlen_t n) {
  return Rcpp::NumericVector(Rcpp::Shield<SEXP>(alloc_vector(REALSXP, n)));
}
inline Rcpp::IntegerVector new_integer(R_xlen_t n) {
  return Rcpp::IntegerVector(Rcpp::Shield<SEXP>(alloc_vector(INTSXP, n)));
}
inline Rcpp::LogicalVector new_logical(R_xlen_t n) {
  return Rcpp::LogicalVector(Rcpp::Shield<SEXP>(alloc_vector(LGLSXP, n)));
}
inline Rcpp::List new_list(R_xlen_t n) {
  return Rcpp::List(Rcpp::Shield<SEXP>(alloc_vector(VECSXP, n)));
}
template <typename Iterator>
Rcpp::NumericVector numeric_of(Iterator begin, Iterator end) {
  Rcpp::NumericVector out = new_numeric(static_cast<R_xlen_t>(end - begin));
  std::copy(begin, end, out.begin());
  return out;
}
template <typename Iterator>
Rcpp::IntegerVector integer_of(Iterator begin, Iterator end) {
  Rcpp::IntegerVector out = new_integer(static_cast<R_xlen_t>(end - begin));
  std::copy(begin, end, out.begin());
  return out;
}

/** A named list of the given elements, allocated as alloc_vector() does. */
inline Rcpp::List named_list(const std::vector<std::pair<const char*, SEXP>>& elements) {
  const R_xlen_t n = static_cast<R_xlen_t>(elements.size());
  return Rcpp::List(Rcpp::Shield<SEXP>(Rcpp::unwindProtect([&] {
    SEXP list = PROTECT(Rf_allocVector(VECSXP, n));
    SEXP names = PROTECT(Rf_allocVector(STRSXP, n));
    for (R_xlen_t i = 0; i < n; ++i) {
      SET_VECTOR_ELT(list, i, elements[static_cast<size_t>(i)].second);
      SET_STRING_ELT(names, i, Rf_mkChar(elements[static_cast<size_t>(i)].first));
    }
    Rf_setAttrib(list, R_NamesSymbol, names);
    UNPROTECT(2);
    return list;
  })));
}

inline MatrixMap map_matrix(const Rcpp::NumericMatrix& m) {
  return MatrixMap(m.begin(), m.nrow(), m.ncol());
}

inline IntMatrixMap map_int_matrix(const Rcpp::IntegerMatrix& m) {
  return IntMatrixMap(m.begin(), m.nrow(), m.ncol());
}

template <typename T>
T list_value(const Rcpp::List& list, const char* name) {
  if (!list.containsElementNamed(name)) {
    Rcpp::stop(std::string("internal error: `") + name + "` is missing");
  }
  return Rcpp::as<T>(list[name]);
}

/** A whole number in [0, 2^31 - 1] as the core's integer; R checks it, this guards the cast. */
inline uint64_t whole_number(double value, const char* what) {
  if (!(value >= 0.0 && value <= 2147483647.0) || value != std::floor(value)) {
    Rcpp::stop(std::string("`") + what + "` must be a whole number in [0, 2^31 - 1]");
  }
  return static_cast<uint64_t>(value);
}

/** The shape stored trees must fit: list(n_column, n_class, n_output). */
inline ModelShape model_shape(const Rcpp::List& shape) {
  ModelShape out;
  out.n_column = list_value<int>(shape, "n_column");
  out.n_class = list_value<std::vector<int>>(shape, "n_class");
  out.n_output_real = list_value<int>(shape, "n_output");
  if (out.n_column < 1 || out.n_output() < 1) Rcpp::stop("internal error: invalid model shape");
  for (int k : out.n_class) {
    if (k < 1) Rcpp::stop("internal error: invalid model shape");
  }
  return out;
}

/** Views of a list of raw vectors (the stored trees); the list must outlive them. */
inline EncodedTrees encoded_trees(const Rcpp::List& trees) {
  EncodedTrees out;
  out.reserve(static_cast<size_t>(trees.size()));
  for (R_xlen_t t = 0; t < trees.size(); ++t) {
    SEXP tree = trees[t];
    if (TYPEOF(tree) != RAWSXP) {
      throw DamagedModel("tree " + std::to_string(t + 1) + " is not a raw vector");
    }
    out.emplace_back(RAW(tree), static_cast<size_t>(XLENGTH(tree)));
  }
  return out;
}

/**
 * Training data as the core sees it, over R's memory. `indicators` flags
 * (1) each feature whose columns are a factor's 1-of-K indicators;
 * `weights` holds one case weight per row, or nothing for none; `uniform`
 * says its positive values are all equal.
 */
inline Data training_data(const Rcpp::NumericMatrix& x, const Rcpp::IntegerVector& feature_start,
                          const Rcpp::IntegerVector& indicators,
                          const Rcpp::IntegerMatrix& y_class, const Rcpp::IntegerVector& n_class,
                          const Rcpp::NumericMatrix& y_real, const Rcpp::NumericVector& weights,
                          bool uniform) {
  if (weights.size() != 0 && weights.size() != x.nrow()) {
    Rcpp::stop("internal error: one weight per row is needed");
  }
  std::vector<char> flags(indicators.begin(), indicators.end());
  return Data(map_matrix(x), Rcpp::as<std::vector<int>>(feature_start), std::move(flags),
              map_int_matrix(y_class), Rcpp::as<std::vector<int>>(n_class), map_matrix(y_real),
              weights.size() == 0 ? nullptr : weights.begin(), uniform);
}

/**
 * The rows each tree is grown on, from list(every_row, replace, size,
 * class_size) as core_options() builds it in R; sizes were checked there.
 */
inline RowSample row_sample(const Rcpp::List& sample) {
  RowSample out;
  out.every_row = list_value<bool>(sample, "every_row");
  out.replace = list_value<bool>(sample, "replace");
  const double size = list_value<double>(sample, "size");
  if (!(size >= 0.0 && size <= 2147483647.0)) Rcpp::stop("internal error: invalid sample size");
  out.size = static_cast<size_t>(size);
  for (double k : list_value<std::vector<double>>(sample, "class_size")) {
    if (!(k >= 0.0 && k <= 2147483647.0)) Rcpp::stop("internal error: invalid class sample size");
    out.class_size.push_back(static_cast<size_t>(k));
  }
  return out;
}

/** Tree options from the list ccforest() builds. */
inline TreeOptions tree_options(const Rcpp::List& options) {
  TreeOptions out(list_value<int>(options, "mtry"), list_value<int>(options, "min_split"),
                     list_value<int>(options, "min_leaf"), list_value<int>(options, "max_depth"),
                     static_cast<SplitRule>(list_value<int>(options, "split_rule")),
                     static_cast<Projection>(list_value<int>(options, "projection")),
                     list_value<bool>(options, "projection_bootstrap"),
                     list_value<bool>(options, "bagging"),
                     list_value<bool>(options, "impute_random"), 1e-4,
                     list_value<int>(options, "max_directions"),
                     list_value<int>(options, "output_bins"),
                     static_cast<AxisCandidates>(list_value<int>(options, "axis_candidates")));
  // Lists of fits made before `sample` existed keep bagging's default.
  if (options.containsElementNamed("sample")) out.sample = row_sample(options["sample"]);
  return out;
}

}  // namespace ccforest

#endif  // CCFOREST_R_CONVERT_H_
