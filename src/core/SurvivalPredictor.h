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
 * What a survival prediction computes for each row. The forest's estimate
 * for a row is the mean, over its trees, of the Nelson-Aalen increments
 * d_{c,k} / Y_k of the leaf the row reaches: h_{c,k}, the ensemble hazard of
 * cause c at the data's event time t_k (a tree whose leaf has no event at
 * t_k adds 0). From these:
 *   chf_c(t)  = sum_{t_k <= t} h_{c,k}                  (Nelson-Aalen)
 *   S(t)      = prod_{t_k <= t} (1 - sum_c h_{c,k})     (its product-integral)
 *   cif_c(t)  = sum_{t_k <= t} S(t_{k-1}) h_{c,k}        (Aalen-Johansen)
 *   risk      = sum_k chf(t_k) for one cause, sum_k cif_c(t_k) for each of several
 *   rmst      = the integral of S from 0 to `horizon`
 * A forest whose trees are single leaves grown on every row thus gives the
 * Kaplan-Meier, Nelson-Aalen and Aalen-Johansen estimates of the data.
 */
struct SurvivalRequest {
  /** For each requested time t, the number of the data's event times t_k <= t. */
  std::vector<int> time_count;
  /** The data's event times, increasing (for rmst). */
  std::vector<double> event_time;
  double horizon = 0.0;
  bool survival = false, chf = false, cif = false, risk = false, rmst = false;
  /**
   * How trees are combined: 0, their mean hazards (above); 1, S(t) =
   * exp(-chf(t)) from the mean hazards; 2, the mean of the trees' own
   * Kaplan-Meier and Aalen-Johansen curves. Only 0 is offered to users; the
   * others are kept to measure against (see bench/survival.R).
   */
  int average = 0;
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
