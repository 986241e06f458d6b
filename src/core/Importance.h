#ifndef CCFOREST_IMPORTANCE_H_
#define CCFOREST_IMPORTANCE_H_

#include <cstdint>
#include <vector>

#include "Data.h"
#include "Forest.h"
#include "Model.h"
#include "Rng.h"
#include "Runtime.h"

namespace ccforest {

/**
 * Out-of-bag permutation importance of one bagged tree (Breiman): for each
 * feature, the tree's error on its out-of-bag rows when that feature's values
 * (all columns of a factor together) are permuted among those rows, minus its
 * error on the rows as they are. Error is the misclassification rate, or the
 * squared error of the standardised outputs, averaged over outputs.
 *
 * @param tree a model holding the one tree.
 * @param in_bag 1 for rows drawn into the tree's sample.
 * @param rng the stream that draws the permutations.
 * @return one value per feature; empty when the tree has no out-of-bag rows.
 */
std::vector<double> tree_permutation_importance(const Data& data, const ForestModel& tree,
                                                const std::vector<char>& in_bag,
                                                uint64_t impute_key, bool impute_random,
                                                Rng& rng, const Runtime& runtime);

/**
 * Out-of-bag negation importance of one bagged tree (Jaeger et al., 2023,
 * aorsf): for each feature, the tree's error on its out-of-bag rows when the
 * sign of that feature's coefficients is flipped in every split (all columns
 * of a factor together), minus its error with the splits as grown. Flipping
 * a coefficient is reading the column with its sign flipped, which is what
 * is done. Error as for tree_permutation_importance().
 *
 * @return one value per feature; empty when the tree has no out-of-bag rows.
 */
std::vector<double> tree_negation_importance(const Data& data, const ForestModel& tree,
                                             const std::vector<char>& in_bag,
                                             uint64_t impute_key, bool impute_random,
                                             const Runtime& runtime);

/**
 * Mean out-of-bag negation importance per feature over the trees that have
 * out-of-bag rows, summed in tree order.
 */
std::vector<double> oob_negation_importance(const EncodedTrees& trees, const ModelShape& shape,
                                            const Data& data, const ForestSource& source,
                                            const Runtime& runtime);

}  // namespace ccforest

#endif  // CCFOREST_IMPORTANCE_H_
