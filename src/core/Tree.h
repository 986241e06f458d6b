#ifndef CCFOREST_TREE_H_
#define CCFOREST_TREE_H_

#include <cstdint>
#include <vector>

namespace ccforest {

/**
 * One grown tree, as the trainer builds it, before it is encoded.
 *
 * Nodes are numbered breadth first (root 0) and processed in that order, so
 * the children of the k-th split node are nodes 2k + 1 and 2k + 2: the tree's
 * shape is the sequence of split flags alone.
 *
 * A split sends rows with sum_e coef[e] * x[column[e]] <= threshold to its
 * first child. Its columns are increasing and its largest coefficient is
 * exactly 1; the coefficients are rounded to the split's precision (see
 * Precision in Projection.h), and with kDouble each column has two terms,
 * hi then lo. A leaf holds its non-zero values: (class index over all
 * outputs, proportion) or (output, mean).
 */
struct Tree {
  std::vector<uint8_t> is_split;

  std::vector<double> threshold;        // per split node
  std::vector<double> gain;             // per split: rows times impurity decrease
  std::vector<uint8_t> precision;       // per split node, a Precision
  std::vector<int> split_begin{0};      // terms of split s: [split_begin[s], split_begin[s + 1])
  std::vector<int> column;
  std::vector<float> coef;

  std::vector<int> leaf_begin{0};       // values of leaf l: [leaf_begin[l], leaf_begin[l + 1])
  std::vector<int> leaf_index;
  std::vector<double> leaf_value;

  /** Empties the tree, keeping the vectors' memory for the next one a trainer grows. */
  void clear() {
    is_split.clear();
    threshold.clear();
    gain.clear();
    precision.clear();
    split_begin.assign(1, 0);
    column.clear();
    coef.clear();
    leaf_begin.assign(1, 0);
    leaf_index.clear();
    leaf_value.clear();
  }

  size_t n_nodes() const { return is_split.size(); }
  size_t n_splits() const { return threshold.size(); }
  size_t n_leaves() const { return leaf_begin.size() - 1; }
};

}  // namespace ccforest

#endif  // CCFOREST_TREE_H_
