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
    own_begin_.assign(n_leaf + 1, n_leaf);
    for (size_t l = 0; l < n_leaf; ++l) {
      const int32_t size = sample.first[l];
      if (size < 0) throw DamagedModel(mismatch);
      own_begin_[l + 1] = own_begin_[l] + static_cast<size_t>(size);
    }
    if (own_begin_[n_leaf] != sample.second) throw DamagedModel(mismatch);
    begin_ = own_begin_.data();
    n_stored_ = sample.second;
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

  /** Positions and values it stores: what relocate() copies. */
  size_t n_positions() const { return own_begin_.size(); }
  size_t n_stored() const { return n_stored_; }
  /**
   * Copies its positions and stored values (the leaf sizes first, as in R,
   * then the rows) into forest-wide blocks, at `positions` and `rows`, and
   * views them there.
   */
  void relocate(size_t* positions, int32_t* rows) {
    std::copy(own_begin_.begin(), own_begin_.end(), positions);
    std::copy(rows_, rows_ + n_stored_, rows);
    begin_ = positions;
    rows_ = rows;
    std::vector<size_t>().swap(own_begin_);
    std::vector<int32_t>().swap(own_);
  }
  /** Asks for the leaf's positions, then (prefetch_rows()) its first rows, ahead of reading them. */
  void prefetch_leaf(size_t leaf) const { __builtin_prefetch(begin_ + leaf); }
  void prefetch_rows(size_t leaf) const {
    __builtin_prefetch(rows_ + begin_[leaf]);
    if (weight_ != nullptr) __builtin_prefetch(block_.data() + begin_[leaf] / kBlock);
  }
  size_t begin(size_t leaf) const { return begin_[leaf]; }
  size_t end(size_t leaf) const { return begin_[leaf + 1]; }
  double output(const double* y, size_t k) const { return y[rows_[k]]; }
  int32_t row(size_t k) const { return rows_[k]; }
  /** Bytes held beyond the stored samples it views. */
  size_t bytes() const {
    return own_begin_.capacity() * sizeof(size_t) + own_.capacity() * sizeof(int32_t) +
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
  const size_t* begin_;            // position of each leaf's first row; n_leaf + 1 values
  size_t n_stored_ = 0;            // values stored: leaf sizes, then rows
  std::vector<size_t> own_begin_;  // begin_ until relocate()
  std::vector<int32_t> own_;       // the rows re-sorted by output, when stored otherwise
  std::vector<double> block_;      // running totals at every kBlock-th position
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

/** Whether a histogram over the n_train ranks costs less than selecting among the entries. */
bool ranks_pay(size_t n_train, size_t n_entry) { return n_train <= 8 * n_entry + 4096; }

/**
 * quantile_of() for every probability at once, where it can be decided
 * without F: the row's shares are added up by training row in output order
 * (a histogram over the ranks, one pass, no sorting or selection), giving an
 * estimate of F at each candidate output. Estimate and F sum the same terms
 * in different orders, so they differ by less than `margin`; a candidate
 * whose estimate is at least `margin` above the target qualifies, and one at
 * least `margin` below it does not. The answer for a probability is decided
 * when the first candidate whose estimate comes within `margin` of its
 * target is clearly above it: it qualifies and the candidate before it does
 * not, which is quantile_of()'s answer. `decided[q]` says which were; the
 * others (a target within rounding of a candidate's total, or never reached)
 * are left to quantile_of().
 */
void rank_quantiles(const std::vector<LeafRange>& ranges, const double* y,
                    const std::vector<int32_t>& by_rank, const std::vector<int32_t>& rank,
                    const std::vector<double>& target, double margin, std::vector<double>& mass,
                    double* answer, std::vector<char>& decided) {
  mass.assign(by_rank.size(), 0.0);
  size_t lo = mass.size(), hi = 0;
  for (const LeafRange& r : ranges) {
    for (size_t k = r.begin; k < r.end; ++k) {
      const size_t at = static_cast<size_t>(rank[static_cast<size_t>(r.sample->row(k))]);
      mass[at] += r.sample->weight(k) / r.total;
      lo = std::min(lo, at);
      hi = std::max(hi, at);
    }
  }
  decided.assign(target.size(), 0);
  size_t q = 0;
  double below = 0.0;  // the estimate at the candidate before the current one
  const auto close = [&](double value, double estimate) {
    for (; q < target.size() && estimate >= target[q] - margin; ++q) {
      answer[q] = value;
      decided[q] = estimate >= target[q] + margin && below < target[q] - margin;
    }
    below = estimate;
  };
  double estimate = 0.0, value = 0.0;
  bool open = false;  // whether `value` is a candidate still being added up
  for (size_t at = lo; at <= hi && q < target.size(); ++at) {
    // A share too small to register leaves the estimate where it was: its
    // output cannot be the first to qualify.
    if (mass[at] == 0.0) continue;
    const double v = y[by_rank[at]];
    if (open && v != value) close(value, estimate);
    value = v;
    open = true;
    estimate += mass[at];
  }
  if (open) close(value, estimate);
}

}  // namespace

