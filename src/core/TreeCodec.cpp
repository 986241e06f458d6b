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
  encode_tree(tree, shape, out);
  return out;
}

void encode_tree(const Tree& tree, const ModelShape& shape, std::vector<uint8_t>& out) {
  out.clear();
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
  {
    size_t n_short = 0;
    for (size_t s = 0; s < n_split; ++s) {
      if (static_cast<Precision>(tree.precision[s]) == Precision::kShort) {
        n_short += static_cast<size_t>(tree.split_begin[s + 1] - tree.split_begin[s]);
      }
    }
    codes.reserve(n_short);
    floats.reserve(tree.column.size() - n_short);
  }
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

  bool is_split(uint64_t node) const { return (flags[node / 8] >> (node % 8)) & 1u; }
  int32_t terms(size_t s) const {
    return n_columns[s] * terms_per_coefficient(static_cast<Precision>(precision[s]));
  }
};

/** Bits set in [bytes, bytes + n), eight bytes at a time (a tree has a flag bit per node). */
size_t bits_set(const uint8_t* bytes, size_t n) {
  size_t total = 0, b = 0;
  for (; b + 8 <= n; b += 8) {
    uint64_t x;
    std::memcpy(&x, bytes + b, sizeof x);
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    total += static_cast<size_t>((x * 0x0101010101010101ull) >> 56);
  }
  for (; b < n; ++b) {
    for (uint8_t x = bytes[b]; x != 0; x &= static_cast<uint8_t>(x - 1)) ++total;
  }
  return total;
}

/**
 * Reads the counts into `counts` (its vectors keep their capacity from tree
 * to tree). Every count that sizes something later is checked against the
 * bytes left: the column steps, each a byte at least, included.
 */
void read_split_counts(Reader& in, const ModelShape& shape, SplitCounts& counts) {
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
  const size_t flag_bytes = static_cast<size_t>((counts.n_nodes + 7) / 8);
  counts.flags = in.take(flag_bytes);
  // The last byte's bits past the last node count for nothing.
  counts.n_split = bits_set(counts.flags, flag_bytes - 1);
  for (uint64_t j = 8 * static_cast<uint64_t>(flag_bytes - 1); j < counts.n_nodes; ++j) {
    counts.n_split += counts.is_split(j);
  }
  // A binary tree with s splits has 2s + 1 nodes, and the children of the
  // k-th split are nodes 2k + 1 and 2k + 2 (see Tree.h).
  if (counts.n_nodes != 2 * static_cast<uint64_t>(counts.n_split) + 1) {
    throw DamagedModel("its split flags do not describe a binary tree");
  }
  const size_t n_split = counts.n_split;
  in.expect(n_split, 1);
  counts.n_columns.resize(n_split);
  counts.total_columns = 0;
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
  in.expect(counts.total_columns, 1);
}

/**
 * Reads a tree's split values, which follow its counts: the column steps, the
 * coefficients and the thresholds, each checked (columns in range and
 * increasing; coefficients finite, non-zero and the largest exactly 1;
 * thresholds finite). `sink.split(s)` gives where split s's terms go, as an
 * object with column(k, c) and coef(k, value) for its term k;
 * `sink.threshold(s, t)` takes its threshold. parse_tree() and
 * decode_forest() both read through here, so that they accept the same
 * trees.
 */
