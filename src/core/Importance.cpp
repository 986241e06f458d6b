#include "Importance.h"

#include <algorithm>
#include <cmath>

#include "Forest.h"
#include "Predictor.h"
#include "Sampling.h"
#include "TreeCodec.h"

namespace ccforest {

namespace {

/** Error of a leaf's prediction for training row `row`, averaged over outputs. */
double leaf_error(const Data& data, const ForestModel& tree, int32_t leaf, Eigen::Index row) {
  const size_t width = data.n_output();
  const int32_t count = tree.leaf(0, leaf).count;
  const int32_t* index = tree.leaf_index(0, leaf);
  const double* value = tree.leaf_values(0, leaf);
  double error = 0.0;
  if (data.is_classification()) {
    for (size_t m = 0; m < width; ++m) {
      // Entries are sorted by class, so the first maximum is the lowest class.
      int best = -1;
      double best_p = -1.0;
      for (int32_t e = 0; e < count; ++e) {
        const int k = index[e];
        if (k < data.class_offset[m] || k >= data.class_offset[m + 1]) continue;
        if (value[e] > best_p) {
          best_p = value[e];
          best = k;
        }
      }
      error += best != data.class_offset[m] + data.y_class(row, m) ? 1.0 : 0.0;
    }
  } else {
    for (int32_t e = 0; e < count; ++e) {
      const double diff = value[e] - data.y_real(row, index[e]);
      error += diff * diff;
    }
  }
  return error / static_cast<double>(width);
}

}  // namespace

std::vector<double> tree_permutation_importance(const Data& data, const ForestModel& tree,
                                                const std::vector<char>& in_bag,
                                                uint64_t impute_key, bool impute_random,
                                                Rng& rng, const Runtime& runtime) {
  std::vector<int> oob;
  for (size_t row = 0; row < in_bag.size(); ++row) {
    if (!in_bag[row]) oob.push_back(static_cast<int>(row));
  }
  if (oob.empty()) return {};
  const size_t p = static_cast<size_t>(data.x.cols());
  std::vector<double> row_values(p), partner_values(p);

  // Error with feature `feature`'s columns read from partner rows (-1: none).
  auto error_with = [&](int feature, const std::vector<int>& partner) {
    runtime.throw_if_cancelled();
    const int first = feature < 0 ? 0 : data.feature_start[feature];
    const int last = feature < 0 ? 0 : data.feature_start[feature + 1];
    double total = 0.0;
    for (size_t i = 0; i < oob.size(); ++i) {
      const int row = oob[i];
      tree_row(data, row, impute_random, impute_key, data.row_hash[static_cast<size_t>(row)],
               row_values.data());
      if (first < last) {
        // Each value as the partner row has it, imputation included.
        tree_row(data, partner[i], impute_random, impute_key,
                 data.row_hash[static_cast<size_t>(partner[i])], partner_values.data());
        std::copy(partner_values.begin() + first, partner_values.begin() + last,
                  row_values.begin() + first);
      }
      total += leaf_error(data, tree, find_leaf(tree, 0, row_values.data()), row);
    }
    return total / static_cast<double>(oob.size());
  };

  const double base = error_with(-1, oob);
  std::vector<double> importance(data.n_feature(), 0.0);
  std::vector<int> partner(oob.size());
  for (size_t d = 0; d < data.n_feature(); ++d) {
    partner = oob;
    for (size_t i = partner.size(); i > 1; --i) std::swap(partner[i - 1], partner[rng.index(i)]);
    importance[d] = error_with(static_cast<int>(d), partner) - base;
  }
  return importance;
}

std::vector<double> tree_negation_importance(const Data& data, const ForestModel& tree,
                                             const std::vector<char>& in_bag,
                                             uint64_t impute_key, bool impute_random,
                                             const Runtime& runtime) {
  std::vector<int> oob;
  for (size_t row = 0; row < in_bag.size(); ++row) {
    if (!in_bag[row]) oob.push_back(static_cast<int>(row));
  }
  if (oob.empty()) return {};
  const size_t p = static_cast<size_t>(data.x.cols());
  std::vector<double> row_values(p);
  // Error with feature `feature`'s columns negated (-1: none).
  auto error_with = [&](int feature) {
    runtime.throw_if_cancelled();
    const int first = feature < 0 ? 0 : data.feature_start[feature];
    const int last = feature < 0 ? 0 : data.feature_start[feature + 1];
    double total = 0.0;
    for (int row : oob) {
      tree_row(data, row, impute_random, impute_key, data.row_hash[static_cast<size_t>(row)],
               row_values.data());
      for (int j = first; j < last; ++j) row_values[static_cast<size_t>(j)] *= -1.0;
      total += leaf_error(data, tree, find_leaf(tree, 0, row_values.data()), row);
    }
    return total / static_cast<double>(oob.size());
  };
  const double base = error_with(-1);
  std::vector<double> importance(data.n_feature(), 0.0);
  for (size_t d = 0; d < data.n_feature(); ++d) {
    importance[d] = error_with(static_cast<int>(d)) - base;
  }
  return importance;
}

std::vector<double> oob_negation_importance(const EncodedTrees& trees, const ModelShape& shape,
                                            const Data& data, const ForestSource& source,
                                            const Runtime& runtime) {
  return oob_tree_mean(trees, shape, data, source, runtime,
                       [&](uint64_t tree, const ForestModel& model, const std::vector<char>& bag) {
    return tree_negation_importance(data, model, bag, tree_impute_key(source.seed, tree),
                                    source.impute_random, runtime);
  });
}

}  // namespace ccforest
