#include "Predictor.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "Options.h"

namespace ccforest {

namespace {

// Rows are copied a block at a time into row-major order, so that a split
// reads its few columns from one cache line or two instead of from one
// column of the matrix each.
constexpr size_t kRowBlock = 128;

}  // namespace

void add_tree_predictions(const ForestModel& model, const MatrixMap& x,
                          const std::vector<uint64_t>& row_hash, const PredictOptions& options,
                          const Runtime& runtime, double* out) {
  const size_t n = static_cast<size_t>(x.rows()), p = static_cast<size_t>(x.cols());
  const size_t n_tree = model.n_tree();
  const size_t n_block = (n + kRowBlock - 1) / kRowBlock;
  std::vector<uint64_t> keys(n_tree);
  for (size_t t = 0; t < n_tree; ++t) keys[t] = tree_impute_key(options.seed, options.first_tree + t);
  run_batched(runtime, n_block, [&](size_t block) {
    const size_t begin = block * kRowBlock, end = std::min(n, begin + kRowBlock);
    std::vector<double> rows((end - begin) * p);
    std::vector<char> has_na(end - begin, 0);
    for (size_t j = 0; j < p; ++j) {
      const double* from = x.data() + j * n;
      for (size_t i = begin; i < end; ++i) {
        const double v = from[i];
        rows[(i - begin) * p + j] = v;
        if (std::isnan(v)) has_na[i - begin] = 1;
      }
    }
    std::vector<double> scratch(static_cast<size_t>(std::max(1, model.max_count)));
    // Trees outermost within the block keeps one tree's nodes in cache; each
    // row still adds its trees' values in tree order.
    for (size_t t = 0; t < n_tree; ++t) {
      const Node* nodes = model.nodes.data() + model.tree_start[t];
      for (size_t i = begin; i < end; ++i) {
        const double* row = rows.data() + (i - begin) * p;
        int32_t leaf;
        if (!has_na[i - begin]) {
          leaf = find_leaf(model, t, [row](int32_t c) { return row[c]; }, scratch.data());
        } else {
          const uint64_t key = keys[t], hash = row_hash[i];
          const bool random = options.impute_random;
          leaf = find_leaf(model, t, [&](int32_t c) {
            return cell_value(row[c], random, key, hash, c);
          }, scratch.data());
        }
        const Node& node = nodes[leaf];
        for (int32_t e = 0; e < node.count; ++e) {
          out[static_cast<size_t>(model.value_index[node.begin + e]) * n + i] +=
              model.value[node.begin + e];
        }
      }
    }
  });
}

}  // namespace ccforest
