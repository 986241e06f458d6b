#include "TreeTrainer.h"

#include <cmath>
#include <numeric>
#include <stdexcept>

#include "Cca.h"
#include "Rotation.h"

namespace ccforest {

using Eigen::MatrixXd;

TreeTrainer::TreeTrainer(const Data& data, const TreeOptions& options, uint64_t seed,
                         uint64_t tree_index)
    : data_(data), options_(options), rng_(seed, tree_index),
      impute_key_(tree_impute_key(seed, tree_index)),
      search_(options.split_rule, data.n_value(), data.n_row()) {}

Tree TreeTrainer::grow() {
  const size_t n = data_.n_row();
  rows_.resize(n);
  if (options_.bagging) {
    in_bag_.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      rows_[i] = static_cast<int>(rng_.index(n));
      in_bag_[rows_[i]] = 1;
    }
  } else {
    std::iota(rows_.begin(), rows_.end(), 0);
  }
  auto all = std::make_shared<std::vector<int>>(data_.n_feature());
  std::iota(all->begin(), all->end(), 0);

  tree_.add_node();
  std::vector<NodeTask> level{{0, n, 0, all}}, next;
  while (!level.empty()) {
    next.clear();
    for (const NodeTask& task : level) grow_node(task, next);
    level.swap(next);
  }
  return std::move(tree_);
}

double TreeTrainer::value(size_t row, int column) const {
  const double v = data_.x(static_cast<Eigen::Index>(row), column);
  if (!std::isnan(v)) return v;
  // Missing values reach the core only under random imputation; treating any
  // other NaN as the training mean (0 in z-scores) keeps the tree defined.
  return options_.impute_random
             ? imputed_normal(impute_key_, data_.row_hash[row], static_cast<uint64_t>(column))
             : 0.0;
}

void TreeTrainer::gather_targets(size_t begin, size_t end) {
  const size_t n = end - begin, width = data_.n_output();
  if (data_.is_classification()) {
    classes_.resize(n * width);
    for (size_t i = 0; i < n; ++i) {
      const Eigen::Index row = rows_[begin + i];
      for (size_t m = 0; m < width; ++m) {
        classes_[i * width + m] = data_.class_offset[m] + data_.y_class(row, m);
      }
    }
    return;
  }
  values_.resize(n * width);
  node_mean_.assign(width, 0.0);
  for (size_t i = 0; i < n; ++i) {
    const Eigen::Index row = rows_[begin + i];
    for (size_t m = 0; m < width; ++m) node_mean_[m] += data_.y_real(row, m);
  }
  for (double& mean : node_mean_) mean /= static_cast<double>(n);
  for (size_t i = 0; i < n; ++i) {
    const Eigen::Index row = rows_[begin + i];
    for (size_t m = 0; m < width; ++m) {
      values_[i * width + m] = data_.y_real(row, m) - node_mean_[m];
    }
  }
}

bool TreeTrainer::targets_pure() const {
  if (data_.is_classification()) {
    const size_t width = data_.n_output();
    for (size_t i = width; i < classes_.size(); ++i) {
      if (classes_[i] != classes_[i % width]) return false;
    }
    return true;
  }
  const size_t width = data_.n_output();
  for (size_t i = width; i < values_.size(); ++i) {
    if (values_[i] != values_[i % width]) return false;
  }
  return true;
}

void TreeTrainer::make_leaf(size_t begin, size_t end) {
  const size_t n = end - begin;
  const double inv_n = 1.0 / static_cast<double>(n);
  if (data_.is_classification()) {
    std::vector<int>& counts = leaf_counts_;
    counts.assign(data_.n_value(), 0);
    for (int k : classes_) ++counts[k];
    for (size_t k = 0; k < counts.size(); ++k) {
      if (counts[k] > 0) tree_.add_entry(static_cast<int>(k), counts[k] * inv_n);
    }
  } else {
    for (size_t m = 0; m < node_mean_.size(); ++m) {
      tree_.add_entry(static_cast<int>(m), node_mean_[m]);
    }
  }
  tree_.close_node();
}

