// Test hooks: core kernels exposed so that testthat can compare them with
// independent R references. Not part of the package's interface.
#include <Rcpp.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "core/Cca.h"
#include "core/Projection.h"
#include "core/Rotation.h"
#include "core/ScreenRule.h"
#include "core/SplitSearch.h"
#include "helper_thread.h"
#include "parallel.h"
#include "r_convert.h"

using namespace ccforest;

namespace {

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
Rcpp::List ccf_cca_cpp(const Rcpp::NumericMatrix& x, const Rcpp::NumericMatrix& y,
                       double tolerance) {
  check_cca_input(x, y.nrow(), tolerance);
  for (double v : y) {
    if (!std::isfinite(v)) Rcpp::stop("`y` must be finite");
  }
  const Eigen::MatrixXd xm = map_matrix(x), ym = map_matrix(y);
  const CcaResult result = cca(xm, ym, tolerance);
  return named_list({{"directions", to_r(result.directions)}, {"cor", to_r(result.correlations)}});
}

// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_cca_classes_cpp(const Rcpp::NumericMatrix& x, const Rcpp::IntegerVector& codes,
                               int n_class, double tolerance) {
  check_cca_input(x, codes.size(), tolerance);
  if (n_class < 1) Rcpp::stop("`n_class` must be >= 1");
  for (int code : codes) {
    if (code == NA_INTEGER || code < 0 || code >= n_class) {
      Rcpp::stop("`codes` must lie in [0, n_class)");
    }
  }
  const Eigen::MatrixXd xm = map_matrix(x);
  const CcaResult result = cca_classes(xm, codes.begin(), n_class, tolerance);
  return named_list({{"directions", to_r(result.directions)}, {"cor", to_r(result.correlations)}});
}

// [[Rcpp::export(rng = false)]]
Rcpp::NumericMatrix ccf_rotation_cpp(int p, double seed, double stream) {
  if (p < 1) Rcpp::stop("`p` must be >= 1");
  Rng rng(whole_number(seed, "seed"), whole_number(stream, "stream"));
  return to_r(random_rotation(p, rng));
}

// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_split_cpp(const Rcpp::NumericVector& u, const Rcpp::IntegerMatrix& classes,
                         const Rcpp::NumericMatrix& values, const Rcpp::IntegerVector& n_class,
                         int split_rule, int min_leaf, double seed, int exact_max_rows = 0) {
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
  const size_t width = static_cast<size_t>(is_class ? classes.ncol() : values.ncol());
  // Each class output m has its own codes in [0, n_class[m]); the core sees
  // them offset into one range, so one output's codes can never be read as
  // another's.
  std::vector<int> offset(1, 0);
  if (is_class) {
    if (static_cast<size_t>(n_class.size()) != width) {
      Rcpp::stop("`n_class` must give the number of classes of each column of `classes`");
    }
    for (int k : n_class) {
      if (k == NA_INTEGER || k < 1) Rcpp::stop("`n_class` must be >= 1");
      offset.push_back(offset.back() + k);
    }
    for (size_t m = 0; m < width; ++m) {
      for (size_t i = 0; i < n; ++i) {
        const int k = classes(i, m);
        if (k == NA_INTEGER || k < 0 || k >= n_class[m]) {
          Rcpp::stop("`classes` must lie in [0, n_class) in each column");
        }
      }
    }
  }
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
        class_rows[i * width + m] = offset[m] + classes(i, m);
      } else {
        value_rows[i * width + m] = values(i, m) - mean;
      }
    }
  }
  for (double v : value_rows) {
    if (!std::isfinite(v)) Rcpp::stop("`values` must be finite");
  }
  NodeTargets targets;
  targets.classes = class_rows.data();
  targets.values = value_rows.data();
  targets.n = n;
  targets.width = width;
  const size_t n_value = is_class ? static_cast<size_t>(offset.back()) : width;
  const EntropyTable table(split_rule == 0 ? n : 0);
  if (exact_max_rows < 0) Rcpp::stop("`exact_max_rows` must be >= 0");
  SearchSettings settings;
  settings.exact_max_rows = static_cast<size_t>(exact_max_rows);
  SplitSearch search(static_cast<SplitRule>(split_rule), n_value, &table, settings);
  const double base = search.set_node(targets);
  Rng rng(whole_number(seed, "seed"), 0);
  BestSplit best;
  search.sweep(u.begin(), static_cast<size_t>(min_leaf), 0, rng, best);
  const bool found = best.direction >= 0;
  const double threshold = found ? short_threshold(best.lo, best.hi) : NA_REAL;
  const int n_left = static_cast<int>(best.n_left);
  const double tolerance = search.tolerance(), gain = best.gain;
  Rcpp::LogicalVector found_r = new_logical(1);
  found_r[0] = found;
  return named_list({{"found", found_r},
                     {"gain", numeric_of(&gain, &gain + 1)},
                     {"threshold", numeric_of(&threshold, &threshold + 1)},
                     {"n_left", integer_of(&n_left, &n_left + 1)},
                     {"base", numeric_of(&base, &base + 1)},
                     {"tolerance", numeric_of(&tolerance, &tolerance + 1)}});
}

// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector ccf_round_coefficients_cpp(const Rcpp::NumericVector& c) {
  Rcpp::NumericVector out = new_numeric(c.size());
  for (R_xlen_t i = 0; i < c.size(); ++i) {
    const double a = std::abs(c[i]);
    if (!(a < 2.0)) Rcpp::stop("coefficients must be finite with |c| < 2");
    out[i] = a < kSmallestCoefficient ? 0.0 : decode_coefficient(encode_coefficient(c[i]));
  }
  return out;
}

// Holds `hold_bytes` of C++ memory, then asks R for a vector of `r_length`
// doubles: the mechanism every binding uses to return results. Under a heap
// limit the R allocation fails, and the C++ memory must still be released.
// [[Rcpp::export(rng = false)]]
double ccf_alloc_probe_cpp(double hold_bytes, double r_length) {
  std::vector<char> held(static_cast<size_t>(hold_bytes), 1);
  Rcpp::NumericVector r = new_numeric(static_cast<R_xlen_t>(r_length));
  return static_cast<double>(held.size()) + static_cast<double>(r.size());
}

// [[Rcpp::export(rng = false)]]
double ccf_short_threshold_cpp(double lo, double hi) {
  if (!(std::isfinite(lo) && std::isfinite(hi) && lo < hi)) {
    Rcpp::stop("`lo` and `hi` must be finite with lo < hi");
  }
  return short_threshold(lo, hi);
}


// The text of a progress report after `done` of `total` steps in `elapsed`
// seconds (the timing itself is not testable).
// [[Rcpp::export(rng = false)]]
std::string ccf_progress_text_cpp(double done, double total, double elapsed) {
  return progress_text("Growing trees", static_cast<size_t>(done), static_cast<size_t>(total),
                       elapsed);
}

// The null of feature_weights = "auto" (core/ScreenRule.h): the Beta upper
// tail at each x and its quantile at each tail, and the decision itself.
// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_beta_tail_cpp(const Rcpp::NumericVector& x, const Rcpp::NumericVector& tail, double a,
                             double b) {
  Rcpp::NumericVector upper(x.size()), quantile(tail.size());
  for (R_xlen_t i = 0; i < x.size(); ++i) upper[i] = beta_upper_tail(x[i], a, b);
  for (R_xlen_t i = 0; i < tail.size(); ++i) quantile[i] = beta_upper_quantile(tail[i], a, b);
  return Rcpp::List::create(Rcpp::Named("upper") = upper, Rcpp::Named("quantile") = quantile);
}

// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_decide_screen_cpp(const Rcpp::NumericVector& r2, int n_row, int rank, int mtry) {
  const ScreenDecision decision = decide_screen(Rcpp::as<std::vector<double>>(r2), static_cast<size_t>(n_row),
                                                static_cast<size_t>(rank), static_cast<size_t>(mtry));
  return Rcpp::List::create(Rcpp::Named("acts") = decision.acts,
                            Rcpp::Named("standing_out") = static_cast<double>(decision.standing_out),
                            Rcpp::Named("threshold") = decision.threshold);
}

// The helper thread's ways in (helper_thread.h): a job handed from R's main
// thread, a call made from inside a job (runs in place), and a call made
// from the main thread while the helper is busy, as R code that the poll
// let run would make (runs on a thread of its own). Returns, for each, the
// thread it ran on: 0 the caller's, 1 the helper, 2 another.
// [[Rcpp::export(rng = false)]]
Rcpp::IntegerVector ccf_helper_thread_paths_cpp() {
  const std::thread::id main = std::this_thread::get_id();
  std::thread::id helper;
  std::mutex mutex;
  std::vector<int> ran;
  auto record = [&] {
    const std::thread::id id = std::this_thread::get_id();
    std::lock_guard<std::mutex> lock(mutex);
    ran.push_back(id == main ? 0 : (id == helper ? 1 : 2));
  };
  std::atomic<bool> inner_done{false};
  bool polled = false;
  const std::function<void()> inner = [&] {
    record();
    inner_done = true;
  };
  const std::function<void()> nested_in_job = [&] { record(); };
  const std::function<void()> outer = [&] {
    {
      std::lock_guard<std::mutex> lock(mutex);
      helper = std::this_thread::get_id();
    }
    record();
    run_on_helper_thread(nested_in_job, [] {});
    // Busy until the main thread's poll has made its call (at most 10 s).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!inner_done && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  };
  run_on_helper_thread(outer, [&] {
    if (polled) return;
    polled = true;
    run_on_helper_thread(inner, [] {});
  });
  return Rcpp::IntegerVector(ran.begin(), ran.end());
}