template <typename Sink>
void read_split_values(Reader& in, const SplitCounts& counts, const ModelShape& shape, Sink& sink) {
  const size_t n_split = counts.n_split;
  const int64_t n_column = shape.n_column;
  size_t n_short = 0, n_float = 0;
  for (size_t s = 0; s < n_split; ++s) {
    // Locals, not the counts' vectors: the terms written below are int32s
    // too, and the compiler would otherwise re-read the counts after each.
    const int32_t columns = counts.n_columns[s];
    const bool pairs = static_cast<Precision>(counts.precision[s]) == Precision::kDouble;
    auto to = sink.split(s);
    int64_t previous = -1;
    for (int32_t i = 0, k = 0; i < columns; ++i) {
      const int64_t c = previous + 1 + static_cast<int64_t>(in.varint(static_cast<uint64_t>(n_column)));
      if (c >= n_column) throw DamagedModel("a split refers to a column out of range");
      to.column(k++, static_cast<int32_t>(c));
      if (pairs) to.column(k++, static_cast<int32_t>(c));
      previous = c;
    }
    (static_cast<Precision>(counts.precision[s]) == Precision::kShort ? n_short : n_float) +=
        static_cast<size_t>(counts.terms(s));
  }
  const Planes<uint16_t> codes = in.planes_in_place<uint16_t>(n_short, 2);
  const Planes<uint32_t> floats = in.planes_in_place<uint32_t>(n_float, 4);
  auto check = [](float c, bool leading, float& largest) {
    if (!std::isfinite(c) || (leading && c == 0.0f)) {
      throw DamagedModel("a split has a coefficient that is not finite or zero");
    }
    if (leading) largest = std::max(largest, std::abs(c));
  };
  for (size_t s = 0, next_short = 0, next_float = 0; s < n_split; ++s) {
    const Precision precision = static_cast<Precision>(counts.precision[s]);
    const int32_t terms = counts.terms(s);
    auto to = sink.split(s);
    float largest = 0.0f;
    if (precision == Precision::kShort) {
      for (int32_t k = 0; k < terms; ++k) {
        const float c = decode_coefficient(codes[next_short++]);
        check(c, true, largest);
        to.coef(k, c);
      }
    } else {
      // kDouble's terms come in pairs, hi then lo: only the hi one is the
      // coefficient's leading part.
      const int32_t hi_mask = terms_per_coefficient(precision) - 1;
      for (int32_t k = 0; k < terms; ++k) {
        const float c = as_float(floats[next_float++]);
        check(c, (k & hi_mask) == 0, largest);
        to.coef(k, c);
      }
    }
    // Directions are scaled so that their largest coefficient is exactly 1.
    if (largest != 1.0f) throw DamagedModel("a split's largest coefficient is not 1");
  }
  const Planes<uint64_t> thresholds = in.planes_in_place<uint64_t>(n_split, 8);
  for (size_t s = 0; s < n_split; ++s) {
    const double t = as_double(thresholds[s]);
    if (!std::isfinite(t)) throw DamagedModel("a split threshold is not finite");
    sink.threshold(s, t);
  }
}

/** parse_tree()'s destination: the trainer's Tree, its terms already sized. */
struct TreeSink {
  struct Terms {
    int* columns;
    float* coefs;
    void column(int32_t k, int32_t c) { columns[k] = c; }
    void coef(int32_t k, float v) { coefs[k] = v; }
  };
  Tree& tree;
  Terms split(size_t s) {
    const size_t at = static_cast<size_t>(tree.split_begin[s]);
    return {tree.column.data() + at, tree.coef.data() + at};
  }
  void threshold(size_t s, double t) { tree.threshold[s] = t; }
};

/** decode_forest()'s destination: the terms go straight into the split records, the thresholds aside. */
struct RecordSink {
  struct Terms {
    SplitTerm* terms;
    void column(int32_t k, int32_t c) { terms[k].column = c; }
    void coef(int32_t k, float v) { terms[k].coef = v; }
  };
  uint64_t* splits;
  const int32_t* at;  // per split, its record's position
  double* thresholds;
  Terms split(size_t s) { return {reinterpret_cast<SplitTerm*>(splits + at[s] + 3)}; }
  void threshold(size_t s, double t) { thresholds[s] = t; }
};

}  // namespace

