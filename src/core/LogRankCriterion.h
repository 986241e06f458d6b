#ifndef CCFOREST_LOG_RANK_CRITERION_H_
#define CCFOREST_LOG_RANK_CRITERION_H_

#include <algorithm>
#include <cstddef>
#include <vector>

#include "SplitCriterion.h"
#include "SurvivalNode.h"

namespace ccforest {

/**
 * The log-rank statistic of the two children (survival::survdiff's chi-square,
 * ties handled exactly by the hypergeometric variance), summed over causes for
 * competing risks (each cause's own log-rank test: its events against all
 * others, which leave the risk set). A cut is allowed only when each child
 * holds at least `min_events` rows with an event.
 *
 * With U_c = O_c - E_c the left child's observed minus expected events of
 * cause c and V_c its variance, the gain is sum_c U_c^2 / V_c. U_c is the sum
 * of the left rows' martingale residuals (their events minus the node's
 * cumulative hazard at their times), and
 *   V_c = sum_q v_{c,q} Y_Lq (Y_q - Y_Lq),  v_{c,q} = d_{c,q} (Y_q - d_{c,q}) / (Y_q^2 (Y_q - 1))
 * over the node's event times q, Y_Lq the left child's rows at risk. The
 * term linear in Y_Lq is a sum over the left rows; the quadratic one, sum_q
 * v_{c,q} Y_Lq^2, changes by w^2 C_c(s) + 2 w sum_{j in L} w_j C_c(min(s, s_j))
 * when a row of weight w at position s joins the left child (C_c the running
 * sum of v_{c,q}), kept in Fenwick trees over the positions: a sweep of n
 * rows costs O(n log n) for any number of event times. The trees of the
 * weight and of each cause are interleaved (position-major), so that one
 * walk reads or updates them all.
 */
class LogRankCriterion final : public SplitCriterion {
 public:
  LogRankCriterion(size_t n_cause, size_t min_events)
      : n_cause_(n_cause), min_events_(std::max<size_t>(min_events, 1)) {}

  double set_node(const NodeTargets& targets) override;
  void sweep(const int* rows, const double* bar, size_t first, size_t last,
             CutOffers& offers) override;
  double cut_gain(const double* u, double cut, size_t& n_left) override;

  /** The node's fit (after set_node()). */
  const NodeHazard& hazard() const { return *fit_; }

 private:
  void reset_left();
  /** kCauses: the number of causes, or 0 for n_cause_. */
  template <size_t kCauses>
  void add_left(size_t row);
  /** sweep() for one cause (see the definition). */
  void sweep_one_cause(const int* rows, const double* bar, size_t first, size_t last,
                       CutOffers& offers);
  double statistic() const;

  size_t n_cause_;
  size_t min_events_;
  NodeTargets targets_;
  NodeHazard own_hazard_;               // when set_node() is given none
  const NodeHazard* fit_ = &own_hazard_;  // the node's
  size_t n_times_ = 0;
  // Per node time q (and cause c, q-major): Lambda_c, sum v Y, sum v, v;
  // and each cause's total of the linear term (the scale of its variance).
  std::vector<double> lambda_, linear_, running_, step_;
  std::vector<double> scale_;
  // The left child.
  std::vector<double> u_, linear_left_, quadratic_;
  // Fenwick trees over the positions, interleaved: at position i, entry
  // i (K + 1) the weight, i (K + 1) + 1 + c cause c's w C_c(s).
  std::vector<double> trees_;
  std::vector<double> prefix_;  // add_left()'s sums for any number of causes
  double left_weight_ = 0.0;        // rows with a position
  size_t left_events_ = 0;
  std::vector<double> left_at_risk_;  // cut_gain(): Y_Lq
};

}  // namespace ccforest

#endif  // CCFOREST_LOG_RANK_CRITERION_H_
