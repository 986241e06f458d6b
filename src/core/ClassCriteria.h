#ifndef CCFOREST_CLASS_CRITERIA_H_
#define CCFOREST_CLASS_CRITERIA_H_

#include <cstddef>
#include <cstdint>
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
  long best_bin(const uint8_t* bins, const uint32_t* bin_rows, size_t n_bins,
                size_t min_leaf) override;
  void sweep_window(size_t first_bin, const int* rows, size_t m, const double* bar,
                    size_t min_leaf, CutOffers& offers) override;

 private:
  double class_term(int count) const;
  /** f(w) = w log w (entropy) or w^2 (Gini), for weighted class totals. */
  double weighted_term(double w) const;
  template <bool kOneOutput>
  void sweep_counts(const int* rows, const double* bar, size_t first, size_t last,
                    CutOffers& offers);
  void sweep_weights(const int* rows, const double* bar, size_t first, size_t last,
                     CutOffers& offers);
  /** Binned search: each bin's class totals, and which classes it holds. */
  template <bool kWeighted, bool kOneOutput>
  void count_bins(const uint8_t* bins);
  /** Moves bin b's rows to the left child: its class totals and the sums. */
  template <bool kWeighted>
  void add_bin(size_t b, double& left_sum, double& right_sum);
  template <bool kWeighted>
  long best_bin_of(const uint32_t* bin_rows, size_t n_bins, size_t min_leaf);
  /** The gain of a cut with n_left rows (or left_total weight) left. */
  double gain_of(size_t n_left, double left_total, double left_sum, double right_sum) const;

  NodeTargets targets_;
  double base_ = 0.0;
  double node_sum_ = 0.0;    // sum of the class terms over the node's classes
  double node_total_ = 0.0;  // the node's total weight (weighted rows)
  const double* xlogx_ = nullptr;  // c log c
  const double* step_ = nullptr;   // (c + 1) log(c + 1) - c log c
  std::vector<int> node_count_, left_count_;
  std::vector<double> node_weight_, left_weight_;
  Buffer<int> sorted_classes_;
  // Binned search: per bin, its class counts (or weights, and total
  // weight), and a mask of the classes present when there are at most 64,
  // so that a bin's update visits only those.
  size_t n_bins_ = 0;
  std::vector<int> bin_counts_;
  std::vector<double> bin_weights_, bin_total_;
  std::vector<uint64_t> bin_present_;
};

using EntropyCriterion = ClassCriterion<true>;
using GiniCriterion = ClassCriterion<false>;

}  // namespace ccforest

#endif  // CCFOREST_CLASS_CRITERIA_H_
