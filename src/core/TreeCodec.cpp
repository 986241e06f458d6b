#include "TreeCodec.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
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

namespace {

/** A tree's counts that precede its column steps (see the format in TreeCodec.h). */
struct SplitCounts {
  uint8_t format = 0;
  uint64_t n_nodes = 0;
  const uint8_t* flags = nullptr;  // one bit per node
  size_t n_split = 0;
  std::vector<int32_t> n_columns;  // per split
  std::vector<uint8_t> precision;  // per split, a Precision
  uint64_t total_columns = 0;
};

SplitCounts read_split_counts(Reader& in, const ModelShape& shape) {
  SplitCounts counts;
  counts.format = in.byte();
  if (counts.format != kFormat && counts.format != kShortOnlyFormat) {
    throw DamagedModel("a tree has an unknown format");
  }
  // Every node takes at least one bit, so a count beyond the bytes left is damage
  // (and must not be allocated).
  counts.n_nodes = in.varint(8 * static_cast<uint64_t>(in.remaining()));
  if (counts.n_nodes < 1 || counts.n_nodes > static_cast<uint64_t>(std::numeric_limits<int32_t>::max() / 8)) {
    throw DamagedModel("a tree has no nodes or too many");
  }
  counts.flags = in.take((counts.n_nodes + 7) / 8);
  for (uint64_t j = 0; j < counts.n_nodes; ++j) counts.n_split += (counts.flags[j / 8] >> (j % 8)) & 1u;
  // A binary tree with s splits has 2s + 1 nodes, and the children of the
  // k-th split are nodes 2k + 1 and 2k + 2 (see Tree.h).
  if (counts.n_nodes != 2 * static_cast<uint64_t>(counts.n_split) + 1) {
    throw DamagedModel("its split flags do not describe a binary tree");
  }
  const size_t n_split = counts.n_split;
  in.expect(n_split, 1);
  counts.n_columns.resize(n_split);
  const uint64_t max_k = static_cast<uint64_t>(shape.n_column);
  for (size_t s = 0; s < n_split; ++s) {
    counts.n_columns[s] = static_cast<int32_t>(in.varint(max_k));
    if (counts.n_columns[s] == 0) throw DamagedModel("a split has no coefficients");
    counts.total_columns += static_cast<uint64_t>(counts.n_columns[s]);
  }
  counts.precision.assign(n_split, static_cast<uint8_t>(Precision::kShort));
  if (counts.format == kFormat) {
    const uint8_t* packed = in.take((n_split + 3) / 4);
    for (size_t s = 0; s < n_split; ++s) {
      const uint8_t p = (packed[s / 4] >> (2 * (s % 4))) & 3u;
      if (p > static_cast<uint8_t>(Precision::kDouble)) {
        throw DamagedModel("a split has an unknown precision");
      }
      counts.precision[s] = p;
    }
  }
  return counts;
}

}  // namespace

TreeWords record_words(const uint8_t* bytes, size_t size, const ModelShape& shape) {
  Reader in(bytes, size);
  const SplitCounts counts = read_split_counts(in, shape);
  TreeWords words;
  words.n_leaf = counts.n_split + 1;
  uint64_t n_short = 0, n_float = 0;
  for (size_t s = 0; s < counts.n_split; ++s) {
    const Precision precision = static_cast<Precision>(counts.precision[s]);
    const uint64_t terms = static_cast<uint64_t>(counts.n_columns[s]) *
                           static_cast<uint64_t>(terms_per_coefficient(precision));
    words.splits += 3 + terms;
    (precision == Precision::kShort ? n_short : n_float) += terms;
  }
  // Past the column steps and the coefficients' and thresholds' planes,
  // which are read (and checked) only when the tree is parsed.
  in.skip_varints(counts.total_columns);
  in.expect(n_short, 2);
  in.take(static_cast<size_t>(n_short) * 2);
  in.expect(n_float, 4);
  in.take(static_cast<size_t>(n_float) * 4);
  in.expect(counts.n_split, 8);
  in.take(counts.n_split * 8);
  words.leaves = leaf_codec(shape).record_words(in, shape, words.n_leaf);
  return words;
}

