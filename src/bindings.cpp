// The package's only R entry points. Everything here converts between R
// objects and the core's views; the algorithms live in core/.
#include <Rcpp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <cstring>
#include <string>
#include <vector>

#include "core/Bagging.h"
#include "core/ScreenRule.h"
#include "core/Cca.h"
#include "core/Data.h"
#include "core/ExactSum.h"
#include "core/Forest.h"
#include "core/Importance.h"
#include "core/Model.h"
#include "core/Options.h"
#include "core/PerTree.h"
#include "core/Predictor.h"
#include "core/Projection.h"
#include "core/Quantiles.h"
#include "core/Rotation.h"
#include "core/Screening.h"
#include "core/SplitSearch.h"
#include "core/TreeCodec.h"
#include "helper_thread.h"
#include "parallel.h"
#include "prepared.h"
#include "r_convert.h"
#include "with_trees.h"

using namespace ccforest;

namespace {

std::string format_bytes(double bytes) {
  const char* units[] = {"bytes", "KB", "MB", "GB", "TB", "PB"};
  int power = 0;
  while (bytes >= 1024.0 && power < 5) {
    bytes /= 1024.0;
    ++power;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.1f %s", bytes, units[power]);
  return text;
}

/**
 * Exact sums as an R matrix with one row per sum: its canonical expansion
 * (see ExactSum::canonical), zero padded. A row's exact sum is the sum of
 * the row, whatever the grouping of its terms.
 */
Rcpp::NumericMatrix expansions_to_r(const std::vector<ExactSum>& sums) {
  std::vector<std::vector<double>> terms(sums.size());
  size_t width = 1;
  for (size_t i = 0; i < sums.size(); ++i) {
    terms[i] = sums[i].canonical();
    width = std::max(width, terms[i].size());
  }
  Rcpp::NumericMatrix out(Rcpp::Shield<SEXP>(
      alloc_matrix(REALSXP, static_cast<R_xlen_t>(sums.size()), static_cast<R_xlen_t>(width))));
  std::fill(out.begin(), out.end(), 0.0);
  for (size_t i = 0; i < sums.size(); ++i) {
    for (size_t k = 0; k < terms[i].size(); ++k) {
      out(static_cast<R_xlen_t>(i), static_cast<R_xlen_t>(k)) = terms[i][k];
    }
  }
  return out;
}

}  // namespace

// Each feature's screening R^2 (core/Screening.h), which
// feature_weights = "screen" turns into sampling weights.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector ccf_screen_cpp(const Rcpp::List& training) {
  const Data data = training_data(training);
  const std::vector<double> r2 =
      guarded([&] { return screening_r2(data); }, "out of memory while screening the features");
  return Rcpp::wrap(r2);
}

// feature_weights = "auto": the screening R^2 and whether they act
// (core/ScreenRule.h), decided in the core from the rows and the outputs'
// rank the R^2 were computed over.
// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_screen_auto_cpp(const Rcpp::List& training, int mtry) {
  const Data data = training_data(training);
  const Screening screening =
      guarded([&] { return screen_features(data); }, "out of memory while screening the features");
  const ScreenDecision decision =
      decide_screen(screening.r2, screening.n_row, screening.rank, static_cast<size_t>(mtry));
  return Rcpp::List::create(Rcpp::Named("r2") = Rcpp::wrap(screening.r2),
                            Rcpp::Named("acts") = decision.acts,
                            Rcpp::Named("standing_out") = static_cast<double>(decision.standing_out),
                            Rcpp::Named("threshold") = decision.threshold,
                            Rcpp::Named("n_row") = static_cast<double>(screening.n_row),
                            Rcpp::Named("rank") = static_cast<double>(screening.rank));
}

