#include "SurvivalPredictor.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "Options.h"
#include "Sampling.h"

namespace ccforest {

namespace {

/** Entries of a row's hazard buffer that a block may hold at once (16 MB). */
constexpr size_t kBlockEntries = size_t{1} << 21;
constexpr size_t kMaxBlock = 256;

/** One row's curves from its trees' summed leaf estimates (see SurvivalRequest). */
class Reducer {
 public:
  Reducer(const SurvivalRequest& request, int n_cause, size_t n_time)
      : request_(request), k_(static_cast<size_t>(n_cause)), j_(n_time),
        surv_(n_time + 1), chf_(k_ * (n_time + 1)), cif_(k_ * (n_time + 1)), risk_(k_) {}

  /**
   * hazard and incidence: K x J sums over `count` trees of the leaves'
   * hazard and incidence increments (either may be null when not needed).
   */
  void reduce(const double* hazard, const double* incidence, int count, size_t row, size_t n,
              const SurvivalOutput& out) {
    const size_t m = request_.time_count.size();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (out.count != nullptr) out.count[row] = count;
    const double trees = static_cast<double>(count);
    const size_t stride = j_ + 1;
    std::fill(risk_.begin(), risk_.end(), count == 0 ? nan : 0.0);
    surv_[0] = 1.0;
    for (size_t c = 0; c < k_; ++c) chf_[c * stride] = cif_[c * stride] = 0.0;
    for (size_t t = 0; t < j_ && count > 0; ++t) {
      double all = 0.0;
      for (size_t c = 0; c < k_; ++c) {
        const size_t at = c * stride + t;
        if (hazard != nullptr) chf_[at + 1] = chf_[at] + hazard[c * j_ + t] / trees;
        if (incidence != nullptr) {
          cif_[at + 1] = cif_[at] + incidence[c * j_ + t] / trees;
          all += cif_[at + 1];
        }
        risk_[c] += k_ == 1 ? chf_[at + 1] : cif_[at + 1];
      }
      surv_[t + 1] = std::max(0.0, 1.0 - all);
    }
    for (size_t g = 0; g < m; ++g) {
      const size_t at = static_cast<size_t>(request_.time_count[g]);
      if (out.survival != nullptr) out.survival[g * n + row] = count == 0 ? nan : surv_[at];
      for (size_t c = 0; c < k_; ++c) {
        if (out.chf != nullptr) out.chf[(c * m + g) * n + row] = count == 0 ? nan : chf_[c * stride + at];
        if (out.cif != nullptr) out.cif[(c * m + g) * n + row] = count == 0 ? nan : cif_[c * stride + at];
      }
    }
    for (size_t c = 0; c < k_ && out.risk != nullptr; ++c) out.risk[c * n + row] = risk_[c];
    if (out.rmst != nullptr) {
      // S is surv_[t] on [t_{t-1}, t_t), with t_{-1} = 0 and t_J = infinity.
      const double tau = request_.horizon;
      double area = 0.0, previous = 0.0;
      for (size_t t = 0; t <= j_ && previous < tau; ++t) {
        const double next = t < j_ ? std::min(tau, request_.event_time[t]) : tau;
        if (next > previous) area += surv_[t] * (next - previous);
        previous = std::max(previous, next);
      }
      out.rmst[row] = count == 0 ? nan : area;
    }
  }

 private:
  const SurvivalRequest& request_;
  size_t k_, j_;
  std::vector<double> surv_, chf_, cif_, risk_;
};

/**
 * The increments a tree's leaves add to a row's buffer (K x J hazard
 * increments, then K x J incidence increments; either may be absent).
 * With `cached`, each leaf's are computed at its first row of a block and
 * kept until the next tree: one division per entry per leaf, not per row
 * that reaches it (the divisions and the leaf's survival chain took a third
 * of out-of-bag estimates). A few rows (a served request) rarely share a
 * leaf, and there filling the cache cost more than it saved (a third more
 * time for one row of a 500-tree forest), so they add each leaf's
 * increments as they are computed. Each increment is the same arithmetic
 * either way, whichever row asks.
 */
class LeafIncrements {
 public:
  LeafIncrements(int k, size_t j, bool hazard, bool incidence, bool cached)
      : k_(k), j_(j), hazard_(hazard), incidence_(incidence), cached_(cached),
        incidence_at_(hazard ? static_cast<size_t>(k) * j : 0) {}

  /** Forgets the previous tree's leaves. */
  void start_tree(int32_t n_leaf) {
    if (!cached_) return;
    first_.assign(static_cast<size_t>(n_leaf), -1);
    last_.resize(static_cast<size_t>(n_leaf));
    increment_.clear();
  }

