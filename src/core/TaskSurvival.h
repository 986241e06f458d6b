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
  SurvivalTask(const Data& data, const TreeOptions& options);

  /** Nodes keep their rows in time order (partitions are stable), so each node's hazard is fitted in one pass. */
  void start_tree(int* rows, size_t n) override {
    sort_by_time(data_.survival, rows, n);
    root_pending_ = true;
  }
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
  // MEASUREMENT ONLY (issue 38, fourth session; removed after): leaf
  // hazards shrunk toward the tree root's, CCFOREST_SURV_SHRINK = prior
  // rows at risk, CCFOREST_SURV_SHRINK_TAIL = 1 to follow the root's
  // hazard after the leaf's last row.
  double shrink_ = 0.0;
  bool shrink_tail_ = false;
  bool root_pending_ = false;
  std::vector<double> root_hazard_;
  std::vector<double> leaf_at_risk_, leaf_events_;
  // CCFOREST_SURV_SHRINK_PARENT = 1: the prior of a node is its parent's
  // shrunk hazard (hierarchical), not the root's.
  bool shrink_parent_ = false;
  struct ShrunkNode {
    size_t begin, end;
    std::vector<double> hazard;
  };
  std::vector<ShrunkNode> shrunk_;
  std::vector<double> prior_;
  void shrink_node(const double* weights, size_t begin, size_t end);
  void write_shrunk_leaf(Tree& tree);
};

}  // namespace ccforest

#endif  // CCFOREST_TASK_SURVIVAL_H_
