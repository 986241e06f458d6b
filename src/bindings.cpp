// The package's only R entry points. Everything here converts between R
// objects and the core's views; the algorithms live in core/.
#include <Rcpp.h>

#include <cmath>
#include <vector>

#include "core/Cca.h"
#include "core/Data.h"
#include "core/Forest.h"
#include "core/Options.h"
#include "core/Predictor.h"
#include "core/Rotation.h"
#include "core/SplitSearch.h"
#include "parallel.h"
#include "serialize.h"

using namespace ccforest;

namespace {

MatrixMap map_matrix(const Rcpp::NumericMatrix& m) {
  return MatrixMap(m.begin(), m.nrow(), m.ncol());
}

IntMatrixMap map_int_matrix(const Rcpp::IntegerMatrix& m) {
  return IntMatrixMap(m.begin(), m.nrow(), m.ncol());
}

template <typename T>
T option(const Rcpp::List& options, const char* name) {
  if (!options.containsElementNamed(name)) {
    Rcpp::stop(std::string("internal error: option `") + name + "` is missing");
  }
  return Rcpp::as<T>(options[name]);
}

/** The master seed as the core's integer; R checks it, this guards the cast. */
uint64_t seed_value(double seed) {
  if (!(seed >= 0.0 && seed <= 2147483647.0) || seed != std::floor(seed)) {
    Rcpp::stop("`seed` must be a whole number in [0, 2^31 - 1]");
  }
  return static_cast<uint64_t>(seed);
}

Rcpp::NumericMatrix to_r(const Eigen::MatrixXd& m) {
  Rcpp::NumericMatrix out(m.rows(), m.cols());
  std::copy(m.data(), m.data() + m.size(), out.begin());
  return out;
}

/** The test hooks are called with arbitrary matrices: check what the core assumes. */
void check_cca_input(const Rcpp::NumericMatrix& x, R_xlen_t n_y, double tolerance) {
  if (x.nrow() == 0) Rcpp::stop("`x` has no rows");
  if (x.nrow() != n_y) Rcpp::stop("`x` and `y` have different numbers of rows");
  if (!(tolerance > 0.0 && tolerance < 1.0)) Rcpp::stop("`tolerance` must lie in (0, 1)");
  for (double v : x) {
    if (!std::isfinite(v)) Rcpp::stop("`x` must be finite");
  }
}

}  // namespace

// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_train_cpp(const Rcpp::NumericMatrix& x, const Rcpp::IntegerVector& feature_start,
                         const Rcpp::IntegerMatrix& y_class, const Rcpp::IntegerVector& n_class,
                         const Rcpp::NumericMatrix& y_real, const Rcpp::List& options,
                         int n_thread, bool verbose, bool permutation_importance) {
  const Data data(map_matrix(x), Rcpp::as<std::vector<int>>(feature_start), map_int_matrix(y_class),
                  Rcpp::as<std::vector<int>>(n_class), map_matrix(y_real));
  const TreeOptions tree(option<int>(options, "mtry"), option<int>(options, "min_split"),
                         option<int>(options, "min_leaf"), option<int>(options, "max_depth"),
                         static_cast<SplitRule>(option<int>(options, "split_rule")),
                         static_cast<Projection>(option<int>(options, "projection")),
                         option<bool>(options, "projection_bootstrap"),
                         option<bool>(options, "bagging"), option<bool>(options, "impute_random"));
  const ForestOptions forest(option<int>(options, "n_tree"),
                             seed_value(option<double>(options, "seed")), tree);
  ForestFit fit;
  try {
    fit = train_forest(data, forest, r_runtime(n_thread, verbose, "Growing trees"),
                       permutation_importance);
  } catch (const std::bad_alloc&) {
    Rcpp::stop("out of memory while growing the forest; reduce `n_tree`, or grow smaller "
               "trees with a larger `min_leaf` or a `max_depth`");
  }
  Rcpp::List out = forest_to_list(fit.trees);
  if (!fit.oob_count.empty()) {
    out.push_back(to_r(fit.oob_sum), "oob_sum");
    out.push_back(Rcpp::wrap(fit.oob_count), "oob_count");
  }
  if (!fit.importance.empty()) out.push_back(Rcpp::wrap(fit.importance), "importance");
  return out;
}

// [[Rcpp::export(rng = false)]]
Rcpp::NumericMatrix ccf_predict_cpp(const Rcpp::List& forest, const Rcpp::NumericMatrix& x,
                                    int n_value, int n_tree, double seed, bool impute_random,
                                    int n_thread) {
  const ForestView view = forest_view(forest, x.ncol(), n_value);
  if (n_tree < 1 || n_tree > view.n_tree) Rcpp::stop("internal error: n_tree out of range");
  PredictOptions options;
  options.seed = seed_value(seed);
  options.impute_random = impute_random;
  options.n_tree = n_tree;
  options.n_value = static_cast<size_t>(n_value);
  try {
    return to_r(predict_forest(view, map_matrix(x), options, r_runtime(n_thread, false, "")));
  } catch (const std::bad_alloc&) {
    Rcpp::stop("out of memory while predicting; predict `new_data` in smaller pieces");
  }
}

