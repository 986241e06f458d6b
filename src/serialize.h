#ifndef CCFOREST_SERIALIZE_H_
#define CCFOREST_SERIALIZE_H_

#include <Rcpp.h>

#include <vector>

#include "core/Predictor.h"
#include "core/Tree.h"

namespace ccforest {

/** Concatenates the trees' flat arrays into a plain R list of vectors. */
Rcpp::List forest_to_list(const std::vector<Tree>& trees);

/**
 * A view over a stored forest list, after checking that every index stays in
 * range, so a damaged object gives an R error instead of a crash.
 *
 * @param n_column number of columns of the data the forest was grown on.
 * @param n_value width of the leaf value vectors.
 */
ForestView forest_view(const Rcpp::List& forest, int n_column, int n_value);

}  // namespace ccforest

#endif  // CCFOREST_SERIALIZE_H_
