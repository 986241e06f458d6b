#ifndef CCFOREST_SAMPLING_H_
#define CCFOREST_SAMPLING_H_

#include <cstdint>
#include <vector>

#include "Data.h"
#include "Options.h"
#include "Rng.h"

namespace ccforest {

/**
 * The rows a tree is grown on, drawn first from the tree's own stream: with
 * bagging, n draws with replacement; otherwise every row once. Out-of-bag
 * estimates redraw the same sample from (seed, tree) instead of storing it.
 */
inline void draw_sample(const Data& data, bool bagging, Rng& rng, std::vector<int>& rows) {
  const size_t n = data.n_row();
  rows.resize(n);
  if (bagging) {
    for (size_t i = 0; i < n; ++i) rows[i] = static_cast<int>(rng.index(n));
  } else {
    for (size_t i = 0; i < n; ++i) rows[i] = static_cast<int>(i);
  }
}

/** In-bag flags of tree `tree` of a bagged forest: its sample redrawn. */
inline std::vector<char> in_bag(const Data& data, uint64_t seed, uint64_t tree) {
  Rng rng(seed, tree);
  std::vector<int> rows;
  draw_sample(data, true, rng, rows);
  std::vector<char> flags(data.n_row(), 0);
  for (int r : rows) flags[static_cast<size_t>(r)] = 1;
  return flags;
}

}  // namespace ccforest

#endif  // CCFOREST_SAMPLING_H_
