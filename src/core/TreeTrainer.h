#ifndef CCFOREST_TREE_TRAINER_H_
#define CCFOREST_TREE_TRAINER_H_

#include <Eigen/Dense>
#include <cstdint>
#include <memory>
#include <vector>

#include "Buffer.h"
#include "Cca.h"
#include "Data.h"
#include "Options.h"
#include "Projection.h"
#include "Rng.h"
#include "Runtime.h"
#include "SplitSearch.h"
#include "Tree.h"

namespace ccforest {

/**
 * Grows one canonical correlation tree (the paper's Algorithms 4 and 5).
 *
 * Nodes are grown breadth first from a queue rather than by recursion, so a
 * deep tree cannot overflow the stack, and nodes are finished in index order.
 * All randomness comes from the tree's own stream, in a fixed order.
 */
class TreeTrainer {
 public:
  /**
   * @param tree_index the tree's global number: its random stream and its
   *   imputation key derive from (seed, tree_index) alone.
   * @param entropy the forest's shared table (entropy rule only).
   */
  TreeTrainer(const Data& data, const TreeOptions& options, uint64_t seed, uint64_t tree_index,
              const EntropyTable* entropy, const Runtime* runtime = nullptr);

  Tree grow();

 private:
  using FeatureSet = std::shared_ptr<const std::vector<int>>;
  struct NodeTask {
    size_t begin, end;
    int depth;
    FeatureSet features;
  };
  /**
   * A candidate direction: exact (scaled so that its largest coefficient is
   * exactly 1), and as stored, at the least precision that keeps it (see
   * Precision in Projection.h). Columns are those of xs_, in increasing
   * order of the data's columns.
   */
  struct Direction {
    std::vector<std::pair<int, double>> exact;  // (column of xs_, coefficient)
    Precision precision = Precision::kShort;
    std::vector<SplitTerm> term;                // column of xs_ and stored value
    double error = 0.0;  // bound on the rounding's change of the projections (see precise_enough())
  };

  /** A node's chosen split: a candidate direction and where it is cut. */
  static constexpr size_t kUnknownLeft = static_cast<size_t>(-1);
  struct Cut {
    int direction = -1;  // -1: no split
    double threshold = 0.0;
    double gain = 0.0;
    size_t n_left = kUnknownLeft;  // as the search counted it, to check the partition
  };
  /** The authors' rules (variant paper): values closer than this are equal. */
  static constexpr double kPaperResolution = 1e-10;
  /** The authors' rules: a regression node varying less than this of the tree is a leaf. */
  static constexpr double kPaperVarianceRatio = 1e-6;

  void grow_node(const NodeTask& task, std::vector<NodeTask>& next);
  /** Whether the node is a leaf before any split is sought. */
  bool stops(const NodeTask& task);
  /** The node's candidate directions in directions_, stored; returns how many. */
  size_t candidate_directions(size_t n);
  /** The best cut of the candidates (projections in projection_). */
  Cut best_cut(size_t n, size_t n_direction);
  /** The authors' split of a node whose sample has two distinct rows. */
  Cut two_point_cut(const NodeTask& task);
  void split(const NodeTask& task, std::vector<NodeTask>& next, FeatureSet features, const Cut& cut);
  /** The authors' tests of a projection bootstrap sample (see data_directions()). */
  bool sample_varies(const ConstMatrixRef& xs) const;
  bool sample_outputs_vary() const;
  void gather_targets(size_t begin, size_t end);
  bool targets_pure() const;
  void make_leaf(size_t begin, size_t end);
  FeatureSet select_features(const NodeTask& task);
  bool gather_feature(int feature, size_t begin, size_t end);
  Eigen::MatrixXd find_directions(size_t n);
  Eigen::MatrixXd data_directions(size_t n);
  /** Directions from the node block x, or from its rows rows[0..n) (a bootstrap sample). */
  Eigen::MatrixXd directions_on(const ConstMatrixRef& x, const size_t* rows);
  size_t round_directions(const Eigen::MatrixXd& directions);
  template <typename NodeRow>
  bool quantile_bins(Eigen::Index n, NodeRow node_row);
  /** Stores `direction` at `precision`: its terms and their rounding error. */
  void store_direction(Direction& direction, Precision precision) const;
  void project(const Direction& direction, size_t n, double* u) const;
  /**
   * Projects the node's rows on `direction` into u, raising its precision
   * until the rounding is negligible against the projections' spread.
   */
  void project_precisely(Direction& direction, size_t n, double* u) const;
  /** An axis direction's values at the node: its column of xs_, unprojected. */
  const double* axis_column(const Direction& axis, size_t n) const;
  double value(size_t row, int column) const;

  const Data& data_;
  const TreeOptions& options_;
  const Runtime* runtime_;
  Rng rng_;
  uint64_t impute_key_;
  Tree tree_;
  SplitSearch search_;

  const bool weighted_;             // rows weighted within the tree (see Data::weight)
  Buffer<int> rows_;                // sample indices; each node owns a contiguous range
  Buffer<double> weights_;          // node row weights, in node order (weighted trees)
  std::vector<double> cumulative_;  // running totals of weights_, for weighted draws
  Buffer<int> classes_;             // node targets, row-major (classification)
  Buffer<double> values_;           // node targets, row-major and centred (regression)
  std::vector<double> node_mean_;   // node means of the outputs (regression)
  std::vector<int> selected_;       // features sampled at the node
  std::vector<int> columns_;        // their matrix columns
  std::vector<double> column_sd_;   // the standard deviation of each column of xs_ at the node
  std::vector<double> feature_sds_;  // those of the feature being gathered
  size_t axes_ = 0;                  // axis candidates, last among the node's directions
  // Appendix B: the node positions of the two distinct rows of the CCA's
  // sample, when it has just two (else -1), and that sample (null: the node).
  std::pair<Eigen::Index, Eigen::Index> two_rows_{-1, -1};
  const size_t* two_point_sample_ = nullptr;
  size_t two_point_n_ = 0;
  std::vector<double> root_variance_;  // regression, variant paper: each output's, over the tree's rows
  std::vector<int> dropped_;        // features found constant at the node
  Buffer<double> xs_;               // node rows x selected columns, column-major
  size_t xs_used_ = 0;              // entries of xs_ in use
  std::vector<Direction> directions_;  // the node's candidates, rounded
  Buffer<double> projection_;       // node rows x directions, column-major
  Buffer<int> scratch_rows_;       // the right child's rows (or classes) while partitioning
  // Classification: each row's classes, row-major in node order beside rows_
  // (and partitioned with it), so a node's classes are read in sequence.
  Buffer<int> row_classes_;
  std::vector<std::pair<int, size_t>> order_;  // (matrix column, xs_ column) of a direction
  // Reused at every node so that finding directions does not allocate.
  Buffer<size_t> sample_;           // projection bootstrap: node positions drawn
  Buffer<double> boot_;             // the bootstrap sample of xs_, for principal components
  Buffer<int> codes_;               // class codes of the rows given to the CCA
  std::vector<double> leaf_totals_;
  std::vector<std::pair<double, int>> bin_order_;  // output bins: (value, node position)
  std::vector<std::pair<size_t, size_t>> moved_;  // feature sampling: swapped positions
  std::vector<char> is_dropped_;    // all zero between nodes
  CcaWorkspace cca_work_;
};

}  // namespace ccforest

#endif  // CCFOREST_TREE_TRAINER_H_