// Grows trees first_tree, ..., first_tree + n_tree - 1 (0-based numbers) and
// returns them as a list of raw vectors, with their projection importance
// summed exactly per feature (a feature x k matrix whose rows sum exactly to
// the totals, see expansions_to_r(); a feature x tree matrix would outweigh
// the trees of wide data). Trees move to R after every batch, so the forest
// is never held twice; after each batch the size of the whole forest is
// extrapolated from the trees grown so far (with what every tree costs from
// the start), and growing stops with an error as soon as it would exceed
// `memory_limit` bytes.
// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_grow_cpp(const Rcpp::List& training, const Rcpp::List& options, double first_tree,
                        int n_tree, int n_thread, int progress, double memory_limit) {
  // R results first: if R cannot allocate them, nothing C++ is held yet.
  const Data data = training_data(training);
  const size_t n_feature = data.n_feature();
  Rcpp::List trees = new_list(n_tree);
  std::vector<ExactSum> importance(n_feature);
  const ForestOptions forest(n_tree, whole_number(list_value<double>(options, "seed"), "seed"),
                             tree_options(options), whole_number(first_tree, "first_tree"));
  const ModelShape model = model_shape(list_value<Rcpp::List>(training, "shape"));
  double stored_bytes = 0.0;
  // Held from the start whatever the trees: each tree's slot in the list and
  // the core's two per-tree vectors (see grow_forest()).
  const double fixed_bytes =
      static_cast<double>(n_tree) * (sizeof(SEXP) + 2.0 * sizeof(std::vector<double>));
  RHost host;
  if (progress < 0 || progress > 2) Rcpp::stop("internal error: invalid progress style");
  const Runtime runtime =
      r_runtime(host, n_thread, static_cast<ProgressStyle>(progress), "Growing trees");
  // How often each limit beyond the paper acted (LimitCounts), summed over
  // the trees: a one-column matrix, so that ranges grown apart (futures)
  // bind like the importance.
  LimitCounts acted;
  auto sink = [&](size_t begin, GrownBatch& batch) {
    std::vector<std::vector<uint8_t>>& encoded = batch.encoded;
    const std::vector<double>& tree_importance = batch.importance;
    for (const LimitCounts& c : batch.limits) acted += c;
    for (size_t i = 0; i < encoded.size(); ++i) {
      std::vector<uint8_t> bytes;
      bytes.swap(encoded[i]);
      SEXP raw = Rcpp::Shield<SEXP>(alloc_vector(RAWSXP, static_cast<R_xlen_t>(bytes.size())));
      std::copy(bytes.begin(), bytes.end(), RAW(raw));
      SET_VECTOR_ELT(trees, static_cast<R_xlen_t>(begin + i), raw);
      // An R raw vector costs its bytes plus a header.
      stored_bytes += static_cast<double>(bytes.size()) + 56.0;
    }
    for (size_t i = 0; i < tree_importance.size(); ++i) {
      importance[i % n_feature].add(tree_importance[i]);
    }
    const double done = static_cast<double>(begin + encoded.size());
    const double projected = stored_bytes / done * n_tree + fixed_bytes;
    // Tree sizes vary: extrapolate from ten trees at least (or all of them),
    // unless what is stored already exceeds the limit.
    const bool enough = done >= std::min(10.0, static_cast<double>(n_tree));
    if (std::isfinite(memory_limit) && (stored_bytes + fixed_bytes > memory_limit ||
                                        (enough && projected > memory_limit))) {
      throw Rcpp::exception(
          ("This forest would need about " + format_bytes(projected) + " of memory for its " +
           std::to_string(n_tree) + " trees (" + format_bytes(stored_bytes / done) +
           " per tree, measured on the " + std::to_string(static_cast<long>(done)) +
           " grown so far), but only " + format_bytes(memory_limit) +
           " is available. Reduce `n_tree`, or grow smaller trees with a larger `min_leaf` or "
           "a `max_depth`.")
              .c_str(),
          false);
    }
  };
  guarded([&] { grow_forest(data, forest, model, runtime, sink); },
          "out of memory while growing the forest; reduce `n_tree`, or grow smaller trees with a "
          "larger `min_leaf` or a `max_depth`");
  // In LimitCounts' order; R names them (new_forest()).
  Rcpp::NumericMatrix limits(Rcpp::Shield<SEXP>(alloc_matrix(REALSXP, 4, 1)));
  limits[0] = static_cast<double>(acted.max_directions);
  limits[1] = static_cast<double>(acted.direction_ratio);
  limits[2] = static_cast<double>(acted.bootstrap_max_rows);
  limits[3] = static_cast<double>(acted.exact_split_max_rows);
  return named_list(
      {{"trees", trees}, {"importance", expansions_to_r(importance)}, {"limits", limits}});
}

