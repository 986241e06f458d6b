#ifndef CCFOREST_VARIANCE_CRITERION_H_
#define CCFOREST_VARIANCE_CRITERION_H_

#include <cstddef>
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

 private:
  template <bool kOneOutput>
  void sweep_rows(const int* rows, const double* bar, size_t first, size_t last, CutOffers& offers);
  void sweep_weights(const int* rows, const double* bar, size_t first, size_t last,
                     CutOffers& offers);

  NodeTargets targets_;
  double node_total_ = 0.0;  // the node's total weight (weighted rows)
  std::vector<double> left_value_;
};

}  // namespace ccforest

#endif  // CCFOREST_VARIANCE_CRITERION_H_
