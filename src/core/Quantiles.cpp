#include "Quantiles.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <utility>

#include "Sampling.h"
#include "TreeCodec.h"

namespace ccforest {

std::vector<std::vector<int32_t>> leaf_samples(const EncodedTrees& trees, const ModelShape& shape,
                                               const Data& data, const ForestSource& source,
                                               const Runtime& runtime) {
  std::vector<std::vector<int32_t>> out(trees.size());
  run_batched(runtime, trees.size(), [&](size_t t) {
    const ForestModel model = decode_forest(trees, shape, t, t + 1);
    const uint64_t tree = source.first_tree + t;
    Rng rng(source.seed, tree);
    std::vector<int> rows;
    draw_sample(data, source.sample, rng, rows);
    const uint64_t key = tree_impute_key(source.seed, tree);
    const size_t n_leaf = static_cast<size_t>(model.n_leaves[0]);
    std::vector<std::tuple<int32_t, double, int32_t>> leaf_row;  // (leaf, output, row)
    leaf_row.reserve(rows.size());
    std::vector<double> values(static_cast<size_t>(data.x.cols()));
    for (size_t i = 0; i < rows.size(); ++i) {
      if (i % 4096 == 0) runtime.throw_if_cancelled();
      tree_row(data, rows[i], source.impute_random, key,
               data.row_hash[static_cast<size_t>(rows[i])], values.data());
      leaf_row.emplace_back(model.leaf(0, find_leaf(model, 0, values.data())).number,
                            data.y_real(rows[i], 0), rows[i]);
    }
    // Within a leaf, by output: prediction then merges the leaves' outputs
    // without sorting them again.
    std::sort(leaf_row.begin(), leaf_row.end());
    std::vector<int32_t>& sample = out[t];
    sample.assign(n_leaf, 0);
    for (const auto& lr : leaf_row) ++sample[static_cast<size_t>(std::get<0>(lr))];
    for (const auto& lr : leaf_row) sample.push_back(std::get<2>(lr));
  });
  return out;
}

namespace {

// Running weight totals are kept at every kBlock-th position of a tree's
// sample, so that the total of any prefix of a leaf costs fewer than kBlock
// additions.
constexpr size_t kBlock = 32;

/**
 * One tree's stored sample, checked and ready for quantiles: each leaf's
 * rows in increasing order of output, and, with case weights, running
 * totals of their weights.
 */
class TreeSample {
 public:
  TreeSample(const LeafSample& sample, size_t n_leaf, const double* y, const double* weight,
             size_t n_train)
      : rows_(sample.first), weight_(weight) {
    const std::string mismatch = "its quantile data do not match its trees";
    if (sample.second < n_leaf) throw DamagedModel(mismatch);
    begin_.assign(n_leaf + 1, n_leaf);
    for (size_t l = 0; l < n_leaf; ++l) {
      const int32_t size = sample.first[l];
      if (size < 0) throw DamagedModel(mismatch);
      begin_[l + 1] = begin_[l] + static_cast<size_t>(size);
    }
    if (begin_[n_leaf] != sample.second) throw DamagedModel(mismatch);
    bool sorted = true;
    for (size_t l = 0; l < n_leaf; ++l) {
      for (size_t k = begin_[l]; k < begin_[l + 1]; ++k) {
        const int32_t row = sample.first[k];
        if (row < 0 || static_cast<size_t>(row) >= n_train) {
          throw DamagedModel("its quantile data refer to a training row out of range");
        }
        if (!std::isfinite(y[row])) throw DamagedModel("its training outputs are not finite");
        // A tree's sample never holds rows of weight 0.
        if (weight != nullptr && !(weight[row] > 0.0 && std::isfinite(weight[row]))) {
          throw DamagedModel("its quantile data refer to a row without positive weight");
        }
        if (k > begin_[l] && y[row] < y[sample.first[k - 1]]) sorted = false;
      }
    }
    // Forests fitted before 0.3.0 stored each leaf's rows in row order.
    if (!sorted) {
      own_.assign(sample.first, sample.first + sample.second);
      for (size_t l = 0; l < n_leaf; ++l) {
        std::sort(own_.begin() + static_cast<std::ptrdiff_t>(begin_[l]),
                  own_.begin() + static_cast<std::ptrdiff_t>(begin_[l + 1]),
                  [y](int32_t a, int32_t b) { return y[a] < y[b] || (y[a] == y[b] && a < b); });
      }
      rows_ = own_.data();
    }
    if (weight != nullptr) {
      block_.assign(sample.second / kBlock + 1, 0.0);
      for (size_t l = 0; l < n_leaf; ++l) {
        double total = 0.0;
        for (size_t k = begin_[l]; k < begin_[l + 1]; ++k) {
          if (k % kBlock == 0) block_[k / kBlock] = total;
          total += weight[rows_[k]];
        }
      }
    }
  }