  /** Adds leaf record `leaf` of tree t to a row's buffer. */
  void add(const ForestModel& model, size_t t, int32_t leaf, double* row) {
    double* incidence = row + incidence_at_;
    if (!cached_) {
      each_increment(model, t, leaf, [&](int32_t position, double h, double f) {
        if (hazard_) row[position] += h;
        if (incidence_) incidence[position] += f;
      });
      return;
    }
    const size_t number = static_cast<size_t>(model.leaf(t, leaf).number);
    if (first_[number] < 0) {
      first_[number] = static_cast<int32_t>(increment_.size());
      each_increment(model, t, leaf, [&](int32_t position, double h, double f) {
        increment_.push_back({position, h, f});
      });
      last_[number] = static_cast<int32_t>(increment_.size());
    }
    const Increment* from = increment_.data() + first_[number];
    const Increment* end = increment_.data() + last_[number];
    // Both kinds at once: one entry read per cause and time.
    if (hazard_ && incidence_) {
      for (; from < end; ++from) {
        row[from->position] += from->hazard;
        incidence[from->position] += from->incidence;
      }
    } else if (hazard_) {
      for (; from < end; ++from) row[from->position] += from->hazard;
    } else {
      for (; from < end; ++from) incidence[from->position] += from->incidence;
    }
  }

 private:
  /** Cause c's increments at time k (position c J + k in either half of a row's buffer). */
  struct Increment {
    int32_t position;
    double hazard;
    double incidence;
  };

  /** Calls sink(position, hazard increment, incidence increment) for each of a leaf's entries. */
  template <typename Sink>
  void each_increment(const ForestModel& model, size_t t, int32_t leaf, Sink&& sink) const {
    if (k_ == 1) {
      each_increment<1>(model, t, leaf, sink);
    } else {
      each_increment<0>(model, t, leaf, sink);
    }
  }

  /**
   * A leaf's event time is its rows at risk, then its events per cause.
   * kCauses: the number of causes k, or 0 for any: with one cause the
   * entries' time and cause are a shift and a bit, not divisions.
   */
  template <int kCauses, typename Sink>
  void each_increment(const ForestModel& model, size_t t, int32_t leaf, Sink& sink) const {
    const int32_t entries = model.leaf(t, leaf).count;
    const int32_t* index = model.leaf_index(t, leaf);
    const double* value = model.leaf_values(t, leaf);
    const int32_t stride = (kCauses > 0 ? kCauses : k_) + 1;
    double leaf_survival = 1.0;
    for (int32_t e = 0; e < entries;) {
      const size_t time = static_cast<size_t>(index[e] / stride);
      const double at_risk = value[e++];
      double total = 0.0;
      for (; e < entries && index[e] % stride != 0; ++e) {
        const size_t cause = static_cast<size_t>(index[e] % stride - 1);
        const double increment = value[e] / at_risk;
        sink(static_cast<int32_t>(cause * j_ + time), increment, leaf_survival * increment);
        total += increment;
      }
      leaf_survival *= 1.0 - total;
    }
  }

