#ifndef CCFOREST_SAMPLING_H_
#define CCFOREST_SAMPLING_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <utility>
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
 * `k` of the `candidates` without replacement, returned in increasing order.
 * Without weights every subset of size k is equally likely (a partial
 * Fisher-Yates shuffle); with weights the draws are successive, each with
 * probabilities proportional to the weights of the rows not yet drawn: the
 * k rows with the smallest exponential clocks E / w (Efraimidis and
 * Spirakis, 2006), ties going to the lower row so the set is well defined.
 */
inline void draws_without_replacement(std::vector<int>& candidates, size_t k, const double* weight,
                                      Rng& rng) {
  const size_t m = candidates.size();
  if (k >= m) return;
  if (weight == nullptr) {
    for (size_t i = 0; i < k; ++i) std::swap(candidates[i], candidates[i + rng.index(m - i)]);
  } else {
    std::vector<std::pair<double, int>> clock(m);
    for (size_t i = 0; i < m; ++i) {
      const double e = -std::log(1.0 - rng.uniform());
      clock[i] = {e / weight[candidates[i]], candidates[i]};
    }
    std::nth_element(clock.begin(), clock.begin() + static_cast<std::ptrdiff_t>(k), clock.end());
    for (size_t i = 0; i < k; ++i) candidates[i] = clock[i].second;
  }
  candidates.resize(k);
  std::sort(candidates.begin(), candidates.end());
}

/**
 * `k` draws from `candidates` (rows of positive weight), with or without
 * replacement, with probabilities proportional to the weights (`weight`
 * null: all equal). With replacement and without weights the draws are the
 * ones every earlier version made, so default forests do not change.
 */
inline void draw_rows(std::vector<int>& candidates, size_t k, bool replace, const double* weight,
                      Rng& rng) {
  const size_t m = candidates.size();
  if (m == 0 || k == 0) {
    candidates.clear();
    return;
  }
  if (!replace) {
    draws_without_replacement(candidates, k, weight, rng);
    return;
  }
  std::vector<int> bag(k);
  if (weight == nullptr) {
    for (size_t i = 0; i < k; ++i) bag[i] = candidates[rng.index(m)];
  } else {
    std::vector<double> cumulative(m);
    double total = 0.0;
    for (size_t i = 0; i < m; ++i) cumulative[i] = total += weight[candidates[i]];
    std::vector<size_t> drawn(k);
    weighted_draws(cumulative.data(), m, k, rng, drawn.data());
    for (size_t i = 0; i < k; ++i) bag[i] = candidates[drawn[i]];
  }
  candidates.swap(bag);
}

/**
 * The rows a tree is grown on, drawn first from the tree's own stream. Rows
 * of weight 0 never take part. By default (projection bootstrapping) every
 * other row is used once; otherwise `sample.size` rows (0: as many as there
 * are rows of positive weight) are drawn with or without replacement, with
 * probabilities proportional to the case weights, or, with class sizes,
 * class_size[k] rows from the rows of class k of the (single) output. A row
 * of weight w is thus drawn as often as w copies of it would be. Out-of-bag
 * estimates redraw the same sample from (seed, tree) instead of storing it.
 */
inline void draw_sample(const Data& data, const RowSample& sample, Rng& rng,
                        std::vector<int>& rows) {
  const size_t n = data.n_row();
  // Weights that are all equal only say which rows take part.
  const double* weight = data.uniform_weight ? nullptr : data.weight;
  rows.clear();
  if (data.weight == nullptr) {
    // Every row takes part (a quarter of redrawing a sample went to pushing
    // them one by one).
    rows.resize(n);
    std::iota(rows.begin(), rows.end(), 0);
  } else {
    rows.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      if (data.weight[i] > 0.0) rows.push_back(static_cast<int>(i));
    }
  }
  if (sample.every_row || rows.empty()) return;
  if (sample.class_size.empty()) {
    const size_t k = sample.size == 0 ? rows.size() : sample.size;
    if (k > n) throw std::invalid_argument("a tree's sample is larger than the data");
    draw_rows(rows, k, sample.replace, weight, rng);
    return;
  }
  if (!data.is_classification() || sample.class_size.size() != static_cast<size_t>(data.n_class[0])) {
    throw std::invalid_argument("class sample sizes need one size per class of the output");
  }
  size_t total = 0;
  for (size_t k : sample.class_size) total += k;
  if (total > n) throw std::invalid_argument("a tree's sample is larger than the data");
  std::vector<int> drawn, of_class;
  drawn.reserve(total);
  for (size_t c = 0; c < sample.class_size.size(); ++c) {
    of_class.clear();
    for (int r : rows) {
      if (data.y_class(r, 0) == static_cast<int>(c)) of_class.push_back(r);
    }
    draw_rows(of_class, sample.class_size[c], sample.replace, weight, rng);
    drawn.insert(drawn.end(), of_class.begin(), of_class.end());
  }
  if (!sample.replace) std::sort(drawn.begin(), drawn.end());
  rows.swap(drawn);
}

/** In-bag flags of tree `tree` of a forest grown on samples: its sample redrawn. */
inline std::vector<char> in_bag(const Data& data, const RowSample& sample, uint64_t seed,
                                uint64_t tree) {
  Rng rng(seed, tree);
  std::vector<int> rows;
  draw_sample(data, sample, rng, rows);
  std::vector<char> flags(data.n_row(), 0);
  for (int r : rows) flags[static_cast<size_t>(r)] = 1;
  return flags;
}

}  // namespace ccforest

#endif  // CCFOREST_SAMPLING_H_