// Test hooks: expose core kernels so testthat can compare them with
// independent R references.

// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_cca_cpp(const Rcpp::NumericMatrix& x, const Rcpp::NumericMatrix& y,
                       double tolerance) {
  check_cca_input(x, y.nrow(), tolerance);
  for (double v : y) {
    if (!std::isfinite(v)) Rcpp::stop("`y` must be finite");
  }
  const Eigen::MatrixXd xm = map_matrix(x), ym = map_matrix(y);
  const CcaResult result = cca(xm, ym, tolerance);
  return Rcpp::List::create(Rcpp::Named("directions") = to_r(result.directions),
                            Rcpp::Named("cor") = to_r(result.correlations));
}

// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_cca_classes_cpp(const Rcpp::NumericMatrix& x, const Rcpp::IntegerVector& codes,
                               int n_class, double tolerance) {
  check_cca_input(x, codes.size(), tolerance);
  for (int code : codes) {
    if (code == NA_INTEGER || code < 0 || code >= n_class) {
      Rcpp::stop("`codes` must lie in [0, n_class)");
    }
  }
  const Eigen::MatrixXd xm = map_matrix(x);
  const CcaResult result = cca_classes(xm, codes.begin(), n_class, tolerance);
  return Rcpp::List::create(Rcpp::Named("directions") = to_r(result.directions),
                            Rcpp::Named("cor") = to_r(result.correlations));
}

// [[Rcpp::export(rng = false)]]
Rcpp::NumericMatrix ccf_rotation_cpp(int p, double seed, double stream) {
  if (p < 1) Rcpp::stop("`p` must be >= 1");
  Rng rng(seed_value(seed), seed_value(stream));
  return to_r(random_rotation(p, rng));
}

// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_split_cpp(const Rcpp::NumericVector& u, const Rcpp::IntegerMatrix& classes,
                         const Rcpp::NumericMatrix& values, int n_value, int split_rule,
                         int min_leaf, double seed) {
  const size_t n = static_cast<size_t>(u.size());
  const bool is_class = classes.ncol() > 0;
  if (n == 0) Rcpp::stop("`u` is empty");
  if (split_rule < 0 || split_rule > 2) Rcpp::stop("`split_rule` must be 0, 1 or 2");
  if (min_leaf < 1) Rcpp::stop("`min_leaf` must be >= 1");
  if ((is_class ? classes.nrow() : values.nrow()) != u.size()) {
    Rcpp::stop("`u` and the outputs have different numbers of rows");
  }
  if (is_class == (split_rule == 2)) Rcpp::stop("`split_rule` does not match the outputs");
  for (double v : u) {
    if (!std::isfinite(v)) Rcpp::stop("`u` must be finite");
  }
  for (int k : classes) {
    if (k == NA_INTEGER || k < 0 || k >= n_value) Rcpp::stop("`classes` must lie in [0, n_value)");
  }
  if (!is_class && values.ncol() != n_value) Rcpp::stop("`values` must have n_value columns");
  const size_t width = static_cast<size_t>(is_class ? classes.ncol() : values.ncol());
  std::vector<int> class_rows(is_class ? n * width : 0);
  std::vector<double> value_rows(is_class ? 0 : n * width);
  for (size_t m = 0; m < width; ++m) {
    double mean = 0.0;
    if (!is_class) {
      for (size_t i = 0; i < n; ++i) mean += values(i, m);
      mean /= static_cast<double>(n);
    }
    for (size_t i = 0; i < n; ++i) {
      if (is_class) {
        class_rows[i * width + m] = classes(i, m);
      } else {
        value_rows[i * width + m] = values(i, m) - mean;
      }
    }
  }
  NodeTargets targets;
  targets.classes = class_rows.data();
  targets.values = value_rows.data();
  targets.n = n;
  targets.width = width;
  SplitSearch search(static_cast<SplitRule>(split_rule), static_cast<size_t>(n_value), n);
  const double base = search.set_node(targets);
  Rng rng(static_cast<uint64_t>(seed), 0);
  BestSplit best;
  search.sweep(u.begin(), static_cast<size_t>(min_leaf), 0, rng, best);
  return Rcpp::List::create(
      Rcpp::Named("found") = best.direction >= 0, Rcpp::Named("gain") = best.gain,
      Rcpp::Named("threshold") = best.threshold, Rcpp::Named("n_left") = static_cast<int>(best.n_left),
      Rcpp::Named("base") = base, Rcpp::Named("tolerance") = search.tolerance());
}