  int k_;
  size_t j_;
  bool hazard_, incidence_, cached_;
  size_t incidence_at_;                // where a row's incidences start in its buffer
  std::vector<int32_t> first_, last_;  // per leaf number: its increments, or -1 before its first row
  std::vector<Increment> increment_;
};

}  // namespace

void predict_survival(const ForestModel& model, const MatrixMap& x,
                      const std::vector<uint64_t>& row_hash, const PredictOptions& options,
                      const SurvivalRequest& request, const std::vector<char>* in_bag,
                      const ColumnSwap& swap, const Runtime& runtime, const SurvivalOutput& out) {
  const size_t n = static_cast<size_t>(x.rows()), p = static_cast<size_t>(x.cols());
  const size_t n_tree = options.trees_of(model);
  const int k = model.shape.n_cause;
  const size_t j = static_cast<size_t>(model.shape.n_time);
  // Hazards for chf and the risk of one cause; incidences for the curves
  // and the risk of several causes.
  const bool one = k == 1;
  const bool need_hazard = request.chf || (request.risk && one);
  const bool need_incidence = request.survival || request.cif || request.rmst || (request.risk && !one);
  const size_t width = static_cast<size_t>(k) * j;
  const size_t per_row = width * ((need_hazard ? 1 : 0) + (need_incidence ? 1 : 0));
  const size_t block = std::max<size_t>(1, std::min(kMaxBlock, kBlockEntries / std::max<size_t>(1, per_row)));
  const size_t n_block = (n + block - 1) / block;
  const bool swapping = swap.partner != nullptr && swap.last_column > swap.first_column;
  Runtime all_at_once = runtime;
  all_at_once.batch_size = n_block;
  run_rows(all_at_once, n_block, n, [&](size_t b) {
    runtime.throw_if_cancelled();
    const size_t begin = b * block, end = std::min(n, begin + block), m = end - begin;
    // Each row's values as the trees read them: a row-major copy, or, with
    // missing values (its own or its partner's), refilled for every tree.
    std::vector<double> rows(m * p), partner_row(p);
    std::vector<char> imputed(m, 0);
    for (size_t i = 0; i < m; ++i) {
      const size_t row = begin + i;
      const size_t partner = swapping ? static_cast<size_t>(swap.partner[row]) : row;
      imputed[i] = row_hash[row] != 0 || row_hash[partner] != 0;
      for (size_t c = 0; c < p; ++c) {
        const bool swapped = swapping && static_cast<int>(c) >= swap.first_column &&
                             static_cast<int>(c) < swap.last_column;
        rows[i * p + c] = x(static_cast<Eigen::Index>(swapped ? partner : row), static_cast<Eigen::Index>(c));
      }
      negate_columns(options, rows.data() + i * p);
    }
    // Rows with missing values are refilled for every tree, each in a place
    // of its own, so that all the rows can walk a tree together.
    std::vector<uint32_t> missing;
    for (size_t i = 0; i < m; ++i) {
      if (imputed[i]) missing.push_back(static_cast<uint32_t>(i));
    }
    std::vector<double> filled(missing.size() * p);
    std::vector<const double*> row_at(m);
    for (size_t i = 0, q = 0; i < m; ++i) row_at[i] = imputed[i] ? filled.data() + (q++) * p : rows.data() + i * p;
    auto refill = [&](size_t row, uint64_t key, double* values) {
      tree_row(x, static_cast<Eigen::Index>(row), options.impute_random, key, row_hash[row], values);
      if (swapping) {
        const size_t partner = static_cast<size_t>(swap.partner[row]);
        tree_row(x, static_cast<Eigen::Index>(partner), options.impute_random, key,
                 row_hash[partner], partner_row.data());
        std::copy(partner_row.begin() + swap.first_column, partner_row.begin() + swap.last_column,
                  values + swap.first_column);
      }
      negate_columns(options, values);
    };
    std::vector<double> hazard(m * per_row, 0.0);
    std::vector<int> count(m, 0);
    // A few rows (a served request) walk kLeafGroup trees at once, their
    // steps interleaved (see find_leaves()), so that the trees' waits for
    // memory overlap; more walk each tree together (walk_tree()). Either
    // way a row adds its leaves in tree order.
    const bool grouped = m <= kInlineRows;
    std::vector<int32_t> group_leaf(grouped ? kLeafGroup * m : 0);
    std::vector<uint32_t> walking(m);
    LeafIncrements increments(k, j, need_hazard, need_incidence, !grouped);
    for (size_t t = 0; t < n_tree; ++t) {
      increments.start_tree(model.n_leaves[t]);
      const uint64_t key = tree_impute_key(options.seed, options.first_tree + t);
      const char* bag = in_bag != nullptr ? in_bag->data() + t * n : nullptr;
      auto reached = [&](uint32_t i, int32_t leaf) {
        increments.add(model, t, leaf, hazard.data() + i * per_row);
        ++count[i];
      };
      for (size_t q = 0; q < missing.size(); ++q) {
        const size_t row = begin + missing[q];
        if (bag == nullptr || !bag[row]) refill(row, key, filled.data() + q * p);
      }
      if (grouped) {
        if (t % kLeafGroup == 0) {
          const size_t g = std::min(kLeafGroup, n_tree - t);
          for (size_t i = 0; i < m; ++i) {
            if (!imputed[i]) find_leaves(model, t, g, rows.data() + i * p, group_leaf.data() + i * kLeafGroup);
          }
        }
        for (size_t i = 0; i < m; ++i) {
          if (bag != nullptr && bag[begin + i]) continue;
          reached(static_cast<uint32_t>(i), imputed[i] ? find_leaf(model, t, row_at[i])
                                                       : group_leaf[i * kLeafGroup + t % kLeafGroup]);
        }
        continue;
      }
      // Every row is written and the out-of-bag ones kept: a branch on the
      // flag would be a coin toss.
      size_t n_walking = 0;
      for (size_t i = 0; i < m; ++i) {
        walking[n_walking] = static_cast<uint32_t>(i);
        n_walking += bag == nullptr || !bag[begin + i];
      }
      walk_tree(model, t, row_at.data(), walking.data(), n_walking, reached);
    }
    Reducer reducer(request, k, j);
    for (size_t i = 0; i < m; ++i) {
      const double* h = hazard.data() + i * per_row;
      reducer.reduce(need_hazard ? h : nullptr, need_incidence ? h + (need_hazard ? width : 0) : nullptr,
                     count[i], begin + i, n, out);
    }
  });
}

std::vector<char> forest_in_bag(const Data& data, const ForestSource& source, size_t n_tree,
                                const Runtime& runtime) {
  const size_t n = data.n_row();
  std::vector<char> flags(n * n_tree, 0);
  run_batched(runtime, n_tree, [&](size_t t) {
    const std::vector<char> bag = in_bag(data, source.sample, source.seed, source.first_tree + t);
    std::copy(bag.begin(), bag.end(), flags.begin() + static_cast<std::ptrdiff_t>(t * n));
  });
  return flags;
}

}  // namespace ccforest
