#ifndef CCFOREST_MODEL_H_
#define CCFOREST_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <new>
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
 * Storage for decoded records: an ordinary vector's, except that a large
 * block starts on a 2 MB boundary and, on Linux, asks for transparent huge
 * pages. A row's walk reads a few records in each of hundreds of trees
 * spread over tens of megabytes: on 4 KB pages nearly every record read is
 * also a miss in the address translation caches, on 2 MB pages few are.
 */
template <typename T>
struct RecordAllocator {
  using value_type = T;
  static constexpr size_t kHugePage = size_t{2} << 20;
  RecordAllocator() = default;
  template <typename U>
  RecordAllocator(const RecordAllocator<U>&) {}  // NOLINT: allocators convert implicitly
  T* allocate(size_t n);
  void deallocate(T* p, size_t n) noexcept;
  /**
   * Elements are left uninitialised when a block is sized (resize()): every
   * word is written as trees are laid out, and zeroing tens of megabytes
   * first would touch every page twice.
   */
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  /** Bytes a block of n elements really takes (huge ones are rounded up to whole pages). */
  static size_t block_bytes(size_t n) {
    const size_t bytes = n * sizeof(T);
    return bytes < kHugePage ? bytes : (bytes + kHugePage - 1) / kHugePage * kHugePage;
  }
  template <typename U>
  bool operator==(const RecordAllocator<U>&) const { return true; }
  template <typename U>
  bool operator!=(const RecordAllocator<U>&) const { return false; }
};

/** Asks the system to back [p, p + bytes) with huge pages, where it can (see TreeCodec.cpp). */
void advise_huge_pages(void* p, size_t bytes);

template <typename T>
T* RecordAllocator<T>::allocate(size_t n) {
  if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
  const size_t bytes = block_bytes(n);
  if (bytes < kHugePage) return static_cast<T*>(::operator new(bytes));
  void* p = ::operator new(bytes, std::align_val_t(kHugePage));
  advise_huge_pages(p, bytes);
  return static_cast<T*>(p);
}

template <typename T>
void RecordAllocator<T>::deallocate(T* p, size_t n) noexcept {
  if (block_bytes(n) < kHugePage) {
    ::operator delete(p);
  } else {
    ::operator delete(p, std::align_val_t(kHugePage));
  }
}

using RecordWords = std::vector<uint64_t, RecordAllocator<uint64_t>>;

/**
 * Decoded trees, laid out for prediction: each split one contiguous record
 * (see NodeHead), breadth first, so that a row's walk reads one or two cache
 * lines per split; each leaf one record (see LeafHead) among its tree's
 * leaves. All trees' split records lie in one block, tree after tree, and
 * all their leaf records in another: a walk's reads stay within two regions
 * (few pages; see RecordAllocator) instead of two allocations per tree, and
 * split records share no cache line with the leaves' values, which a walk
 * reads only at its end. Every index has been checked against the shape
 * while decoding.
 */
struct ForestModel {
  ModelShape shape;
  RecordWords split_words;                 // every tree's split records, tree after tree
  RecordWords leaf_words;                  // every tree's leaf records, tree after tree
  std::vector<size_t> split_begin{0};      // tree t's split records: [split_begin[t], split_begin[t + 1])
  std::vector<size_t> leaf_begin{0};       // the same for its leaf records
  std::vector<int32_t> n_leaves;           // per tree
  int max_count = 0;                       // terms of the widest split

  size_t n_tree() const { return n_leaves.size(); }
  const uint64_t* tree(size_t t) const { return split_words.data() + split_begin[t]; }
  /** Tree t's leaf records (a leaf reference ~o is the record at leaves(t) + o). */
  const uint64_t* leaves(size_t t) const { return leaf_words.data() + leaf_begin[t]; }
  /** Where a row's walk of tree t starts: the root split, or the lone leaf. */
  int32_t root(size_t t) const { return tree_words(t) == 0 ? ~int32_t{0} : 0; }
  /** Words of tree t: its split records, breadth first. */
  size_t tree_words(size_t t) const { return split_begin[t + 1] - split_begin[t]; }

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
    return *reinterpret_cast<const LeafHead*>(leaves(t) + at);
  }
  const int32_t* leaf_index(size_t t, int32_t at) const {
    return reinterpret_cast<const int32_t*>(leaves(t) + at + 1);
  }
  const double* leaf_values(size_t t, int32_t at) const {
    return reinterpret_cast<const double*>(leaves(t) + at + 1 + (leaf(t, at).count + 1) / 2);
  }
};

/** Encoded trees owned elsewhere (R raw vectors, or C++ buffers): pointer and size of each. */
using EncodedTrees = std::vector<std::pair<const uint8_t*, size_t>>;

}  // namespace ccforest

#endif  // CCFOREST_MODEL_H_