// Out-of-bag sums of a forest grown on samples (and, if asked, its out-of-bag
// permutation importance), from the stored trees and the training data.
// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_oob_cpp(const Rcpp::List& trees, const Rcpp::List& training,
                       const Rcpp::List& source, int n_thread, bool permutation_importance,
                       SEXP cache) {
  const Data data = training_data(training);
  const ModelShape model = model_shape(list_value<Rcpp::List>(training, "shape"));
  const EncodedTrees encoded = guarded([&] { return encoded_trees(trees); }, "out of memory");
  const ForestSource from = forest_source(source);
  RHost host;
  const Runtime runtime = r_runtime(host, n_thread, ProgressStyle::kNone, "");
  const char* oom = "out of memory while computing out-of-bag predictions";
  Rcpp::NumericMatrix sum, error_sum;
  Rcpp::IntegerVector count, n_seen;
  {
    // The fit's model, decoded once for these estimates and its predictions
    // (ccf_prime_cpp()), else each tree decoded as it is walked.
    const OutOfBag oob = guarded([&] {
      return out_of_bag(encoded, model, data, from, runtime,
                        prepared_model(cache, trees, model, runtime));
    }, oom);
    sum = to_r(oob.sum);
    count = integer_of(oob.count.begin(), oob.count.end());
    error_sum = to_r(oob.error_sum);
    n_seen = integer_of(oob.n_seen.begin(), oob.n_seen.end());
  }
  if (!permutation_importance) {
    return named_list({{"sum", sum}, {"count", count}, {"error_sum", error_sum},
                       {"n_seen", n_seen}});
  }
  const std::vector<double> importance = guarded(
      [&] { return oob_permutation_importance(encoded, model, data, from, runtime); }, oom);
  return named_list({{"sum", sum},
                     {"count", count},
                     {"error_sum", error_sum},
                     {"n_seen", n_seen},
                     {"importance", numeric_of(importance.begin(), importance.end())}});
}

// For quantile regression forests: each tree's sample rows grouped by leaf
// (see core/Quantiles.h), as a list of integer vectors.
// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_leaf_samples_cpp(const Rcpp::List& trees, const Rcpp::List& training,
                                const Rcpp::List& source, int n_thread) {
  Rcpp::List out = new_list(trees.size());
  const Data data = training_data(training);
  const ModelShape model = model_shape(list_value<Rcpp::List>(training, "shape"));
  RHost host;
  const Runtime runtime = r_runtime(host, n_thread, ProgressStyle::kNone, "");
  guarded([&] {
    const EncodedTrees encoded = encoded_trees(trees);
    std::vector<std::vector<int32_t>> samples =
        leaf_samples(encoded, model, data, forest_source(source), runtime);
    for (size_t t = 0; t < samples.size(); ++t) {
      out[static_cast<R_xlen_t>(t)] = integer_of(samples[t].begin(), samples[t].end());
      std::vector<int32_t>().swap(samples[t]);
    }
  }, "out of memory while storing the trees' leaf samples for quantiles");
  return out;
}

// Quantiles of the outputs for each row of x, from the request's trees and
// their leaf samples (quantile regression forests): the fit's own element
// `quantile` (list(samples, y, weights)) checked once with its prepared
// model, or `samples`, `y` and `weights` checked now.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericMatrix ccf_predict_quantiles_cpp(const Rcpp::List& request,
                                              const Rcpp::NumericMatrix& x,
                                              const Rcpp::List& samples,
                                              const Rcpp::NumericVector& y,
                                              const Rcpp::NumericVector& weights,
                                              const Rcpp::NumericVector& probs,
                                              SEXP quantile = R_NilValue) {
  const PredictRequest asked = predict_request(request, x);
  if (weights.size() != 0 && weights.size() != y.size()) Rcpp::stop("internal error: weights");
  Rcpp::NumericMatrix out(Rcpp::Shield<SEXP>(alloc_matrix(REALSXP, x.nrow(), probs.size())));
  guarded([&] {
    if (static_cast<size_t>(samples.size()) < asked.n_tree) {
      throw DamagedModel("its quantile data do not match its trees");
    }
    RHost host;
    const Runtime runtime = r_runtime(host, asked.n_thread, ProgressStyle::kNone, "");
    const MatrixMap xm = map_matrix(x);
    const std::vector<uint64_t> hash = row_hashes(xm);
    const std::vector<double> p = Rcpp::as<std::vector<double>>(probs);
    with_trees(asked, runtime, true,
               [&](const ForestModel& model, const PredictOptions& options, size_t) {
      if (const QuantileSamples* ready =
              prepared_quantiles(asked.cache, asked.trees, quantile, asked.shape, runtime)) {
        predict_quantiles(model, *ready, xm, hash, options, p, runtime, out.begin());
        return;
      }
      std::vector<LeafSample> views;
      for (size_t t = 0; t < asked.n_tree; ++t) {
        SEXP sample = samples[static_cast<R_xlen_t>(t)];
        if (TYPEOF(sample) != INTSXP) throw DamagedModel("its quantile data are not integers");
        views.emplace_back(INTEGER(sample), static_cast<size_t>(XLENGTH(sample)));
      }
      const QuantileSamples checked(model, views, y.begin(),
                                    weights.size() == 0 ? nullptr : weights.begin(),
                                    static_cast<size_t>(y.size()), runtime);
      predict_quantiles(model, checked, xm, hash, options, p, runtime, out.begin());
    });
  }, "out of memory while predicting quantiles; predict `new_data` in smaller pieces");
  return out;
}

