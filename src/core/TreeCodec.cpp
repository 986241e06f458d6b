#include "TreeCodec.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "Projection.h"

namespace ccforest {

namespace {

constexpr uint8_t kFormat = 2;

void put_varint(std::vector<uint8_t>& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<uint8_t>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<uint8_t>(value));
}

uint64_t bits_of(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

uint32_t bits_of(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

/** Appends `width`-byte words as byte planes, most significant plane first. */
template <typename Word>
void put_planes(std::vector<uint8_t>& out, const std::vector<Word>& words, int width) {
  for (int plane = width - 1; plane >= 0; --plane) {
    for (Word w : words) out.push_back(static_cast<uint8_t>(w >> (8 * plane)));
  }
}

/** Reads an encoded tree front to back; every read is bounds-checked. */
class Reader {
 public:
  Reader(const uint8_t* bytes, size_t size) : p_(bytes), end_(bytes + size) {}

  size_t remaining() const { return static_cast<size_t>(end_ - p_); }

  uint8_t byte() {
    if (p_ == end_) throw DamagedModel("a tree is truncated");
    return *p_++;
  }

  uint64_t varint(uint64_t max) {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const uint8_t b = byte();
      value |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        if (value > max) throw DamagedModel("a tree holds a count or index out of range");
        return value;
      }
    }
    throw DamagedModel("a tree holds a malformed number");
  }

  /** `count` words of `width` bytes stored as planes. */
  template <typename Word>
  void planes(size_t count, int width, std::vector<Word>& words) {
    if (count > remaining() / static_cast<size_t>(width)) throw DamagedModel("a tree is truncated");
    words.assign(count, 0);
    for (int plane = width - 1; plane >= 0; --plane) {
      for (size_t i = 0; i < count; ++i) words[i] |= static_cast<Word>(*p_++) << (8 * plane);
    }
  }

  const uint8_t* take(size_t count) {
    if (count > remaining()) throw DamagedModel("a tree is truncated");
    const uint8_t* at = p_;
    p_ += count;
    return at;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

double as_double(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

float as_float(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
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
  for (size_t s = 0; s < n_split; ++s) put_varint(out, tree.split_begin[s + 1] - tree.split_begin[s]);
  for (size_t s = 0; s < n_split; ++s) {
    int previous = -1;
    for (int e = tree.split_begin[s]; e < tree.split_begin[s + 1]; ++e) {
      put_varint(out, static_cast<uint64_t>(tree.column[e] - previous - 1));
      previous = tree.column[e];
    }
  }
  put_planes(out, tree.coef_code, 2);
  std::vector<uint64_t> threshold_bits(n_split);
  for (size_t s = 0; s < n_split; ++s) threshold_bits[s] = bits_of(tree.threshold[s]);
  put_planes(out, threshold_bits, 8);

  const size_t n_leaf = tree.n_leaves();
  if (shape.is_classification()) {
    std::vector<int> offset(shape.n_class.size() + 1, 0);
    for (size_t m = 0; m < shape.n_class.size(); ++m) offset[m + 1] = offset[m] + shape.n_class[m];
    std::vector<uint8_t> mixed;
    std::vector<uint32_t> proportions;
    for (size_t l = 0; l < n_leaf; ++l) {
      int e = tree.leaf_begin[l];
      const int last = tree.leaf_begin[l + 1];
      for (size_t m = 0; m < shape.n_class.size(); ++m) {
        int first = e;
        while (e < last && tree.leaf_index[e] < offset[m + 1]) ++e;
        if (e - first == 1) {
          put_varint(out, static_cast<uint64_t>(tree.leaf_index[first] - offset[m] + 1));
          continue;
        }
        put_varint(out, 0);
        put_varint(mixed, static_cast<uint64_t>(e - first));
        int previous = -1;
        for (int i = first; i < e; ++i) {
          const int code = tree.leaf_index[i] - offset[m];
          put_varint(mixed, static_cast<uint64_t>(code - previous - 1));
          previous = code;
          proportions.push_back(bits_of(static_cast<float>(tree.leaf_value[i])));
        }
      }
    }
    out.insert(out.end(), mixed.begin(), mixed.end());
    put_planes(out, proportions, 4);
  } else {
    std::vector<uint64_t> means(tree.leaf_value.size());
    for (size_t i = 0; i < means.size(); ++i) means[i] = bits_of(tree.leaf_value[i]);
    put_planes(out, means, 8);
  }
  return out;
}

void decode_tree(const uint8_t* bytes, size_t size, ForestModel& model) {
  const ModelShape& shape = model.shape;
  Reader in(bytes, size);
  if (in.byte() != kFormat) throw DamagedModel("a tree has an unknown format");
  // Every node takes at least one bit, so a count beyond the bytes left is damage
  // (and must not be allocated).
  const uint64_t n_nodes = in.varint(8 * static_cast<uint64_t>(in.remaining()));
  if (n_nodes < 1 || n_nodes > static_cast<uint64_t>(std::numeric_limits<int32_t>::max() / 8)) {
    throw DamagedModel("a tree has no nodes or too many");
  }
  const uint8_t* flags = in.take((n_nodes + 7) / 8);
  auto is_split = [flags](uint64_t j) { return ((flags[j / 8] >> (j % 8)) & 1u) != 0; };
  size_t n_split = 0;
  for (uint64_t j = 0; j < n_nodes; ++j) n_split += is_split(j);
  // A binary tree with s splits has 2s + 1 nodes, and the children of the
  // k-th split are nodes 2k + 1 and 2k + 2 (see Tree.h), inside the tree.
  if (n_nodes != 2 * static_cast<uint64_t>(n_split) + 1) {
    throw DamagedModel("its split flags do not describe a binary tree");
  }
  const size_t n_leaf = n_split + 1;

  // Every count, column step and class code below takes a byte at least:
  // sizes beyond the bytes left are damage, refused before allocating.
  if (n_split > in.remaining()) throw DamagedModel("a tree is truncated");
  std::vector<int32_t> counts(n_split);
  size_t n_entries = 0;
  const uint64_t max_k = static_cast<uint64_t>(shape.n_column);
  for (size_t s = 0; s < n_split; ++s) {
    counts[s] = static_cast<int32_t>(in.varint(max_k));
    if (counts[s] == 0) throw DamagedModel("a split has no coefficients");
    n_entries += static_cast<size_t>(counts[s]);
    model.max_count = std::max(model.max_count, counts[s]);
  }
  if (n_entries > in.remaining()) throw DamagedModel("a tree is truncated");
  std::vector<int32_t> column(n_entries);
  for (size_t s = 0, e = 0; s < n_split; ++s) {
    int64_t previous = -1;
    for (int32_t i = 0; i < counts[s]; ++i, ++e) {
      const int64_t c = previous + 1 + static_cast<int64_t>(in.varint(max_k));
      if (c >= shape.n_column) throw DamagedModel("a split refers to a column out of range");
      column[e] = static_cast<int32_t>(c);
      previous = c;
    }
  }
  std::vector<uint16_t> codes;
  in.planes(n_entries, 2, codes);
  std::vector<uint64_t> threshold_bits;
  in.planes(n_split, 8, threshold_bits);

  // Leaf values: (index, value) entries, leaf by leaf.
  std::vector<int32_t> leaf_begin(n_leaf + 1, 0), value_index;
  std::vector<double> value;
  if (shape.is_classification()) {
    const size_t n_out = shape.n_class.size();
    std::vector<int> offset(n_out + 1, 0);
    for (size_t m = 0; m < n_out; ++m) offset[m + 1] = offset[m] + shape.n_class[m];
    // Pass 1: the per (leaf, output) codes; pass 2: classes of the mixed ones;
    // pass 3: their proportions.
    if (n_leaf * n_out > in.remaining()) throw DamagedModel("a tree is truncated");
    std::vector<uint32_t> code(n_leaf * n_out);
    for (size_t i = 0; i < code.size(); ++i) {
      code[i] = static_cast<uint32_t>(in.varint(static_cast<uint64_t>(shape.n_class[i % n_out])));
    }
    std::vector<int32_t> mixed_class;
    std::vector<uint32_t> mixed_count;
    for (size_t i = 0; i < code.size(); ++i) {
      if (code[i] != 0) continue;
      const int n_class = shape.n_class[i % n_out];
      const uint32_t c = static_cast<uint32_t>(in.varint(static_cast<uint64_t>(n_class)));
      if (c < 2) throw DamagedModel("a leaf's class counts are inconsistent");
      mixed_count.push_back(c);
      int64_t previous = -1;
      for (uint32_t k = 0; k < c; ++k) {
        const int64_t cls = previous + 1 + static_cast<int64_t>(in.varint(static_cast<uint64_t>(n_class)));
        if (cls >= n_class) throw DamagedModel("a leaf refers to a class out of range");
        mixed_class.push_back(static_cast<int32_t>(cls + offset[i % n_out]));
        previous = cls;
      }
    }
    std::vector<uint32_t> proportion_bits;
    in.planes(mixed_class.size(), 4, proportion_bits);
    size_t mixed = 0, mixed_entry = 0;
    for (size_t l = 0; l < n_leaf; ++l) {
      leaf_begin[l] = static_cast<int32_t>(value.size());
      for (size_t m = 0; m < n_out; ++m) {
        const uint32_t c = code[l * n_out + m];
        if (c != 0) {
          value_index.push_back(offset[m] + static_cast<int32_t>(c) - 1);
          value.push_back(1.0);
          continue;
        }
        const size_t first = value.size();
        double total = 0.0;
        for (uint32_t k = 0; k < mixed_count[mixed]; ++k, ++mixed_entry) {
          const double p = as_float(proportion_bits[mixed_entry]);
          if (!(p >= 0.0 && p <= 1.0)) throw DamagedModel("a leaf holds a proportion outside [0, 1]");
          value_index.push_back(mixed_class[mixed_entry]);
          value.push_back(p);
          total += p;
        }
        // Rounding each proportion to float moves their sum off 1 by at most
        // 2^-24; anything further is damage. Dividing by the sum makes every
        // leaf's (and so every prediction's) probabilities sum to 1 again.
        if (!(std::abs(total - 1.0) <= 0x1p-20)) {
          throw DamagedModel("a leaf's class proportions do not sum to 1");
        }
        for (size_t i = first; i < value.size(); ++i) value[i] /= total;
        ++mixed;
      }
    }
  } else {
    const size_t n_out = static_cast<size_t>(shape.n_output_real);
    std::vector<uint64_t> mean_bits;
    in.planes(n_leaf * n_out, 8, mean_bits);
    for (size_t l = 0; l < n_leaf; ++l) {
      leaf_begin[l] = static_cast<int32_t>(value.size());
      for (size_t m = 0; m < n_out; ++m) {
        const double v = as_double(mean_bits[l * n_out + m]);
        if (!std::isfinite(v)) throw DamagedModel("a leaf value is not finite");
        value_index.push_back(static_cast<int32_t>(m));
        value.push_back(v);
      }
    }
  }
  leaf_begin[n_leaf] = static_cast<int32_t>(value.size());
  if (in.remaining() != 0) throw DamagedModel("a tree has trailing bytes");

  // Lay the split records out breadth first: positions first, then
  // contents. Node j's child reference: its split record's position, or for a
  // leaf ~(its record's position among the leaf records).
  std::vector<int32_t> reference(n_nodes, 0);
  int64_t words_needed = 0, leaf_words_needed = 0;
  for (uint64_t j = 0, s = 0, l = 0; j < n_nodes; ++j) {
    if (is_split(j)) {
      // Children after their parents: every walk then moves forward and ends
      // at a leaf (and a tree whose root is a leaf has no splits).
      if (2 * s + 1 <= j) throw DamagedModel("a split's children come before it");
      reference[j] = static_cast<int32_t>(words_needed);
      words_needed += 3 + static_cast<int64_t>(counts[s++]);
      if (words_needed > std::numeric_limits<int32_t>::max()) throw DamagedModel("a tree is too large");
    } else {
      reference[j] = ~static_cast<int32_t>(leaf_words_needed);
      leaf_words_needed += static_cast<int64_t>(leaf_record_words(leaf_begin[l + 1] - leaf_begin[l]));
      if (leaf_words_needed > std::numeric_limits<int32_t>::max()) throw DamagedModel("a tree is too large");
      ++l;
    }
  }
  std::vector<uint64_t> leaf_words(static_cast<size_t>(leaf_words_needed));
  for (size_t l = 0, at = 0; l < n_leaf; ++l) {
    const int32_t count = leaf_begin[l + 1] - leaf_begin[l];
    const LeafHead head{count, static_cast<int32_t>(l)};
    std::memcpy(leaf_words.data() + at, &head, sizeof head);
    int32_t* index = reinterpret_cast<int32_t*>(leaf_words.data() + at + 1);
    double* values = reinterpret_cast<double*>(leaf_words.data() + at + 1 + (count + 1) / 2);
    for (int32_t e = 0; e < count; ++e) {
      index[e] = value_index[static_cast<size_t>(leaf_begin[l] + e)];
      values[e] = value[static_cast<size_t>(leaf_begin[l] + e)];
    }
    at += leaf_record_words(count);
  }
  std::vector<uint64_t> words(static_cast<size_t>(words_needed));
  uint64_t* tree = words.data();
  std::vector<int32_t> depth(n_nodes, 0);
  size_t entry = 0;
  for (uint64_t j = 0, s = 0; j < n_nodes; ++j) {
    if (!is_split(j)) continue;
    uint64_t* record = tree + reference[j];
    NodeHead head{};
    head.depth = depth[j];
    head.threshold = as_double(threshold_bits[s]);
    if (!std::isfinite(head.threshold)) throw DamagedModel("a split threshold is not finite");
    head.left = reference[2 * s + 1];
    head.right = reference[2 * s + 2];
    head.count = counts[s];
    depth[2 * s + 1] = depth[2 * s + 2] = depth[j] + 1;
    SplitTerm* term = reinterpret_cast<SplitTerm*>(record + 3);
    for (int32_t e = 0; e < head.count; ++e, ++entry) {
      term[e].column = column[entry];
      term[e].coef = decode_coefficient(codes[entry]);
    }
    std::memcpy(record, &head, sizeof head);
    ++s;
  }
  model.trees.push_back(std::move(words));
  model.leaves.push_back(std::move(leaf_words));
  model.n_leaves.push_back(static_cast<int32_t>(n_leaf));
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
  for (ForestModel& tree : one) {
    model.trees.push_back(std::move(tree.trees[0]));
    model.leaves.push_back(std::move(tree.leaves[0]));
    model.n_leaves.push_back(tree.n_leaves[0]);
    model.max_count = std::max(model.max_count, tree.max_count);
  }
  return model;
}

}  // namespace ccforest
