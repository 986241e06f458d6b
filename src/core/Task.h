#ifndef CCFOREST_TASK_H_
#define CCFOREST_TASK_H_

#include <Eigen/Dense>
#include <cstddef>
#include <memory>
#include <vector>

#include "Data.h"
#include "Options.h"
#include "Rules.h"
#include "SplitCriterion.h"
#include "Tree.h"

namespace ccforest {

/**
 * The output block a node's CCA is fitted against, as its task builds it:
 * the class codes of one output (`codes`, in [0, n_class)), or a real block
 * `y` with a row per CCA row. `ranked`: the canonical correlations rank the
 * directions for direction_ratio (measured for classes only).
 */
struct CcaOutputs {
  const int* codes = nullptr;
  int n_class = 0;
  Eigen::MatrixXd y;
  bool ranked = false;
};

/**
 * What one task (classification, regression, survival) contributes to
 * growing a tree: the node's targets, whether they end the node, the block
 * the CCA sees, and the leaf (grf's relabelling and prediction strategies
 * play this part there). The trainer and the direction finder hold no
 * per-task state and never ask which task they grow: a new task is one more
 * implementation and a case in make_task().
 *
 * A node is the contiguous range [begin, end) of the tree's rows (the
 * trainer's index array); "positions" are offsets within the node, as in
 * NodeTargets. One object serves one tree, node after node.
 */
class TreeTask {
 public:
  virtual ~TreeTask() = default;

  /** The tree's rows, once, before its root: the task may reorder them (survival sorts by time). */
  virtual void start_tree(int* rows, size_t n) = 0;

  /** Gathers the node's targets; `weights` are its rows' weights in node order, or null. */
  virtual void gather(const int* rows, size_t begin, size_t end, const double* weights) = 0;

  /**
   * Whether the node's targets make it a leaf (pure, too few events, the
   * authors' variance rule), once the trainer's own limits (rows, depth)
   * have let it through. `depth` 0 is the root.
   */
  virtual bool stops(size_t n, int depth) = 0;

  /** The node's targets for the split criterion (weights filled by the trainer). */
  virtual NodeTargets targets(size_t n) const = 0;

  /** Appends the node's leaf values to the tree (Tree::leaf_index, leaf_value). */
  virtual void write_leaf(size_t n, const double* weights, Tree& tree) = 0;

  /**
   * Per-row values that travel with the rows through partitions (`width`
   * ints per row, from node begin), or null with width 0.
   */
  virtual int* carried(size_t begin) { (void)begin; return nullptr; }
  virtual size_t carried_width() const { return 0; }

  /** Whether the targets at node positions sample[0..n) vary (a projection bootstrap sample). */
  virtual bool sample_varies(const size_t* sample, size_t n) const = 0;

  /**
   * The CCA's output block for node positions positions[0..n) (null: the
   * node's first n), into `out` (reused from node to node).
   */
  virtual void cca_outputs(const size_t* positions, Eigen::Index n, CcaOutputs& out) = 0;

  /**
   * Appendix B's test of two groups of equal rows: the sums of the targets
   * have n_sums() entries, and add_targets() adds node position
   * `position` (the data's row `row`) to them.
   */
  virtual size_t n_sums() const = 0;
  virtual void add_targets(size_t position, size_t row, std::vector<double>& sums) const = 0;
};

/**
 * Whether any of rows sample[1..n) of a row-major block of `width` entries
 * per row differs from row sample[0]: the exact test of a projection
 * bootstrap sample's targets.
 */
template <typename T>
bool sampled_rows_differ(const T* block, size_t width, const size_t* sample, size_t n) {
  for (size_t i = 1; i < n; ++i) {
    for (size_t m = 0; m < width; ++m) {
      if (block[sample[i] * width + m] != block[sample[0] * width + m]) return true;
    }
  }
  return false;
}

/** Rows positions[0..n) (null: the first n) of a row-major block of `width` columns, into y. */
inline void block_rows(const double* block, size_t width, const size_t* positions, Eigen::Index n,
                       Eigen::MatrixXd& y) {
  y.resize(n, static_cast<Eigen::Index>(width));
  for (Eigen::Index i = 0; i < n; ++i) {
    const size_t row = positions ? positions[i] : static_cast<size_t>(i);
    for (size_t m = 0; m < width; ++m) y(i, static_cast<Eigen::Index>(m)) = block[row * width + m];
  }
}

/** The task of `data`'s outputs, with the forest's options and rules. */
std::unique_ptr<TreeTask> make_task(const Data& data, const TreeOptions& options, const Rules& rules);

}  // namespace ccforest

#endif  // CCFOREST_TASK_H_