// Averages the leaf values of the request's trees for each row of x, with
// the request's negated columns read with their signs flipped (negation
// importance on new data). The result is allocated before any C++ work, so
// nothing C++ holds can be stranded by a failed allocation.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericMatrix ccf_predict_cpp(const Rcpp::List& request, const Rcpp::NumericMatrix& x) {
  const PredictRequest asked = predict_request(request, x);
  Rcpp::NumericMatrix out(
      Rcpp::Shield<SEXP>(alloc_matrix(REALSXP, x.nrow(), asked.shape.n_value())));
  std::fill(out.begin(), out.end(), 0.0);
  guarded([&] {
    const MatrixMap xm = map_matrix(x);
    const std::vector<uint64_t> hash = row_hashes(xm);
    RHost host;
    const Runtime runtime = r_runtime(host, asked.n_thread, ProgressStyle::kNone, "");
    with_trees(asked, runtime, false,
               [&](const ForestModel& model, const PredictOptions& options, size_t) {
      add_tree_predictions(model, xm, hash, options, runtime, out.begin());
    });
  }, "out of memory while predicting; predict `new_data` in smaller pieces");
  for (double& v : out) v /= static_cast<double>(asked.n_tree);
  return out;
}

// Verifies nothing: records that `object` passed check_ccforest()'s full
// checks (see mark_verified() in prepared.h), with the memory its decoded
// trees may take.
// [[Rcpp::export(rng = false)]]
void ccf_mark_verified_cpp(SEXP cache, SEXP object, SEXP names, double memory_limit) {
  mark_verified(cache, object, names, memory_limit);
}

// Whether `object` is, element for element, the object last verified with
// its handle (see is_verified() in prepared.h).
// [[Rcpp::export(rng = false)]]
bool ccf_is_verified_cpp(SEXP cache, SEXP object, SEXP names) {
  return is_verified(cache, object, names);
}

// A new, empty handle for a fit's prepared state.
// [[Rcpp::export(rng = false)]]
SEXP ccf_new_cache_cpp() {
  return R_MakeExternalPtr(nullptr, R_NilValue, R_NilValue);
}

// Decodes the trees a fit has just grown, with its new handle (see
// hold_grown_trees() in prepared.h), once for its out-of-bag estimates and
// its predictions (a fit is usually followed by one), if they fit
// `memory_limit` and are small: larger forests are decoded by their first
// prediction, so that their fitting time stays the time to grow them.
// Returns whether they are kept.
// [[Rcpp::export(rng = false)]]
bool ccf_prime_cpp(SEXP cache, const Rcpp::List& trees, const Rcpp::List& shape, int n_thread,
                   double memory_limit) {
  const ModelShape model = model_shape(shape);
  double stored = 0.0;
  for (R_xlen_t t = 0; t < trees.size(); ++t) stored += static_cast<double>(Rf_xlength(trees[t]));
  // Not held either: the out-of-bag estimates then decode as they did (a
  // tree at a time for classes and values), not the whole forest for good.
  if (stored > 16.0 * 1024 * 1024) return false;
  hold_grown_trees(cache, trees, memory_limit);
  return guarded([&] {
    RHost host;
    const Runtime runtime = r_runtime(host, n_thread, ProgressStyle::kNone, "");
    return prepared_model(cache, trees, model, runtime) != nullptr;
  }, "out of memory while decoding the forest");
}

