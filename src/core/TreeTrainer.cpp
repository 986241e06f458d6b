#include "TreeTrainer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "Cca.h"
#include "Predictor.h"
#include "Projection.h"
#include "Rotation.h"
#include "Sampling.h"

namespace ccforest {

using Eigen::MatrixXd;

TreeTrainer::TreeTrainer(const Data& data, const TreeOptions& options, uint64_t seed,
                         uint64_t tree_index, const EntropyTable* entropy, const Runtime* runtime)
    : data_(data), options_(options), runtime_(runtime), rng_(seed, tree_index),
      impute_key_(tree_impute_key(seed, tree_index)),
      search_(options.split_rule, data.n_value(), entropy),
      weighted_(data.weight != nullptr && !data.uniform_weight && options.sample.every_row) {}

Tree TreeTrainer::grow() {
  size_t n = 0;
  {
    std::vector<int> sample;
    draw_sample(data_, options_.sample, rng_, sample);
    rows_.assign(sample.begin(), sample.end());
    n = sample.size();
  }
  if (data_.is_classification()) {
    // Each row's classes (global indices, one per output) travel with it
    // through the partitions, so a node's are read in sequence.
    const size_t width = data_.n_output();
    row_classes_.resize(n * width);
    for (size_t i = 0; i < n; ++i) {
      for (size_t m = 0; m < width; ++m) {
        row_classes_[i * width + m] = data_.class_offset[m] + data_.y_class(rows_[i], m);
      }
    }
  }
  auto all = std::make_shared<std::vector<int>>(data_.n_feature());
  std::iota(all->begin(), all->end(), 0);

  std::vector<NodeTask> level{{0, n, 0, all}}, next;
  while (!level.empty()) {
    next.clear();
    for (const NodeTask& task : level) {
      // A slow tree must not hold up Ctrl-C until it is finished.
      if (runtime_ != nullptr) runtime_->throw_if_cancelled();
      grow_node(task, next);
    }
    level.swap(next);
  }
  return std::move(tree_);
}

double TreeTrainer::value(size_t row, int column) const {
  // The one imputation rule of prediction (Predictor.h): missing values reach
  // the core only under random imputation, and any other NaN counts as the
  // training mean, 0 in z-scores.
  return cell_value(data_.x(static_cast<Eigen::Index>(row), column), options_.impute_random,
                    impute_key_, data_.row_hash[row], column);
}

void TreeTrainer::gather_targets(size_t begin, size_t end) {
  const size_t n = end - begin, width = data_.n_output();
  if (weighted_) {
    weights_.resize(n);
    for (size_t i = 0; i < n; ++i) weights_[i] = data_.weight[rows_[begin + i]];
  }
  if (data_.is_classification()) {
    classes_.assign(row_classes_.begin() + static_cast<std::ptrdiff_t>(begin * width),
                    row_classes_.begin() + static_cast<std::ptrdiff_t>(end * width));
    return;
  }
  values_.resize(n * width);
  node_mean_.assign(width, 0.0);
  double total = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const Eigen::Index row = rows_[begin + i];
    const double w = weighted_ ? weights_[i] : 1.0;
    total += w;
    for (size_t m = 0; m < width; ++m) node_mean_[m] += w * data_.y_real(row, m);
  }
  for (double& mean : node_mean_) mean /= weighted_ ? total : static_cast<double>(n);
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
  const size_t rows = end - begin;
  tree_.is_split.push_back(0);
  if (data_.is_classification()) {
    std::vector<double>& totals = leaf_totals_;
    totals.assign(data_.n_value(), 0.0);
    const size_t width = data_.n_output();
    double n = 0.0;
    for (size_t i = 0; i < rows; ++i) {
      const double w = weighted_ ? weights_[i] : 1.0;
      n += w;
      for (size_t m = 0; m < width; ++m) totals[static_cast<size_t>(classes_[i * width + m])] += w;
    }
    for (size_t k = 0; k < totals.size(); ++k) {
      if (!(totals[k] > 0.0)) continue;
      // Stored as float (and exactly 1 for a class alone): round here so that
      // the tree in memory is the tree that will be read back.
      tree_.leaf_index.push_back(static_cast<int>(k));
      tree_.leaf_value.push_back(static_cast<double>(static_cast<float>(totals[k] / n)));
    }
  } else {
    for (size_t m = 0; m < node_mean_.size(); ++m) {
      tree_.leaf_index.push_back(static_cast<int>(m));
      tree_.leaf_value.push_back(node_mean_[m]);
    }
  }
  tree_.leaf_begin.push_back(static_cast<int>(tree_.leaf_index.size()));
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
  const bool indicators = data_.indicators[static_cast<size_t>(feature)] != 0;
  const int dropped = (indicators && !any_missing && n_varying >= 2) ? last_varying : -1;
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

/**
 * Stable partition of n records of `width` ints by u[i] <= threshold (left
 * first); returns the left count. Each record is written to both sides and
 * only the count of its side moves: a good split sends rows either way
 * unpredictably, and a branch would miss often.
 */
size_t stable_partition(const double* u, double threshold, size_t n, size_t width, int* records,
                        Buffer<int>& scratch) {
  scratch.resize(n * width);
  size_t n_left = 0, n_right = 0;
  for (size_t i = 0; i < n; ++i) {
    const size_t left = u[i] <= threshold;
    for (size_t m = 0; m < width; ++m) {
      const int value = records[i * width + m];
      records[n_left * width + m] = value;
      scratch[n_right * width + m] = value;
    }
    n_left += left;
    n_right += 1 - left;
  }
  std::copy(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(n_right * width),
            records + n_left * width);
  return n_left;
}

bool rows_equal(const ConstMatrixRef& x, Eigen::Index a, Eigen::Index b) {
  for (Eigen::Index j = 0; j < x.cols(); ++j) {
    if (x(a, j) != x(b, j)) return false;
  }
  return true;
}

/**
 * Index i of a second distinct row, the first being row(0), when the rows
 * row(0), ..., row(n - 1) of x hold exactly two distinct rows; else -1.
 */
template <typename Row>
Eigen::Index second_of_two_unique(const ConstMatrixRef& x, Eigen::Index n, Row row) {
  Eigen::Index second = -1;
  for (Eigen::Index i = 1; i < n; ++i) {
    if (rows_equal(x, row(0), row(i))) continue;
    if (second < 0) {
      second = i;
    } else if (!rows_equal(x, row(second), row(i))) {
      return -1;
    }
  }
  return second;
}

/**
 * Principal axes of x with singular value above tolerance times the largest.
 * With fewer rows than columns the axes come from the n x n Gram matrix
 * (X'u / sigma for its eigenvectors u), so the cost follows the smaller side.
 */
MatrixXd principal_directions(const ConstMatrixRef& x, double tolerance) {
  const MatrixXd centred = x.rowwise() - x.colwise().mean();
  const bool wide = centred.rows() < centred.cols();
  Eigen::SelfAdjointEigenSolver<MatrixXd> eigen(wide ? MatrixXd(centred * centred.transpose())
                                                     : MatrixXd(centred.transpose() * centred));
  const Eigen::VectorXd values = eigen.eigenvalues().reverse().cwiseMax(0.0).cwiseSqrt();
  const MatrixXd vectors = eigen.eigenvectors().rowwise().reverse();
  Eigen::Index rank = 0;
  while (rank < values.size() && values(rank) > tolerance * values(0)) ++rank;
  if (!wide) return vectors.leftCols(rank);
  MatrixXd axes = centred.transpose() * vectors.leftCols(rank);
  for (Eigen::Index k = 0; k < rank; ++k) axes.col(k) /= values(k);
  return axes;
}

}  // namespace