bool TreeTrainer::gather_feature(int feature, size_t begin, size_t end) {
  const size_t n = end - begin, start = xs_used_;
  const int first = data_.feature_start[feature], last = data_.feature_start[feature + 1];
  bool any_missing = false;
  int last_varying = -1, n_varying = 0;
  // Grown, never shrunk or cleared: resizing down and up again would zero-fill.
  const size_t needed = start + n * static_cast<size_t>(last - first);
  if (xs_.size() < needed) xs_.resize(needed);
  double* out = xs_.data() + start;
  for (int column = first; column < last; ++column) {
    bool varies = false;
    const double* x = data_.x.data() + static_cast<size_t>(column) * data_.n_row();
    for (size_t i = 0; i < n; ++i) {
      const size_t row = static_cast<size_t>(rows_[begin + i]);
      const double raw = x[row];
      if (std::isnan(raw)) {
        any_missing = true;
        out[i] = value(row, column);
      } else {
        out[i] = raw;
      }
    }
    for (size_t i = 1; i < n && !varies; ++i) varies = out[i] != out[0];
    if (varies) {
      last_varying = column;
      ++n_varying;
    }
    out += n;
  }
  if (n_varying == 0) return false;
  // The indicators of a factor's levels present at the node sum to one, so
  // one of them is redundant. Left in, which one the pivoted QR drops would
  // turn on rounding, and rescaling another feature could change the tree.
  // Dropping the last present level fixes the choice; imputed missing values
  // break the dependency, so then all columns stay.
  const int dropped = (last - first > 1 && !any_missing && n_varying >= 2) ? last_varying : -1;
  size_t kept = start;
  for (int column = first; column < last; ++column) {
    if (column == dropped) continue;
    const double* from = xs_.data() + start + static_cast<size_t>(column - first) * n;
    if (kept != static_cast<size_t>(from - xs_.data())) {
      std::copy(from, from + n, xs_.begin() + static_cast<std::ptrdiff_t>(kept));
    }
    kept += n;
    columns_.push_back(column);
  }
  xs_used_ = kept;
  return true;
}

TreeTrainer::FeatureSet TreeTrainer::select_features(const NodeTask& task) {
  const std::vector<int>& available = *task.features;
  const size_t n_available = available.size();
  const size_t mtry = static_cast<size_t>(options_.mtry);
  selected_.clear();
  columns_.clear();
  dropped_.clear();
  xs_used_ = 0;

  // A partial Fisher-Yates shuffle over positions of `available`, recording
  // only the swapped positions, so sampling costs O(mtry) and not O(D).
  std::vector<std::pair<size_t, size_t>>& moved = moved_;
  moved.clear();
  auto at = [&](size_t pos) {
    for (const auto& m : moved) {
      if (m.first == pos) return m.second;
    }
    return pos;
  };
  auto put = [&](size_t pos, size_t val) {
    for (auto& m : moved) {
      if (m.first == pos) {
        m.second = val;
        return;
      }
    }
    moved.emplace_back(pos, val);
  };
  for (size_t k = 0; k < n_available && selected_.size() < mtry; ++k) {
    const size_t j = k + rng_.index(n_available - k);
    const size_t picked = at(j);
    put(j, at(k));
    put(k, picked);
    const int feature = available[picked];
    if (gather_feature(feature, task.begin, task.end)) {
      selected_.push_back(feature);
    } else {
      dropped_.push_back(feature);
    }
  }
  if (dropped_.empty()) return task.features;
  // Constant features are dropped for this node's descendants only.
  auto kept = std::make_shared<std::vector<int>>();
  kept->reserve(n_available - dropped_.size());
  std::vector<char>& is_dropped = is_dropped_;
  is_dropped.resize(data_.n_feature(), 0);
  for (int f : dropped_) is_dropped[f] = 1;
  for (int f : available) {
    if (!is_dropped[f]) kept->push_back(f);
  }
  for (int f : dropped_) is_dropped[f] = 0;
  return kept;
}