  /** Asks for the leaf's positions, then (prefetch_rows()) its first rows, ahead of reading them. */
  void prefetch_leaf(size_t leaf) const { __builtin_prefetch(begin_.data() + leaf); }
  void prefetch_rows(size_t leaf) const {
    __builtin_prefetch(rows_ + begin_[leaf]);
    if (weight_ != nullptr) __builtin_prefetch(block_.data() + begin_[leaf] / kBlock);
  }
  size_t begin(size_t leaf) const { return begin_[leaf]; }
  size_t end(size_t leaf) const { return begin_[leaf + 1]; }
  double output(const double* y, size_t k) const { return y[rows_[k]]; }
  /** Bytes held beyond the stored samples it views. */
  size_t bytes() const {
    return begin_.capacity() * sizeof(size_t) + own_.capacity() * sizeof(int32_t) +
           block_.capacity() * sizeof(double);
  }
  double weight(size_t k) const { return weight_ == nullptr ? 1.0 : weight_[rows_[k]]; }

  /**
   * The weight of the leaf's entries before position k (its first entry at
   * `begin`): the running total, added in the same order whatever k, so it
   * never decreases as k grows.
   */
  double weight_before(size_t begin, size_t k) const {
    if (weight_ == nullptr) return static_cast<double>(k - begin);
    if (k == begin) return 0.0;
    const size_t block = (k - 1) / kBlock;
    size_t j = block * kBlock;
    double total = 0.0;
    if (j >= begin) {
      total = block_[block];
    } else {
      j = begin;
    }
    for (; j < k; ++j) total += weight_[rows_[j]];
    return total;
  }