// Checks every stored tree and returns its number of leaves and its depth.
// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_tree_sizes_cpp(const Rcpp::List& trees, const Rcpp::List& shape) {
  const ModelShape model = model_shape(shape);
  Rcpp::IntegerVector leaves = new_integer(trees.size()), depth = new_integer(trees.size());
  guarded([&] {
    const EncodedTrees encoded = encoded_trees(trees);
    for (size_t t = 0; t < encoded.size(); ++t) {
      const ForestModel tree = decode_forest(encoded, model, t, t + 1);
      const uint64_t* records = tree.tree(0);
      // Leaves lie one below the deepest split.
      int deepest = 0;
      for (size_t at = 0; at < tree.tree_words(0);
           at += ForestModel::record_words(records, static_cast<int32_t>(at))) {
        deepest = std::max(deepest, ForestModel::head(records, static_cast<int32_t>(at)).depth + 1);
      }
      leaves[static_cast<R_xlen_t>(t)] = tree.n_leaves[0];
      depth[static_cast<R_xlen_t>(t)] = deepest;
    }
  }, "out of memory while reading the forest");
  return named_list({{"leaves", leaves}, {"depth", depth}});
}

// One stored tree as a table of its nodes (0-based ids, breadth first: the
// stored order, in which the k-th split's children are nodes 2k + 1 and 2k + 2).
// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_tree_table_cpp(const Rcpp::RawVector& tree, const Rcpp::List& shape) {
  const ModelShape model = model_shape(shape);
  return guarded([&] {
    const Tree parsed = parse_tree(tree.begin(), static_cast<size_t>(tree.size()), model);
    const R_xlen_t n = static_cast<R_xlen_t>(parsed.n_nodes());
    Rcpp::IntegerVector node = new_integer(n), left = new_integer(n), right = new_integer(n);
    Rcpp::LogicalVector terminal = new_logical(n);
    Rcpp::NumericVector threshold = new_numeric(n);
    Rcpp::List columns = new_list(n), coefficients = new_list(n), values = new_list(n),
               value_index = new_list(n);
    for (R_xlen_t j = 0, s = 0, l = 0; j < n; ++j) {
      node[j] = static_cast<int>(j);
      terminal[j] = parsed.is_split[static_cast<size_t>(j)] == 0;
      left[j] = right[j] = NA_INTEGER;
      threshold[j] = NA_REAL;
      if (!terminal[j]) {
        left[j] = static_cast<int>(2 * s + 1);
        right[j] = static_cast<int>(2 * s + 2);
        threshold[j] = parsed.threshold[static_cast<size_t>(s)];
        // A column's terms are consecutive (hi and lo at double precision).
        std::vector<int> column;
        std::vector<double> coef;
        for (int e = parsed.split_begin[s]; e < parsed.split_begin[s + 1]; ++e) {
          if (column.empty() || column.back() != parsed.column[e]) {
            column.push_back(parsed.column[e]);
            coef.push_back(0.0);
          }
          coef.back() += static_cast<double>(parsed.coef[e]);
        }
        columns[j] = integer_of(column.begin(), column.end());
        coefficients[j] = numeric_of(coef.begin(), coef.end());
        ++s;
      } else {
        const auto first = static_cast<size_t>(parsed.leaf_begin[l]);
        const auto last = static_cast<size_t>(parsed.leaf_begin[l + 1]);
        value_index[j] = integer_of(parsed.leaf_index.begin() + first, parsed.leaf_index.begin() + last);
        values[j] = numeric_of(parsed.leaf_value.begin() + first, parsed.leaf_value.begin() + last);
        ++l;
      }
    }
    return named_list({{"node", node}, {"left", left}, {"right", right}, {"terminal", terminal},
                       {"threshold", threshold}, {"columns", columns},
                       {"coefficients", coefficients}, {"value_index", value_index},
                       {"values", values}});
  }, "out of memory while reading the tree");
}

