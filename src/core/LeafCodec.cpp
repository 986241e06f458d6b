#include "LeafCodec.h"

#include <cmath>
#include <limits>
#include <stdexcept>

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

/** The class codes of a tree's leaves: per (leaf, output), and the classes of the mixed ones. */
struct ClassCodes {
  std::vector<uint32_t> code;         // per (leaf, output): 0 mixed, else class + 1
  std::vector<uint32_t> mixed_count;  // per mixed (leaf, output): its classes
  std::vector<int32_t> mixed_class;   // their classes, offset over all outputs
};

ClassCodes read_class_codes(Reader& in, const ModelShape& shape, size_t n_leaf) {
  const size_t n_out = shape.n_class.size();
  const std::vector<int> offset = class_offsets(shape);
  ClassCodes codes;
  in.expect(static_cast<uint64_t>(n_leaf) * n_out, 1);
  codes.code.resize(n_leaf * n_out);
  // Leaf by leaf, output by output (no division per code: there are
  // millions in a large forest).
  for (size_t l = 0, i = 0; l < n_leaf; ++l) {
    for (size_t m = 0; m < n_out; ++m, ++i) {
      codes.code[i] = static_cast<uint32_t>(in.varint(static_cast<uint64_t>(shape.n_class[m])));
    }
  }
  for (size_t l = 0, i = 0; l < n_leaf; ++l) {
    for (size_t m = 0; m < n_out; ++m, ++i) {
      if (codes.code[i] != 0) continue;
      const int n_class = shape.n_class[m];
      const uint32_t c = static_cast<uint32_t>(in.varint(static_cast<uint64_t>(n_class)));
      if (c < 2) throw DamagedModel("a leaf's class counts are inconsistent");
      in.expect(c, 1);
      codes.mixed_count.push_back(c);
      int64_t previous = -1;
      for (uint32_t k = 0; k < c; ++k) {
        const int64_t cls =
            previous + 1 + static_cast<int64_t>(in.varint(static_cast<uint64_t>(n_class)));
        if (cls >= n_class) throw DamagedModel("a leaf refers to a class out of range");
        codes.mixed_class.push_back(static_cast<int32_t>(cls + offset[m]));
        previous = cls;
      }
    }
  }
  return codes;
}

uint64_t class_share_words(Reader& in, const ModelShape& shape, size_t n_leaf) {
  const size_t n_out = shape.n_class.size();
  const ClassCodes codes = read_class_codes(in, shape, n_leaf);
  uint64_t words = 0;
  for (size_t l = 0, mixed = 0; l < n_leaf; ++l) {
    int64_t entries = 0;
    for (size_t m = 0; m < n_out; ++m) {
      entries += codes.code[l * n_out + m] != 0 ? 1 : codes.mixed_count[mixed++];
    }
    if (entries > std::numeric_limits<int32_t>::max()) throw DamagedModel("a leaf is too large");
    words += leaf_record_words(static_cast<int32_t>(entries));
  }
  return words;
}

