#include "TreeCodec.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "Bytes.h"
#include "LeafCodec.h"
#include "Projection.h"

namespace ccforest {

namespace {

constexpr uint8_t kFormat = 3;
constexpr uint8_t kShortOnlyFormat = 2;

/** Terms of split s: [begin, end) of tree.column and tree.coef. */
struct SplitRange {
  int begin, end;
  Precision precision;
  int n_columns() const { return (end - begin) / terms_per_coefficient(precision); }
};

SplitRange split_range(const Tree& tree, size_t s) {
  return {tree.split_begin[s], tree.split_begin[s + 1], static_cast<Precision>(tree.precision[s])};
}

}  // namespace

std::vector<uint8_t> encode_tree(const Tree& tree, const ModelShape& shape) {
  std::vector<uint8_t> out;
  out.reserve(64 + tree.n_nodes() / 8 + tree.column.size() * 4 + tree.n_splits() * 10 +
              tree.n_leaves() * 2);
  out.push_back(kFormat);
  put_varint(out, tree.n_nodes());
  uint8_t bits = 0;
  for (size_t j = 0; j < tree.n_nodes(); ++j) {
    if (tree.is_split[j]) bits |= static_cast<uint8_t>(1u << (j % 8));
    if (j % 8 == 7 || j + 1 == tree.n_nodes()) {
      out.push_back(bits);
      bits = 0;
    }
  }
  const size_t n_split = tree.n_splits();
  for (size_t s = 0; s < n_split; ++s) put_varint(out, static_cast<uint64_t>(split_range(tree, s).n_columns()));
  for (size_t s = 0; s < n_split; s += 4) {
    uint8_t packed = 0;
    for (size_t k = 0; k < 4 && s + k < n_split; ++k) {
      packed |= static_cast<uint8_t>(tree.precision[s + k] << (2 * k));
    }
    out.push_back(packed);
  }
  std::vector<uint16_t> codes;
  std::vector<uint32_t> floats;
  for (size_t s = 0; s < n_split; ++s) {
    const SplitRange split = split_range(tree, s);
    const int step = terms_per_coefficient(split.precision);
    int previous = -1;
    for (int e = split.begin; e < split.end; e += step) {
      put_varint(out, static_cast<uint64_t>(tree.column[e] - previous - 1));
      previous = tree.column[e];
    }
    for (int e = split.begin; e < split.end; ++e) {
      if (split.precision == Precision::kShort) {
        codes.push_back(encode_coefficient(tree.coef[e]));
      } else {
        floats.push_back(bits_of(tree.coef[e]));
      }
    }
  }
  put_planes(out, codes, 2);
  put_planes(out, floats, 4);
  std::vector<uint64_t> threshold_bits(n_split);
  for (size_t s = 0; s < n_split; ++s) threshold_bits[s] = bits_of(tree.threshold[s]);
  put_planes(out, threshold_bits, 8);
  leaf_codec(shape).encode(tree, shape, out);
  return out;
}

Tree parse_tree(const uint8_t* bytes, size_t size, const ModelShape& shape) {
  Reader in(bytes, size);
  const uint8_t format = in.byte();
  if (format != kFormat && format != kShortOnlyFormat) {
    throw DamagedModel("a tree has an unknown format");
  }
  // Every node takes at least one bit, so a count beyond the bytes left is damage
  // (and must not be allocated).
  const uint64_t n_nodes = in.varint(8 * static_cast<uint64_t>(in.remaining()));
  if (n_nodes < 1 || n_nodes > static_cast<uint64_t>(std::numeric_limits<int32_t>::max() / 8)) {
    throw DamagedModel("a tree has no nodes or too many");
  }
  Tree tree;
  const uint8_t* flags = in.take((n_nodes + 7) / 8);
  tree.is_split.resize(n_nodes);
  size_t n_split = 0;
  for (uint64_t j = 0; j < n_nodes; ++j) {
    tree.is_split[j] = (flags[j / 8] >> (j % 8)) & 1u;
    n_split += tree.is_split[j];
  }
  // A binary tree with s splits has 2s + 1 nodes, and the children of the
  // k-th split are nodes 2k + 1 and 2k + 2 (see Tree.h).
  if (n_nodes != 2 * static_cast<uint64_t>(n_split) + 1) {
    throw DamagedModel("its split flags do not describe a binary tree");
  }
  const size_t n_leaf = n_split + 1;

  in.expect(n_split, 1);
  std::vector<int32_t> n_columns(n_split);
  uint64_t total_columns = 0;
  const uint64_t max_k = static_cast<uint64_t>(shape.n_column);
  for (size_t s = 0; s < n_split; ++s) {
    n_columns[s] = static_cast<int32_t>(in.varint(max_k));
    if (n_columns[s] == 0) throw DamagedModel("a split has no coefficients");
    total_columns += static_cast<uint64_t>(n_columns[s]);
  }
  tree.precision.assign(n_split, static_cast<uint8_t>(Precision::kShort));
  if (format == kFormat) {
    const uint8_t* packed = in.take((n_split + 3) / 4);
    for (size_t s = 0; s < n_split; ++s) {
      const uint8_t p = (packed[s / 4] >> (2 * (s % 4))) & 3u;
      if (p > static_cast<uint8_t>(Precision::kDouble)) {
        throw DamagedModel("a split has an unknown precision");
      }
      tree.precision[s] = p;
    }
  }
  // Each column step takes a byte at least.
  in.expect(total_columns, 1);
  size_t n_short = 0, n_float = 0;
  tree.split_begin.assign(1, 0);
  for (size_t s = 0; s < n_split; ++s) {
    const Precision precision = static_cast<Precision>(tree.precision[s]);
    const int step = terms_per_coefficient(precision);
    int64_t previous = -1;
    for (int32_t i = 0; i < n_columns[s]; ++i) {
      const int64_t c = previous + 1 + static_cast<int64_t>(in.varint(max_k));
      if (c >= shape.n_column) throw DamagedModel("a split refers to a column out of range");
      for (int k = 0; k < step; ++k) tree.column.push_back(static_cast<int>(c));
      previous = c;
    }
    (precision == Precision::kShort ? n_short : n_float) += static_cast<size_t>(n_columns[s] * step);
    tree.split_begin.push_back(static_cast<int>(tree.column.size()));
  }
  std::vector<uint16_t> codes;
  in.planes(n_short, 2, codes);
  std::vector<uint32_t> float_bits;
  in.planes(n_float, 4, float_bits);
  tree.coef.resize(tree.column.size());
  for (size_t s = 0, next_short = 0, next_float = 0; s < n_split; ++s) {
    const SplitRange split = split_range(tree, s);
    const int step = terms_per_coefficient(split.precision);
    float largest = 0.0f;
    for (int e = split.begin; e < split.end; ++e) {
      const float c = split.precision == Precision::kShort ? decode_coefficient(codes[next_short++])
                                                           : as_float(float_bits[next_float++]);
      const bool hi = (e - split.begin) % step == 0;
      if (!std::isfinite(c) || (hi && c == 0.0f)) {
        throw DamagedModel("a split has a coefficient that is not finite or zero");
      }
      if (hi) largest = std::max(largest, std::abs(c));
      tree.coef[static_cast<size_t>(e)] = c;
    }
    // Directions are scaled so that their largest coefficient is exactly 1.
    if (largest != 1.0f) throw DamagedModel("a split's largest coefficient is not 1");
  }
  std::vector<uint64_t> threshold_bits;
  in.planes(n_split, 8, threshold_bits);
  tree.threshold.resize(n_split);
  for (size_t s = 0; s < n_split; ++s) {
    tree.threshold[s] = as_double(threshold_bits[s]);
    if (!std::isfinite(tree.threshold[s])) throw DamagedModel("a split threshold is not finite");
  }
  leaf_codec(shape).decode(in, shape, n_leaf, tree);
  if (in.remaining() != 0) throw DamagedModel("a tree has trailing bytes");
  return tree;
}

void layout_tree(const Tree& tree, ForestModel& model) {
  const size_t n_nodes = tree.n_nodes();
  // Positions first, then contents. Node j's child reference: its split
  // record's position, or for a leaf ~(its record's position among the leaf
  // records).
  std::vector<int32_t> reference(n_nodes, 0);
  int64_t words_needed = 0, leaf_words_needed = 0;
  for (size_t j = 0, s = 0, l = 0; j < n_nodes; ++j) {
    if (tree.is_split[j]) {
      // Children after their parents: every walk then moves forward and ends
      // at a leaf (and a tree whose root is a leaf has no splits).
      if (2 * s + 1 <= j) throw DamagedModel("a split's children come before it");
      reference[j] = static_cast<int32_t>(words_needed);
      const int32_t count = tree.split_begin[s + 1] - tree.split_begin[s];
      model.max_count = std::max(model.max_count, count);
      words_needed += 3 + static_cast<int64_t>(count);
      ++s;
      if (words_needed > std::numeric_limits<int32_t>::max()) throw DamagedModel("a tree is too large");
    } else {
      reference[j] = ~static_cast<int32_t>(leaf_words_needed);
      leaf_words_needed += static_cast<int64_t>(leaf_record_words(tree.leaf_begin[l + 1] - tree.leaf_begin[l]));
      if (leaf_words_needed > std::numeric_limits<int32_t>::max()) throw DamagedModel("a tree is too large");
      ++l;
    }
  }
  RecordWords leaf_words(static_cast<size_t>(leaf_words_needed));
  for (size_t l = 0, at = 0; l < tree.n_leaves(); ++l) {
    const int32_t count = tree.leaf_begin[l + 1] - tree.leaf_begin[l];
    const LeafHead head{count, static_cast<int32_t>(l)};
    std::memcpy(leaf_words.data() + at, &head, sizeof head);
    int32_t* index = reinterpret_cast<int32_t*>(leaf_words.data() + at + 1);
    double* values = reinterpret_cast<double*>(leaf_words.data() + at + 1 + (count + 1) / 2);
    for (int32_t e = 0; e < count; ++e) {
      index[e] = tree.leaf_index[static_cast<size_t>(tree.leaf_begin[l] + e)];
      values[e] = tree.leaf_value[static_cast<size_t>(tree.leaf_begin[l] + e)];
    }
    at += leaf_record_words(count);
  }
  RecordWords words(static_cast<size_t>(words_needed));
  std::vector<int32_t> depth(n_nodes, 0);
  for (size_t j = 0, s = 0; j < n_nodes; ++j) {
    if (!tree.is_split[j]) continue;
    uint64_t* record = words.data() + reference[j];
    NodeHead head{};
    head.depth = depth[j];
    head.threshold = tree.threshold[s];
    head.left = reference[2 * s + 1];
    head.right = reference[2 * s + 2];
    head.count = tree.split_begin[s + 1] - tree.split_begin[s];
    depth[2 * s + 1] = depth[2 * s + 2] = depth[j] + 1;
    SplitTerm* term = reinterpret_cast<SplitTerm*>(record + 3);
    for (int32_t e = 0; e < head.count; ++e) {
      const size_t at = static_cast<size_t>(tree.split_begin[s] + e);
      term[e].column = tree.column[at];
      term[e].coef = tree.coef[at];
    }
    std::memcpy(record, &head, sizeof head);
    ++s;
  }
  // A model's first tree (every tree, when trees are decoded one per model
  // and joined) takes the words without a copy.
  if (model.split_words.empty()) {
    model.split_words = std::move(words);
  } else {
    model.split_words.insert(model.split_words.end(), words.begin(), words.end());
  }
  if (model.leaf_words.empty()) {
    model.leaf_words = std::move(leaf_words);
  } else {
    model.leaf_words.insert(model.leaf_words.end(), leaf_words.begin(), leaf_words.end());
  }
  model.split_begin.push_back(model.split_words.size());
  model.leaf_begin.push_back(model.leaf_words.size());
  model.n_leaves.push_back(static_cast<int32_t>(tree.n_leaves()));
}

void ForestModel::append(const ForestModel& other) {
  const size_t split_base = split_words.size(), leaf_base = leaf_words.size();
  split_words.insert(split_words.end(), other.split_words.begin(), other.split_words.end());
  leaf_words.insert(leaf_words.end(), other.leaf_words.begin(), other.leaf_words.end());
  for (size_t t = 0; t < other.n_tree(); ++t) {
    split_begin.push_back(split_base + other.split_begin[t + 1]);
    leaf_begin.push_back(leaf_base + other.leaf_begin[t + 1]);
    n_leaves.push_back(other.n_leaves[t]);
  }
  max_count = std::max(max_count, other.max_count);
}

void advise_huge_pages(void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Advice only: where huge pages are off or scarce, nothing changes.
  madvise(p, bytes, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

void decode_tree(const uint8_t* bytes, size_t size, ForestModel& model) {
  layout_tree(parse_tree(bytes, size, model.shape), model);
}

ForestModel decode_forest(const EncodedTrees& trees, const ModelShape& shape, size_t begin,
                          size_t end) {
  ForestModel model;
  model.shape = shape;
  for (size_t t = begin; t < end; ++t) decode_tree(trees[t].first, trees[t].second, model);
  return model;
}

ForestModel decode_forest(const EncodedTrees& trees, const ModelShape& shape, size_t begin,
                          size_t end, const Runtime& runtime) {
  std::vector<ForestModel> one(end - begin);
  Runtime all_at_once = runtime;
  all_at_once.batch_size = end - begin;
  run_batched(all_at_once, end - begin, [&](size_t i) {
    one[i].shape = shape;
    decode_tree(trees[begin + i].first, trees[begin + i].second, one[i]);
  });
  ForestModel model;
  model.shape = shape;
  // One block each for all trees' splits and leaves, sized before copying.
  size_t split_total = 0, leaf_total = 0;
  for (const ForestModel& tree : one) {
    split_total += tree.split_words.size();
    leaf_total += tree.leaf_words.size();
  }
  model.split_words.reserve(split_total);
  model.leaf_words.reserve(leaf_total);
  for (ForestModel& tree : one) {
    model.append(tree);
    tree = ForestModel();
  }
  // The trees decoded one by one were as large as the joined blocks, in
  // small pieces the allocator keeps for reuse: hand those pages back, or a
  // prepared fit would keep twice its decoded size resident.
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
  return model;
}

}  // namespace ccforest
