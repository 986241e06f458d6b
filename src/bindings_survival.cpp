// The R entry points of survival forests: predictions (curves, risk,
// restricted mean survival time) and their out-of-bag counterparts. They
// convert between R objects and the core's views; the algorithms live in
// core/SurvivalPredictor.cpp.
#include <Rcpp.h>

#include <string>
#include <vector>

#include "core/Data.h"
#include "core/Forest.h"
#include "core/Model.h"
#include "core/Predictor.h"
#include "core/Rng.h"
#include "core/SurvivalNode.h"
#include "core/SurvivalPredictor.h"
#include "core/TreeCodec.h"
#include "parallel.h"
#include "prepared.h"
#include "r_convert.h"
#include "with_trees.h"

using namespace ccforest;

namespace {

/**
 * The request from list(time_count, event_time, horizon, outputs),
 * as survival_request() builds it in R; `outputs` names what is wanted.
 */
SurvivalRequest survival_request(const Rcpp::List& request, const ModelShape& shape) {
  SurvivalRequest out;
  out.time_count = list_value<std::vector<int>>(request, "time_count");
  out.event_time = list_value<std::vector<double>>(request, "event_time");
  out.horizon = list_value<double>(request, "horizon");
  for (const std::string& name : list_value<std::vector<std::string>>(request, "outputs")) {
    if (name == "survival") out.survival = true;
    else if (name == "chf") out.chf = true;
    else if (name == "cif") out.cif = true;
    else if (name == "risk") out.risk = true;
    else if (name == "rmst") out.rmst = true;
    else Rcpp::stop("internal error: unknown survival output");
  }
  if (static_cast<int>(out.event_time.size()) != shape.n_time) {
    Rcpp::stop("internal error: invalid survival request");
  }
  for (int count : out.time_count) {
    if (count < 0 || count > shape.n_time) Rcpp::stop("internal error: invalid survival request");
  }
  return out;
}

/** R's results, allocated before any C++ work; `out` points into them. */
Rcpp::List survival_results(const SurvivalRequest& request, R_xlen_t n, int n_cause,
                            SurvivalOutput& out) {
  const R_xlen_t m = static_cast<R_xlen_t>(request.time_count.size());
  std::vector<std::pair<const char*, SEXP>> parts;
  auto array = [&](R_xlen_t k) {
    SEXP a = Rcpp::Shield<SEXP>(alloc_vector(REALSXP, n * m * k));
    Rcpp::RObject wrapped(a);
    wrapped.attr("dim") = Rcpp::IntegerVector::create(static_cast<int>(n), static_cast<int>(m),
                                                       static_cast<int>(k));
    return wrapped;
  };
  Rcpp::RObject survival, chf, cif, risk, rmst;
  if (request.survival) {
    survival = Rcpp::Shield<SEXP>(alloc_matrix(REALSXP, n, m));
    out.survival = REAL(survival);
    parts.emplace_back("survival", survival);
  }
  if (request.chf) {
    chf = array(n_cause);
    out.chf = REAL(chf);
    parts.emplace_back("chf", chf);
  }
  if (request.cif) {
    cif = array(n_cause);
    out.cif = REAL(cif);
    parts.emplace_back("cif", cif);
  }
  if (request.risk) {
    risk = Rcpp::Shield<SEXP>(alloc_matrix(REALSXP, n, n_cause));
    out.risk = REAL(risk);
    parts.emplace_back("risk", risk);
  }
  if (request.rmst) {
    rmst = new_numeric(n);
    out.rmst = REAL(rmst);
    parts.emplace_back("rmst", rmst);
  }
  Rcpp::IntegerVector count = new_integer(n);
  out.count = count.begin();
  parts.emplace_back("count", count);
  return named_list(parts);
}

}  // namespace

// Survival predictions of the request's trees for the rows of x: a list of
// what `asked` names (see core/SurvivalPredictor.h) and the trees used per
// row.
// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_predict_survival_cpp(const Rcpp::List& request, const Rcpp::NumericMatrix& x,
                                    const Rcpp::List& asked) {
  const PredictRequest predict = predict_request(request, x);
  if (!predict.shape.is_survival()) Rcpp::stop("internal error: not a survival forest");
  const SurvivalRequest wanted = survival_request(asked, predict.shape);
  SurvivalOutput out;
  Rcpp::List result = survival_results(wanted, x.nrow(), predict.shape.n_cause, out);
  guarded([&] {
    RHost host;
    const Runtime runtime = r_runtime(host, predict.n_thread, ProgressStyle::kNone, "");
    const MatrixMap xm = map_matrix(x);
    const std::vector<uint64_t> hash = row_hashes(xm);
    // Each row's curves gather every tree: decoded in one piece.
    with_trees(predict, runtime, true,
               [&](const ForestModel& model, const PredictOptions& options, size_t) {
      predict_survival(model, xm, hash, options, wanted, nullptr, ColumnSwap(), runtime, out);
    });
  }, "out of memory while predicting; predict `new_data` in smaller pieces");
  return result;
}