// Bytes of decoded trees kept for a fit (its handle), or for every live fit
// (NULL).
// [[Rcpp::export(rng = false)]]
double ccf_cache_bytes_cpp(SEXP cache = R_NilValue) {
  return cache == R_NilValue ? prepared_bytes_total() : prepared_bytes(cache);
}
// Exact sums of the rows of a matrix (see core/ExactSum.h): for each row, its
// sum rounded to the nearest double, and the rest of its canonical expansion
// as the columns of `tail` (zero padded). The result depends only on the
// exact sum of each row, never on the order or grouping of its terms.
// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_exact_row_sums_cpp(const Rcpp::NumericMatrix& x) {
  const R_xlen_t n = x.nrow(), p = x.ncol();
  std::vector<std::vector<double>> terms(static_cast<size_t>(n));
  size_t width = 0;
  for (R_xlen_t i = 0; i < n; ++i) {
    ExactSum sum;
    for (R_xlen_t j = 0; j < p; ++j) {
      if (!std::isfinite(x(i, j))) Rcpp::stop("exact sums need finite values");
      sum.add(x(i, j));
    }
    terms[static_cast<size_t>(i)] = sum.canonical();
    if (terms[static_cast<size_t>(i)].size() > 1) {
      width = std::max(width, terms[static_cast<size_t>(i)].size() - 1);
    }
  }
  Rcpp::NumericVector rounded = new_numeric(n);
  Rcpp::NumericMatrix tail(
      Rcpp::Shield<SEXP>(alloc_matrix(REALSXP, n, static_cast<R_xlen_t>(width))));
  std::fill(tail.begin(), tail.end(), 0.0);
  for (R_xlen_t i = 0; i < n; ++i) {
    const std::vector<double>& t = terms[static_cast<size_t>(i)];
    rounded[i] = t.empty() ? 0.0 : t[0];
    for (size_t k = 1; k < t.size(); ++k) tail(i, static_cast<R_xlen_t>(k - 1)) = t[k];
  }
  return named_list({{"sum", rounded}, {"tail", tail}});
}

namespace {

/** Folds the contents of an R vector (or list, recursively) into `h`. */
uint64_t fold_object(uint64_t h, SEXP object) {
  const SEXPTYPE type = TYPEOF(object);
  h = mix64(h, static_cast<uint64_t>(type));
  if (type == NILSXP) return h;
  const R_xlen_t n = XLENGTH(object);
  h = mix64(h, static_cast<uint64_t>(n));
  switch (type) {
    case REALSXP: {
      const double* v = REAL(object);
      for (R_xlen_t i = 0; i < n; ++i) {
        // One pattern for every NaN (NA and NaN both mean missing here).
        uint64_t bits = 0x7ff8000000000000ULL;
        if (!std::isnan(v[i])) std::memcpy(&bits, &v[i], sizeof bits);
        h = mix64(h, bits);
      }
      return h;
    }
    case INTSXP:
    case LGLSXP: {
      const int* v = type == INTSXP ? INTEGER(object) : LOGICAL(object);
      for (R_xlen_t i = 0; i < n; ++i) h = mix64(h, static_cast<uint32_t>(v[i]));
      return h;
    }
    case RAWSXP: {
      const Rbyte* v = RAW(object);
      for (R_xlen_t i = 0; i < n; ++i) h = mix64(h, v[i]);
      return h;
    }
    case STRSXP: {
      for (R_xlen_t i = 0; i < n; ++i) {
        SEXP s = STRING_ELT(object, i);
        if (s == NA_STRING) {
          h = mix64(h, 0xffffffffffffffffULL);
          continue;
        }
        const char* c = CHAR(s);
        const size_t len = std::strlen(c);
        h = mix64(h, len);
        for (size_t k = 0; k < len; ++k) h = mix64(h, static_cast<unsigned char>(c[k]));
      }
      return h;
    }
    case VECSXP: {
      for (R_xlen_t i = 0; i < n; ++i) h = fold_object(h, VECTOR_ELT(object, i));
      return h;
    }
    default:
      Rcpp::stop("internal error: cannot fingerprint an object of this type");
  }
}

}  // namespace

