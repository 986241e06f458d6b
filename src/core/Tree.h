#ifndef CCFOREST_TREE_H_
#define CCFOREST_TREE_H_

#include <vector>

namespace ccforest {

/**
 * One grown tree as flat arrays, nodes in breadth-first order (root 0).
 *
 * Node j's entries are [payload_start[j], payload_start[j + 1]) of the payload
 * arrays. For a split node they are the projection: (matrix column, unit-norm
 * coefficient) pairs, and rows with projection <= threshold go to child_left,
 * the rest to child_left + 1. For a leaf (child_left == 0) they are the
 * non-zero leaf values: (class index over all outputs, proportion) or
 * (output, mean), so a pure leaf stores one entry per output.
 */
struct Tree {
  std::vector<int> child_left;
  std::vector<double> threshold;
  std::vector<double> gain;  // node rows times impurity decrease; 0 at leaves
  std::vector<int> payload_start{0};
  std::vector<int> payload_index;
  std::vector<double> payload_value;

  size_t n_nodes() const { return child_left.size(); }

  /** Appends an empty node; its payload is written when it is processed. */
  void add_node() {
    child_left.push_back(0);
    threshold.push_back(0.0);
    gain.push_back(0.0);
  }

  void add_entry(int index, double value) {
    payload_index.push_back(index);
    payload_value.push_back(value);
  }

  /** Closes the payload of the node being processed (nodes close in order). */
  void close_node() { payload_start.push_back(static_cast<int>(payload_index.size())); }
};

}  // namespace ccforest

#endif  // CCFOREST_TREE_H_
