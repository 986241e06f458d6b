#include "LeafCodec.h"

#include <cmath>

namespace ccforest {

namespace {

std::vector<int> class_offsets(const ModelShape& shape) {
  std::vector<int> offset(shape.n_class.size() + 1, 0);
  for (size_t m = 0; m < shape.n_class.size(); ++m) offset[m + 1] = offset[m] + shape.n_class[m];
  return offset;
}

/*
 * Class shares: per leaf and output, varint 0 (several classes) or class + 1
 * (one class, share 1); then per mixed (leaf, output): varint number of
 * classes c and c class steps (the first class, then the gap to the previous
 * one minus one); then their shares as float32, 4 byte planes. Decoding
 * divides each mixed output's shares by their sum, which must be 1 within
 * float rounding, so that a leaf's (and so every prediction's) probabilities
 * sum to 1.
 */
void encode_class_shares(const Tree& tree, const ModelShape& shape, std::vector<uint8_t>& out) {
  const std::vector<int> offset = class_offsets(shape);
  std::vector<uint8_t> mixed;
  std::vector<uint32_t> proportions;
  for (size_t l = 0; l < tree.n_leaves(); ++l) {
    int e = tree.leaf_begin[l];
    const int last = tree.leaf_begin[l + 1];
    for (size_t m = 0; m < shape.n_class.size(); ++m) {
      const int first = e;
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
}

void decode_class_shares(Reader& in, const ModelShape& shape, size_t n_leaf, Tree& tree) {
  const size_t n_out = shape.n_class.size();
  const std::vector<int> offset = class_offsets(shape);
  // Pass 1: the per (leaf, output) codes; pass 2: classes of the mixed ones;
  // pass 3: their proportions.
  in.expect(static_cast<uint64_t>(n_leaf) * n_out, 1);
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
    in.expect(c, 1);
    mixed_count.push_back(c);
    int64_t previous = -1;
    for (uint32_t k = 0; k < c; ++k) {
      const int64_t cls =
          previous + 1 + static_cast<int64_t>(in.varint(static_cast<uint64_t>(n_class)));
      if (cls >= n_class) throw DamagedModel("a leaf refers to a class out of range");
      mixed_class.push_back(static_cast<int32_t>(cls + offset[i % n_out]));
      previous = cls;
    }
  }
  std::vector<uint32_t> proportion_bits;
  in.planes(mixed_class.size(), 4, proportion_bits);
  tree.leaf_begin.assign(1, 0);
  tree.leaf_index.clear();
  tree.leaf_value.clear();
  size_t mixed = 0, mixed_entry = 0;
  for (size_t l = 0; l < n_leaf; ++l) {
    for (size_t m = 0; m < n_out; ++m) {
      const uint32_t c = code[l * n_out + m];
      if (c != 0) {
        tree.leaf_index.push_back(offset[m] + static_cast<int32_t>(c) - 1);
        tree.leaf_value.push_back(1.0);
        continue;
      }
      const size_t first = tree.leaf_value.size();
      double total = 0.0;
      for (uint32_t k = 0; k < mixed_count[mixed]; ++k, ++mixed_entry) {
        const double p = as_float(proportion_bits[mixed_entry]);
        if (!(p >= 0.0 && p <= 1.0)) throw DamagedModel("a leaf holds a proportion outside [0, 1]");
        tree.leaf_index.push_back(mixed_class[mixed_entry]);
        tree.leaf_value.push_back(p);
        total += p;
      }
      // Rounding each proportion to float moves their sum off 1 by at most
      // 2^-24; anything further is damage.
      if (!(std::abs(total - 1.0) <= 0x1p-20)) {
        throw DamagedModel("a leaf's class proportions do not sum to 1");
      }
      for (size_t i = first; i < tree.leaf_value.size(); ++i) tree.leaf_value[i] /= total;
      ++mixed;
    }
    tree.leaf_begin.push_back(static_cast<int>(tree.leaf_value.size()));
  }
}

/* Output means: per leaf and output, the mean as 8 byte planes. */
void encode_means(const Tree& tree, const ModelShape&, std::vector<uint8_t>& out) {
  std::vector<uint64_t> means(tree.leaf_value.size());
  for (size_t i = 0; i < means.size(); ++i) means[i] = bits_of(tree.leaf_value[i]);
  put_planes(out, means, 8);
}

void decode_means(Reader& in, const ModelShape& shape, size_t n_leaf, Tree& tree) {
  const size_t n_out = static_cast<size_t>(shape.n_output_real);
  std::vector<uint64_t> mean_bits;
  in.expect(static_cast<uint64_t>(n_leaf) * n_out, 8);
  in.planes(n_leaf * n_out, 8, mean_bits);
  tree.leaf_begin.assign(1, 0);
  tree.leaf_index.clear();
  tree.leaf_value.clear();
  for (size_t l = 0; l < n_leaf; ++l) {
    for (size_t m = 0; m < n_out; ++m) {
      const double v = as_double(mean_bits[l * n_out + m]);
      if (!std::isfinite(v)) throw DamagedModel("a leaf value is not finite");
      tree.leaf_index.push_back(static_cast<int>(m));
      tree.leaf_value.push_back(v);
    }
    tree.leaf_begin.push_back(static_cast<int>(tree.leaf_value.size()));
  }
}

const LeafCodec kClassShares{encode_class_shares, decode_class_shares};
const LeafCodec kMeans{encode_means, decode_means};

}  // namespace

const LeafCodec& leaf_codec(const ModelShape& shape) {
  return shape.is_classification() ? kClassShares : kMeans;
}

}  // namespace ccforest
