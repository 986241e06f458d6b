#ifndef CCFOREST_DIRECTIONS_H_
#define CCFOREST_DIRECTIONS_H_

#include <Eigen/Dense>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "Buffer.h"
#include "Cca.h"
#include "Data.h"
#include "Options.h"
#include "Projection.h"
#include "Rng.h"
#include "Rules.h"
#include "Task.h"

namespace ccforest {

/**
 * A node's rows as the direction finder sees them: the sampled features'
 * columns gathered into one column-major block (the node's targets are
 * the task's, see Task.h).
 */
struct NodeBlock {
  const double* xs = nullptr;  // n x p, column-major
  size_t n = 0, p = 0;
  const int* columns = nullptr;       // the data's column of each column of xs
  const double* column_sd = nullptr;  // each column's standard deviation at the node
  const double* weights = nullptr;    // case weights in node order, or null
};

/**
 * A candidate direction: exact (scaled so that its largest coefficient is
 * exactly 1), and as stored, at the least precision that keeps it (see
 * Precision in Projection.h). Columns are those of the block, in increasing
 * order of the data's columns.
 */
struct Direction {
  std::vector<std::pair<int, double>> exact;  // (column of the block, coefficient)
  Precision precision = Precision::kShort;
  std::vector<SplitTerm> term;                // column of the block and stored value
  double error = 0.0;  // bound on the rounding's change of the projections (see precise_enough())
};

/**
 * Turns a node's sampled features into candidate split directions, apart
 * from the node loop: canonical correlations with the outputs (on the
 * projection bootstrap sample, Appendix B's degenerate cases included), a
 * random rotation, principal components or the axes, then the features' own
 * axes if asked, the strongest max_directions kept, each stored at the
 * precision it needs. The block the CCA is fitted against is the task's
 * (TreeTask::cca_outputs()). A new way of finding directions is one more
 * case here.
 */
class DirectionFinder {
 public:
  DirectionFinder(const TreeOptions& options, const Rules& rules, TreeTask& task)
      : options_(options), rules_(rules), task_(task) {}

  /** Starts a tree: the limit counts are the tree's own. */
  void start_tree() { counts_ = LimitCounts(); }

  /** Finds and stores the node's candidates; returns how many (direction(0), ...). */
  size_t find(const NodeBlock& block, Rng& rng);

  Direction& direction(size_t d) { return directions_[d]; }
  /** The limits that acted at the nodes so far (the split search counts binned searches). */
  const LimitCounts& limit_counts() const { return counts_; }
  /** Candidates at the end that are the features' own axes. */
  size_t axes() const { return axes_; }

  /**
   * Projects the block's rows on `direction` into u, raising its precision
   * until the rounding is negligible against the projections' spread.
   */
  void project_precisely(Direction& direction, double* u) const;
  /** An axis candidate's values at the node: its column of the block, unprojected. */
  const double* axis_column(const Direction& axis) const;

  /**
   * Appendix B: when the sample the directions came from holds just two
   * distinct rows, their node positions (the direction is their
   * difference); otherwise -1.
   */
  std::pair<Eigen::Index, Eigen::Index> two_rows() const { return two_rows_; }
  /**
   * Whether the two groups of equal rows of that sample have the same
   * output sums (the authors' test before splitting between them);
   * `node_rows` maps node positions to the data's rows.
   */
  bool two_groups_sum_alike(const int* node_rows) const;

 private:
  Eigen::MatrixXd find_directions(size_t n);
  Eigen::MatrixXd data_directions(size_t n);
  /**
   * Directions from the node block x (rows null, n its rows), or from its
   * rows rows[0..n) (a bootstrap sample).
   */
  Eigen::MatrixXd directions_on(const ConstMatrixRef& x, const size_t* rows, Eigen::Index n);
  /**
   * Stores the finite, non-zero columns of `directions` as candidates; of
   * the first n_ranked (ranked strongest first) only those among the first
   * n_strong, and of them the first `limit`, kept.
   */
  size_t round_directions(const Eigen::MatrixXd& directions, size_t n_ranked, size_t n_strong,
                          size_t limit);
  /** The CCA's directions; their canonical correlations go to strengths_. */
  Eigen::MatrixXd kept_strengths(CcaResult&& found);
  /** Stores `direction` at `precision`: its terms and their rounding error. */
  void store_direction(Direction& direction, Precision precision) const;
  void project(const Direction& direction, double* u) const;
  /** The authors' test of a projection bootstrap sample's features (see data_directions()). */
  bool sample_varies(const ConstMatrixRef& xs) const;

  const TreeOptions& options_;
  const Rules& rules_;
  TreeTask& task_;
  NodeBlock block_;
  Rng* rng_ = nullptr;
  std::vector<Direction> directions_;
  size_t axes_ = 0;
  std::pair<Eigen::Index, Eigen::Index> two_rows_{-1, -1};
  const size_t* two_point_sample_ = nullptr;  // null: the node's rows
  size_t two_point_n_ = 0;
  // Reused at every node so that finding directions does not allocate.
  std::vector<std::pair<int, size_t>> order_;  // (matrix column, block column)
  Buffer<size_t> sample_;           // projection bootstrap: node positions drawn
  std::vector<double> cumulative_;  // running totals of weights, for weighted draws
  Buffer<double> boot_;             // the bootstrap sample of the block, for principal components
  CcaOutputs outputs_;              // the task's block for the CCA
  // The CCAs' buffers and SVD, kept from node to node and from tree to tree
  // (each CCA overwrites what it reads).
  CcaWorkspace cca_work_;
  // The canonical correlations of the ranked directions found at this
  // classification node, strongest first; empty where direction_ratio does
  // not act (other tasks, principal components, two distinct rows).
  std::vector<double> strengths_;
  LimitCounts counts_;
};

}  // namespace ccforest

#endif  // CCFOREST_DIRECTIONS_H_
