#ifndef CCFOREST_SURVIVAL_NODE_H_
#define CCFOREST_SURVIVAL_NODE_H_

#include <cstddef>
#include <vector>

#include "Data.h"

namespace ccforest {

/**
 * The Nelson-Aalen fit of a node: at each of its distinct event times (the
 * node's "times" q = 0, ..., n_times() - 1, in increasing order), the rows
 * (or weight) at risk Y_q and the events d_{c,q} of each cause c; and each
 * row's position, the last of the node's times at or before its own time
 * (-1: none), so that the row is at risk at times q <= position and its
 * event, if any, is at time `position`. The cumulative hazard of cause c at
 * position s is Lambda_c(s) = sum_{q <= s} d_{c,q} / Y_q, ties counted in
 * full (Nelson-Aalen): survival::survfit's and coxph's at beta = 0.
 */
class NodeHazard {
 public:
  /**
   * Fits the node's n rows: rank[i] and event[i] as in SurvivalOutcome,
   * weight[i] (null: each row counts once). Rows in increasing order of
   * rank cost O(n); others are sorted first.
   */
  void fit(const int* rank, const int* event, const double* weight, size_t n, int n_cause);

  size_t n_rows() const { return position_.size(); }
  int n_cause() const { return n_cause_; }
  size_t n_times() const { return time_.size(); }
  /** The data's event-time number (SurvivalOutcome::time_rank) of the node's time q. */
  int time(size_t q) const { return time_[q]; }
  double at_risk(size_t q) const { return at_risk_[q]; }
  /** Events of cause c (1-based) at time q. */
  double events(size_t q, int c) const {
    return events_[q * static_cast<size_t>(n_cause_) + static_cast<size_t>(c - 1)];
  }
  double all_events(size_t q) const { return all_events_[q]; }
  int position(size_t i) const { return position_[i]; }
  int event(size_t i) const { return event_[i]; }
  double weight(size_t i) const { return weight_ == nullptr ? 1.0 : weight_[i]; }
  /** Rows with an event, each counted once whatever its weight. */
  size_t event_rows() const { return event_rows_; }
  /** The node's rows in increasing order of time (their node positions). */
  const std::vector<int>& order() const { return order_; }

  /** Lambda_c(s) for s in -1..n_times()-1, cause c 1-based. */
  double cumulative_hazard(int s, int c) const {
    return s < 0 ? 0.0
                 : hazard_[static_cast<size_t>(s) * static_cast<size_t>(n_cause_) +
                           static_cast<size_t>(c - 1)];
  }

 private:
  /** fit() once the rows' order of time is known: order(h) is the h-th row in it. */
  template <typename Order>
  void fit_in_order(const int* rank, const int* event, const double* weight, size_t n, Order order);

  int n_cause_ = 1;
  const double* weight_ = nullptr;
  const int* event_ = nullptr;
  std::vector<int> order_;
  std::vector<int> time_;
  std::vector<double> at_risk_;
  std::vector<double> events_;      // n_times x n_cause
  std::vector<double> all_events_;
  std::vector<double> hazard_;      // cumulative, n_times x n_cause
  std::vector<int> position_;
  size_t event_rows_ = 0;
  // Scratch of fit().
  std::vector<size_t> group_start_;
  std::vector<double> group_weight_, group_events_, from_;
  std::vector<char> group_any_;
};

/**
 * The node's martingale residuals, the response its CCA is fitted against:
 * for row i and cause c, M_{c,i} = 1{row i has an event of cause c} -
 * Lambda_c(T_i) (coxph's residuals at beta = 0, so X'M is the Cox score
 * there), split over `intervals` consecutive periods of the node's event
 * times holding about equal numbers of events (each period's column is the
 * residual of the counting process over that period; the columns add up to
 * M). Column (c - 1) * intervals + j, row-major: out[i * width + column].
 */
void martingale_residuals(const NodeHazard& hazard, int intervals, double* out);

/** martingale_residuals()'s working memory, kept from node to node by its caller. */
struct ResidualScratch {
  std::vector<int> period, first;
  std::vector<double> compensator;
};

/** martingale_residuals() in `scratch`'s memory. */
void martingale_residuals(const NodeHazard& hazard, int intervals, double* out,
                          ResidualScratch& scratch);

/** Sorts rows (data row numbers) stably by their time rank. */
void sort_by_time(const SurvivalOutcome& outcome, int* rows, size_t n);

}  // namespace ccforest

#endif  // CCFOREST_SURVIVAL_NODE_H_
