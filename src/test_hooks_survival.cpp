// Survival kernels exposed to testthat (not part of the interface): the
// log-rank split search.
#include <Rcpp.h>

#include <vector>

#include "core/LogRankCriterion.h"
#include "core/Rng.h"
#include "core/SplitSearch.h"
#include "r_convert.h"

using namespace ccforest;

namespace {

NodeTargets survival_targets(const Rcpp::IntegerVector& rank, const Rcpp::IntegerVector& event,
                             const Rcpp::NumericVector& weights) {
  if (rank.size() != event.size() || (weights.size() != 0 && weights.size() != rank.size())) {
    Rcpp::stop("`rank`, `event` and `weights` must match");
  }
  NodeTargets targets;
  targets.time_rank = rank.begin();
  targets.event = event.begin();
  targets.weights = weights.size() == 0 ? nullptr : weights.begin();
  targets.n = static_cast<size_t>(rank.size());
  return targets;
}

}  // namespace

// The log-rank gain (summed over causes) of sending the rows with u < cut
// left, and, from the sweep over all cuts of u, the best gain and its number
// of rows left. `rank` and `event` as in SurvivalOutcome (core/Data.h).
// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_logrank_cpp(const Rcpp::IntegerVector& rank, const Rcpp::IntegerVector& event,
                           const Rcpp::NumericVector& weights, const Rcpp::NumericVector& u,
                           double cut, int n_cause, int min_events) {
  if (u.size() != rank.size()) Rcpp::stop("`u` must have one value per row");
  const NodeTargets targets = survival_targets(rank, event, weights);
  LogRankCriterion criterion(static_cast<size_t>(n_cause), static_cast<size_t>(min_events));
  criterion.set_node(targets);
  size_t n_left = 0;
  const double at_cut = criterion.cut_gain(u.begin(), cut, n_left);
  SearchSettings settings;
  settings.min_events = static_cast<size_t>(min_events);
  SplitSearch search(SplitRule::kLogRank, static_cast<size_t>(n_cause), nullptr, settings);
  search.set_node(targets);
  Rng rng(1, 0);
  BestSplit best;
  search.sweep(u.begin(), 1, 0, rng, best);
  const double best_gain = best.direction >= 0 ? best.gain : NA_REAL;
  const int best_left = best.direction >= 0 ? static_cast<int>(best.n_left) : NA_INTEGER;
  const int left = static_cast<int>(n_left);
  return named_list({{"gain", numeric_of(&at_cut, &at_cut + 1)},
                     {"n_left", integer_of(&left, &left + 1)},
                     {"best_gain", numeric_of(&best_gain, &best_gain + 1)},
                     {"best_n_left", integer_of(&best_left, &best_left + 1)}});
}