namespace {

bool rows_equal(const ConstMatrixRef& x, Eigen::Index a, Eigen::Index b) {
  for (Eigen::Index j = 0; j < x.cols(); ++j) {
    if (x(a, j) != x(b, j)) return false;
  }
  return true;
}

/** Index of a second distinct row when x has exactly two distinct rows, else -1. */
Eigen::Index second_of_two_unique(const ConstMatrixRef& x) {
  Eigen::Index second = -1;
  for (Eigen::Index i = 1; i < x.rows(); ++i) {
    if (rows_equal(x, 0, i)) continue;
    if (second < 0) {
      second = i;
    } else if (!rows_equal(x, second, i)) {
      return -1;
    }
  }
  return second;
}

/**
 * Singular and eigen vectors have arbitrary signs, which rounding can flip;
 * a flip swaps the children and so changes the rest of the tree. Making the
 * largest coefficient positive (the first of near-equal ones) keeps a tree
 * the same when its input changes only by rounding, as under rescaling.
 */
void canonical_sign(Eigen::Ref<Eigen::VectorXd> direction) {
  const double largest = direction.cwiseAbs().maxCoeff();
  for (Eigen::Index j = 0; j < direction.size(); ++j) {
    if (std::abs(direction(j)) >= largest * (1.0 - 1e-9)) {
      if (direction(j) < 0.0) direction = -direction;
      return;
    }
  }
}

/** Principal axes of x with singular value above tolerance times the largest. */
MatrixXd principal_directions(const ConstMatrixRef& x, double tolerance) {
  const MatrixXd centred = x.rowwise() - x.colwise().mean();
  Eigen::SelfAdjointEigenSolver<MatrixXd> eigen(centred.transpose() * centred);
  const Eigen::VectorXd values = eigen.eigenvalues().reverse().cwiseMax(0.0).cwiseSqrt();
  const MatrixXd vectors = eigen.eigenvectors().rowwise().reverse();
  Eigen::Index rank = 0;
  while (rank < values.size() && values(rank) > tolerance * values(0)) ++rank;
  return vectors.leftCols(rank);
}

}  // namespace

MatrixXd TreeTrainer::directions_on(const ConstMatrixRef& x, const size_t* rows) {
  const Eigen::Index n = x.rows();
  const double tol = options_.rank_tolerance;
  if (options_.projection == Projection::kPca) return principal_directions(x, tol);
  auto node_row = [&](Eigen::Index i) { return rows ? rows[i] : static_cast<size_t>(i); };

  // With two distinct rows the centred block has rank one and the pivoted QR
  // would keep a single column, so split along their difference (Appendix B).
  const Eigen::Index second = second_of_two_unique(x);
  if (second >= 0) return (x.row(second) - x.row(0)).transpose();

  const size_t width = data_.n_output();
  if (data_.is_classification() && width == 1) {
    codes_.resize(static_cast<size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i) codes_[i] = classes_[node_row(i)];
    return cca_classes(x, codes_.data(), data_.n_class[0], tol, cca_work_).directions;
  }
  MatrixXd y;
  if (data_.is_classification()) {
    y = MatrixXd::Zero(n, data_.n_value());
    for (Eigen::Index i = 0; i < n; ++i) {
      for (size_t m = 0; m < width; ++m) y(i, classes_[node_row(i) * width + m]) = 1.0;
    }
  } else {
    y.resize(n, width);
    for (Eigen::Index i = 0; i < n; ++i) {
      for (size_t m = 0; m < width; ++m) y(i, m) = values_[node_row(i) * width + m];
    }
  }
  return cca(x, y, tol, cca_work_).directions;
}

MatrixXd TreeTrainer::data_directions(size_t n) {
  const Eigen::Index p = static_cast<Eigen::Index>(columns_.size());
  const Eigen::Index rows = static_cast<Eigen::Index>(n);
  const Eigen::Map<const MatrixXd> xs(xs_.data(), rows, p);
  if (options_.projection_bootstrap) {
    sample_.resize(n);
    for (size_t& s : sample_) s = rng_.index(n);
    boot_.resize(n * static_cast<size_t>(p));
    for (Eigen::Index j = 0; j < p; ++j) {
      const double* from = xs_.data() + static_cast<size_t>(j) * n;
      double* to = boot_.data() + static_cast<size_t>(j) * n;
      for (size_t i = 0; i < n; ++i) to[i] = from[sample_[i]];
    }
    const Eigen::Map<const MatrixXd> xb(boot_.data(), rows, p);
    bool x_varies = false, y_varies = false;
    for (Eigen::Index i = 1; i < rows && !x_varies; ++i) x_varies = !rows_equal(xb, 0, i);
    const size_t width = data_.n_output();
    for (size_t i = 1; i < n && !y_varies; ++i) {
      for (size_t m = 0; m < width && !y_varies; ++m) {
        y_varies = data_.is_classification()
                       ? classes_[sample_[i] * width + m] != classes_[sample_[0] * width + m]
                       : values_[sample_[i] * width + m] != values_[sample_[0] * width + m];
      }
    }
    // A degenerate bootstrap sample says nothing about directions; fall back
    // to the node's own rows (Appendix B).
    if (x_varies && y_varies) return directions_on(xb, sample_.data());
  }
  return directions_on(xs, nullptr);
}