// Out-of-bag survival predictions of a forest grown on samples, for its
// training rows; with `feature` >= 0 (0-based), that feature's columns are
// read from the rows of a permutation drawn from the forest's seed and the
// feature (permutation importance), or with `negate`, with their signs
// flipped (negation importance).
// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_oob_survival_cpp(const Rcpp::List& trees, const Rcpp::List& training,
                                const Rcpp::List& source, int n_thread, const Rcpp::List& request,
                                int feature, bool negate, SEXP cache) {
  const Data data = training_data(training);
  const ModelShape model = model_shape(list_value<Rcpp::List>(training, "shape"));
  if (!model.is_survival() || !data.is_survival()) Rcpp::stop("internal error: not a survival forest");
  if (feature >= static_cast<int>(data.n_feature())) Rcpp::stop("internal error: feature out of range");
  const ForestSource from = forest_source(source);
  const SurvivalRequest asked = survival_request(request, model);
  SurvivalOutput out;
  Rcpp::List result = survival_results(asked, static_cast<R_xlen_t>(data.n_row()), model.n_cause, out);
  guarded([&] {
    RHost host;
    const Runtime runtime = r_runtime(host, n_thread, ProgressStyle::kNone, "");
    // The fit's model, decoded once for these estimates and its predictions
    // (ccf_prime_cpp()), else the trees decoded here.
    const ForestModel* prepared = prepared_model(cache, trees, model, runtime);
    ForestModel own;
    if (prepared == nullptr) {
      const EncodedTrees encoded = encoded_trees(trees);
      own = decode_forest(encoded, model, 0, encoded.size(), runtime);
    }
    const ForestModel& decoded = prepared != nullptr ? *prepared : own;
    const std::vector<char> bag = forest_in_bag(data, from, static_cast<size_t>(trees.size()), runtime);
    PredictOptions options;
    options.seed = from.seed;
    options.first_tree = from.first_tree;
    options.impute_random = from.impute_random;
    ColumnSwap swap;
    std::vector<int> partner;
    if (feature >= 0 && negate) {
      options.negate_begin = data.feature_start[static_cast<size_t>(feature)];
      options.negate_end = data.feature_start[static_cast<size_t>(feature) + 1];
    } else if (feature >= 0) {
      // Permutations come from their own stream, so that asking for
      // importance changes nothing else.
      partner.resize(data.n_row());
      for (size_t i = 0; i < partner.size(); ++i) partner[i] = static_cast<int>(i);
      Rng rng(mix64(from.seed, 0x737572766976ULL), static_cast<uint64_t>(feature));
      for (size_t i = partner.size(); i > 1; --i) std::swap(partner[i - 1], partner[rng.index(i)]);
      swap.first_column = data.feature_start[static_cast<size_t>(feature)];
      swap.last_column = data.feature_start[static_cast<size_t>(feature) + 1];
      swap.partner = partner.data();
    }
    predict_survival(decoded, data.x, data.row_hash, options, asked, &bag, swap, runtime, out);
  }, "out of memory while computing out-of-bag predictions");
  return result;
}

// The martingale residuals of rows fitted together (see
// martingale_residuals() in core/SurvivalNode.h): an n x (n_cause *
// intervals) matrix. `rank` and `event` as in SurvivalOutcome (core/Data.h),
// `weights` one per row or none.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericMatrix ccf_martingale_residuals_cpp(const Rcpp::IntegerVector& rank,
                                                 const Rcpp::IntegerVector& event,
                                                 const Rcpp::NumericVector& weights, int n_cause,
                                                 int intervals) {
  const size_t n = static_cast<size_t>(rank.size());
  if (static_cast<size_t>(event.size()) != n || (weights.size() != 0 && static_cast<size_t>(weights.size()) != n) ||
      n_cause < 1 || intervals < 1) {
    Rcpp::stop("internal error: invalid survival outcome");
  }
  const size_t width = static_cast<size_t>(n_cause) * static_cast<size_t>(intervals);
  Rcpp::NumericMatrix out(Rcpp::Shield<SEXP>(
      alloc_matrix(REALSXP, static_cast<R_xlen_t>(n), static_cast<R_xlen_t>(width))));
  guarded([&] {
    NodeHazard hazard;
    hazard.fit(rank.begin(), event.begin(), weights.size() == 0 ? nullptr : weights.begin(), n,
               n_cause);
    std::vector<double> rows(n * width);
    martingale_residuals(hazard, intervals, rows.data());
    for (size_t i = 0; i < n; ++i) {
      for (size_t c = 0; c < width; ++c) out[static_cast<R_xlen_t>(c * n + i)] = rows[i * width + c];
    }
  }, "out of memory while computing martingale residuals");
  return out;
}
