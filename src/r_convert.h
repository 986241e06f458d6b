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
#include "core/Forest.h"
#include "core/Model.h"
#include "core/Options.h"
#include "core/Predictor.h"
#include "core/Runtime.h"

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

/**
 * Runs `work`, turning the core's exceptions into R conditions: damaged
 * models and memory limits become plain R errors (without the internal call),
 * a cancelled batch an interrupt. R's own longjumps and interrupts pass
 * through unchanged.
 */
template <typename Work>
auto guarded(Work work, const char* out_of_memory) -> decltype(work()) {
  try {
    return work();
  } catch (const DamagedModel& e) {
    throw Rcpp::exception(e.what(), false);
  } catch (const Cancelled&) {
    throw Rcpp::internal::InterruptedException();
  } catch (const std::bad_alloc&) {
    throw Rcpp::exception(out_of_memory, false);
  }
}

inline Rcpp::NumericMatrix to_r(const Eigen::MatrixXd& m) {
  Rcpp::NumericMatrix out(Rcpp::Shield<SEXP>(alloc_matrix(REALSXP, m.rows(), m.cols())));
  std::copy(m.data(), m.data() + m.size(), out.begin());
  return out;
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

/** The options of a prediction from R's seed, first tree and imputation flag. */
inline PredictOptions predict_options(double seed, double first_tree, bool impute_random) {
  PredictOptions options;
  options.seed = whole_number(seed, "seed");
  options.first_tree = whole_number(first_tree, "first_tree");
  options.impute_random = impute_random;
  return options;
}

/** The shape stored trees must fit: list(n_column, n_class, n_output). */
inline ModelShape model_shape(const Rcpp::List& shape) {
  ModelShape out;
  out.n_column = list_value<int>(shape, "n_column");
  out.n_class = list_value<std::vector<int>>(shape, "n_class");
  out.n_output_real = list_value<int>(shape, "n_output");
  // Survival forests only (older shapes lack them).
  if (shape.containsElementNamed("n_cause")) {
    out.n_cause = list_value<int>(shape, "n_cause");
    out.n_time = list_value<int>(shape, "n_time");
    if (out.n_cause < 0 || out.n_time < 0 ||
        (out.n_cause > 0 && (out.n_time < 1 || static_cast<double>(out.n_time) * (out.n_cause + 1) >
                                                     2147483647.0))) {
      Rcpp::stop("internal error: invalid model shape");
    }
  }
  if (out.n_column < 1 || out.n_output() < 1) Rcpp::stop("internal error: invalid model shape");
  for (int k : out.n_class) {
    if (k < 1) Rcpp::stop("internal error: invalid model shape");
  }
  return out;
}

/**
 * A prediction as every prediction export reads it, from R's
 * predict_request() (R/predict-request.R): the stored trees and their shape,
 * the fit's handle for its prepared state (see prepared.h; NULL for none),
 * the walk's options (seed, first tree, imputation, columns read negated;
 * tree_count = n_tree) and the threads. Read and checked once here, against
 * the rows to predict, so that the exports differ only in what they compute.
 */
struct PredictRequest {
  Rcpp::List trees;
  ModelShape shape;
  SEXP cache = R_NilValue;
  PredictOptions options;
  size_t n_tree = 0;
  int n_thread = 1;
};

inline PredictRequest predict_request(const Rcpp::List& request, const Rcpp::NumericMatrix& x) {
  PredictRequest out;
  out.trees = list_value<Rcpp::List>(request, "trees");
  out.shape = model_shape(list_value<Rcpp::List>(request, "shape"));
  out.cache = list_value<SEXP>(request, "cache");
  out.options = predict_options(list_value<double>(request, "seed"),
                                list_value<double>(request, "first_tree"),
                                list_value<bool>(request, "impute_random"));
  const int n_tree = list_value<int>(request, "n_tree");
  const std::vector<int> negate = list_value<std::vector<int>>(request, "negate");
  out.n_thread = list_value<int>(request, "n_thread");
  if (x.ncol() != out.shape.n_column) Rcpp::stop("internal error: data has the wrong width");
  if (n_tree < 1 || n_tree > out.trees.size()) Rcpp::stop("internal error: n_tree out of range");
  if (negate.size() != 2 || negate[0] < 0 || negate[1] > out.shape.n_column ||
      negate[0] > negate[1]) {
    Rcpp::stop("internal error: negated columns out of range");
  }
  out.n_tree = static_cast<size_t>(n_tree);
  out.options.tree_count = out.n_tree;
  out.options.negate_begin = negate[0];
  out.options.negate_end = negate[1];
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
 * A survival outcome over R's memory, from the training set's element
 * `survival` (absent for other tasks): list(time_rank, event, n_time,
 * n_cause, intervals), as survival_training() builds it in R.
 */
inline SurvivalOutcome survival_outcome(const Rcpp::List& training, R_xlen_t n_row) {
  SurvivalOutcome out;
  if (!training.containsElementNamed("survival")) return out;
  const Rcpp::List survival = list_value<Rcpp::List>(training, "survival");
  SEXP rank = list_value<SEXP>(survival, "time_rank"), event = list_value<SEXP>(survival, "event");
  if (TYPEOF(rank) != INTSXP || TYPEOF(event) != INTSXP || XLENGTH(rank) != n_row ||
      XLENGTH(event) != n_row) {
    Rcpp::stop("internal error: invalid survival outcome");
  }
  out.time_rank = INTEGER(rank);
  out.event = INTEGER(event);
  out.n_time = list_value<int>(survival, "n_time");
  out.n_cause = list_value<int>(survival, "n_cause");
  out.intervals = list_value<int>(survival, "intervals");
  if (out.n_time < 1 || out.n_cause < 1 || out.intervals < 1) {
    Rcpp::stop("internal error: invalid survival outcome");
  }
  for (R_xlen_t i = 0; i < n_row; ++i) {
    if (out.time_rank[i] < -1 || out.time_rank[i] >= out.n_time || out.event[i] < 0 ||
        out.event[i] > out.n_cause || (out.event[i] > 0 && out.time_rank[i] < 0)) {
      Rcpp::stop("internal error: invalid survival outcome");
    }
  }
  return out;
}

/**
 * Training data as the core sees it, over R's memory, from the list
 * training_set() builds in R: x, feature_start, indicators (1 for each
 * feature whose columns are a factor's 1-of-K indicators), y_class, n_class,
 * y_real, weights (one per row, or none) and uniform_weights (its positive
 * values are all equal). The list must outlive the view.
 */
inline Data training_data(const Rcpp::List& training) {
  // Views of the list's own vectors: a coercion would make a copy that dies
  // with this call, so the types must already be right.
  auto element = [&](const char* name, SEXPTYPE type) {
    SEXP value = list_value<SEXP>(training, name);
    if (TYPEOF(value) != type) {
      Rcpp::stop(std::string("internal error: training element `") + name + "` has the wrong type");
    }
    return value;
  };
  SEXP x_value = list_value<SEXP>(training, "x");
  const Rcpp::NumericVector weights(element("weights", REALSXP));
  const Rcpp::IntegerMatrix y_class(element("y_class", INTSXP));
  const Rcpp::NumericMatrix y_real(element("y_real", REALSXP));
  const Rcpp::IntegerVector indicators = list_value<Rcpp::IntegerVector>(training, "indicators");
  std::vector<char> flags(indicators.begin(), indicators.end());
  if (Rf_isS4(x_value)) {
    // A dgCMatrix (see sparse_training_matrix() in R): its slots are read
    // where they lie, so they must have exactly the types the core reads.
    auto slot = [&](const char* name, SEXPTYPE type) {
      SEXP value = R_do_slot(x_value, Rf_install(name));
      if (TYPEOF(value) != type) {
        Rcpp::stop(std::string("internal error: sparse training slot `") + name + "` has the wrong type");
      }
      return value;
    };
    SEXP dim = slot("Dim", INTSXP), start = slot("p", INTSXP), row = slot("i", INTSXP),
         value = slot("x", REALSXP);
    const int n_row = INTEGER(dim)[0], n_column = INTEGER(dim)[1];
    if (XLENGTH(start) != static_cast<R_xlen_t>(n_column) + 1 ||
        XLENGTH(row) != XLENGTH(value) || INTEGER(start)[n_column] != XLENGTH(row)) {
      Rcpp::stop("internal error: the sparse training matrix is malformed");
    }
    if (weights.size() != 0 && weights.size() != n_row) {
      Rcpp::stop("internal error: one weight per row is needed");
    }
    SurvivalOutcome survival = survival_outcome(training, n_row);
    if (survival.n_cause > 0) Rcpp::stop("internal error: survival forests read dense features");
    SparseColumns columns;
    columns.start = INTEGER(start);
    columns.row = INTEGER(row);
    columns.value = REAL(value);
    return Data(columns, n_row, n_column, list_value<std::vector<int>>(training, "feature_start"),
                std::move(flags), map_int_matrix(y_class),
                list_value<std::vector<int>>(training, "n_class"), map_matrix(y_real),
                weights.size() == 0 ? nullptr : weights.begin(),
                list_value<bool>(training, "uniform_weights"), survival);
  }
  const Rcpp::NumericMatrix x(element("x", REALSXP));
  if (weights.size() != 0 && weights.size() != x.nrow()) {
    Rcpp::stop("internal error: one weight per row is needed");
  }
  return Data(map_matrix(x), list_value<std::vector<int>>(training, "feature_start"),
              std::move(flags), map_int_matrix(y_class),
              list_value<std::vector<int>>(training, "n_class"), map_matrix(y_real),
              weights.size() == 0 ? nullptr : weights.begin(),
              list_value<bool>(training, "uniform_weights"), survival_outcome(training, x.nrow()));
}

/**
 * The rows each tree is grown on, from list(every_row, replace, size,
 * class_size) as row_sample() builds it in R; sizes were checked there.
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

/**
 * Where stored trees came from, to redraw what was not stored: list(seed,
 * first_tree (the 0-based global number of the first), sample (see
 * row_sample()), impute_random).
 */
inline ForestSource forest_source(const Rcpp::List& source) {
  ForestSource out;
  out.seed = whole_number(list_value<double>(source, "seed"), "seed");
  out.first_tree = whole_number(list_value<double>(source, "first_tree"), "first_tree");
  out.sample = row_sample(list_value<Rcpp::List>(source, "sample"));
  out.impute_random = list_value<bool>(source, "impute_random");
  return out;
}

/** An enumerated option given by its name (see the name tables in core/Options.h). */
template <typename Enum, size_t N>
Enum list_enum(const Rcpp::List& list, const char* name, const char* const (&names)[N]) {
  try {
    return enum_from_name<Enum>(names, list_value<std::string>(list, name), name);
  } catch (const std::invalid_argument& e) {
    Rcpp::stop(std::string("internal error: ") + e.what());
  }
}

/** Tree options from the list core_options() builds in R, read by name. */
inline TreeOptions tree_options(const Rcpp::List& options) {
  TreeOptions out;
  out.mtry = list_value<int>(options, "mtry");
  out.min_split = list_value<int>(options, "min_split");
  out.min_leaf = list_value<int>(options, "min_leaf");
  out.max_depth = list_value<int>(options, "max_depth");
  if (options.containsElementNamed("min_events")) out.min_events = list_value<int>(options, "min_events");
  if (options.containsElementNamed("min_statistic")) {
    out.min_statistic = list_value<double>(options, "min_statistic");
  }
  out.split_rule = list_enum<SplitRule>(options, "split_rule", kSplitRuleNames);
  out.projection = list_enum<Projection>(options, "projection", kProjectionNames);
  out.projection_bootstrap = list_value<bool>(options, "projection_bootstrap");
  out.impute_random = list_value<bool>(options, "impute_random");
  out.rank_tolerance = list_value<double>(options, "rank_tolerance");
  out.max_directions = list_value<int>(options, "max_directions");
  out.direction_ratio = list_value<double>(options, "direction_ratio");
  out.bootstrap_max_rows = list_value<int>(options, "bootstrap_max_rows");
  out.exact_split_max_rows = list_value<int>(options, "exact_split_max_rows");
  out.output_bins = list_value<int>(options, "output_bins");
  out.axis_candidates = list_enum<AxisCandidates>(options, "axis_candidates", kAxisCandidatesNames);
  out.variant = list_enum<Variant>(options, "variant", kVariantNames);
  out.sample = row_sample(list_value<Rcpp::List>(options, "sample"));
  if (options.containsElementNamed("feature_weights")) {
    out.feature_weights = Rcpp::as<std::vector<double>>(options["feature_weights"]);
  }
  try {
    out.check();
  } catch (const std::invalid_argument& e) {
    Rcpp::stop(std::string("internal error: ") + e.what());
  }
  return out;
}

}  // namespace ccforest

#endif  // CCFOREST_R_CONVERT_H_
