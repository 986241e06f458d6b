#ifndef CCFOREST_TASK_SURVIVAL_H_
#define CCFOREST_TASK_SURVIVAL_H_

#include <vector>

#include "Buffer.h"
#include "SurvivalNode.h"
#include "Task.h"

namespace ccforest {

/**
 * Survival, with one cause or competing causes (see Task.h): a node's
 * targets are its Nelson-Aalen fit and the martingale residuals the CCA is
 * fitted against (a relabelling, as grf's strategies relabel); a leaf
 * holds the counts of its Nelson-Aalen estimator.
 */
class SurvivalTask : public TreeTask {
 public:
  SurvivalTask(const Data& data, const TreeOptions& options)
      : data_(data), min_events_(static_cast<size_t>(options.min_events)) {}

  /** Nodes keep their rows in time order (partitions are stable), so each node's hazard is fitted in one pass. */
  void start_tree(int* rows, size_t n) override { sort_by_time(data_.survival, rows, n); }
  void gather(const int* rows, size_t begin, size_t end, const double* weights) override;
  /** Equal residuals, or too few rows with an event for two children of min_events each. */
  bool stops(size_t n, int depth) override;
  NodeTargets targets(size_t n) const override;
  void write_leaf(size_t n, const double* weights, Tree& tree) override;
  /** Residuals have no tree-wide scale to compare with: any difference. */
  bool sample_varies(const size_t* sample, size_t n) const override;
  void cca_outputs(const size_t* positions, Eigen::Index n, CcaOutputs& out) override;
  size_t n_sums() const override { return data_.n_output(); }
  void add_targets(size_t position, size_t row, std::vector<double>& sums) const override;

 private:
  const Data& data_;
  const size_t min_events_;
  Buffer<int> node_rank_;   // the node rows' time ranks
  Buffer<int> node_event_;  // and events
  NodeHazard node_hazard_;
  ResidualScratch residual_scratch_;
  Buffer<double> values_;   // martingale residuals, row-major
};

}  // namespace ccforest

#endif  // CCFOREST_TASK_SURVIVAL_H_
