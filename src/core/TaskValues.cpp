// Regression's part in growing a tree (see Task.h and TaskValues.h).
#include "TaskValues.h"

#include <algorithm>

namespace ccforest {

void ValueTask::gather(const int* rows, size_t begin, size_t end, const double* weights) {
  const size_t n = end - begin, width = data_.n_output();
  values_.resize(n * width);
  node_mean_.assign(width, 0.0);
  double total = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const Eigen::Index row = rows[begin + i];
    const double w = weights != nullptr ? weights[i] : 1.0;
    total += w;
    for (size_t m = 0; m < width; ++m) node_mean_[m] += w * data_.y_real(row, m);
  }
  for (double& mean : node_mean_) mean /= weights != nullptr ? total : static_cast<double>(n);
  for (size_t i = 0; i < n; ++i) {
    const Eigen::Index row = rows[begin + i];
    for (size_t m = 0; m < width; ++m) {
      values_[i * width + m] = data_.y_real(row, m) - node_mean_[m];
    }
  }
}

bool ValueTask::stops(size_t n, int depth) {
  const size_t width = data_.n_output();
  bool pure = true;
  for (size_t i = width; i < values_.size() && pure; ++i) pure = values_[i] == values_[i % width];
  if (pure) return true;
  if (!rules_.relative_variance_leaves()) return false;
  // The authors' rule: a node whose outputs all vary less than 1e-6 of the
  // tree's own variance is a leaf (values_ are centred at the node).
  if (depth == 0) {
    root_variance_.assign(width, 0.0);
    for (size_t i = 0; i < n; ++i) {
      for (size_t m = 0; m < width; ++m) root_variance_[m] += values_[i * width + m] * values_[i * width + m];
    }
    for (double& v : root_variance_) v /= static_cast<double>(n - 1);
  }
  for (size_t m = 0; m < width; ++m) {
    double sum_squares = 0.0;
    for (size_t i = 0; i < n; ++i) sum_squares += values_[i * width + m] * values_[i * width + m];
    if (!(sum_squares / static_cast<double>(n) < Rules::kAuthorsVarianceRatio * root_variance_[m])) {
      return false;
    }
  }
  return true;
}

NodeTargets ValueTask::targets(size_t n) const {
  NodeTargets targets;
  targets.values = values_.data();
  targets.n = n;
  targets.width = data_.n_output();
  return targets;
}

void ValueTask::write_leaf(size_t n, const double* weights, Tree& tree) {
  (void)n;
  (void)weights;
  for (size_t m = 0; m < node_mean_.size(); ++m) {
    tree.leaf_index.push_back(static_cast<int>(m));
    tree.leaf_value.push_back(node_mean_[m]);
  }
}

bool ValueTask::sample_varies(const size_t* sample, size_t n) const {
  const size_t width = data_.n_output();
  if (!rules_.relative_variance_leaves()) return sampled_rows_differ(values_.data(), width, sample, n);
  // The authors' rule: some output's variance over the sample (n - 1 in the
  // denominator) reaches 1e-6 of the tree's.
  for (size_t m = 0; m < width; ++m) {
    double sum = 0.0, sum_squares = 0.0;
    for (size_t i = 0; i < n; ++i) sum += values_[sample[i] * width + m];
    const double mean = sum / static_cast<double>(n);
    for (size_t i = 0; i < n; ++i) {
      const double d = values_[sample[i] * width + m] - mean;
      sum_squares += d * d;
    }
    if (sum_squares / static_cast<double>(n - 1) >= Rules::kAuthorsVarianceRatio * root_variance_[m]) {
      return true;
    }
  }
  return false;
}

template <typename Position>
bool ValueTask::quantile_bins(Eigen::Index n, Position position) {
  const int bins = output_bins_;
  bin_order_.resize(static_cast<size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) bin_order_[i] = {values_[position(i)], static_cast<int>(i)};
  std::sort(bin_order_.begin(), bin_order_.end());
  // Equal-count bins over the sorted outputs; ties stay in one bin, so a bin
  // may be empty (the CCA then has fewer directions).
  int used = 0;
  for (Eigen::Index k = 0; k < n; ++k) {
    int bin = static_cast<int>((k * bins) / n);
    if (k > 0 && bin_order_[k].first == bin_order_[k - 1].first) {
      bin = codes_[bin_order_[k - 1].second];
    }
    codes_[bin_order_[k].second] = bin;
    used = std::max(used, bin + 1);
  }
  return used >= 2;
}

void ValueTask::cca_outputs(const size_t* positions, Eigen::Index n, CcaOutputs& out) {
  const size_t width = data_.n_output();
  auto position = [&](Eigen::Index i) { return positions ? positions[i] : static_cast<size_t>(i); };
  // No strengths: direction_ratio was measured for classes; for several
  // outputs a weaker direction may carry what the first misses, and the
  // bins are there for the weaker directions, which follow what the
  // strongest, a near least-squares one, cannot.
  out.ranked = false;
  out.codes = nullptr;
  if (width == 1 && output_bins_ >= 2) {
    codes_.resize(static_cast<size_t>(n));
    if (quantile_bins(n, position)) {
      out.codes = codes_.data();
      out.n_class = output_bins_;
      return;
    }
  }
  block_rows(values_.data(), width, positions, n, out.y);
}

void ValueTask::add_targets(size_t position, size_t row, std::vector<double>& sums) const {
  (void)position;
  // The outputs themselves, as the authors' code sums them (centred values
  // could differ by rounding).
  for (size_t m = 0; m < sums.size(); ++m) sums[m] += data_.y_real(static_cast<Eigen::Index>(row), m);
}

}  // namespace ccforest
