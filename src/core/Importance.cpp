#include "Importance.h"

#include <cmath>
#include <numeric>

#include "Predictor.h"

namespace ccforest {

namespace {

/** Error of the leaf's prediction for training row `row`, averaged over outputs. */
double leaf_error(const Data& data, const Tree& tree, int leaf, Eigen::Index row) {
  const int first = tree.payload_start[leaf], last = tree.payload_start[leaf + 1];
  const size_t width = data.n_output();
  double error = 0.0;
  if (data.is_classification()) {
    for (size_t m = 0; m < width; ++m) {
      // Entries are sorted by class, so the first maximum is the lowest class.
      int best = -1;
      double best_p = -1.0;
      for (int e = first; e < last; ++e) {
        const int k = tree.payload_index[e];
        if (k < data.class_offset[m] || k >= data.class_offset[m + 1]) continue;
        if (tree.payload_value[e] > best_p) {
          best_p = tree.payload_value[e];
          best = k;
        }
      }
      error += best != data.class_offset[m] + data.y_class(row, m) ? 1.0 : 0.0;
    }
  } else {
    for (int e = first; e < last; ++e) {
      const double diff = tree.payload_value[e] - data.y_real(row, tree.payload_index[e]);
      error += diff * diff;
    }
  }
  return error / static_cast<double>(width);
}

}  // namespace

std::vector<double> tree_permutation_importance(const Data& data, const Tree& tree,
                                                const std::vector<char>& in_bag,
                                                uint64_t impute_key, bool impute_random,
                                                Rng& rng) {
  std::vector<int> oob;
  for (size_t row = 0; row < in_bag.size(); ++row) {
    if (!in_bag[row]) oob.push_back(static_cast<int>(row));
  }
  if (oob.empty()) return {};
  const int node_start[2] = {0, static_cast<int>(tree.n_nodes())};
  const ForestView view = tree_view(tree, node_start);

  auto cell = [&](int source_row, int column) {
    const double v = data.x(source_row, column);
    if (!std::isnan(v)) return v;
    return impute_random ? imputed_normal(impute_key, data.row_hash[source_row],
                                          static_cast<uint64_t>(column))
                         : 0.0;
  };
  // Error with feature `feature`'s columns read from partner rows (-1: none).
  auto error_with = [&](int feature, const std::vector<int>& partner) {
    const int first = feature < 0 ? 0 : data.feature_start[feature];
    const int last = feature < 0 ? 0 : data.feature_start[feature + 1];
    double total = 0.0;
    for (size_t i = 0; i < oob.size(); ++i) {
      const int row = oob[i];
      const int leaf = find_leaf_by(view, 0, [&](int column) {
        return cell(column >= first && column < last ? partner[i] : row, column);
      });
      total += leaf_error(data, tree, leaf, row);
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

}  // namespace ccforest
