#include "SurvivalNode.h"

#include <algorithm>
#include <numeric>

namespace ccforest {

void NodeHazard::fit(const int* rank, const int* event, const double* weight, size_t n,
                     int n_cause) {
  n_cause_ = n_cause;
  weight_ = weight;
  event_ = event;
  order_.resize(n);
  std::iota(order_.begin(), order_.end(), 0);
  bool sorted = true;
  for (size_t i = 1; i < n && sorted; ++i) sorted = rank[i - 1] <= rank[i];
  if (sorted) {
    // The trainer's nodes keep their rows in order of time (each tree's are
    // sorted once, and splits partition them stably): then the order is the
    // identity, and the loops index the rows directly.
    fit_in_order(rank, event, weight, n, [](size_t h) { return h; });
    return;
  }
  std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return rank[a] < rank[b]; });
  const int* order = order_.data();
  fit_in_order(rank, event, weight, n, [order](size_t h) { return static_cast<size_t>(order[h]); });
}

template <typename Order>
void NodeHazard::fit_in_order(const int* rank, const int* event, const double* weight, size_t n,
                              Order order) {
  const size_t k = static_cast<size_t>(n_cause_);
  position_.resize(n);
  event_rows_ = 0;
  // Groups of rows sharing a rank, each with its weight and its events of
  // each cause summed in row order; then the weight from each group on (the
  // rows at risk at its time), summed from the end so that the sums do not
  // depend on subtractions. Two passes over the rows. The scratch vectors
  // are members, kept from node to node and sized once per node for the
  // most groups it can have (one per row), so no loop appends.
  group_start_.resize(n + 1);
  group_weight_.resize(n);
  group_any_.resize(n);
  group_events_.resize(n * k);
  size_t n_group = 0, n_time = 0;
  for (size_t h = 0; h < n; ++n_group) {
    const int r = rank[order(h)];
    group_start_[n_group] = h;
    double* counts = group_events_.data() + n_group * k;
    for (size_t c = 0; c < k; ++c) counts[c] = 0.0;
    double total = 0.0;
    bool any = false;
    for (; h < n && rank[order(h)] == r; ++h) {
      const size_t i = order(h);
      const double w = weight == nullptr ? 1.0 : weight[i];
      total += w;
      if (event[i] > 0) {
        counts[static_cast<size_t>(event[i] - 1)] += w;
        any = true;
        ++event_rows_;
      }
    }
    group_weight_[n_group] = total;
    group_any_[n_group] = any;
    n_time += any;
  }
  group_start_[n_group] = n;
  std::vector<double>& from = from_;
  from.resize(n_group + 1);
  from[n_group] = 0.0;
  for (size_t g = n_group; g-- > 0;) from[g] = from[g + 1] + group_weight_[g];
  time_.resize(n_time);
  at_risk_.resize(n_time);
  events_.resize(n_time * k);
  all_events_.resize(n_time);
  hazard_.resize(n_time * k);
  size_t q = 0;
  for (size_t g = 0; g < n_group; ++g) {
    if (group_any_[g]) {
      const double y = from[g];
      time_[q] = rank[order(group_start_[g])];
      at_risk_[q] = y;
      double all = 0.0;
      for (size_t c = 0; c < k; ++c) {
        const double d = group_events_[g * k + c];
        events_[q * k + c] = d;
        all += d;
        const double before = q > 0 ? hazard_[(q - 1) * k + c] : 0.0;
        hazard_[q * k + c] = before + d / y;
      }
      all_events_[q] = all;
      ++q;
    }
    const int position = static_cast<int>(q) - 1;
    for (size_t h = group_start_[g]; h < group_start_[g + 1]; ++h) position_[order(h)] = position;
  }
}

void martingale_residuals(const NodeHazard& hazard, int intervals, double* out) {
  ResidualScratch scratch;
  martingale_residuals(hazard, intervals, out, scratch);
}

void martingale_residuals(const NodeHazard& hazard, int intervals, double* out,
                          ResidualScratch& scratch) {
  const size_t n = hazard.n_rows(), q_count = hazard.n_times();
  const int k = hazard.n_cause();
  const size_t width = static_cast<size_t>(k) * static_cast<size_t>(intervals);
  // Periods of about equal events: time q falls in period
  // floor(intervals * (events before q) / (all events)).
  double total = 0.0;
  for (size_t q = 0; q < q_count; ++q) total += hazard.all_events(q);
  std::vector<int>& period = scratch.period;
  std::vector<int>& first = scratch.first;
  period.assign(q_count, 0);
  first.assign(static_cast<size_t>(intervals) + 1, static_cast<int>(q_count));
  double before = 0.0;
  for (size_t q = 0; q < q_count; ++q) {
    const int j = total > 0.0 ? std::min(intervals - 1, static_cast<int>(intervals * before / total)) : 0;
    period[q] = j;
    before += hazard.all_events(q);
  }
  for (size_t q = q_count; q-- > 0;) first[static_cast<size_t>(period[q])] = static_cast<int>(q);
  for (int j = intervals - 1; j >= 0; --j) {
    first[static_cast<size_t>(j)] = std::min(first[static_cast<size_t>(j)], first[static_cast<size_t>(j) + 1]);
  }
  // A row's compensators depend on its position alone: one row of them per
  // position s = -1 .. q_count - 1, which the node's rows copy (a node has
  // more rows than event times).
  std::vector<double>& compensator = scratch.compensator;
  compensator.resize((q_count + 1) * width);
  for (int s = -1; s < static_cast<int>(q_count); ++s) {
    double* row = compensator.data() + static_cast<size_t>(s + 1) * width;
    for (int c = 1; c <= k; ++c) {
      for (int j = 0; j < intervals; ++j) {
        const int begin = first[static_cast<size_t>(j)], end = first[static_cast<size_t>(j) + 1];
        double lambda = 0.0;
        if (s >= begin && begin < end) {
          lambda = hazard.cumulative_hazard(std::min(s, end - 1), c) -
                   hazard.cumulative_hazard(begin - 1, c);
        }
        row[static_cast<size_t>((c - 1) * intervals + j)] = -lambda;
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    double* row = out + i * width;
    const int s = hazard.position(i);
    std::copy_n(compensator.data() + static_cast<size_t>(s + 1) * width, width, row);
    const int e = hazard.event(i);
    if (e > 0) row[static_cast<size_t>((e - 1) * intervals + period[static_cast<size_t>(s)])] += 1.0;
  }
}

void sort_by_time(const SurvivalOutcome& outcome, int* rows, size_t n) {
  // A counting sort on the ranks (-1 .. n_time - 1): stable, as
  // std::stable_sort was, in O(n + n_time) instead of O(n log n) per tree.
  const size_t buckets = static_cast<size_t>(outcome.n_time) + 2;
  std::vector<size_t> start(buckets, 0);
  for (size_t i = 0; i < n; ++i) ++start[static_cast<size_t>(outcome.time_rank[rows[i]] + 2)];
  for (size_t b = 1; b < buckets; ++b) start[b] += start[b - 1];
  std::vector<int> sorted(n);
  for (size_t i = 0; i < n; ++i) {
    sorted[start[static_cast<size_t>(outcome.time_rank[rows[i]] + 1)]++] = rows[i];
  }
  std::copy(sorted.begin(), sorted.end(), rows);
}

}  // namespace ccforest
