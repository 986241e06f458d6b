#ifndef CCFOREST_CLASS_CRITERIA_H_
#define CCFOREST_CLASS_CRITERIA_H_

#include <cstddef>
#include <vector>

#include "Buffer.h"
#include "SplitCriterion.h"

namespace ccforest {

/**
 * Class impurity: entropy (kEntropy, the paper's default: information gain)
 * or Gini. The impurity of n rows with class counts c_k is, times n,
 * n log n - sum_k c_k log c_k (entropy) or n - sum_k c_k^2 / n (Gini),
 * averaged over outputs; with case weights, a row counts as its weight
 * wherever it would count once.
 */
template <bool kEntropy>
class ClassCriterion final : public SplitCriterion {
 public:
  /**
   * @param n_value classes over all outputs.
   * @param entropy the forest's table of c log c (entropy only), covering the largest node.
   */
  ClassCriterion(size_t n_value, const EntropyTable* entropy);

  double set_node(const NodeTargets& targets) override;
  void sweep(const int* rows, const double* bar, size_t first, size_t last,
             CutOffers& offers) override;
  double cut_gain(const double* u, double cut, size_t& n_left) override;

 private:
  double class_term(int count) const;
  /** f(w) = w log w (entropy) or w^2 (Gini), for weighted class totals. */
  double weighted_term(double w) const;
  template <bool kOneOutput>
  void sweep_counts(const int* rows, const double* bar, size_t first, size_t last,
                    CutOffers& offers);
  void sweep_weights(const int* rows, const double* bar, size_t first, size_t last,
                     CutOffers& offers);

  NodeTargets targets_;
  double base_ = 0.0;
  double node_sum_ = 0.0;    // sum of the class terms over the node's classes
  double node_total_ = 0.0;  // the node's total weight (weighted rows)
  const double* xlogx_ = nullptr;  // c log c
  const double* step_ = nullptr;   // (c + 1) log(c + 1) - c log c
  std::vector<int> node_count_, left_count_;
  std::vector<double> node_weight_, left_weight_;
  Buffer<int> sorted_classes_;
};

using EntropyCriterion = ClassCriterion<true>;
using GiniCriterion = ClassCriterion<false>;

}  // namespace ccforest

#endif  // CCFOREST_CLASS_CRITERIA_H_
