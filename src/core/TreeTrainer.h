#ifndef CCFOREST_TREE_TRAINER_H_
#define CCFOREST_TREE_TRAINER_H_

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "Buffer.h"
#include "Data.h"
#include "Directions.h"
#include "FeatureWeights.h"
#include "Options.h"
#include "Rng.h"
#include "Rules.h"
#include "Runtime.h"
#include "SplitSearch.h"
#include "Task.h"
#include "Tree.h"

namespace ccforest {

/**
 * Grows canonical correlation trees (the paper's Algorithms 4 and 5), one
 * at a time.
 *
 * Nodes are grown breadth first from a queue rather than by recursion, so a
 * deep tree cannot overflow the stack, and nodes are finished in index order.
 * At each node the trainer has the task (TreeTask, Task.h) gather the
 * node's targets, gathers a sample of its features, asks the DirectionFinder
 * for candidate directions and the SplitSearch (one SplitCriterion) for the
 * best cut along them, and partitions the node's rows. What differs between
 * tasks is the task's, what differs between variants is asked of the
 * Rules (Rules.h). All randomness comes from the tree's own stream, in a
 * fixed order.
 *
 * One trainer grows any number of trees of one fit, one after another (the
 * forest keeps one per tree growing at once). A small survival tree has a
 * handful of nodes, and filling the buffers of a fresh trainer, task, split
 * search and direction finder cost it about two hundred allocations, a good
 * share of its time. The contract that makes reuse invisible: grow(seed, t)
 * gives the tree a fresh trainer gives, bit for bit, whatever trees the
 * trainer grew before. What a tree draws on (its random stream, imputation
 * key, limit counts, tree under construction, sparse-column marks) is set
 * from (seed, t) alone when it starts; everything else the trainer keeps is
 * scratch that each node overwrites before reading, or marks cleared by the
 * node that set them (dropped features, the weighted feature sampler), as
 * between the nodes of one tree. Buffers are aligned (Buffer.h), so where
 * they lie cannot reach a sum. tools/core-tests compares reused trainers
 * with fresh ones. A trainer whose grow() threw is discarded: it may hold a
 * node's marks.
 */
class TreeTrainer {
 public:
  /**
   * @param entropy the forest's shared table (entropy rule only).
   * @param runtime null, or the fit's runtime (cancellation between nodes).
   */
  TreeTrainer(const Data& data, const TreeOptions& options, const EntropyTable* entropy,
              const Runtime* runtime = nullptr);

  /**
   * Grows tree `tree_index` of the forest with `seed`: its random stream and
   * its imputation key derive from (seed, tree_index) alone. The tree lives
   * in the trainer until the next call (its vectors keep their capacity).
   */
  const Tree& grow(uint64_t seed, uint64_t tree_index);
  /** The limits that acted while growing the last tree. */
  LimitCounts limit_counts() const;

 private:
  using FeatureSet = std::shared_ptr<const std::vector<int>>;
  struct NodeTask {
    size_t begin, end;
    int depth;
    FeatureSet features;
  };
  /** A node's chosen split: a candidate direction and where it is cut. */
  static constexpr size_t kUnknownLeft = static_cast<size_t>(-1);
  struct Cut {
    int direction = -1;  // -1: no split
    double threshold = 0.0;
    double gain = 0.0;
    size_t n_left = kUnknownLeft;  // as the search counted it, to check the partition
  };

  void grow_node(const NodeTask& task, std::vector<NodeTask>& next);
  /** Whether the node is a leaf before any split is sought. */
  bool stops(const NodeTask& task);
  void make_leaf(size_t begin, size_t end);
  FeatureSet select_features(const NodeTask& task);
  /** select_features()'s draws: uniform (the paper), or in proportion to options_.feature_weights. */
  void draw_uniform_features(const std::vector<int>& available, size_t begin, size_t end);
  void draw_weighted_features(const std::vector<int>& available, size_t begin, size_t end);
  bool gather_feature(int feature, size_t begin, size_t end);
  /** The best cut of the finder's candidates (projections in projection_). */
  Cut best_cut(size_t n, size_t n_direction);
  /** The authors' split of a node whose sample has two distinct rows. */
  Cut two_point_cut(const NodeTask& task);
  void split(const NodeTask& task, std::vector<NodeTask>& next, FeatureSet features, const Cut& cut);
  double value(size_t row, int column) const;
  const double* node_weights() const { return weighted_ ? weights_.data() : nullptr; }

  const Data& data_;
  const TreeOptions& options_;
  const Rules rules_;
  const Runtime* runtime_;
  Rng rng_;
  uint64_t impute_key_ = 0;
  Tree tree_;
  std::unique_ptr<TreeTask> task_;
  SplitSearch search_;
  DirectionFinder finder_;

  const bool weighted_;             // rows weighted within the tree (see Data::weight)
  const FeatureSet all_features_;   // the root's: every feature
  std::vector<int> sample_;         // the tree's sample, as drawn
  std::vector<NodeTask> level_, next_;  // the nodes of one depth, and of the next
  Buffer<int> rows_;                // sample indices; each node owns a contiguous range
  Buffer<double> weights_;          // node row weights, in node order (weighted trees)
  std::vector<int> selected_;       // features sampled at the node
  std::vector<int> columns_;        // their matrix columns
  std::vector<double> column_sd_;   // the standard deviation of each column of xs_ at the node
  std::vector<double> feature_sds_;  // those of the feature being gathered
  std::vector<double> sparse_column_;  // n_row zeros between gathers of a sparse column
  // Sparse features at a small node: column_mark_[j] == mark_ when column j
  // has a stored cell in the rows [marked_begin_, marked_end_).
  std::vector<int> column_mark_;
  int mark_ = 0;
  static constexpr size_t kNoNode = static_cast<size_t>(-1);
  size_t marked_begin_ = kNoNode, marked_end_ = kNoNode;
  std::vector<int> dropped_;        // features found constant at the node
  Buffer<double> xs_;               // node rows x selected columns, column-major
  size_t xs_used_ = 0;              // entries of xs_ in use
  Buffer<double> projection_;       // node rows x directions, column-major
  Buffer<int> scratch_rows_;        // the right child's rows (and carried values) while partitioning
  std::vector<std::pair<size_t, size_t>> moved_;  // feature sampling: swapped positions
  std::vector<char> is_dropped_;    // all zero between nodes
  const bool weighted_features_;    // options_.feature_weights given
  WeightedFeatureSampler feature_sampler_;
};

}  // namespace ccforest

#endif  // CCFOREST_TREE_TRAINER_H_
