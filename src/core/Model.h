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

/**
 * The head of a node's record in a decoded tree. A split's head is followed
 * by `count` column offsets (std::ptrdiff_t) and then `count` coefficients
 * (float: every stored coefficient is exactly a float), a leaf's by `count`
 * value indices (int32_t, padded to 8 bytes) and then `count` values
 * (double). Records are laid out breadth first; `left` and `right` are the
 * children's positions, in 8-byte words from the tree's start.
 */
struct NodeHead {
  double threshold;  // split nodes: rows with projection <= threshold go left
  int32_t left;      // 0 for a leaf (the root is never a child)
  int32_t right;     // a leaf's number within its tree (breadth first)
  int32_t count;     // entries
  int32_t depth;
};
static_assert(sizeof(NodeHead) == 24, "node heads are three words");

/** Words taken by a record of `count` entries after its head. */
inline size_t split_words(int32_t count) { return static_cast<size_t>(count) + (count + 1) / 2; }
inline size_t leaf_words(int32_t count) { return (count + 1) / 2 + static_cast<size_t>(count); }

/**
 * Decoded trees, laid out for prediction: each node one contiguous record
 * (see NodeHead), so that a row's walk reads one or two cache lines per
 * node; each tree's root at word 0 of its own block. Every index has been
 * checked against the shape while decoding.
 */
struct ForestModel {
  ModelShape shape;
  std::vector<std::vector<uint64_t>> trees;
  std::vector<int32_t> n_leaves;  // per tree
  int max_count = 0;              // entries of the widest split

  size_t n_tree() const { return trees.size(); }
  const uint64_t* tree(size_t t) const { return trees[t].data(); }
  /** Words of tree t: its records, breadth first. */
  size_t tree_words(size_t t) const { return trees[t].size(); }

  /** Words of the record at `at`, head included. */
  static size_t record_words(const uint64_t* tree, int32_t at) {
    const NodeHead& h = head(tree, at);
    return 3 + (h.left != 0 ? split_words(h.count) : leaf_words(h.count));
  }
  static const NodeHead& head(const uint64_t* tree, int32_t at) {
    return *reinterpret_cast<const NodeHead*>(tree + at);
  }
  static const std::ptrdiff_t* offsets(const uint64_t* tree, int32_t at) {
    return reinterpret_cast<const std::ptrdiff_t*>(tree + at + 3);
  }
  static const float* coefficients(const uint64_t* tree, int32_t at) {
    const NodeHead& h = head(tree, at);
    return reinterpret_cast<const float*>(tree + at + 3 + h.count);
  }
  static const int32_t* value_index(const uint64_t* tree, int32_t at) {
    return reinterpret_cast<const int32_t*>(tree + at + 3);
  }
  static const double* values(const uint64_t* tree, int32_t at) {
    const NodeHead& h = head(tree, at);
    return reinterpret_cast<const double*>(tree + at + 3 + (h.count + 1) / 2);
  }
};

/** Encoded trees owned elsewhere (R raw vectors, or C++ buffers): pointer and size of each. */
using EncodedTrees = std::vector<std::pair<const uint8_t*, size_t>>;

}  // namespace ccforest

#endif  // CCFOREST_MODEL_H_
