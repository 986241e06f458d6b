// Core tests: feature sampling in proportion to weights (feature_weights).
#include "core_test.h"

namespace ccforest_test {

void test_weighted_features() {
  // Draws without replacement in proportion to the weights; weight 0 never,
  // even after many removals and restorations (integer sums are exact).
  const std::vector<double> weights = {0.0, 1.0, 3.0, 0.0, 6.0, 1e-300};
  WeightedFeatureSampler sampler(weights);
  Rng rng(7, 1);
  std::vector<int> first(weights.size(), 0);
  const int rounds = 20000;
  bool zero_drawn = false, repeated = false, all_positive_drawn = true;
  for (int r = 0; r < rounds; ++r) {
    if (r % 3 == 0) sampler.remove(4);  // as a feature an ancestor found constant
    std::vector<char> seen(weights.size(), 0);
    size_t drawn = 0;
    while (sampler.any_left()) {
      const size_t f = sampler.draw(rng);
      if (drawn == 0 && r % 3 != 0) ++first[f];
      zero_drawn |= weights[f] == 0.0;
      repeated |= seen[f] != 0;
      seen[f] = 1;
      ++drawn;
    }
    all_positive_drawn &= drawn == (r % 3 == 0 ? 3u : 4u);
    sampler.restore();
  }
  check(!zero_drawn, "weighted sampling never draws a feature of weight 0");
  check(!repeated, "weighted sampling draws without replacement");
  check(all_positive_drawn, "weighted sampling reaches every feature of positive weight");
  const double n = static_cast<double>(rounds - (rounds + 2) / 3);
  check(std::abs(first[4] / n - 0.6) < 0.02 && std::abs(first[2] / n - 0.3) < 0.02 &&
            std::abs(first[1] / n - 0.1) < 0.02,
        "weighted sampling's first draw follows the weights");
  bool refused = false;
  try {
    WeightedFeatureSampler none(std::vector<double>{0.0, 0.0});
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  check(refused, "all-zero feature weights are refused");
}

}  // namespace ccforest_test