struct QuantileSamples::Trees {
  std::vector<TreeSample> each;
  // The training rows in increasing order of output (ties by row), and each
  // row's position in it: for rank_quantiles(). Empty when an output is not
  // finite (such rows are never in a sample; sorting them would not be
  // defined).
  std::vector<int32_t> by_rank, rank;
  // Every tree's positions and stored values, tree after tree, in two
  // blocks that may sit on huge pages: a row's quantiles read a leaf in each
  // of hundreds of trees, which in R's separate vectors (4 KB pages anywhere
  // in R's heap) cost an address translation miss each once gc() has run.
  std::vector<size_t, RecordAllocator<size_t>> positions;
  std::vector<int32_t, RecordAllocator<int32_t>> rows;
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
  size_t n_position = 0, n_stored = 0;
  for (const TreeSample& tree : trees_->each) {
    n_position += tree.n_positions();
    n_stored += tree.n_stored();
  }
  trees_->positions.resize(n_position);
  trees_->rows.resize(n_stored);
  n_position = 0;
  n_stored = 0;
  for (TreeSample& tree : trees_->each) {
    const size_t positions = tree.n_positions(), stored = tree.n_stored();
    tree.relocate(trees_->positions.data() + n_position, trees_->rows.data() + n_stored);
    n_position += positions;
    n_stored += stored;
  }
  if (n_train < static_cast<size_t>(std::numeric_limits<int32_t>::max()) &&
      std::all_of(y, y + n_train, [](double v) { return std::isfinite(v); })) {
    std::vector<int32_t>& by_rank = trees_->by_rank;
    by_rank.resize(n_train);
    for (size_t i = 0; i < n_train; ++i) by_rank[i] = static_cast<int32_t>(i);
    std::stable_sort(by_rank.begin(), by_rank.end(), [y](int32_t a, int32_t b) { return y[a] < y[b]; });
    trees_->rank.resize(n_train);
    for (size_t r = 0; r < n_train; ++r) {
      trees_->rank[static_cast<size_t>(by_rank[r])] = static_cast<int32_t>(r);
    }
  }
}

QuantileSamples::~QuantileSamples() = default;

size_t QuantileSamples::n_tree() const { return trees_->each.size(); }

size_t QuantileSamples::bytes() const {
  size_t total = trees_->each.capacity() * sizeof(TreeSample) +
                 (trees_->by_rank.capacity() + trees_->rank.capacity()) * sizeof(int32_t) +
                 RecordAllocator<size_t>::block_bytes(trees_->positions.capacity()) +
                 RecordAllocator<int32_t>::block_bytes(trees_->rows.capacity());
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
  const std::vector<int32_t>& by_rank = samples.trees().by_rank;
  const std::vector<int32_t>& rank = samples.trees().rank;
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
    size_t n_entry = 0;
    for (const LeafRange& r : ranges) n_entry += r.end - r.begin;
    std::vector<char> decided(probs.size(), 0);
    if (!by_rank.empty() && ranks_pay(by_rank.size(), n_entry)) {
      const double trees = static_cast<double>(ranges.size());
      std::vector<double> target(probs.size());
      for (size_t q = 0; q < probs.size(); ++q) target[q] = probs[q] * trees - rounding;
      // F and the estimate each err by at most (their additions plus each
      // term's own roundings) units of 2^-53 of their total, at most one per
      // tree: four times their sum.
      const double margin =
          std::ldexp(4.0, -53) * trees *
          (static_cast<double>(n_entry + ranges.size() + 3 * largest_leaf) + 2.0);
      std::vector<double> mass, answer(probs.size());
      rank_quantiles(ranges, y, by_rank, rank, target, margin, mass, answer.data(), decided);
      for (size_t q = 0; q < probs.size(); ++q) {
        if (decided[q]) out[q * n + i] = answer[q];
      }
    }
    if (std::all_of(decided.begin(), decided.end(), [](char d) { return d != 0; })) return;
    std::vector<Entry> entries = row_entries(ranges, y);
    for (size_t q = 0; q < probs.size(); ++q) {
      if (decided[q]) continue;
      out[q * n + i] = quantile_of(ranges, entries, y, probs[q], rounding,
                                   0x9e3779b97f4a7c15ULL ^ (i * 0xbf58476d1ce4e5b9ULL + q + 1));
    }
  });
}

}  // namespace ccforest