// A 64-bit fingerprint of the training data exactly as the core sees it (the
// bits of every value, the types and lengths), as 16 hexadecimal digits: two
// fits share it only if they were grown from the same data.
// [[Rcpp::export(rng = false)]]
std::string ccf_fingerprint_cpp(const Rcpp::List& parts) {
  const uint64_t h = fold_object(0x243f6a8885a308d3ULL, parts);
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

// ---- Per-tree predictions, terminal nodes, negation importance, and what
// ---- a bagged forest's samples say about its predictions (issue 25).

namespace {

/**
 * What a forest's samples were drawn from, from the record bagging_record()
 * keeps in R: list(n_row, weights, uniform_weights, sample, classes); the
 * record must outlive the view.
 */
BagSource bag_source(const Rcpp::List& record, double seed, double first_tree) {
  BagSource source;
  const int n_row = list_value<int>(record, "n_row");
  if (n_row < 1) Rcpp::stop("internal error: no training rows");
  SEXP weights = list_value<SEXP>(record, "weights");
  if (weights != R_NilValue && (TYPEOF(weights) != REALSXP || XLENGTH(weights) != n_row)) {
    Rcpp::stop("internal error: weights");
  }
  SEXP classes = list_value<SEXP>(record, "classes");
  if (classes != R_NilValue && (TYPEOF(classes) != INTSXP || XLENGTH(classes) != n_row)) {
    Rcpp::stop("internal error: classes");
  }
  source.n_row = static_cast<size_t>(n_row);
  source.weight = weights == R_NilValue ? nullptr : REAL(weights);
  source.uniform_weight = list_value<bool>(record, "uniform_weights");
  source.sample = row_sample(list_value<Rcpp::List>(record, "sample"));
  if (classes != R_NilValue) {
    source.classes = INTEGER(classes);
    source.n_class = static_cast<int>(source.sample.class_size.size());
    for (R_xlen_t i = 0; i < XLENGTH(classes); ++i) {
      if (source.classes[i] < 0 || source.classes[i] >= source.n_class) {
        Rcpp::stop("internal error: classes");
      }
    }
  }
  source.seed = whole_number(seed, "seed");
  source.first_tree = whole_number(first_tree, "first_tree");
  return source;
}

}  // namespace

// Each of the request's trees' prediction for each row of x: an
// n x n_value x n_tree array of leaf values, or with `nodes` an n x n_tree
// matrix of terminal node numbers (breadth first from 0, as tree_info()).
// The result is allocated before any C++ work.
// [[Rcpp::export(rng = false)]]
SEXP ccf_predict_trees_cpp(const Rcpp::List& request, const Rcpp::NumericMatrix& x, bool nodes) {
  const PredictRequest asked = predict_request(request, x);
  const R_xlen_t n = x.nrow();
  const R_xlen_t n_value = asked.shape.n_value();
  const int n_tree = static_cast<int>(asked.n_tree);
  Rcpp::RObject out;
  if (nodes) {
    out = Rcpp::Shield<SEXP>(alloc_matrix(INTSXP, n, n_tree));
  } else {
    out = Rcpp::Shield<SEXP>(alloc_vector(REALSXP, n * n_value * n_tree));
    Rcpp::IntegerVector dim = Rcpp::IntegerVector::create(static_cast<int>(n),
                                                          static_cast<int>(n_value), n_tree);
    out.attr("dim") = dim;
  }
  guarded([&] {
    const MatrixMap xm = map_matrix(x);
    const std::vector<uint64_t> hash = row_hashes(xm);
    RHost host;
    const Runtime runtime = r_runtime(host, asked.n_thread, ProgressStyle::kNone, "");
    with_trees(asked, runtime, false,
               [&](const ForestModel& batch, const PredictOptions& options, size_t begin) {
      if (nodes) {
        terminal_nodes(batch, xm, hash, options, runtime,
                       INTEGER(out) + static_cast<size_t>(n) * begin);
      } else {
        per_tree_values(batch, xm, hash, options, runtime,
                        REAL(out) + static_cast<size_t>(n * n_value) * begin);
      }
    });
  }, "out of memory while predicting with each tree; predict fewer rows at a time");
  return out;
}

// Out-of-bag negation importance of a bagged forest, from its training data.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector ccf_oob_negation_cpp(const Rcpp::List& trees, const Rcpp::List& training,
                                         const Rcpp::List& source, int n_thread) {
  const Data data = training_data(training);
  const ModelShape model = model_shape(list_value<Rcpp::List>(training, "shape"));
  const ForestSource from = forest_source(source);
  RHost host;
  const Runtime runtime = r_runtime(host, n_thread, ProgressStyle::kNone, "");
  const std::vector<double> importance = guarded([&] {
    const EncodedTrees encoded = encoded_trees(trees);
    return oob_negation_importance(encoded, model, data, from, runtime);
  }, "out of memory while computing negation importance");
  return numeric_of(importance.begin(), importance.end());
}