TreeWords record_words(const uint8_t* bytes, size_t size, const ModelShape& shape) {
  Reader in(bytes, size);
  SplitCounts counts;
  read_split_counts(in, shape, counts);
  TreeWords words;
  words.n_leaf = counts.n_split + 1;
  uint64_t n_short = 0, n_float = 0;
  for (size_t s = 0; s < counts.n_split; ++s) {
    const uint64_t terms = static_cast<uint64_t>(counts.terms(s));
    words.splits += 3 + terms;
    (static_cast<Precision>(counts.precision[s]) == Precision::kShort ? n_short : n_float) += terms;
  }
  // Past the column steps and the coefficients' and thresholds' planes,
  // which are read (and checked) only when the tree is parsed.
  in.skip_varints(counts.total_columns);
  in.planes_in_place<uint16_t>(static_cast<size_t>(n_short), 2);
  in.planes_in_place<uint32_t>(static_cast<size_t>(n_float), 4);
  in.planes_in_place<uint64_t>(counts.n_split, 8);
  words.leaves = leaf_codec(shape).record_words(in, shape, words.n_leaf);
  return words;
}

Tree parse_tree(const uint8_t* bytes, size_t size, const ModelShape& shape) {
  Reader in(bytes, size);
  SplitCounts counts;
  read_split_counts(in, shape, counts);
  const size_t n_split = counts.n_split;
  Tree tree;
  tree.is_split.resize(counts.n_nodes);
  for (uint64_t j = 0; j < counts.n_nodes; ++j) tree.is_split[j] = counts.is_split(j);
  tree.precision = counts.precision;
  tree.split_begin.resize(n_split + 1);
  for (size_t s = 0; s < n_split; ++s) tree.split_begin[s + 1] = tree.split_begin[s] + counts.terms(s);
  tree.column.resize(static_cast<size_t>(tree.split_begin[n_split]));
  tree.coef.resize(tree.column.size());
  tree.threshold.resize(n_split);
  TreeSink sink{tree};
  read_split_values(in, counts, shape, sink);
  leaf_codec(shape).decode(in, shape, n_split + 1, tree);
  if (in.remaining() != 0) throw DamagedModel("a tree has trailing bytes");
  return tree;
}

