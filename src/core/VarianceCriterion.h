#ifndef CCFOREST_VARIANCE_CRITERION_H_
#define CCFOREST_VARIANCE_CRITERION_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "SplitCriterion.h"

namespace ccforest {

/**
 * Squared error (regression): the node's sum of squared deviations from its
 * mean, averaged over outputs. Values arrive centred at the node's
 * (weighted) mean, so the right child's sums are minus the left's and the
 * decrease in squared error is |S_left|^2 (1/W_left + 1/W_right), S_left the
 * left child's (weighted) sums and W its rows or weight.
 */
class VarianceCriterion final : public SplitCriterion {
 public:
  explicit VarianceCriterion(size_t n_output) : left_value_(n_output, 0.0) {}

  double set_node(const NodeTargets& targets) override;
  void sweep(const int* rows, const double* bar, size_t first, size_t last,
             CutOffers& offers) override;
  double cut_gain(const double* u, double cut, size_t& n_left) override;
  long best_bin(const uint8_t* bins, const uint32_t* bin_rows, size_t n_bins,
                size_t min_leaf) override;
  void sweep_window(size_t first_bin, const int* rows, size_t m, const double* bar,
                    size_t min_leaf, CutOffers& offers) override;

 private:
  template <bool kOneOutput>
  void sweep_rows(const int* rows, const double* bar, size_t first, size_t last, CutOffers& offers);
  void sweep_weights(const int* rows, const double* bar, size_t first, size_t last,
                     CutOffers& offers);
  /** The gain of a cut with left_total rows (or weight) left, left_value_ their sums. */
  double gain_of(double left_total) const;

  NodeTargets targets_;
  double node_total_ = 0.0;  // the node's total weight (weighted rows)
  std::vector<double> left_value_;
  // Binned search: per bin, its total weight and (weighted) sums of the outputs.
  size_t n_bins_ = 0;
  std::vector<double> bin_total_, bin_sums_;
};

}  // namespace ccforest

#endif  // CCFOREST_VARIANCE_CRITERION_H_
