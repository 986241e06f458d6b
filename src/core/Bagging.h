#ifndef CCFOREST_BAGGING_H_
#define CCFOREST_BAGGING_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "Options.h"
#include "Runtime.h"

namespace ccforest {

/**
 * What the samples of a forest grown on samples (bagging, or a
 * sample_fraction) were drawn from: the training rows, their case weights
 * (null for none) and classes, how the rows were sampled, and the forest's
 * seed. The
 * samples themselves are never stored: tree t's is redrawn from (seed, t),
 * as out-of-bag estimates redraw it (see Sampling.h).
 */
struct BagSource {
  size_t n_row = 0;
  const double* weight = nullptr;
  bool uniform_weight = false;
  /** Each training row's class, for samples of given sizes per class (else null). */
  const int* classes = nullptr;
  int n_class = 0;
  RowSample sample = RowSample::bootstrap(true);
  uint64_t seed = 0;
  uint64_t first_tree = 0;  // global number of the first tree
};

/**
 * In-bag counts of trees first_tree, ..., first_tree + n_tree - 1:
 * counts[i + n_row * t] is how many times tree t drew row i.
 */
std::vector<uint16_t> in_bag_counts(const BagSource& source, size_t n_tree,
                                    const Runtime& runtime);

/**
 * The infinitesimal jackknife for bagging (Efron, 2014; Wager, Hastie and
 * Efron, 2014), for each of n_col predictions t_b (one value of one row)
 * given by the trees: `values` is n_col x n_tree, column-major, row c holding
 * prediction c of every tree. With N_bi the in-bag counts and B trees,
 *   raw[c]  = sum_i cov_b(N_bi, t_b)^2,
 *   bias[c] = sum_i var_b(N_bi) * var_b(t_b) / B,
 * (covariances and variances over the trees, divided by B); raw - bias is
 * the bias-corrected estimate V_IJ-U, raw's Monte Carlo bias removed.
 */
struct JackknifeVariance {
  std::vector<double> raw;
  std::vector<double> bias;
};
JackknifeVariance infinitesimal_jackknife(const std::vector<uint16_t>& counts, size_t n_row,
                                          size_t n_tree, const double* values, size_t n_col,
                                          const Runtime& runtime);

/**
 * Jackknife+-after-bootstrap prediction intervals (Kim, Xu and Barber, 2020)
 * for one output. `values` is m x n_tree, column-major: the trees'
 * predictions of m new rows. `residual` holds, per training row, the absolute
 * out-of-bag residual R_i = |y_i - mu_{-i}(x_i)|, NaN for rows no tree left
 * out. For new row j and each of the n training rows with a residual,
 * mu_{-i} is the mean prediction of the trees that left row i out; then
 *   lower[j] = the rank_lower-th smallest of mu_{-i} - R_i,
 *   upper[j] = the rank_upper-th smallest of mu_{-i} + R_i
 * (the paper's floor(alpha (n + 1)) and ceil((1 - alpha)(n + 1)), computed
 * by the caller), -Inf when rank_lower is 0 and +Inf when rank_upper > n.
 */
void jackknife_plus(const std::vector<uint16_t>& counts, size_t n_row, size_t n_tree,
                    const double* values, size_t m, const double* residual, size_t rank_lower,
                    size_t rank_upper, const Runtime& runtime, double* lower, double* upper);

}  // namespace ccforest

#endif  // CCFOREST_BAGGING_H_