namespace {

/** Where one tree's records go: `split_words` and `leaf_words` words from `splits` and `leaves`. */
struct TreeSlot {
  uint64_t* splits;
  uint64_t split_words;
  uint64_t* leaves;
  uint64_t leaf_words;
};

/** What decoding one tree needs besides its slot, kept from tree to tree. */
struct DecodeScratch {
  SplitCounts counts;
  std::vector<int32_t> split_at;    // per split, its record's position
  std::vector<double> thresholds;   // per split
  Tree leaves;                      // only the leaf entries are used
  std::vector<int32_t> reference;   // per node, as NodeHead's children
  std::vector<int32_t> depth;       // per node
};

/**
 * Parses one tree and lays it out for prediction into its slot (see
 * ForestModel): split records breadth first, children after their parents,
 * the terms written as they are read. The slot must be the tree's size
 * (record_words()); throws DamagedModel otherwise, and wherever parse_tree()
 * would. Returns the number of terms of its widest split.
 */
int32_t decode_tree(const uint8_t* bytes, size_t size, const ModelShape& shape, const TreeSlot& slot,
                    DecodeScratch& scratch) {
  Reader in(bytes, size);
  SplitCounts& counts = scratch.counts;
  read_split_counts(in, shape, counts);
  const size_t n_split = counts.n_split, n_leaf = n_split + 1;
  const uint64_t n_nodes = counts.n_nodes;
  scratch.split_at.resize(n_split);
  scratch.thresholds.resize(n_split);
  int64_t split_words = 0;
  int32_t widest = 0;
  for (size_t s = 0; s < n_split; ++s) {
    scratch.split_at[s] = static_cast<int32_t>(split_words);
    widest = std::max(widest, counts.terms(s));
    split_words += 3 + static_cast<int64_t>(counts.terms(s));
    if (split_words > std::numeric_limits<int32_t>::max()) throw DamagedModel("a tree is too large");
  }
  // The slot was sized by record_words() from the same bytes; a tree that
  // disagrees with that scan is damaged, and must not write past its slot.
  if (static_cast<uint64_t>(split_words) != slot.split_words) {
    throw DamagedModel("a tree's records do not match its counts");
  }
  RecordSink sink{slot.splits, scratch.split_at.data(), scratch.thresholds.data()};
  read_split_values(in, counts, shape, sink);

  Tree& tree = scratch.leaves;
  leaf_codec(shape).decode(in, shape, n_leaf, tree);
  if (in.remaining() != 0) throw DamagedModel("a tree has trailing bytes");
  int64_t leaf_words = 0;
  for (size_t l = 0; l < n_leaf; ++l) {
    leaf_words += static_cast<int64_t>(leaf_record_words(tree.leaf_begin[l + 1] - tree.leaf_begin[l]));
    if (leaf_words > std::numeric_limits<int32_t>::max()) throw DamagedModel("a tree is too large");
  }
  if (static_cast<uint64_t>(leaf_words) != slot.leaf_words) {
    throw DamagedModel("a tree's records do not match its counts");
  }
  // Node j's child reference: its split record's position, or for a leaf
  // ~(its record's position among the leaf records). Plain pointers: the
  // records are written through int32 and double pointers too.
  scratch.reference.resize(n_nodes);
  scratch.depth.resize(n_nodes);
  int32_t* reference = scratch.reference.data();
  int32_t* depth = scratch.depth.data();
  const int32_t* split_at = scratch.split_at.data();
  const int* leaf_begin = tree.leaf_begin.data();
  for (size_t j = 0, s = 0, l = 0, at = 0; j < n_nodes; ++j) {
    if (counts.is_split(j)) {
      // Children after their parents: every walk then moves forward and ends
      // at a leaf (and a tree whose root is a leaf has no splits).
      if (2 * s + 1 <= j) throw DamagedModel("a split's children come before it");
      reference[j] = split_at[s++];
      continue;
    }
    const int32_t count = leaf_begin[l + 1] - leaf_begin[l];
    reference[j] = ~static_cast<int32_t>(at);
    uint64_t* record = slot.leaves + at;
    const LeafHead head{count, static_cast<int32_t>(l)};
    std::memcpy(record, &head, sizeof head);
    // The slot's words are not zeroed (see RecordAllocator): an odd count
    // leaves half a word of padding after the indices.
    record[1 + (count + 1) / 2 - 1] = 0;
    std::memcpy(record + 1, tree.leaf_index.data() + leaf_begin[l], sizeof(int32_t) * static_cast<size_t>(count));
    std::memcpy(record + 1 + (count + 1) / 2, tree.leaf_value.data() + leaf_begin[l],
                sizeof(double) * static_cast<size_t>(count));
    at += leaf_record_words(count);
    ++l;
  }
  depth[0] = 0;
  for (size_t j = 0, s = 0; j < n_nodes; ++j) {
    if (!counts.is_split(j)) continue;
    NodeHead head{};
    head.depth = depth[j];
    head.threshold = scratch.thresholds[s];
    head.left = reference[2 * s + 1];
    head.right = reference[2 * s + 2];
    head.count = counts.terms(s);
    depth[2 * s + 1] = depth[2 * s + 2] = depth[j] + 1;
    std::memcpy(slot.splits + split_at[s], &head, sizeof head);
    ++s;
  }
  return widest;
}

}  // namespace

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
  // their final size; the second parses each tree straight into its place.
  // No tree is laid out twice or copied.
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
  // Trees in groups, each with its own scratch, so that a thread reuses its
  // buffers from tree to tree.
  constexpr size_t kGroup = 16;
  const size_t n_group = (n + kGroup - 1) / kGroup;
  std::vector<int32_t> widest(n, 0);
  run_batched(all_at_once, n_group, [&](size_t g) {
    DecodeScratch scratch;
    for (size_t i = g * kGroup; i < std::min(n, (g + 1) * kGroup); ++i) {
      const TreeSlot slot{model.split_words.data() + model.split_begin[i], words[i].splits,
                          model.leaf_words.data() + model.leaf_begin[i], words[i].leaves};
      widest[i] = decode_tree(trees[begin + i].first, trees[begin + i].second, shape, slot, scratch);
    }
  });
  for (int32_t w : widest) model.max_count = std::max(model.max_count, w);
  return model;
}

}  // namespace ccforest
