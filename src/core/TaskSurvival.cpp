// Survival's part in growing a tree (see Task.h and TaskSurvival.h).
#include "TaskSurvival.h"

#include <algorithm>
#include <cstdlib>

namespace ccforest {

SurvivalTask::SurvivalTask(const Data& data, const TreeOptions& options)
    : data_(data), min_events_(static_cast<size_t>(options.min_events)) {
  const char* shrink = std::getenv("CCFOREST_SURV_SHRINK");
  if (shrink != nullptr && data.survival.n_cause == 1) shrink_ = std::atof(shrink);
  const char* tail = std::getenv("CCFOREST_SURV_SHRINK_TAIL");
  shrink_tail_ = tail != nullptr && std::atoi(tail) == 1;
  const char* parent = std::getenv("CCFOREST_SURV_SHRINK_PARENT");
  shrink_parent_ = parent != nullptr && std::atoi(parent) == 1;
}

void SurvivalTask::gather(const int* rows, size_t begin, size_t end, const double* weights) {
  const size_t n = end - begin, width = data_.n_output();
  node_rank_.resize(n);
  node_event_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t row = static_cast<size_t>(rows[begin + i]);
    node_rank_[i] = data_.survival.time_rank[row];
    node_event_[i] = data_.survival.event[row];
  }
  node_hazard_.fit(node_rank_.data(), node_event_.data(), weights, n, data_.survival.n_cause);
  if (root_pending_ && shrink_ > 0.0) {
    root_hazard_.assign(static_cast<size_t>(data_.survival.n_time), 0.0);
    for (size_t q = 0; q < node_hazard_.n_times(); ++q) {
      root_hazard_[static_cast<size_t>(node_hazard_.time(q))] = node_hazard_.events(q, 1) / node_hazard_.at_risk(q);
    }
    shrunk_.clear();
  }
  root_pending_ = false;
  if (shrink_ > 0.0) shrink_node(weights, begin, end);
  values_.resize(n * width);
  martingale_residuals(node_hazard_, data_.survival.intervals, values_.data(), residual_scratch_);
}

bool SurvivalTask::stops(size_t n, int depth) {
  (void)n;
  (void)depth;
  const size_t width = data_.n_output();
  for (size_t i = width; i < values_.size(); ++i) {
    if (values_[i] != values_[i % width]) {
      // A child needs min_events rows with an event (see LogRankCriterion).
      return node_hazard_.event_rows() < 2 * min_events_;
    }
  }
  return true;
}

NodeTargets SurvivalTask::targets(size_t n) const {
  NodeTargets targets;
  targets.values = values_.data();
  targets.time_rank = node_rank_.data();
  targets.event = node_event_.data();
  // gather() fitted these rows with the weights the trainer passes the
  // criterion too: the criterion need not fit them again.
  targets.hazard = &node_hazard_;
  targets.n = n;
  targets.width = data_.n_output();
  return targets;
}

