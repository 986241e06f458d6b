#ifndef CCFOREST_SCREENING_H_
#define CCFOREST_SCREENING_H_

#include <cstddef>
#include <vector>

#include "Data.h"

namespace ccforest {

/**
 * Each feature's association with the outputs, for weighting feature
 * sampling on wide data (as enriched random forests do for microarrays): the
 * share of the feature's variance over the rows of positive weight that the
 * outputs explain linearly, in [0, 1]. For classes that is the one-way
 * analysis of variance's R^2 (the outputs' class indicators), for one numeric
 * output the squared correlation, for several the R^2 of the feature on all
 * of them: each is the squared canonical correlation of the feature alone
 * with the node's output block at the root, so the screening sees the
 * outputs as the CCA does. A feature of several columns takes its largest
 * column's; a constant column has 0. Rows count once whatever their weight;
 * a missing value counts as the column's mean (0 in z-scores). Not defined
 * for survival outcomes (throws std::invalid_argument).
 */
std::vector<double> screening_r2(const Data& data);

/** The screening R^2 with what their null distribution depends on. */
struct Screening {
  std::vector<double> r2;  // screening_r2()
  size_t n_row = 0;        // the rows of positive weight they were computed over
  size_t rank = 0;         // the rank of those rows' centred output block
};

/** screening_r2(), with the rows and the outputs' rank (core/ScreenRule.h's null). */
Screening screen_features(const Data& data);

}  // namespace ccforest

#endif  // CCFOREST_SCREENING_H_
