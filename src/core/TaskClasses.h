#ifndef CCFOREST_TASK_CLASSES_H_
#define CCFOREST_TASK_CLASSES_H_

#include <vector>

#include "Buffer.h"
#include "Task.h"

namespace ccforest {

/** Classification, one output or several (see Task.h). */
class ClassTask : public TreeTask {
 public:
  explicit ClassTask(const Data& data) : data_(data) {}

  void start_tree(int* rows, size_t n) override;
  void gather(const int* rows, size_t begin, size_t end, const double* weights) override;
  /** Pure: every row has the same classes. */
  bool stops(size_t n, int depth) override;
  NodeTargets targets(size_t n) const override;
  void write_leaf(size_t n, const double* weights, Tree& tree) override;
  int* carried(size_t begin) override { return row_classes_.data() + begin * data_.n_output(); }
  size_t carried_width() const override { return data_.n_output(); }
  bool sample_varies(const size_t* sample, size_t n) const override;
  void cca_outputs(const size_t* positions, Eigen::Index n, CcaOutputs& out) override;
  size_t n_sums() const override { return data_.n_value(); }
  void add_targets(size_t position, size_t row, std::vector<double>& sums) const override;

 private:
  const Data& data_;
  // Each row's classes, row-major in node order beside the trainer's rows
  // (and partitioned with them), so a node's classes are read in sequence.
  Buffer<int> row_classes_;
  Buffer<int> classes_;  // the node's, row-major
  Buffer<int> codes_;    // one output's codes of the CCA's rows
  std::vector<double> leaf_totals_;
};

}  // namespace ccforest

#endif  // CCFOREST_TASK_CLASSES_H_