void SurvivalTask::shrink_node(const double* weights, size_t begin, size_t end) {
  const size_t n_time = root_hazard_.size(), n = node_rank_.size();
  leaf_at_risk_.assign(n_time + 1, 0.0);
  leaf_events_.assign(n_time, 0.0);
  for (size_t i = 0; i < n; ++i) {
    const int r = node_rank_[i];
    const double w = weights == nullptr ? 1.0 : weights[i];
    if (r < 0) continue;
    leaf_at_risk_[0] += w;
    leaf_at_risk_[static_cast<size_t>(r) + 1] -= w;
    if (node_event_[i] != 0) leaf_events_[static_cast<size_t>(r)] += w;
  }
  double y = 0.0;
  for (size_t t = 0; t < n_time; ++t) {
    y += leaf_at_risk_[t];
    leaf_at_risk_[t] = std::max(0.0, y);
  }
  if (!shrink_parent_) {
    prior_ = root_hazard_;
    return;
  }
  // The parent: the smallest node gathered before whose rows hold these.
  const ShrunkNode* parent = nullptr;
  for (const ShrunkNode& node : shrunk_) {
    if (node.begin <= begin && end <= node.end && !(node.begin == begin && node.end == end) &&
        (parent == nullptr || node.end - node.begin < parent->end - parent->begin)) {
      parent = &node;
    }
  }
  ShrunkNode mine{begin, end, std::vector<double>(n_time, 0.0)};
  if (parent == nullptr) {
    prior_ = root_hazard_;
    mine.hazard = root_hazard_;
  } else {
    prior_ = parent->hazard;
    double pseudo = shrink_;
    for (size_t t = 0; t < n_time; ++t) {
      const double yy = leaf_at_risk_[t] + pseudo;
      mine.hazard[t] = yy > 1e-12 ? (leaf_events_[t] + pseudo * prior_[t]) / yy : prior_[t];
      pseudo *= 1.0 - prior_[t];
    }
  }
  shrunk_.push_back(std::move(mine));
}

void SurvivalTask::write_shrunk_leaf(Tree& tree) {
  // The prior is `shrink_` pseudo rows whose survival is the prior's
  // (the root's, or the parent's shrunk): at risk a S(t-), events
  // a S(t-) h(t), so the rows at risk fall by the events as the codec checks.
  const size_t n_time = prior_.size();
  double pseudo = shrink_;
  for (size_t t = 0; t < n_time; ++t) {
    const double y = leaf_at_risk_[t];
    if (y <= 1e-12 && !shrink_tail_) break;
    if (prior_[t] <= 0.0 && leaf_events_[t] <= 0.0) continue;
    const double yy = y + pseudo;
    const double d = leaf_events_[t] + pseudo * prior_[t];
    pseudo *= 1.0 - prior_[t];
    if (!(yy > 1e-12 && d > 0.0)) continue;
    tree.leaf_index.push_back(static_cast<int>(t) * 2);
    tree.leaf_value.push_back(yy);
    tree.leaf_index.push_back(static_cast<int>(t) * 2 + 1);
    tree.leaf_value.push_back(d);
  }
}

void SurvivalTask::write_leaf(size_t n, const double* weights, Tree& tree) {
  (void)n;
  if (shrink_ > 0.0 && !root_hazard_.empty()) {
    write_shrunk_leaf(tree);
    return;
  }
  // Entries of event time k (see the survival leaves in LeafCodec.cpp):
  // index k (K + 1) the rows at risk, then k (K + 1) + c the events of each
  // cause c that has some.
  const int k = data_.survival.n_cause;
  for (size_t q = 0; q < node_hazard_.n_times(); ++q) {
    const int base = node_hazard_.time(q) * (k + 1);
    tree.leaf_index.push_back(base);
    tree.leaf_value.push_back(node_hazard_.at_risk(q));
    for (int c = 1; c <= k; ++c) {
      const double d = node_hazard_.events(q, c);
      if (d > 0.0) {
        tree.leaf_index.push_back(base + c);
        tree.leaf_value.push_back(d);
      }
    }
  }
}

bool SurvivalTask::sample_varies(const size_t* sample, size_t n) const {
  return sampled_rows_differ(values_.data(), data_.n_output(), sample, n);
}

void SurvivalTask::cca_outputs(const size_t* positions, Eigen::Index n, CcaOutputs& out) {
  // No strengths: a weaker direction may carry a period's hazard the first misses.
  out.ranked = false;
  out.codes = nullptr;
  block_rows(values_.data(), data_.n_output(), positions, n, out.y);
}

void SurvivalTask::add_targets(size_t position, size_t row, std::vector<double>& sums) const {
  (void)row;
  const size_t width = data_.n_output();
  for (size_t m = 0; m < width; ++m) sums[m] += values_[position * width + m];
}

}  // namespace ccforest
