#include "TreeTrainer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "Predictor.h"
#include "Projection.h"
#include "Sampling.h"
#include "Spread.h"

namespace ccforest {

using Eigen::MatrixXd;

namespace {

SearchSettings search_settings(const TreeOptions& options, const Rules& rules) {
  SearchSettings settings;
  settings.authors_tolerance = rules.authors_tolerance();
  settings.exact_max_rows = rules.binned_search() ? static_cast<size_t>(options.exact_split_max_rows) : 0;
  settings.min_events = static_cast<size_t>(options.min_events);
  return settings;
}

}  // namespace

namespace {

std::shared_ptr<const std::vector<int>> every_feature(size_t n_feature) {
  auto all = std::make_shared<std::vector<int>>(n_feature);
  std::iota(all->begin(), all->end(), 0);
  return all;
}

}  // namespace

TreeTrainer::TreeTrainer(const Data& data, const TreeOptions& options, const EntropyTable* entropy,
                         const Runtime* runtime)
    : data_(data), options_(options), rules_(options.variant), runtime_(runtime),
      rng_(0, 0), task_(make_task(data, options, rules_)),
      search_(options.split_rule, data.n_value(), entropy, search_settings(options, rules_)),
      finder_(options, rules_, *task_),
      weighted_(data.weight != nullptr && !data.uniform_weight && options.sample.every_row),
      all_features_(every_feature(data.n_feature())),
      weighted_features_(!options.feature_weights.empty()) {
  options.check();
  if (weighted_features_) {
    if (options.feature_weights.size() != data.n_feature()) {
      throw std::invalid_argument("feature_weights must hold one weight per feature");
    }
    feature_sampler_ = WeightedFeatureSampler(options.feature_weights);
  }
}

const Tree& TreeTrainer::grow(uint64_t seed, uint64_t tree_index) {
  // What the tree draws on starts from (seed, tree_index) alone (see the
  // class comment); the rest is scratch.
  rng_ = Rng(seed, tree_index);
  impute_key_ = tree_impute_key(seed, tree_index);
  tree_.clear();
  search_.start_tree();
  finder_.start_tree();
  // The marks of the last node of the previous tree describe its rows, not
  // this tree's at the same positions.
  marked_begin_ = marked_end_ = kNoNode;

  draw_sample(data_, options_.sample, rng_, sample_);
  rows_.assign(sample_.begin(), sample_.end());
  const size_t n = sample_.size();
  task_->start_tree(rows_.data(), n);

  level_.clear();
  level_.push_back({0, n, 0, all_features_});
  while (!level_.empty()) {
    next_.clear();
    for (const NodeTask& task : level_) {
      // A slow tree must not hold up Ctrl-C until it is finished.
      if (runtime_ != nullptr) runtime_->throw_if_cancelled();
      grow_node(task, next_);
    }
    level_.swap(next_);
  }
  return tree_;
}

LimitCounts TreeTrainer::limit_counts() const {
  LimitCounts counts = finder_.limit_counts();
  counts.exact_split_max_rows = search_.binned_searches();
  return counts;
}

double TreeTrainer::value(size_t row, int column) const {
  // The one imputation rule of prediction (Predictor.h): missing values reach
  // the core only under random imputation, and any other NaN counts as the
  // training mean, 0 in z-scores.
  return cell_value(data_.at(row, column), options_.impute_random,
                    impute_key_, data_.row_hash[row], column);
}

void TreeTrainer::make_leaf(size_t begin, size_t end) {
  tree_.is_split.push_back(0);
  task_->write_leaf(end - begin, node_weights(), tree_);
  tree_.leaf_begin.push_back(static_cast<int>(tree_.leaf_index.size()));
}

bool TreeTrainer::gather_feature(int feature, size_t begin, size_t end) {
  const size_t n = end - begin, start = xs_used_;
  const int first = data_.feature_start[feature], last = data_.feature_start[feature + 1];
  bool any_missing = false;
  int last_varying = -1, n_varying = 0;
  feature_sds_.resize(static_cast<size_t>(last - first));
  double* sd_of = feature_sds_.data();
  // Grown, never shrunk or cleared: resizing down and up again would zero-fill.
  const size_t needed = start + n * static_cast<size_t>(last - first);
  if (xs_.size() < needed) xs_.resize(needed);
  double* out = xs_.data() + start;
  const int* rows = rows_.data() + begin;
  if (data_.is_sparse() && data_.marking_pays(n, static_cast<size_t>(options_.mtry))) {
    // At a small node most sparse columns have no stored cell: they are all
    // zero, constant, and found so from the node's rows without a gather
    // (the rows of a node never change while it draws its features).
    if (begin != marked_begin_ || end != marked_end_ || mark_ == 0) {
      if (column_mark_.size() != static_cast<size_t>(data_.x.cols())) {
        column_mark_.assign(static_cast<size_t>(data_.x.cols()), 0);
      }
      if (++mark_ == std::numeric_limits<int>::max()) {
        std::fill(column_mark_.begin(), column_mark_.end(), 0);
        mark_ = 1;
      }
      data_.mark_columns(rows, n, mark_, column_mark_.data());
      marked_begin_ = begin;
      marked_end_ = end;
    }
    bool any_stored = false;
    for (int column = first; column < last; ++column) any_stored |= column_mark_[static_cast<size_t>(column)] == mark_;
    if (!any_stored) return false;
  }
  for (int column = first; column < last; ++column) {
    bool varies = false;
    // A sparse column is scattered into a dense scratch, so the gather
    // below is the dense one; a dense column is read in place.
    if (data_.is_sparse() && sparse_column_.size() != data_.n_row()) sparse_column_.assign(data_.n_row(), 0.0);
    const double* x = data_.column(column, sparse_column_.data());
    auto fetch = [&](size_t i) {
      const size_t row = static_cast<size_t>(rows[i]);
      const double raw = x[row];
      if (!std::isnan(raw)) return raw;
      any_missing = true;
      return value(row, column);
    };
    // The spread of the column, shifted by its first value for accuracy;
    // it bounds how far rounding a coefficient moves the projections. Its
    // sums run while the loads are pending: the gather waits on memory,
    // the sums on each other.
    const double origin = n > 0 ? (out[0] = fetch(0)) : 0.0;
    double sum = 0.0, sum_squares = 0.0;
    auto gather = [&](auto load) {
      for (size_t i = 1; i < n; ++i) {
        const double d = (out[i] = load(i)) - origin;
        varies |= d != 0.0;
        sum += d;
        sum_squares += d * d;
      }
    };
    if (data_.column_missing[static_cast<size_t>(column)]) {
      gather(fetch);
    } else {
      // Most columns are complete, and this is the hottest gather of
      // training: no test for a missing value, and the flag the missing
      // branch writes stays out of the loop.
      gather([&](size_t i) { return x[static_cast<size_t>(rows[i])]; });
    }
    data_.clear_column(column, sparse_column_.data());
    const double count = static_cast<double>(n);
    sd_of[column - first] = std::sqrt(std::max(0.0, (sum_squares - sum * sum / count) / count));
    const double resolution = rules_.column_resolution();
    if (varies && resolution > 0.0) {
      // The authors' rule: a column varies if two consecutive values are
      // more than 1e-10 apart.
      double largest_step = 0.0;
      for (size_t i = 1; i < n; ++i) largest_step = std::max(largest_step, std::abs(out[i] - out[i - 1]));
      varies = largest_step > resolution;
    }
    if (varies) {
      last_varying = column;
      ++n_varying;
    }
    out += n;
  }
  if (n_varying == 0) return false;
  // The indicators of a factor's levels present at the node sum to one, so
  // one of them is redundant. Left in, which one the pivoted QR drops would
  // turn on rounding, and rescaling another feature could change the tree.
  // Dropping the last present level fixes the choice; imputed missing values
  // break the dependency, so then all columns stay.
  const bool indicators = data_.indicators[static_cast<size_t>(feature)] != 0;
  const int dropped = (indicators && !any_missing && n_varying >= 2) ? last_varying : -1;
  size_t kept = start;
  for (int column = first; column < last; ++column) {
    if (column == dropped) continue;
    const double* from = xs_.data() + start + static_cast<size_t>(column - first) * n;
    if (kept != static_cast<size_t>(from - xs_.data())) {
      std::copy(from, from + n, xs_.begin() + static_cast<std::ptrdiff_t>(kept));
    }
    kept += n;
    columns_.push_back(column);
    column_sd_.push_back(sd_of[column - first]);
  }
  xs_used_ = kept;
  return true;
}

TreeTrainer::FeatureSet TreeTrainer::select_features(const NodeTask& task) {
  const std::vector<int>& available = *task.features;
  const size_t n_available = available.size();
  selected_.clear();
  columns_.clear();
  column_sd_.clear();
  dropped_.clear();
  xs_used_ = 0;
  if (weighted_features_) {
    draw_weighted_features(available, task.begin, task.end);
  } else {
    draw_uniform_features(available, task.begin, task.end);
  }
  if (dropped_.empty()) return task.features;
  // Constant features are dropped for this node's descendants only.
  auto kept = std::make_shared<std::vector<int>>();
  kept->reserve(n_available - dropped_.size());
  std::vector<char>& is_dropped = is_dropped_;
  is_dropped.resize(data_.n_feature(), 0);
  for (int f : dropped_) is_dropped[f] = 1;
  for (int f : available) {
    if (!is_dropped[f]) kept->push_back(f);
  }
  for (int f : dropped_) is_dropped[f] = 0;
  return kept;
}

void TreeTrainer::draw_uniform_features(const std::vector<int>& available, size_t begin, size_t end) {
  const size_t n_available = available.size();
  const size_t mtry = static_cast<size_t>(options_.mtry);
  // A partial Fisher-Yates shuffle over positions of `available`, recording
  // only the swapped positions, so sampling costs O(mtry) and not O(D).
  std::vector<std::pair<size_t, size_t>>& moved = moved_;
  moved.clear();
  auto at = [&](size_t pos) {
    for (const auto& m : moved) {
      if (m.first == pos) return m.second;
    }
    return pos;
  };
  auto put = [&](size_t pos, size_t val) {
    for (auto& m : moved) {
      if (m.first == pos) {
        m.second = val;
        return;
      }
    }
    moved.emplace_back(pos, val);
  };
  for (size_t k = 0; k < n_available && selected_.size() < mtry; ++k) {
    const size_t j = k + rng_.index(n_available - k);
    const size_t picked = at(j);
    put(j, at(k));
    put(k, picked);
    const int feature = available[picked];
    if (gather_feature(feature, begin, end)) {
      selected_.push_back(feature);
    } else {
      dropped_.push_back(feature);
    }
  }
}

void TreeTrainer::draw_weighted_features(const std::vector<int>& available, size_t begin, size_t end) {
  const size_t mtry = static_cast<size_t>(options_.mtry);
  WeightedFeatureSampler& sampler = feature_sampler_;
  // Features an ancestor found constant are out of this node's draws; they
  // are few (available keeps the features in order, so one pass finds them).
  if (available.size() < sampler.size()) {
    size_t next = 0;
    for (size_t f = 0; f < sampler.size(); ++f) {
      if (next < available.size() && static_cast<size_t>(available[next]) == f) {
        ++next;
      } else {
        sampler.remove(f);
      }
    }
  }
  // Fewer features of positive weight than mtry: the node gets all of them.
  while (selected_.size() < mtry && sampler.any_left()) {
    const int feature = static_cast<int>(sampler.draw(rng_));
    if (gather_feature(feature, begin, end)) {
      selected_.push_back(feature);
    } else {
      dropped_.push_back(feature);
    }
  }
  sampler.restore();
}

namespace {

constexpr size_t kAnyWidth = static_cast<size_t>(-1);

/**
 * Stable partition of the n rows `rows` and, beside them, their `width`
 * carried values each (a row's classes; kWidth of them, or `width` when kWidth is kAnyWidth)
 * by u[i] <= threshold (left first), in one pass; returns the left count.
 * Each entry is written to both sides and only the count of its side moves:
 * a good split sends rows either way unpredictably, and a branch would
 * miss often.
 */
template <size_t kWidth>
size_t partition_with(const double* u, double threshold, size_t n, int* rows, int* classes,
                      size_t width, int* right_rows) {
  if (kWidth != kAnyWidth) width = kWidth;
  int* right_classes = right_rows + n;
  size_t n_left = 0, n_right = 0;
  for (size_t i = 0; i < n; ++i) {
    const size_t left = u[i] <= threshold;
    const int row = rows[i];
    rows[n_left] = row;
    right_rows[n_right] = row;
    for (size_t m = 0; m < width; ++m) {
      const int value = classes[i * width + m];
      classes[n_left * width + m] = value;
      right_classes[n_right * width + m] = value;
    }
    n_left += left;
    n_right += 1 - left;
  }
  std::copy(right_rows, right_rows + n_right, rows + n_left);
  if (kWidth != 0) {
    std::copy(right_classes, right_classes + n_right * width, classes + n_left * width);
  }
  return n_left;
}

/** partition_with() for carried values (`classes`) of any width, or none. */
size_t stable_partition(const double* u, double threshold, size_t n, int* rows, int* classes,
                        size_t width, Buffer<int>& scratch) {
  if (classes == nullptr) width = 0;
  scratch.resize(n * (1 + width));
  switch (width) {
    case 0:
      return partition_with<0>(u, threshold, n, rows, classes, 0, scratch.data());
    case 1:
      return partition_with<1>(u, threshold, n, rows, classes, 1, scratch.data());
    default:
      return partition_with<kAnyWidth>(u, threshold, n, rows, classes, width, scratch.data());
  }
}

}  // namespace

bool TreeTrainer::stops(const NodeTask& task) {
  const size_t n = task.end - task.begin;
  const bool too_deep = options_.max_depth > 0 && task.depth >= options_.max_depth;
  return n < 2 || n < static_cast<size_t>(options_.min_split) || too_deep ||
         task_->stops(n, task.depth);
}

TreeTrainer::Cut TreeTrainer::best_cut(size_t n, size_t n_direction) {
  projection_.resize(n * n_direction);
  BestSplit best;
  const bool random_axes = options_.axis_candidates == AxisCandidates::kRandom;
  const size_t min_leaf = static_cast<size_t>(options_.min_leaf);
  for (size_t d = 0; d < n_direction; ++d) {
    double* u = projection_.data() + d * n;
    if (random_axes && d + finder_.axes() >= n_direction) {
      // An axis projects to its gathered column (coefficient exactly 1); it
      // is copied to the projections only if its cut wins, for the partition.
      search_.random_cut(finder_.axis_column(finder_.direction(d)), min_leaf, static_cast<int>(d),
                         rng_, best);
      continue;
    }
    Direction& direction = finder_.direction(d);
    finder_.project_precisely(direction, u);
    if (!rules_.first_direction_wins_ties()) {
      search_.sweep(u, min_leaf, static_cast<int>(d), rng_, best);
      continue;
    }
    // The authors' rules: projections within 1e-10 of each other along the
    // unit-length direction are one value; ties within a direction are broken
    // at random, between directions the first (strongest) wins.
    double norm = 0.0;
    for (const auto& entry : direction.exact) norm += entry.second * entry.second;
    search_.set_resolution(rules_.cut_resolution(norm));
    BestSplit own;
    search_.sweep(u, min_leaf, static_cast<int>(d), rng_, own);
    if (own.direction >= 0 && (best.direction < 0 || own.gain > best.gain + search_.tolerance())) {
      best = own;
    }
  }
  Cut cut;
  if (best.direction < 0 || !(best.gain > search_.tolerance())) return cut;
  cut.direction = best.direction;
  cut.threshold = rules_.threshold(best.lo, best.hi);
  cut.gain = best.gain;
  cut.n_left = best.n_left;
  double* u = projection_.data() + static_cast<size_t>(cut.direction) * n;
  if (random_axes && static_cast<size_t>(cut.direction) + finder_.axes() >= n_direction) {
    const double* column = finder_.axis_column(finder_.direction(static_cast<size_t>(cut.direction)));
    std::copy(column, column + n, u);
  }
  return cut;
}

TreeTrainer::Cut TreeTrainer::two_point_cut(const NodeTask& task) {
  // Appendix B as the authors' code runs it (twoPointMaxMarginSplit.m): the
  // CCA's sample holds two distinct rows; unless the two groups of equal
  // rows have the same output sums, split halfway between them along their
  // difference, whatever the node's other rows.
  const size_t n = task.end - task.begin;
  Cut cut;
  if (finder_.two_groups_sum_alike(rows_.data() + task.begin)) return cut;
  projection_.resize(n);
  double* u = projection_.data();
  finder_.project_precisely(finder_.direction(0), u);
  const auto [first, second] = finder_.two_rows();
  const double a = u[first], b = u[second];
  if (!(a != b)) return cut;
  cut.direction = 0;
  cut.threshold = midpoint_threshold(std::min(a, b), std::max(a, b));
  cut.gain = search_.gain_at(u, cut.threshold);
  cut.n_left = kUnknownLeft;
  if (!std::isfinite(cut.gain)) cut.direction = -1;
  return cut;
}

void TreeTrainer::grow_node(const NodeTask& task, std::vector<NodeTask>& next) {
  const size_t n = task.end - task.begin;
  if (weighted_) {
    weights_.resize(n);
    for (size_t i = 0; i < n; ++i) weights_[i] = data_.weight[rows_[task.begin + i]];
  }
  task_->gather(rows_.data(), task.begin, task.end, node_weights());
  if (stops(task)) {
    make_leaf(task.begin, task.end);
    return;
  }
  FeatureSet features = select_features(task);
  if (selected_.empty()) {
    make_leaf(task.begin, task.end);
    return;
  }
  NodeBlock block;
  block.xs = xs_.data();
  block.n = n;
  block.p = columns_.size();
  block.columns = columns_.data();
  block.column_sd = column_sd_.data();
  block.weights = node_weights();
  const size_t n_direction = finder_.find(block, rng_);
  if (n_direction == 0) {
    make_leaf(task.begin, task.end);
    return;
  }
  NodeTargets targets = task_->targets(n);
  targets.weights = node_weights();
  search_.set_node(targets);
  const Cut cut = rules_.cut_between_two_rows() && finder_.two_rows().first >= 0
                      ? two_point_cut(task)
                      : best_cut(n, n_direction);
  if (cut.direction < 0) {
    make_leaf(task.begin, task.end);
    return;
  }
  // Survival: a cut whose log-rank statistic is not significant splits
  // noise; on small, weak-signal data the forest overfitted by growing to
  // its smallest leaves (bench/results/survival-defaults.md, round 8).
  if (cut.gain < options_.min_statistic) {
    make_leaf(task.begin, task.end);
    return;
  }
  split(task, next, std::move(features), cut);
}

void TreeTrainer::split(const NodeTask& task, std::vector<NodeTask>& next, FeatureSet features,
                        const Cut& cut) {
  const size_t n = task.end - task.begin;
  const Direction& chosen = finder_.direction(static_cast<size_t>(cut.direction));
  tree_.is_split.push_back(1);
  tree_.threshold.push_back(cut.threshold);
  tree_.gain.push_back(cut.gain);
  tree_.precision.push_back(static_cast<uint8_t>(chosen.precision));
  for (const SplitTerm& term : chosen.term) {
    tree_.column.push_back(columns_[static_cast<size_t>(term.column)]);
    tree_.coef.push_back(term.coef);
  }
  tree_.split_begin.push_back(static_cast<int>(tree_.column.size()));

  // The node's rows, and what the task carries with them, go to the
  // children in order.
  const double* u = projection_.data() + static_cast<size_t>(cut.direction) * n;
  const size_t n_left = stable_partition(u, cut.threshold, n, rows_.data() + task.begin,
                                         task_->carried(task.begin), task_->carried_width(),
                                         scratch_rows_);
  if (cut.n_left != kUnknownLeft && n_left != cut.n_left) {
    throw std::logic_error("split partition disagrees with its search");
  }
  next.push_back({task.begin, task.begin + n_left, task.depth + 1, features});
  next.push_back({task.begin + n_left, task.end, task.depth + 1, std::move(features)});
}

}  // namespace ccforest
