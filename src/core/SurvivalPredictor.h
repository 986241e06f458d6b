#ifndef CCFOREST_SURVIVAL_PREDICTOR_H_
#define CCFOREST_SURVIVAL_PREDICTOR_H_

#include <cstdint>
#include <vector>

#include "Data.h"
#include "Forest.h"
#include "Model.h"
#include "Predictor.h"
#include "Runtime.h"

namespace ccforest {

/**
 * What a survival prediction computes for each row. Each tree's leaf holds
 * its Nelson-Aalen estimator: Y_k rows at risk and d_{c,k} events of cause
 * c at the data's event times t_k. The forest averages, over its trees
 * (the trees that predict the row),
 *   its cumulative hazards:  chf_c(t) = mean over trees of sum_{t_k <= t} d_{c,k} / Y_k,
 *   its cumulative incidences, the leaves' Aalen-Johansen estimates (for one
 *   cause, one minus their Kaplan-Meier estimates):
 *     cif_c(t) = mean over trees of sum_{t_k <= t} S(t_{k-1}) d_{c,k} / Y_k,
 *     S(t) = prod_{t_k <= t} (1 - sum_c d_{c,k} / Y_k) within the leaf,
 * and from these
 *   survival(t) = 1 - sum_c cif_c(t)  (the mean of the trees' Kaplan-Meier curves),
 *   risk  = sum_k chf(t_k) over the event times for one cause ("mortality"),
 *           sum_k cif_c(t_k) for each of several,
 *   rmst  = the integral of survival(t) from 0 to `horizon`.
 * A forest whose trees are single leaves grown on every row thus gives the
 * Kaplan-Meier, Nelson-Aalen and Aalen-Johansen estimates of the data.
 * Averaging the curves measured better than the product-integral or
 * exp(-chf) of the averaged hazards (bench/results/survival-design.md).
 */
struct SurvivalRequest {
  /** For each requested time t, the number of the data's event times t_k <= t. */
  std::vector<int> time_count;
  /** The data's event times, increasing (for rmst). */
  std::vector<double> event_time;
  double horizon = 0.0;
  bool survival = false, chf = false, cif = false, risk = false, rmst = false;
};

/**
 * Where the results go, each column-major over the n rows (null: not
 * wanted): survival n x m, chf and cif n x m x K (m requested times, K
 * causes), risk n x K, rmst n, count n (the trees that predicted each row).
 * Rows no tree predicted (out of bag: every tree drew them) get NaN.
 */
struct SurvivalOutput {
  double* survival = nullptr;
  double* chf = nullptr;
  double* cif = nullptr;
  double* risk = nullptr;
  double* rmst = nullptr;
  int* count = nullptr;
};

/**
 * Columns [first_column, last_column) of row i are read from row
 * partner[i] (permutation importance); none by default.
 */
struct ColumnSwap {
  int first_column = 0;
  int last_column = 0;
  const int* partner = nullptr;
};

/**
 * Predicts the rows of x (imputing as the trees do, see Predictor.h, and
 * negating the columns `options` names after imputation) with
 * every tree of `model`, or, given `in_bag` (n_tree x n flags, tree-major),
 * with the trees that left each row out: the out-of-bag estimate. Rows are
 * predicted in blocks on the runtime's threads; each row adds its trees in
 * tree order, so results do not depend on the threads.
 */
void predict_survival(const ForestModel& model, const MatrixMap& x,
                      const std::vector<uint64_t>& row_hash, const PredictOptions& options,
                      const SurvivalRequest& request, const std::vector<char>* in_bag,
                      const ColumnSwap& swap, const Runtime& runtime, const SurvivalOutput& out);

/** In-bag flags of the forest's trees (n_tree x n_row, tree-major), redrawn. */
std::vector<char> forest_in_bag(const Data& data, const ForestSource& source, size_t n_tree,
                                const Runtime& runtime);

}  // namespace ccforest

#endif  // CCFOREST_SURVIVAL_PREDICTOR_H_