void decode_class_shares(Reader& in, const ModelShape& shape, size_t n_leaf, Tree& tree) {
  const size_t n_out = shape.n_class.size();
  const std::vector<int> offset = class_offsets(shape);
  // The per (leaf, output) codes and the classes of the mixed ones, then
  // their proportions.
  const ClassCodes codes = read_class_codes(in, shape, n_leaf);
  const std::vector<uint32_t>& code = codes.code;
  const std::vector<uint32_t>& mixed_count = codes.mixed_count;
  const std::vector<int32_t>& mixed_class = codes.mixed_class;
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

uint64_t mean_words(Reader&, const ModelShape& shape, size_t n_leaf) {
  return static_cast<uint64_t>(n_leaf) * leaf_record_words(shape.n_output_real);
}

/*
 * Survival counts: each leaf's Nelson-Aalen estimator, as the rows at risk Y
 * and the events d_c of each cause at each of the leaf's event times, which
 * are numbers k of the data's distinct event times (kept once, in R). In a
 * Tree, event time k of a leaf is the entry (k (K + 1), Y) followed by
 * (k (K + 1) + c, d_c) for each cause c with events there.
 *
 * Stored: u8 kind (0: whole counts, 1: weighted, as doubles); per leaf
 * varint number of event times; per event time varint time step (the first
 * time, then the gap to the previous one minus one); then Y per event time
 * and d_c per event time and cause (K of them, zeros included): varints, or
 * 8 byte planes when weighted. A leaf of five rows with two event times takes
 * about eight bytes.
 */
constexpr double kWholeLimit = 9007199254740992.0;  // 2^53

void encode_survival(const Tree& tree, const ModelShape& shape, std::vector<uint8_t>& out) {
  const int k = shape.n_cause;
  bool whole = true;
  for (double v : tree.leaf_value) whole = whole && v == std::floor(v) && v >= 0.0 && v < kWholeLimit;
  std::vector<uint64_t> jumps, steps, at_risk, events;
  // Sized whole: grown entry by entry, these took a dozen allocations a tree.
  size_t n_time = 0;
  for (int index : tree.leaf_index) n_time += index % (k + 1) == 0;
  jumps.reserve(tree.n_leaves());
  steps.reserve(n_time);
  at_risk.reserve(n_time);
  events.reserve(n_time * static_cast<size_t>(k));
  for (size_t l = 0; l < tree.n_leaves(); ++l) {
    const int first = tree.leaf_begin[l], last = tree.leaf_begin[l + 1];
    uint64_t n_jumps = 0;
    int previous = -1;
    for (int e = first; e < last;) {
      const int time = tree.leaf_index[e] / (k + 1);
      if (tree.leaf_index[e] % (k + 1) != 0) throw std::logic_error("a survival leaf lacks its rows at risk");
      ++n_jumps;
      steps.push_back(static_cast<uint64_t>(time - previous - 1));
      previous = time;
      at_risk.push_back(whole ? static_cast<uint64_t>(tree.leaf_value[e]) : bits_of(tree.leaf_value[e]));
      ++e;
      const size_t cause_start = events.size();
      events.resize(cause_start + static_cast<size_t>(k), whole ? 0 : bits_of(0.0));
      for (; e < last && tree.leaf_index[e] / (k + 1) == time; ++e) {
        const size_t c = static_cast<size_t>(tree.leaf_index[e] % (k + 1));
        events[cause_start + c - 1] = whole ? static_cast<uint64_t>(tree.leaf_value[e]) : bits_of(tree.leaf_value[e]);
      }
    }
    jumps.push_back(n_jumps);
  }
  out.push_back(whole ? 0 : 1);
  for (uint64_t v : jumps) put_varint(out, v);
  for (uint64_t v : steps) put_varint(out, v);
  if (whole) {
    for (uint64_t v : at_risk) put_varint(out, v);
    for (uint64_t v : events) put_varint(out, v);
  } else {
    put_planes(out, at_risk, 8);
    put_planes(out, events, 8);
  }
}

/** A tree's survival leaves as stored: event times per leaf, their steps, Y and d_c. */
struct SurvivalCounts {
  std::vector<uint64_t> jumps;  // per leaf
  std::vector<uint64_t> steps;  // per event time
  std::vector<double> at_risk;  // per event time
  std::vector<double> events;   // per event time and cause
};

SurvivalCounts read_survival_counts(Reader& in, const ModelShape& shape, size_t n_leaf) {
  const int k = shape.n_cause;
  const uint64_t n_time = static_cast<uint64_t>(shape.n_time);
  const uint8_t kind = in.byte();
  if (kind > 1) throw DamagedModel("a survival leaf has an unknown kind");
  const bool whole = kind == 0;
  SurvivalCounts counts;
  in.expect(n_leaf, 1);
  counts.jumps.resize(n_leaf);
  uint64_t total = 0;
  for (size_t l = 0; l < n_leaf; ++l) {
    counts.jumps[l] = in.varint(n_time);
    total += counts.jumps[l];
  }
  in.expect(total, 1);
  counts.steps.resize(total);
  for (uint64_t& v : counts.steps) v = in.varint(n_time);
  const size_t n_events = static_cast<size_t>(total) * static_cast<size_t>(k);
  counts.at_risk.resize(total);
  counts.events.resize(n_events);
  if (whole) {
    in.expect(total + n_events, 1);
    for (double& v : counts.at_risk) v = static_cast<double>(in.varint(static_cast<uint64_t>(kWholeLimit)));
    for (double& v : counts.events) v = static_cast<double>(in.varint(static_cast<uint64_t>(kWholeLimit)));
  } else {
    std::vector<uint64_t> bits;
    in.planes(static_cast<size_t>(total), 8, bits);
    for (size_t i = 0; i < bits.size(); ++i) counts.at_risk[i] = as_double(bits[i]);
    in.planes(n_events, 8, bits);
    for (size_t i = 0; i < bits.size(); ++i) counts.events[i] = as_double(bits[i]);
  }
  return counts;
}

uint64_t survival_words(Reader& in, const ModelShape& shape, size_t n_leaf) {
  const size_t k = static_cast<size_t>(shape.n_cause);
  const SurvivalCounts counts = read_survival_counts(in, shape, n_leaf);
  uint64_t words = 0;
  for (size_t l = 0, jump = 0; l < n_leaf; ++l) {
    // An event time's entries: the rows at risk, then each cause with events
    // (as decode_survival() lays them out).
    uint64_t entries = 0;
    for (uint64_t j = 0; j < counts.jumps[l]; ++j, ++jump) {
      ++entries;
      for (size_t c = 0; c < k; ++c) entries += counts.events[jump * k + c] > 0.0;
    }
    if (entries > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      throw DamagedModel("a leaf is too large");
    }
    words += leaf_record_words(static_cast<int32_t>(entries));
  }
  return words;
}

void decode_survival(Reader& in, const ModelShape& shape, size_t n_leaf, Tree& tree) {
  const int k = shape.n_cause;
  const SurvivalCounts counts = read_survival_counts(in, shape, n_leaf);
  const std::vector<uint64_t>& jumps = counts.jumps;
  const std::vector<uint64_t>& steps = counts.steps;
  const std::vector<double>& at_risk = counts.at_risk;
  const std::vector<double>& events = counts.events;
  tree.leaf_begin.assign(1, 0);
  tree.leaf_index.clear();
  tree.leaf_value.clear();
  size_t jump = 0;
  for (size_t l = 0; l < n_leaf; ++l) {
    int64_t previous = -1;
    double left = std::numeric_limits<double>::infinity();  // rows still at risk
    for (uint64_t j = 0; j < jumps[l]; ++j, ++jump) {
      const int64_t time = previous + 1 + static_cast<int64_t>(steps[jump]);
      if (time >= shape.n_time) throw DamagedModel("a leaf refers to an event time out of range");
      previous = time;
      const double y = at_risk[jump];
      // The rows at risk fall from one event time to the next by at least
      // the events between (weighted sums up to their rounding).
      if (!(std::isfinite(y) && y > 0.0 && y <= left * (1.0 + 1e-12))) {
        throw DamagedModel("a leaf's rows at risk are inconsistent");
      }
      const int base = static_cast<int>(time) * (k + 1);
      tree.leaf_index.push_back(base);
      tree.leaf_value.push_back(y);
      double d_total = 0.0;
      for (int c = 1; c <= k; ++c) {
        const double d = events[jump * static_cast<size_t>(k) + static_cast<size_t>(c - 1)];
        if (!(std::isfinite(d) && d >= 0.0)) throw DamagedModel("a leaf's event counts are invalid");
        d_total += d;
        if (d > 0.0) {
          tree.leaf_index.push_back(base + c);
          tree.leaf_value.push_back(d);
        }
      }
      if (!(d_total > 0.0 && d_total <= y * (1.0 + 1e-12))) {
        throw DamagedModel("a leaf's event counts are inconsistent");
      }
      left = y - d_total;
    }
    tree.leaf_begin.push_back(static_cast<int>(tree.leaf_value.size()));
  }
}

const LeafCodec kClassShares{encode_class_shares, decode_class_shares, class_share_words};
const LeafCodec kMeans{encode_means, decode_means, mean_words};
const LeafCodec kSurvivalCounts{encode_survival, decode_survival, survival_words};

}  // namespace

const LeafCodec& leaf_codec(const ModelShape& shape) {
  if (shape.is_survival()) return kSurvivalCounts;
  return shape.is_classification() ? kClassShares : kMeans;
}

}  // namespace ccforest
