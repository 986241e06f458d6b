// The survival pieces of the tree trainer (see TreeTrainer.h): a node's
// targets are its Nelson-Aalen fit and the martingale residuals the CCA is
// fitted against; a leaf holds the counts of its Nelson-Aalen estimator.
#include "TreeTrainer.h"

namespace ccforest {

void TreeTrainer::gather_survival_targets(size_t begin, size_t end) {
  const size_t n = end - begin, width = data_.n_output();
  node_rank_.resize(n);
  node_event_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t row = static_cast<size_t>(rows_[begin + i]);
    node_rank_[i] = data_.survival.time_rank[row];
    node_event_[i] = data_.survival.event[row];
  }
  node_hazard_.fit(node_rank_.data(), node_event_.data(), weighted_ ? weights_.data() : nullptr,
                   n, data_.survival.n_cause);
  values_.resize(n * width);
  martingale_residuals(node_hazard_, data_.survival.intervals, values_.data());
}

void TreeTrainer::add_survival_leaf() {
  // Entries of event time k (see the survival leaves in LeafCodec.cpp):
  // index k (K + 1) the rows at risk, then k (K + 1) + c the events of each
  // cause c that has some.
  const int k = data_.survival.n_cause;
  for (size_t q = 0; q < node_hazard_.n_times(); ++q) {
    const int base = node_hazard_.time(q) * (k + 1);
    tree_.leaf_index.push_back(base);
    tree_.leaf_value.push_back(node_hazard_.at_risk(q));
    for (int c = 1; c <= k; ++c) {
      const double d = node_hazard_.events(q, c);
      if (d > 0.0) {
        tree_.leaf_index.push_back(base + c);
        tree_.leaf_value.push_back(d);
      }
    }
  }
}

}  // namespace ccforest
