// Survival's part in growing a tree (see Task.h and TaskSurvival.h).
#include "TaskSurvival.h"

namespace ccforest {

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

void SurvivalTask::write_leaf(size_t n, const double* weights, Tree& tree) {
  (void)n;
  (void)weights;
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
