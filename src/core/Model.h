#ifndef CCFOREST_MODEL_H_
#define CCFOREST_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "Projection.h"

namespace ccforest {

/** What a stored tree's indices must fit: the data's columns and the outputs. */
struct ModelShape {
  int n_column = 0;
  /** Classes of each output (classification); empty for regression. */
  std::vector<int> n_class;
  /** Outputs of a regression; ignored for classification. */
  int n_output_real = 0;
  /**
   * Survival forests: the training data's distinct event times and causes
   * (see SurvivalOutcome in Data.h); 0 otherwise.
   */
  int n_time = 0;
  int n_cause = 0;

  bool is_classification() const { return !n_class.empty(); }
  bool is_survival() const { return n_cause > 0; }
  int n_output() const {
    if (is_survival()) return 1;
    return is_classification() ? static_cast<int>(n_class.size()) : n_output_real;
  }
  /**
   * Width of a leaf's value vector: all classes of all outputs, or the
   * outputs; for survival, the range of its entries' indices (see the
   * survival leaves in LeafCodec.cpp), n_time * (n_cause + 1).
   */
  int n_value() const {
    if (is_survival()) return n_time * (n_cause + 1);
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
 * The head of a split's record in a decoded tree, followed by `count` terms
 * (SplitTerm: column and coefficient). `left` and `right` are the children:
 * a split's position, in 8-byte words from the tree's start (the root, at 0,
 * is never a child), or for a leaf the complement ~o of the position o of
 * its record among the tree's leaf records, which is negative: a row's walk
 * ends without reading a leaf's record.
 */
struct NodeHead {
  double threshold;  // rows with projection <= threshold go left
  int32_t left;
  int32_t right;
  int32_t count;  // terms
  int32_t depth;
};
static_assert(sizeof(NodeHead) == 24, "node heads are three words");

/** A child reference is a leaf's when negative; its record is then at ~child. */
inline bool is_leaf(int32_t child) { return child < 0; }

/**
 * The head of a leaf's record, followed by `count` value indices (int32_t,
 * padded to 8 bytes: which class, or which output) and `count` values.
 */
struct LeafHead {
  int32_t count;
  int32_t number;  // breadth first, within the tree
};
static_assert(sizeof(LeafHead) == 8, "a leaf head is one word");

/** Words of a leaf record of `count` entries, head included. */
inline size_t leaf_record_words(int32_t count) {
  return 1 + static_cast<size_t>((count + 1) / 2) + static_cast<size_t>(count);
}

/**
 * Decoded trees, laid out for prediction: each split one contiguous record
 * (see NodeHead), breadth first, so that a row's walk reads one or two cache
 * lines per split; each leaf one record (see LeafHead) among its tree's
 * leaves. Every index has been checked against the shape while decoding.
 */
struct ForestModel {
  ModelShape shape;
  std::vector<std::vector<uint64_t>> trees;   // split records; empty for a lone leaf
  std::vector<std::vector<uint64_t>> leaves;  // leaf records, per tree
  std::vector<int32_t> n_leaves;              // per tree
  int max_count = 0;                          // terms of the widest split

  size_t n_tree() const { return trees.size(); }
  const uint64_t* tree(size_t t) const { return trees[t].data(); }
  /** Where a row's walk of tree t starts: the root split, or the lone leaf. */
  int32_t root(size_t t) const { return trees[t].empty() ? ~int32_t{0} : 0; }
  /** Words of tree t: its split records, breadth first. */
  size_t tree_words(size_t t) const { return trees[t].size(); }

  /** Words of the split record at `at`, head included. */
  static size_t record_words(const uint64_t* tree, int32_t at) {
    return 3 + static_cast<size_t>(head(tree, at).count);
  }
  static const NodeHead& head(const uint64_t* tree, int32_t at) {
    return *reinterpret_cast<const NodeHead*>(tree + at);
  }
  static const SplitTerm* terms(const uint64_t* tree, int32_t at) {
    return reinterpret_cast<const SplitTerm*>(tree + at + 3);
  }
  /** The leaf record at `at` (= ~reference) of tree t: head, value indices, values. */
  const LeafHead& leaf(size_t t, int32_t at) const {
    return *reinterpret_cast<const LeafHead*>(leaves[t].data() + at);
  }
  const int32_t* leaf_index(size_t t, int32_t at) const {
    return reinterpret_cast<const int32_t*>(leaves[t].data() + at + 1);
  }
  const double* leaf_values(size_t t, int32_t at) const {
    return reinterpret_cast<const double*>(leaves[t].data() + at + 1 + (leaf(t, at).count + 1) / 2);
  }
};

/** Encoded trees owned elsewhere (R raw vectors, or C++ buffers): pointer and size of each. */
using EncodedTrees = std::vector<std::pair<const uint8_t*, size_t>>;

}  // namespace ccforest

#endif  // CCFOREST_MODEL_H_