// In-bag counts of a bagged forest's trees (redrawn): an n_row x n_tree
// integer matrix.
// [[Rcpp::export(rng = false)]]
Rcpp::IntegerMatrix ccf_in_bag_cpp(const Rcpp::List& record, double seed, double first_tree,
                                   int n_tree, int n_thread) {
  const BagSource source = bag_source(record, seed, first_tree);
  const int n_row = static_cast<int>(source.n_row);
  Rcpp::IntegerMatrix out(Rcpp::Shield<SEXP>(alloc_matrix(INTSXP, n_row, n_tree)));
  guarded([&] {
    RHost host;
    const Runtime runtime = r_runtime(host, n_thread, ProgressStyle::kNone, "");
    const std::vector<uint16_t> counts = in_bag_counts(source, static_cast<size_t>(n_tree), runtime);
    std::copy(counts.begin(), counts.end(), out.begin());
  }, "out of memory while redrawing the trees' samples");
  return out;
}

// The infinitesimal jackknife's raw variance and its Monte Carlo bias (see
// core/Bagging.h) for each row of `values` (predictions x trees).
// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_infjack_cpp(const Rcpp::NumericMatrix& values, const Rcpp::List& record,
                           double seed, double first_tree, int n_thread) {
  const BagSource source = bag_source(record, seed, first_tree);
  Rcpp::NumericVector raw = new_numeric(values.nrow()), bias = new_numeric(values.nrow());
  guarded([&] {
    RHost host;
    const Runtime runtime = r_runtime(host, n_thread, ProgressStyle::kNone, "");
    const size_t n_tree = static_cast<size_t>(values.ncol());
    const std::vector<uint16_t> counts = in_bag_counts(source, n_tree, runtime);
    const JackknifeVariance v = infinitesimal_jackknife(
        counts, source.n_row, n_tree, values.begin(), static_cast<size_t>(values.nrow()), runtime);
    std::copy(v.raw.begin(), v.raw.end(), raw.begin());
    std::copy(v.bias.begin(), v.bias.end(), bias.begin());
  }, "out of memory while computing standard errors; predict fewer rows at a time");
  return named_list({{"raw", raw}, {"bias", bias}});
}

// Jackknife+-after-bootstrap intervals (see core/Bagging.h) for the rows of
// `values` (new rows x trees), from the training rows' absolute out-of-bag
// residuals (NaN: none).
// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_jackknife_plus_cpp(const Rcpp::NumericMatrix& values,
                                  const Rcpp::NumericVector& residual, const Rcpp::List& record,
                                  double seed, double first_tree, double rank_lower,
                                  double rank_upper, int n_thread) {
  const BagSource source = bag_source(record, seed, first_tree);
  if (static_cast<size_t>(residual.size()) != source.n_row) Rcpp::stop("internal error: residuals");
  if (!(rank_lower >= 0.0 && rank_upper >= 0.0)) Rcpp::stop("internal error: ranks");
  Rcpp::NumericVector lower = new_numeric(values.nrow()), upper = new_numeric(values.nrow());
  guarded([&] {
    RHost host;
    const Runtime runtime = r_runtime(host, n_thread, ProgressStyle::kNone, "");
    const size_t n_tree = static_cast<size_t>(values.ncol());
    const std::vector<uint16_t> counts = in_bag_counts(source, n_tree, runtime);
    jackknife_plus(counts, source.n_row, n_tree, values.begin(),
                   static_cast<size_t>(values.nrow()), residual.begin(),
                   static_cast<size_t>(rank_lower), static_cast<size_t>(rank_upper), runtime,
                   lower.begin(), upper.begin());
  }, "out of memory while computing intervals; predict fewer rows at a time");
  return named_list({{"lower", lower}, {"upper", upper}});
}
// Called by R when it unloads the package's shared library.
extern "C" void R_unload_ccforest(DllInfo*) {
  release_all_prepared();
  stop_helper_thread();
}
