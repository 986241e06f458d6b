// Classification's part in growing a tree (see Task.h): a node's targets are
// its rows' global class indices, one per output; a leaf holds the class
// shares of each output.
#include "TaskClasses.h"

namespace ccforest {

void ClassTask::start_tree(int* rows, size_t n) {
  // Each row's classes (global indices, one per output) travel with it
  // through the partitions, so a node's are read in sequence.
  const size_t width = data_.n_output();
  row_classes_.resize(n * width);
  for (size_t i = 0; i < n; ++i) {
    for (size_t m = 0; m < width; ++m) {
      row_classes_[i * width + m] = data_.class_offset[m] + data_.y_class(rows[i], m);
    }
  }
}

void ClassTask::gather(const int* rows, size_t begin, size_t end, const double* weights) {
  (void)rows;
  (void)weights;
  const size_t width = data_.n_output();
  classes_.assign(row_classes_.begin() + static_cast<std::ptrdiff_t>(begin * width),
                  row_classes_.begin() + static_cast<std::ptrdiff_t>(end * width));
}

bool ClassTask::stops(size_t n, int depth) {
  (void)n;
  (void)depth;
  const size_t width = data_.n_output();
  for (size_t i = width; i < classes_.size(); ++i) {
    if (classes_[i] != classes_[i % width]) return false;
  }
  return true;
}

NodeTargets ClassTask::targets(size_t n) const {
  NodeTargets targets;
  targets.classes = classes_.data();
  targets.n = n;
  targets.width = data_.n_output();
  return targets;
}

void ClassTask::write_leaf(size_t rows, const double* weights, Tree& tree) {
  std::vector<double>& totals = leaf_totals_;
  totals.assign(data_.n_value(), 0.0);
  const size_t width = data_.n_output();
  double n = 0.0;
  for (size_t i = 0; i < rows; ++i) {
    const double w = weights != nullptr ? weights[i] : 1.0;
    n += w;
    for (size_t m = 0; m < width; ++m) totals[static_cast<size_t>(classes_[i * width + m])] += w;
  }
  for (size_t k = 0; k < totals.size(); ++k) {
    if (!(totals[k] > 0.0)) continue;
    // Stored as float (and exactly 1 for a class alone): round here so that
    // the tree in memory is the tree that will be read back.
    tree.leaf_index.push_back(static_cast<int>(k));
    tree.leaf_value.push_back(static_cast<double>(static_cast<float>(totals[k] / n)));
  }
}

bool ClassTask::sample_varies(const size_t* sample, size_t n) const {
  return sampled_rows_differ(classes_.data(), data_.n_output(), sample, n);
}

void ClassTask::cca_outputs(const size_t* positions, Eigen::Index n, CcaOutputs& out) {
  const size_t width = data_.n_output();
  auto position = [&](Eigen::Index i) { return positions ? positions[i] : static_cast<size_t>(i); };
  out.ranked = true;
  if (width == 1) {
    // One output: its codes, for the CCA that never forms the indicators.
    codes_.resize(static_cast<size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i) codes_[i] = classes_[position(i)];
    out.codes = codes_.data();
    out.n_class = data_.n_class[0];
    return;
  }
  out.codes = nullptr;
  out.y = Eigen::MatrixXd::Zero(n, static_cast<Eigen::Index>(data_.n_value()));
  for (Eigen::Index i = 0; i < n; ++i) {
    for (size_t m = 0; m < width; ++m) out.y(i, classes_[position(i) * width + m]) = 1.0;
  }
}

void ClassTask::add_targets(size_t position, size_t row, std::vector<double>& sums) const {
  (void)row;
  const size_t width = data_.n_output();
  for (size_t m = 0; m < width; ++m) sums[static_cast<size_t>(classes_[position * width + m])] += 1.0;
}

}  // namespace ccforest