 private:
  const int32_t* rows_;
  const double* weight_;
  std::vector<size_t> begin_;  // position of each leaf's first row; n_leaf + 1 values
  std::vector<int32_t> own_;   // the rows re-sorted by output, when stored otherwise
  std::vector<double> block_;  // running totals at every kBlock-th position
};

/** A row's leaf in one tree: its entries [begin, end) and their total weight. */
struct LeafRange {
  const TreeSample* sample;
  size_t begin, end;
  double total;
};

/** The first position in [lo, hi) whose output exceeds v (or, if `or_equal`, reaches it). */
size_t search(const TreeSample& s, const double* y, size_t lo, size_t hi, double v,
              bool or_equal) {
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const double out = s.output(y, mid);
    if (or_equal ? out < v : out <= v) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/**
 * The forest's cumulative distribution at v: the sum over trees, in tree
 * order, of the share of the tree's leaf weight at or below v. Summed in
 * tree order, so that whether it reaches a target does not depend on how v
 * was found; it never decreases as v grows (each share never does, and a
 * correctly rounded sum of non-decreasing terms in a fixed order never
 * does either).
 */
double share_at_or_below(const std::vector<LeafRange>& ranges, const double* y, double v) {
  double below = 0.0;
  for (const LeafRange& r : ranges) {
    const size_t above = search(*r.sample, y, r.begin, r.end, v, false);
    below += r.sample->weight_before(r.begin, above) / r.total;
  }
  return below;
}

/** One entry of a row's leaves: its output and its share of its tree's leaf weight. */
struct Entry {
  double value, share;
};

/** The entries of the row's leaves, in no particular order. */
std::vector<Entry> row_entries(const std::vector<LeafRange>& ranges, const double* y) {
  size_t size = 0;
  for (const LeafRange& r : ranges) size += r.end - r.begin;
  std::vector<Entry> entries;
  entries.reserve(size);
  for (const LeafRange& r : ranges) {
    for (size_t k = r.begin; k < r.end; ++k) {
      entries.push_back({r.sample->output(y, k), r.sample->weight(k) / r.total});
    }
  }
  return entries;
}

/**
 * A guess at the quantile: the smallest value at which the entries' shares,
 * summed in whatever order selection leaves them, reach the target
 * (infinity if they never do), by weighted quickselect: expected time
 * linear in the entries, which it reorders. The sums may differ from F's
 * tree order in the last bits, so quantile_of() confirms the guess.
 */
double guess_quantile(std::vector<Entry>& e, double target, uint64_t stream) {
  size_t lo = 0, hi = e.size();
  double below = 0.0;  // the shares of the entries left of the window
  while (lo < hi) {
    // A pseudo-random pivot (xorshift): any pivots give the same answer.
    stream ^= stream << 13;
    stream ^= stream >> 7;
    stream ^= stream << 17;
    const double pivot = e[lo + static_cast<size_t>(stream % (hi - lo))].value;
    // [lo, less) below the pivot, [less, i) at it, [greater, hi) above.
    size_t less = lo, i = lo, greater = hi;
    double less_share = 0.0, equal_share = 0.0;
    while (i < greater) {
      if (e[i].value < pivot) {
        less_share += e[i].share;
        std::swap(e[less++], e[i++]);
      } else if (e[i].value > pivot) {
        std::swap(e[i], e[--greater]);
      } else {
        equal_share += e[i++].share;
      }
    }
    if (below + less_share >= target) {
      hi = less;
    } else if (below + less_share + equal_share >= target) {
      return pivot;
    } else {
      below += less_share + equal_share;
      lo = greater;
    }
  }
  return std::numeric_limits<double>::infinity();
}

/**
 * The row's candidate outputs, distinct and in increasing order, each with
 * the shares summed in that order up to it: for bisecting on F when a guess
 * was not confirmed.
 */
struct Candidates {
  std::vector<double> value, estimate;

  explicit Candidates(std::vector<Entry> entries) {
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      return a.value < b.value || (a.value == b.value && a.share < b.share);
    });
    double sum = 0.0;
    for (size_t i = 0; i < entries.size(); ++i) {
      sum += entries[i].share;
      if (i + 1 == entries.size() || entries[i + 1].value != entries[i].value) {
        value.push_back(entries[i].value);
        estimate.push_back(sum);
      }
    }
  }
};

/**
 * The smallest candidate k whose value qualifies (the distribution there
 * reaches the target), or the number of candidates if none does; since
 * qualifying never stops as values grow, found by bisection, first outwards
 * from `guess` in doubling steps.
 */
template <typename Qualifies>
size_t first_qualifying(size_t m, size_t guess, Qualifies qualifies) {
  size_t lo = 0, hi = m;  // the answer lies in [lo, hi]; hi qualifies or is m
  if (guess < m && qualifies(guess)) {
    hi = guess;
    for (size_t step = 1; hi > 0; step *= 2) {
      const size_t probe = hi > step ? hi - step : 0;
      if (!qualifies(probe)) {
        lo = probe + 1;
        break;
      }
      hi = probe;
    }
  } else if (guess < m) {
    lo = guess + 1;
    for (size_t step = 1; lo < m; step *= 2) {
      const size_t probe = std::min(m - 1, guess + step);
      if (qualifies(probe)) {
        hi = probe;
        break;
      }
      lo = probe + 1;
    }
  }
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (qualifies(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

/**
 * The smallest output v of the row's leaves at which the forest's
 * cumulative distribution F(v) (share_at_or_below()) reaches prob times the
 * number of trees: the quantile of the weighted distribution Quantiles.h
 * describes, or the largest output if F never does (only rounding can leave
 * it short). Totals within `slack` (the rounding of F) below the target
 * count as reaching it, as they would in exact arithmetic when equal. The
 * answer is F's own: a guess from the entries is kept only if F confirms it
 * (it qualifies and the next smaller output does not); otherwise F is
 * bisected over the sorted candidates.
 */
double quantile_of(const std::vector<LeafRange>& ranges, std::vector<Entry>& entries,
                   const double* y, double prob, double slack, uint64_t stream) {
  const double target = prob * static_cast<double>(ranges.size()) - slack;
  const auto qualifies = [&](double v) { return share_at_or_below(ranges, y, v) >= target; };
  // One pass: the largest output, the next smaller one, and the largest
  // below the guess (the output before it).
  double guess = guess_quantile(entries, target, stream);
  const double none = -std::numeric_limits<double>::infinity();
  double before = none, largest = none, second = none;
  for (const Entry& e : entries) {
    if (e.value < guess) before = std::max(before, e.value);
    if (e.value > largest) {
      second = largest;
      largest = e.value;
    } else if (e.value < largest) {
      second = std::max(second, e.value);
    }
  }
  if (guess > largest) {  // the estimates never reach the target
    guess = largest;
    before = second;
  }
  const bool guess_qualifies = qualifies(guess);
  if ((guess_qualifies || guess == largest) &&
      (before == none || !qualifies(before))) {
    return guess;
  }
  const Candidates candidates(entries);
  const std::vector<double>& value = candidates.value;
  const size_t m = value.size();
  const size_t start = static_cast<size_t>(
      std::lower_bound(candidates.estimate.begin(), candidates.estimate.end(), target) -
      candidates.estimate.begin());
  const size_t k = first_qualifying(m, start, [&](size_t at) { return qualifies(value[at]); });
  return k < m ? value[k] : value[m - 1];
}

}  // namespace

struct QuantileSamples::Trees {
  std::vector<TreeSample> each;
};

QuantileSamples::QuantileSamples(const ForestModel& model, const std::vector<LeafSample>& samples,
                                 const double* y, const double* weight, size_t n_train,
                                 const Runtime& runtime)
    : trees_(std::make_unique<Trees>()), y_(y), weight_(weight) {
  if (samples.size() > model.n_tree()) throw DamagedModel("its quantile data do not match its trees");
  trees_->each.reserve(samples.size());
  for (size_t t = 0; t < samples.size(); ++t) {
    runtime.throw_if_cancelled();
    trees_->each.emplace_back(samples[t], static_cast<size_t>(model.n_leaves[t]), y, weight,
                              n_train);
  }
}

QuantileSamples::~QuantileSamples() = default;

size_t QuantileSamples::n_tree() const { return trees_->each.size(); }

size_t QuantileSamples::bytes() const {
  size_t total = trees_->each.capacity() * sizeof(TreeSample);
  for (const TreeSample& tree : trees_->each) total += tree.bytes();
  return total;
}

void predict_quantiles(const ForestModel& model, const QuantileSamples& samples,
                       const MatrixMap& x, const std::vector<uint64_t>& row_hash,
                       const PredictOptions& options, const std::vector<double>& probs,
                       const Runtime& runtime, double* out) {
  const size_t n_tree = options.trees_of(model), n = static_cast<size_t>(x.rows());
  const size_t p = static_cast<size_t>(x.cols());
  if (samples.n_tree() < n_tree) throw DamagedModel("its quantile data do not match its trees");
  const std::vector<TreeSample>& sample = samples.trees().each;
  const double* y = samples.y();
  const double* weight = samples.weight();
  Runtime all_at_once = runtime;
  all_at_once.batch_size = n;
  run_rows(all_at_once, n, n, [&](size_t i) {
    runtime.throw_if_cancelled();
    std::vector<double> row(p);
    std::vector<int32_t> leaf_at(n_tree);
    if (row_hash[i] == 0) {
      // No missing value: every tree reads the row as it is.
      tree_row(x, static_cast<Eigen::Index>(i), options.impute_random, 0, 0, row.data());
      for (size_t t = 0; t < n_tree; t += kLeafGroup) {
        find_leaves(model, t, std::min(kLeafGroup, n_tree - t), row.data(), leaf_at.data() + t);
      }
    } else {
      for (size_t t = 0; t < n_tree; ++t) {
        tree_row(x, static_cast<Eigen::Index>(i), options.impute_random,
                 tree_impute_key(options.seed, options.first_tree + t), row_hash[i], row.data());
        leaf_at[t] = find_leaf(model, t, row.data());
      }
    }
    // Each tree's leaf record, then its sample's positions, then its rows:
    // loads independent across trees, asked for in passes over all trees so
    // that their waits for memory overlap instead of adding up, which they
    // do when the fit has fallen out of the caches (after a gc(), say).
    std::vector<size_t> number(n_tree);
    for (size_t t = 0; t < n_tree; ++t) {
      number[t] = static_cast<size_t>(model.leaf(t, leaf_at[t]).number);
      sample[t].prefetch_leaf(number[t]);
    }
    for (size_t t = 0; t < n_tree; ++t) sample[t].prefetch_rows(number[t]);
    std::vector<LeafRange> ranges;
    ranges.reserve(n_tree);
    size_t largest_leaf = 0;
    for (size_t t = 0; t < n_tree; ++t) {
      const size_t leaf = number[t];
      LeafRange r{&sample[t], sample[t].begin(leaf), sample[t].end(leaf), 0.0};
      r.total = sample[t].weight_before(r.begin, r.end);
      if (!(r.total > 0.0)) continue;  // a leaf no sample row reached
      largest_leaf = std::max(largest_leaf, r.end - r.begin);
      ranges.push_back(r);
    }
    // Each tree's share is correctly rounded without weights; with weights
    // its running totals add a rounding per entry.
    const double rounding = std::ldexp(1.0, -52) * static_cast<double>(ranges.size()) *
                            static_cast<double>(ranges.size() + 2 + (weight ? largest_leaf : 0));
    if (ranges.empty()) {
      for (size_t q = 0; q < probs.size(); ++q) {
        out[q * n + i] = std::numeric_limits<double>::quiet_NaN();
      }
      return;
    }
    std::vector<Entry> entries = row_entries(ranges, y);
    for (size_t q = 0; q < probs.size(); ++q) {
      out[q * n + i] = quantile_of(ranges, entries, y, probs[q], rounding,
                                   0x9e3779b97f4a7c15ULL ^ (i * 0xbf58476d1ce4e5b9ULL + q + 1));
    }
  });
}

}  // namespace ccforest