MatrixXd TreeTrainer::find_directions(size_t n) {
  const Eigen::Index p = static_cast<Eigen::Index>(columns_.size());
  MatrixXd directions;
  switch (options_.projection) {
    case Projection::kAxis:
      directions = MatrixXd::Identity(p, p);
      break;
    case Projection::kRotation:
      directions = random_rotation(p, rng_);
      break;
    case Projection::kCca:
    case Projection::kPca:
      directions = data_directions(n);
      break;
  }
  MatrixXd unit(p, directions.cols());
  Eigen::Index kept = 0;
  for (Eigen::Index d = 0; d < directions.cols(); ++d) {
    const double norm = directions.col(d).norm();
    if (!(norm > 0.0) || !std::isfinite(norm)) continue;
    unit.col(kept) = directions.col(d) / norm;
    canonical_sign(unit.col(kept));
    ++kept;
  }
  return unit.leftCols(kept);
}

namespace {

/**
 * u = x * a with the sum taken in column order, the order prediction uses, so
 * training rows and new rows fall on the same side of a threshold.
 */
void project(const double* x, size_t n, const MatrixXd& directions, Eigen::Index d, double* u) {
  // Eigen's packet loop computes the same u + a * x per element as a scalar
  // loop (no fused multiply-add), only two at a time.
  const Eigen::Index rows = static_cast<Eigen::Index>(n);
  Eigen::Map<Eigen::ArrayXd> out(u, rows);
  out.setZero();
  for (Eigen::Index j = 0; j < directions.rows(); ++j) {
    const double a = directions(j, d);
    if (a == 0.0) continue;
    out += a * Eigen::Map<const Eigen::ArrayXd>(x + static_cast<size_t>(j) * n, rows);
  }
}

}  // namespace

void TreeTrainer::grow_node(const NodeTask& task, std::vector<NodeTask>& next) {
  const size_t node = tree_.payload_start.size() - 1;
  const size_t n = task.end - task.begin;
  gather_targets(task.begin, task.end);
  const bool too_deep = options_.max_depth > 0 && task.depth >= options_.max_depth;
  if (n < 2 || n < static_cast<size_t>(options_.min_split) || too_deep || targets_pure()) {
    make_leaf(task.begin, task.end);
    return;
  }
  FeatureSet features = select_features(task);
  if (selected_.empty()) {
    make_leaf(task.begin, task.end);
    return;
  }
  const MatrixXd directions = find_directions(n);
  if (directions.cols() == 0) {
    make_leaf(task.begin, task.end);
    return;
  }

  NodeTargets targets;
  targets.classes = classes_.data();
  targets.values = values_.data();
  targets.n = n;
  targets.width = data_.n_output();
  search_.set_node(targets);
  projection_.resize(n * static_cast<size_t>(directions.cols()));
  BestSplit best;
  for (Eigen::Index d = 0; d < directions.cols(); ++d) {
    double* u = projection_.data() + static_cast<size_t>(d) * n;
    project(xs_.data(), n, directions, d, u);
    search_.sweep(u, static_cast<size_t>(options_.min_leaf), static_cast<int>(d), rng_, best);
  }
  if (best.direction < 0 || !(best.gain > search_.tolerance())) {
    make_leaf(task.begin, task.end);
    return;
  }

  tree_.child_left[node] = static_cast<int>(tree_.n_nodes());
  tree_.threshold[node] = best.threshold;
  tree_.gain[node] = best.gain;
  tree_.add_node();
  tree_.add_node();
  for (Eigen::Index j = 0; j < directions.rows(); ++j) {
    const double a = directions(j, best.direction);
    if (a != 0.0) tree_.add_entry(columns_[static_cast<size_t>(j)], a);
  }
  tree_.close_node();

  // Stable partition of the node's rows by the chosen projection.
  const double* u = projection_.data() + static_cast<size_t>(best.direction) * n;
  scratch_rows_.clear();
  size_t n_left = 0;
  for (size_t i = 0; i < n; ++i) {
    const int row = rows_[task.begin + i];
    if (u[i] <= best.threshold) {
      rows_[task.begin + n_left++] = row;
    } else {
      scratch_rows_.push_back(row);
    }
  }
  if (n_left != best.n_left) throw std::logic_error("split partition disagrees with its search");
  std::copy(scratch_rows_.begin(), scratch_rows_.end(), rows_.begin() + task.begin + n_left);
  next.push_back({task.begin, task.begin + n_left, task.depth + 1, features});
  next.push_back({task.begin + n_left, task.end, task.depth + 1, std::move(features)});
}

}  // namespace ccforest