Tree parse_tree(const uint8_t* bytes, size_t size, const ModelShape& shape) {
  Reader in(bytes, size);
  const SplitCounts counts = read_split_counts(in, shape);
  const uint64_t n_nodes = counts.n_nodes;
  const size_t n_split = counts.n_split;
  const uint64_t total_columns = counts.total_columns;
  const uint64_t max_k = static_cast<uint64_t>(shape.n_column);
  const std::vector<int32_t>& n_columns = counts.n_columns;
  Tree tree;
  tree.is_split.resize(n_nodes);
  for (uint64_t j = 0; j < n_nodes; ++j) tree.is_split[j] = (counts.flags[j / 8] >> (j % 8)) & 1u;
  tree.precision = counts.precision;
  const size_t n_leaf = n_split + 1;

  // Each column step takes a byte at least.
  in.expect(total_columns, 1);
  size_t n_short = 0, n_float = 0;
  tree.split_begin.assign(1, 0);
  tree.split_begin.reserve(n_split + 1);
  size_t n_terms = 0;
  for (size_t s = 0; s < n_split; ++s) {
    n_terms += static_cast<size_t>(n_columns[s]) *
               static_cast<size_t>(terms_per_coefficient(static_cast<Precision>(tree.precision[s])));
  }
  tree.column.reserve(n_terms);
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
    for (int e = split.begin, phase = 0; e < split.end; ++e, phase = phase + 1 == step ? 0 : phase + 1) {
      const float c = split.precision == Precision::kShort ? decode_coefficient(codes[next_short++])
                                                           : as_float(float_bits[next_float++]);
      const bool hi = phase == 0;
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

int32_t layout_tree(const Tree& tree, const TreeSlot& slot) {
  const size_t n_nodes = tree.n_nodes();
  // Positions first, then contents. Node j's child reference: its split
  // record's position, or for a leaf ~(its record's position among the leaf
  // records).
  std::vector<int32_t> reference(n_nodes, 0);
  int64_t words_needed = 0, leaf_words_needed = 0;
  int32_t widest = 0;
  for (size_t j = 0, s = 0, l = 0; j < n_nodes; ++j) {
    if (tree.is_split[j]) {
      // Children after their parents: every walk then moves forward and ends
      // at a leaf (and a tree whose root is a leaf has no splits).
      if (2 * s + 1 <= j) throw DamagedModel("a split's children come before it");
      reference[j] = static_cast<int32_t>(words_needed);
      const int32_t count = tree.split_begin[s + 1] - tree.split_begin[s];
      widest = std::max(widest, count);
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
  // The slot was sized by record_words() from the same bytes; a parse that
  // disagrees with that scan read a damaged tree.
  if (static_cast<uint64_t>(words_needed) != slot.split_words ||
      static_cast<uint64_t>(leaf_words_needed) != slot.leaf_words) {
    throw DamagedModel("a tree's records do not match its counts");
  }
  for (size_t l = 0, at = 0; l < tree.n_leaves(); ++l) {
    const int32_t count = tree.leaf_begin[l + 1] - tree.leaf_begin[l];
    const LeafHead head{count, static_cast<int32_t>(l)};
    uint64_t* record = slot.leaves + at;
    std::memcpy(record, &head, sizeof head);
    // The slot's words are not zeroed (see RecordAllocator): an odd count
    // leaves half a word of padding after the indices.
    record[1 + (count + 1) / 2 - 1] = 0;
    int32_t* index = reinterpret_cast<int32_t*>(record + 1);
    double* values = reinterpret_cast<double*>(record + 1 + (count + 1) / 2);
    for (int32_t e = 0; e < count; ++e) {
      index[e] = tree.leaf_index[static_cast<size_t>(tree.leaf_begin[l] + e)];
      values[e] = tree.leaf_value[static_cast<size_t>(tree.leaf_begin[l] + e)];
    }
    at += leaf_record_words(count);
  }
  std::vector<int32_t> depth(n_nodes, 0);
  for (size_t j = 0, s = 0; j < n_nodes; ++j) {
    if (!tree.is_split[j]) continue;
    uint64_t* record = slot.splits + reference[j];
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
  return widest;
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

ForestModel decode_forest(const EncodedTrees& trees, const ModelShape& shape, size_t begin,
                          size_t end) {
  return decode_forest(trees, shape, begin, end, Runtime());
}

ForestModel decode_forest(const EncodedTrees& trees, const ModelShape& shape, size_t begin,
                          size_t end, const Runtime& runtime) {
  // Two passes over the stored bytes: the first sizes every tree's records,
  // so that the whole forest's splits and leaves are each allocated once, at
  // their final size; the second parses each tree and lays it out straight
  // into its place. No tree is laid out twice or copied, and the memory at
  // its peak is the two blocks and one parsed tree per thread.
  const size_t n = end - begin;
  Runtime all_at_once = runtime;
  all_at_once.batch_size = std::max<size_t>(1, n);
  std::vector<TreeWords> words(n);
  run_batched(all_at_once, n, [&](size_t i) {
    words[i] = record_words(trees[begin + i].first, trees[begin + i].second, shape);
  });
  ForestModel model;
  model.shape = shape;
  model.split_begin.reserve(n + 1);
  model.leaf_begin.reserve(n + 1);
  model.n_leaves.reserve(n);
  for (const TreeWords& tree : words) {
    model.split_begin.push_back(model.split_begin.back() + static_cast<size_t>(tree.splits));
    model.leaf_begin.push_back(model.leaf_begin.back() + static_cast<size_t>(tree.leaves));
    model.n_leaves.push_back(static_cast<int32_t>(tree.n_leaf));
  }
  model.split_words.resize(model.split_begin.back());
  model.leaf_words.resize(model.leaf_begin.back());
  std::vector<int32_t> widest(n, 0);
  run_batched(all_at_once, n, [&](size_t i) {
    const Tree tree = parse_tree(trees[begin + i].first, trees[begin + i].second, shape);
    const TreeSlot slot{model.split_words.data() + model.split_begin[i], words[i].splits,
                        model.leaf_words.data() + model.leaf_begin[i], words[i].leaves};
    widest[i] = layout_tree(tree, slot);
  });
  for (int32_t w : widest) model.max_count = std::max(model.max_count, w);
  return model;
}

}  // namespace ccforest
