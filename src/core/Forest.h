#ifndef CCFOREST_FOREST_H_
#define CCFOREST_FOREST_H_

#include <vector>

#include "Data.h"
#include "Options.h"
#include "Runtime.h"
#include "Tree.h"

namespace ccforest {

/**
 * Grows options.n_tree trees. Tree t draws only from the stream (seed, t), so
 * the forest is the same for any number of threads.
 */
std::vector<Tree> train_forest(const Data& data, const ForestOptions& options,
                               const Runtime& runtime);

}  // namespace ccforest

#endif  // CCFOREST_FOREST_H_
