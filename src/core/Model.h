#ifndef CCFOREST_MODEL_H_
#define CCFOREST_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ccforest {

/** What a stored tree's indices must fit: the data's columns and the outputs. */
struct ModelShape {
  int n_column = 0;
  /** Classes of each output (classification); empty for regression. */
  std::vector<int> n_class;
  /** Outputs of a regression; ignored for classification. */
  int n_output_real = 0;

  bool is_classification() const { return !n_class.empty(); }
  int n_output() const { return is_classification() ? static_cast<int>(n_class.size()) : n_output_real; }
  /** Width of a leaf's value vector: all classes of all outputs, or the outputs. */
  int n_value() const {
    if (!is_classification()) return n_output_real;
    int total = 0;
    for (int k : n_class) total += k;
    return total;
  }
};

/** Raised when stored trees are inconsistent: the object was damaged or edited. */
struct DamagedModel : std::invalid_argument {
  explicit DamagedModel(const std::string& what)
      : std::invalid_argument("the forest is damaged: " + what) {}
};

/** A node of a decoded tree. */
struct Node {
  double threshold = 0.0;  // split nodes: rows with projection <= threshold go left
  int64_t begin = 0;       // first entry in coef/column (split) or value_index/value (leaf)
  int32_t left = 0;        // index of the first child within the tree; 0 for a leaf
  int32_t count = 0;       // number of entries
};

/**
 * Decoded trees, laid out for prediction: tree t owns nodes
 * [tree_start[t], tree_start[t + 1]); its children are indexed within the
 * tree. Every index has been checked against the shape while decoding.
 */
struct ForestModel {
  ModelShape shape;
  std::vector<int64_t> tree_start{0};
  std::vector<Node> nodes;
  std::vector<double> coef;
  std::vector<int32_t> column;
  std::vector<int32_t> value_index;
  std::vector<double> value;
  int max_count = 0;  // entries of the widest split

  size_t n_tree() const { return tree_start.size() - 1; }
};

/** Encoded trees owned elsewhere (R raw vectors, or C++ buffers): pointer and size of each. */
using EncodedTrees = std::vector<std::pair<const uint8_t*, size_t>>;

}  // namespace ccforest

#endif  // CCFOREST_MODEL_H_
