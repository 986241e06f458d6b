#ifndef CCFOREST_SAMPLING_H_
#define CCFOREST_SAMPLING_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "Data.h"
#include "Options.h"
#include "Rng.h"

namespace ccforest {

/**
 * `n` draws with replacement from positions 0..k-1 with probabilities
 * proportional to their weights, given as the running totals `cumulative`
 * (k values, the last one the total): each draw is a uniform point of
 * [0, total) located by binary search.
 */
inline void weighted_draws(const double* cumulative, size_t k, size_t n, Rng& rng, size_t* out) {
  const double total = cumulative[k - 1];
  for (size_t i = 0; i < n; ++i) {
    const double point = rng.uniform() * total;
    size_t position = static_cast<size_t>(std::upper_bound(cumulative, cumulative + k, point) -
                                          cumulative);
    // Rounding can put the point at the total itself.
    out[i] = position < k ? position : k - 1;
  }
}

/**
 * The rows a tree is grown on, drawn first from the tree's own stream:
 * without weights, with bagging n draws with replacement and otherwise every
 * row once; with case weights, only rows of positive weight, drawn (bagging)
 * as many times as there are such rows with probabilities proportional to
 * the weights. Out-of-bag estimates redraw the same sample from (seed, tree)
 * instead of storing it.
 */
inline void draw_sample(const Data& data, bool bagging, Rng& rng, std::vector<int>& rows) {
  const size_t n = data.n_row();
  if (data.weight == nullptr) {
    rows.resize(n);
    for (size_t i = 0; i < n; ++i) rows[i] = static_cast<int>(bagging ? rng.index(n) : i);
    return;
  }
  rows.clear();
  std::vector<double> cumulative;
  double total = 0.0;
  for (size_t i = 0; i < n; ++i) {
    if (!(data.weight[i] > 0.0)) continue;
    rows.push_back(static_cast<int>(i));
    total += data.weight[i];
    cumulative.push_back(total);
  }
  if (!bagging || rows.empty()) return;
  if (data.uniform_weight) {
    // The same draws as for the rows alone, unweighted.
    std::vector<int> bag(rows.size());
    for (size_t i = 0; i < bag.size(); ++i) bag[i] = rows[rng.index(rows.size())];
    rows.swap(bag);
    return;
  }
  std::vector<size_t> drawn(rows.size());
  weighted_draws(cumulative.data(), rows.size(), rows.size(), rng, drawn.data());
  std::vector<int> bag(rows.size());
  for (size_t i = 0; i < drawn.size(); ++i) bag[i] = rows[drawn[i]];
  rows.swap(bag);
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
