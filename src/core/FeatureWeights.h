#ifndef CCFOREST_FEATURE_WEIGHTS_H_
#define CCFOREST_FEATURE_WEIGHTS_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "Rng.h"

namespace ccforest {

/**
 * Draws features without replacement with probability in proportion to
 * per-feature weights (ranger's split.select.weights, enriched random
 * forests' screening weights).
 *
 * The weights are held as integers (the largest 2^32) in a Fenwick tree, so
 * a draw costs O(log D) however many features there are, and taking a
 * feature out and putting it back is exact: a feature of weight 0 can never
 * be drawn, not even after millions of nodes of additions and subtractions,
 * as it could be with floating-point sums. A positive weight too small to
 * show at that scale still counts 1.
 */
class WeightedFeatureSampler {
 public:
  WeightedFeatureSampler() = default;

  /** @param weights one finite weight >= 0 per feature, at least one positive. */
  explicit WeightedFeatureSampler(const std::vector<double>& weights) : weight_(weights.size(), 0) {
    double largest = 0.0;
    for (double w : weights) {
      if (!(w >= 0.0) || !std::isfinite(w)) throw std::invalid_argument("feature weights must be finite and >= 0");
      if (w > largest) largest = w;
    }
    if (!(largest > 0.0)) throw std::invalid_argument("feature weights must not all be 0");
    constexpr double kScale = 4294967296.0;  // 2^32: D * 2^32 fits 64 bits for D < 2^31
    for (size_t f = 0; f < weights.size(); ++f) {
      if (weights[f] > 0.0) {
        const double scaled = std::round(weights[f] / largest * kScale);
        weight_[f] = scaled < 1.0 ? 1 : static_cast<uint64_t>(scaled);
      }
    }
    tree_.assign(weight_.size() + 1, 0);
    for (size_t f = 0; f < weight_.size(); ++f) add(f, weight_[f], true);
    total_ = 0;
    for (uint64_t w : weight_) total_ += w;
  }

  size_t size() const { return weight_.size(); }

  /** Whether feature f can be drawn at all. */
  bool positive(size_t f) const { return weight_[f] > 0; }

  /** Takes feature f out of the draws until restore(). */
  void remove(size_t f) {
    if (weight_[f] == 0) return;
    add(f, weight_[f], false);
    total_ -= weight_[f];
    removed_.push_back(f);
  }

  /** Whether any feature of positive weight is left to draw. */
  bool any_left() const { return total_ > 0; }

  /** One feature among those left, in proportion to its weight, and takes it out. */
  size_t draw(Rng& rng) {
    uint64_t r = static_cast<uint64_t>(rng.index(static_cast<size_t>(total_)));
    // Descend the Fenwick tree to the first feature whose prefix sum exceeds r.
    size_t position = 0;
    size_t step = 1;
    while (step * 2 < tree_.size()) step *= 2;
    for (; step > 0; step /= 2) {
      const size_t next = position + step;
      if (next < tree_.size() && tree_[next] <= r) {
        position = next;
        r -= tree_[next];
      }
    }
    remove(position);
    return position;
  }

  /** Puts back every feature removed since the last restore(). */
  void restore() {
    for (size_t f : removed_) {
      add(f, weight_[f], true);
      total_ += weight_[f];
    }
    removed_.clear();
  }

 private:
  void add(size_t f, uint64_t amount, bool up) {
    for (size_t i = f + 1; i < tree_.size(); i += i & (~i + 1)) {
      if (up) {
        tree_[i] += amount;
      } else {
        tree_[i] -= amount;
      }
    }
  }

  std::vector<uint64_t> weight_;
  std::vector<uint64_t> tree_;  // Fenwick tree over weight_, 1-based
  uint64_t total_ = 0;
  std::vector<size_t> removed_;
};

}  // namespace ccforest

#endif  // CCFOREST_FEATURE_WEIGHTS_H_
