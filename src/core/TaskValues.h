#ifndef CCFOREST_TASK_VALUES_H_
#define CCFOREST_TASK_VALUES_H_

#include <utility>
#include <vector>

#include "Buffer.h"
#include "Task.h"

namespace ccforest {

/**
 * Regression, one output or several (see Task.h): a node's targets are its
 * outputs centred at the node's (weighted) mean; a leaf holds the means.
 */
class ValueTask : public TreeTask {
 public:
  ValueTask(const Data& data, const TreeOptions& options, const Rules& rules)
      : data_(data), rules_(rules), output_bins_(options.output_bins) {}

  /** The root's variance is the tree's own (its stops() computes it). */
  void start_tree(int* rows, size_t n) override {
    (void)rows;
    (void)n;
    root_variance_.clear();
  }
  void gather(const int* rows, size_t begin, size_t end, const double* weights) override;
  /** Pure (every row has the same outputs), or with the authors' rules varying too little. */
  bool stops(size_t n, int depth) override;
  NodeTargets targets(size_t n) const override;
  void write_leaf(size_t n, const double* weights, Tree& tree) override;
  bool sample_varies(const size_t* sample, size_t n) const override;
  /**
   * The outputs, or with `output_bins` (one output) its quantile bins at
   * the node as classes: a CCA against them has up to bins - 1 directions,
   * which can follow a relation that is not monotone, where the output
   * itself gives the one least-squares direction.
   */
  void cca_outputs(const size_t* positions, Eigen::Index n, CcaOutputs& out) override;
  size_t n_sums() const override { return data_.n_output(); }
  void add_targets(size_t position, size_t row, std::vector<double>& sums) const override;

 private:
  /** Codes the CCA rows' outputs by equal-count bins; false when fewer than two are used. */
  template <typename Position>
  bool quantile_bins(Eigen::Index n, Position position);

  const Data& data_;
  const Rules& rules_;
  const int output_bins_;
  Buffer<double> values_;            // the node's outputs, row-major, centred
  std::vector<double> node_mean_;
  std::vector<double> root_variance_;  // the authors' rules: each output's, over the tree's rows
  Buffer<int> codes_;                // output bins of the CCA's rows
  std::vector<std::pair<double, int>> bin_order_;  // (value, CCA row)
};

}  // namespace ccforest

#endif  // CCFOREST_TASK_VALUES_H_