MatrixXd TreeTrainer::directions_on(const ConstMatrixRef& x, const size_t* rows) {
  const Eigen::Index n = x.rows(), p = x.cols();
  const double tol = options_.rank_tolerance;
  auto node_row = [&](Eigen::Index i) { return rows ? rows[i] : static_cast<size_t>(i); };
  if (options_.projection == Projection::kPca) {
    if (rows == nullptr) return principal_directions(x, tol);
    boot_.resize(static_cast<size_t>(n * p));
    for (Eigen::Index j = 0; j < p; ++j) {
      const double* from = x.data() + j * x.outerStride();
      double* to = boot_.data() + j * n;
      for (Eigen::Index i = 0; i < n; ++i) to[i] = from[rows[i]];
    }
    return principal_directions(Eigen::Map<const MatrixXd>(boot_.data(), n, p), tol);
  }

  // With two distinct rows the centred block has rank one and the pivoted QR
  // would keep a single column, so split along their difference (Appendix B).
  const Eigen::Index second = second_of_two_unique(x, n, node_row);
  if (second >= 0) {
    return (x.row(static_cast<Eigen::Index>(node_row(second))) -
            x.row(static_cast<Eigen::Index>(node_row(0))))
        .transpose();
  }

  const size_t width = data_.n_output();
  if (data_.is_classification() && width == 1) {
    codes_.resize(static_cast<size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i) codes_[i] = classes_[node_row(i)];
    return cca_classes(x, rows, codes_.data(), data_.n_class[0], tol, cca_work_).directions;
  }
  if (!data_.is_classification() && width == 1 && options_.output_bins >= 2) {
    // The output's quantile bins at the node, as classes: a CCA against them
    // has up to bins - 1 directions, which can follow a relation that is not
    // monotone, where the output itself gives the one least-squares direction.
    codes_.resize(static_cast<size_t>(n));
    if (quantile_bins(n, node_row)) {
      return cca_classes(x, rows, codes_.data(), options_.output_bins, tol, cca_work_).directions;
    }
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
  return cca(x, rows, y, tol, cca_work_).directions;
}

template <typename NodeRow>
bool TreeTrainer::quantile_bins(Eigen::Index n, NodeRow node_row) {
  const int bins = options_.output_bins;
  bin_order_.resize(static_cast<size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) bin_order_[i] = {values_[node_row(i)], static_cast<int>(i)};
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

MatrixXd TreeTrainer::data_directions(size_t n) {
  const Eigen::Index p = static_cast<Eigen::Index>(columns_.size());
  const Eigen::Index rows = static_cast<Eigen::Index>(n);
  const Eigen::Map<const MatrixXd> xs(xs_.data(), rows, p);
  if (options_.projection_bootstrap) {
    sample_.resize(n);
    if (weighted_) {
      cumulative_.resize(n);
      double total = 0.0;
      for (size_t i = 0; i < n; ++i) cumulative_[i] = total += weights_[i];
      weighted_draws(cumulative_.data(), n, n, rng_, sample_.data());
    } else {
      for (size_t& s : sample_) s = rng_.index(n);
    }
    bool x_varies = false, y_varies = false;
    for (size_t i = 1; i < n && !x_varies; ++i) {
      x_varies = !rows_equal(xs, static_cast<Eigen::Index>(sample_[0]),
                             static_cast<Eigen::Index>(sample_[i]));
    }
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
    if (x_varies && y_varies) return directions_on(xs, sample_.data());
  }
  return directions_on(xs, nullptr);
}

MatrixXd TreeTrainer::find_directions(size_t n) {
  const Eigen::Index p = static_cast<Eigen::Index>(columns_.size());
  switch (options_.projection) {
    case Projection::kAxis:
      return MatrixXd::Identity(p, p);
    case Projection::kRotation:
      return random_rotation(p, rng_);
    case Projection::kCca:
    case Projection::kPca:
      break;
  }
  MatrixXd directions = data_directions(n);
  if (options_.axis_candidates != AxisCandidates::kNone && p > 1) {
    // The sampled features' own axes join the candidates (after the ranked
    // directions, so that max_directions keeps the strongest of those).
    MatrixXd both(p, directions.cols() + p);
    both << directions, MatrixXd::Identity(p, p);
    return both;
  }
  return directions;
}

size_t TreeTrainer::round_directions(const MatrixXd& directions) {
  const Eigen::Index p = directions.rows();
  size_t kept = 0;
  if (directions_.size() < static_cast<size_t>(directions.cols())) {
    directions_.resize(static_cast<size_t>(directions.cols()));
  }
  order_.clear();
  for (Eigen::Index j = 0; j < p; ++j) order_.emplace_back(columns_[static_cast<size_t>(j)], j);
  std::sort(order_.begin(), order_.end());
  for (Eigen::Index d = 0; d < directions.cols(); ++d) {
    const auto a = directions.col(d);
    if (!a.allFinite()) continue;
    const double largest = a.cwiseAbs().maxCoeff();
    if (!(largest > 0.0)) continue;
    // Singular and eigen vectors have arbitrary signs, which rounding can
    // flip, and a flip swaps the children. Dividing by the largest
    // coefficient (the first of near-equal ones) makes it exactly +1, so a
    // tree stays the same when its input changes only by rounding, as under
    // rescaling; the split is the same at any scale.
    Eigen::Index pivot = 0;
    while (std::abs(a(pivot)) < largest * (1.0 - 1e-9)) ++pivot;
    const double scale = a(pivot);
    Direction& out = directions_[kept];
    out.position.clear();
    out.code.clear();
    out.term.clear();
    for (const auto& column_position : order_) {
      const double c = a(column_position.second) / scale;
      if (!(std::abs(c) >= kSmallestCoefficient)) continue;
      const uint16_t code = encode_coefficient(c);
      out.position.push_back(static_cast<int>(column_position.second));
      out.code.push_back(code);
      out.term.push_back({static_cast<int32_t>(column_position.second), decode_coefficient(code)});
    }
    ++kept;
  }
  return kept;
}

const double* TreeTrainer::axis_column(const Direction& axis, size_t n) const {
  if (axis.term.size() != 1 || axis.term[0].coef != 1.0f) {
    throw std::logic_error("an axis candidate is not one column with coefficient 1");
  }
  return xs_.data() + static_cast<size_t>(axis.term[0].column) * n;
}

void TreeTrainer::project(const Direction& direction, size_t n, double* u) const {
  const int k = static_cast<int>(direction.term.size());
  const double* xs = xs_.data();
  const std::ptrdiff_t stride = static_cast<std::ptrdiff_t>(n);
  project_rows(direction.term.data(), k, xs, stride, n, u);
}

void TreeTrainer::grow_node(const NodeTask& task, std::vector<NodeTask>& next) {
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
  const MatrixXd found = find_directions(n);
  size_t n_direction = round_directions(found);
  // Canonical and principal directions come strongest first; axes follow.
  const bool ranked = options_.projection == Projection::kCca || options_.projection == Projection::kPca;
  const size_t axes = ranked && options_.axis_candidates != AxisCandidates::kNone &&
                              columns_.size() > 1
                          ? columns_.size()
                          : 0;
  if (ranked && options_.max_directions > 0) {
    const size_t data_directions = n_direction > axes ? n_direction - axes : 0;
    const size_t keep = std::min(data_directions, static_cast<size_t>(options_.max_directions));
    if (keep < data_directions) {
      // Drop the weaker ranked directions but keep the axes after them.
      for (size_t k = 0; k < axes; ++k) std::swap(directions_[keep + k], directions_[data_directions + k]);
      n_direction = keep + axes;
    }
  }
  if (n_direction == 0) {
    make_leaf(task.begin, task.end);
    return;
  }

  NodeTargets targets;
  targets.classes = classes_.data();
  targets.values = values_.data();
  targets.weights = weighted_ ? weights_.data() : nullptr;
  targets.n = n;
  targets.width = data_.n_output();
  search_.set_node(targets);
  projection_.resize(n * n_direction);
  BestSplit best;
  const bool random_axes = options_.axis_candidates == AxisCandidates::kRandom;
  const size_t min_leaf = static_cast<size_t>(options_.min_leaf);
  for (size_t d = 0; d < n_direction; ++d) {
    double* u = projection_.data() + d * n;
    if (random_axes && d + axes >= n_direction) {
      // An axis projects to its gathered column (coefficient exactly 1); it
      // is copied to the projections only if its cut wins, for the partition.
      search_.random_cut(axis_column(directions_[d], n), min_leaf, static_cast<int>(d), rng_, best);
    } else {
      project(directions_[d], n, u);
      search_.sweep(u, min_leaf, static_cast<int>(d), rng_, best);
    }
  }
  if (best.direction < 0 || !(best.gain > search_.tolerance())) {
    make_leaf(task.begin, task.end);
    return;
  }

  const double threshold = short_threshold(best.lo, best.hi);
  const Direction& chosen = directions_[static_cast<size_t>(best.direction)];
  tree_.is_split.push_back(1);
  tree_.threshold.push_back(threshold);
  tree_.gain.push_back(best.gain);
  for (size_t e = 0; e < chosen.position.size(); ++e) {
    tree_.column.push_back(columns_[static_cast<size_t>(chosen.position[e])]);
    tree_.coef_code.push_back(chosen.code[e]);
  }
  tree_.split_begin.push_back(static_cast<int>(tree_.column.size()));

  // The node's rows, and their classes, go to the children in order.
  double* u = projection_.data() + static_cast<size_t>(best.direction) * n;
  if (random_axes && static_cast<size_t>(best.direction) + axes >= n_direction) {
    const double* column = axis_column(chosen, n);
    std::copy(column, column + n, u);
  }
  const size_t n_left =
      stable_partition(u, threshold, n, 1, rows_.data() + task.begin, scratch_rows_);
  if (n_left != best.n_left) throw std::logic_error("split partition disagrees with its search");
  if (data_.is_classification()) {
    const size_t width = data_.n_output();
    stable_partition(u, threshold, n, width, row_classes_.data() + task.begin * width,
                     scratch_rows_);
  }
  next.push_back({task.begin, task.begin + n_left, task.depth + 1, features});
  next.push_back({task.begin + n_left, task.end, task.depth + 1, std::move(features)});
}

}  // namespace ccforest
