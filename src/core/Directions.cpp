#include "Directions.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "Rotation.h"
#include "Sampling.h"
#include "Spread.h"

namespace ccforest {

using Eigen::MatrixXd;

namespace {

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

MatrixXd DirectionFinder::directions_on(const ConstMatrixRef& x, const size_t* rows,
                                        Eigen::Index n) {
  const Eigen::Index p = x.cols();
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
    two_rows_ = {static_cast<Eigen::Index>(node_row(0)), static_cast<Eigen::Index>(node_row(second))};
    two_point_sample_ = rows;
    two_point_n_ = static_cast<size_t>(n);
    return (x.row(static_cast<Eigen::Index>(node_row(second))) -
            x.row(static_cast<Eigen::Index>(node_row(0))))
        .transpose();
  }

  const size_t width = data_.n_output();
  if (data_.is_classification() && width == 1) {
    codes_.resize(static_cast<size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i) codes_[i] = block_.classes[node_row(i)];
    return kept_strengths(cca_classes(x, rows, n, codes_.data(), data_.n_class[0], tol, cca_work_));
  }
  if (!data_.is_classification() && width == 1 && options_.output_bins >= 2) {
    // The output's quantile bins at the node, as classes: a CCA against them
    // has up to bins - 1 directions, which can follow a relation that is not
    // monotone, where the output itself gives the one least-squares direction.
    codes_.resize(static_cast<size_t>(n));
    if (quantile_bins(n, node_row)) {
      // No strengths: the bins are there for the weaker directions, which
      // follow what the strongest, a near least-squares one, cannot.
      return cca_classes(x, rows, n, codes_.data(), options_.output_bins, tol, cca_work_)
          .directions;
    }
  }
  MatrixXd y;
  if (data_.is_classification()) {
    y = MatrixXd::Zero(n, data_.n_value());
    for (Eigen::Index i = 0; i < n; ++i) {
      for (size_t m = 0; m < width; ++m) y(i, block_.classes[node_row(i) * width + m]) = 1.0;
    }
  } else {
    y.resize(n, width);
    for (Eigen::Index i = 0; i < n; ++i) {
      for (size_t m = 0; m < width; ++m) y(i, m) = block_.values[node_row(i) * width + m];
    }
  }
  // Strengths only for classes: direction_ratio was measured there; for
  // several numeric outputs or a survival node's residual periods a weaker
  // direction may carry what the first misses.
  if (!data_.is_classification()) return cca(x, rows, y, tol, cca_work_).directions;
  return kept_strengths(cca(x, rows, y, tol, cca_work_));
}

MatrixXd DirectionFinder::kept_strengths(CcaResult&& found) {
  const auto& rho = found.correlations;
  strengths_.assign(rho.data(), rho.data() + rho.size());
  return std::move(found.directions);
}

template <typename NodeRow>
bool DirectionFinder::quantile_bins(Eigen::Index n, NodeRow node_row) {
  const int bins = options_.output_bins;
  bin_order_.resize(static_cast<size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) bin_order_[i] = {block_.values[node_row(i)], static_cast<int>(i)};
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

MatrixXd DirectionFinder::data_directions(size_t n) {
  const Eigen::Index p = static_cast<Eigen::Index>(block_.p);
  const Eigen::Index rows = static_cast<Eigen::Index>(n);
  const Eigen::Map<const MatrixXd> xs(block_.xs, rows, p);
  if (options_.projection_bootstrap) {
    // As many draws as the node has rows (the paper), or at most
    // bootstrap_max_rows: at the few largest nodes, which hold much of the
    // tree's rows, a sample of that size already pins the directions down.
    const size_t cap = static_cast<size_t>(options_.bootstrap_max_rows);
    const size_t draws = cap > 0 && n > cap ? cap : n;
    sample_.resize(draws);
    if (block_.weights != nullptr) {
      cumulative_.resize(n);
      double total = 0.0;
      for (size_t i = 0; i < n; ++i) cumulative_[i] = total += block_.weights[i];
      weighted_draws(cumulative_.data(), n, draws, *rng_, sample_.data());
    } else {
      for (size_t& s : sample_) s = rng_->index(n);
    }
    bool x_varies = false, y_varies = false;
    const size_t width = data_.n_output();
    if (options_.paper()) {
      x_varies = sample_varies(xs);
      y_varies = sample_outputs_vary();
    } else {
      for (size_t i = 1; i < draws && !x_varies; ++i) {
        x_varies = !rows_equal(xs, static_cast<Eigen::Index>(sample_[0]),
                               static_cast<Eigen::Index>(sample_[i]));
      }
      for (size_t i = 1; i < draws && !y_varies; ++i) {
        for (size_t m = 0; m < width && !y_varies; ++m) {
          y_varies = data_.is_classification()
                         ? block_.classes[sample_[i] * width + m] != block_.classes[sample_[0] * width + m]
                         : block_.values[sample_[i] * width + m] != block_.values[sample_[0] * width + m];
        }
      }
    }
    // A degenerate bootstrap sample says nothing about directions; fall back
    // to the node's own rows (Appendix B).
    if (x_varies && y_varies) {
      return directions_on(xs, sample_.data(), static_cast<Eigen::Index>(draws));
    }
  }
  return directions_on(xs, nullptr, rows);
}

bool DirectionFinder::sample_varies(const ConstMatrixRef& xs) const {
  // The authors' queryIfColumnsVary(): some column has two consecutive
  // sampled values more than 1e-10 apart.
  for (Eigen::Index j = 0; j < xs.cols(); ++j) {
    for (size_t i = 1; i < sample_.size(); ++i) {
      const double step = xs(static_cast<Eigen::Index>(sample_[i]), j) -
                          xs(static_cast<Eigen::Index>(sample_[i - 1]), j);
      if (std::abs(step) > kPaperResolution) return true;
    }
  }
  return false;
}

bool DirectionFinder::sample_outputs_vary() const {
  const size_t n = sample_.size(), width = data_.n_output();
  if (data_.is_classification()) {
    for (size_t i = 1; i < n; ++i) {
      for (size_t m = 0; m < width; ++m) {
        if (block_.classes[sample_[i] * width + m] != block_.classes[sample_[0] * width + m]) return true;
      }
    }
    return false;
  }
  if (data_.is_survival()) {
    // Residuals have no tree-wide scale to compare with: any difference.
    for (size_t i = 1; i < n; ++i) {
      for (size_t m = 0; m < width; ++m) {
        if (block_.values[sample_[i] * width + m] != block_.values[sample_[0] * width + m]) return true;
      }
    }
    return false;
  }
  // Some output's variance over the sample (n - 1 in the denominator)
  // reaches 1e-6 of the tree's.
  for (size_t m = 0; m < width; ++m) {
    double sum = 0.0, sum_squares = 0.0;
    for (size_t i = 0; i < n; ++i) sum += block_.values[sample_[i] * width + m];
    const double mean = sum / static_cast<double>(n);
    for (size_t i = 0; i < n; ++i) {
      const double d = block_.values[sample_[i] * width + m] - mean;
      sum_squares += d * d;
    }
    if (sum_squares / static_cast<double>(n - 1) >= kPaperVarianceRatio * block_.root_variance[m]) {
      return true;
    }
  }
  return false;
}

MatrixXd DirectionFinder::find_directions(size_t n) {
  const Eigen::Index p = static_cast<Eigen::Index>(block_.p);
  switch (options_.projection) {
    case Projection::kAxis:
      return MatrixXd::Identity(p, p);
    case Projection::kRotation:
      return random_rotation(p, *rng_);
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

size_t DirectionFinder::round_directions(const MatrixXd& directions, size_t n_ranked,
                                         size_t n_strong, size_t limit) {
  const Eigen::Index p = directions.rows();
  size_t kept = 0;
  if (directions_.size() < static_cast<size_t>(directions.cols())) {
    directions_.resize(static_cast<size_t>(directions.cols()));
  }
  order_.clear();
  for (Eigen::Index j = 0; j < p; ++j) order_.emplace_back(block_.columns[j], j);
  std::sort(order_.begin(), order_.end());
  for (Eigen::Index d = 0; d < directions.cols(); ++d) {
    // Ranked directions beyond the strongest `limit` that survive, or past
    // the strong ones, are never searched.
    if (static_cast<size_t>(d) < n_ranked && (kept == limit || static_cast<size_t>(d) >= n_strong)) {
      d = static_cast<Eigen::Index>(n_ranked) - 1;
      continue;
    }
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
    out.exact.clear();
    for (const auto& column_position : order_) {
      const double c = a(column_position.second) / scale;
      if (c != 0.0) out.exact.emplace_back(static_cast<int>(column_position.second), c);
    }
    // The authors' code keeps directions in double precision.
    store_direction(out, options_.paper() ? Precision::kDouble : Precision::kShort);
    ++kept;
  }
  return kept;
}

void DirectionFinder::store_direction(Direction& direction, Precision precision) const {
  direction.precision = precision;
  direction.term.clear();
  direction.error = 0.0;
  for (const auto& [position, c] : direction.exact) {
    float hi = 0.0f, lo = 0.0f;
    const bool stored = round_coefficient(c, precision, hi, lo);
    const double value = stored ? static_cast<double>(hi) + static_cast<double>(lo) : 0.0;
    direction.error += std::abs(value - c) * block_.column_sd[position];
    if (!stored) continue;
    direction.term.push_back({static_cast<int32_t>(position), hi});
    if (precision == Precision::kDouble) direction.term.push_back({static_cast<int32_t>(position), lo});
  }
}

const double* DirectionFinder::axis_column(const Direction& axis) const {
  if (axis.term.size() != 1 || axis.term[0].coef != 1.0f) {
    throw std::logic_error("an axis candidate is not one column with coefficient 1");
  }
  return block_.xs + static_cast<size_t>(axis.term[0].column) * block_.n;
}

void DirectionFinder::project(const Direction& direction, double* u) const {
  const size_t n = block_.n;
  const int k = static_cast<int>(direction.term.size());
  const double* xs = block_.xs;
  const std::ptrdiff_t stride = static_cast<std::ptrdiff_t>(n);
  project_rows(direction.term.data(), k, xs, stride, n, u);
}

void DirectionFinder::project_precisely(Direction& direction, double* u) const {
  const size_t n = block_.n;
  project(direction, u);
  while (direction.precision != Precision::kDouble && direction.error > 0.0 &&
         !precise_enough(direction.error, spread(u, n))) {
    store_direction(direction, static_cast<Precision>(static_cast<int>(direction.precision) + 1));
    project(direction, u);
  }
}

size_t DirectionFinder::find(const NodeBlock& block, Rng& rng) {
  block_ = block;
  rng_ = &rng;
  const size_t n = block.n;
  two_rows_ = {-1, -1};
  strengths_.clear();
  const MatrixXd found = find_directions(n);
  // Canonical and principal directions come strongest first; axes follow.
  // Only the strongest max_directions of the ranked ones that can be stored
  // are kept, then the axes.
  const bool ranked = options_.projection == Projection::kCca || options_.projection == Projection::kPca;
  axes_ = ranked && options_.axis_candidates != AxisCandidates::kNone && block_.p > 1
              ? block_.p
              : 0;
  const size_t n_found = static_cast<size_t>(found.cols());
  const size_t n_ranked = ranked ? n_found - std::min(n_found, axes_) : 0;
  const size_t limit = ranked && options_.max_directions > 0
                           ? static_cast<size_t>(options_.max_directions)
                           : n_found;
  // A canonical direction much weaker than the first seldom holds the
  // node's best cut, yet costs as much to search (a projection, a sort, a
  // sweep). Correlations come in decreasing order, so the strong ones lead.
  size_t strong = n_ranked;
  if (options_.direction_ratio > 0.0 && strengths_.size() == n_ranked && n_ranked > 1) {
    const double bar = options_.direction_ratio * strengths_[0];
    strong = 1;
    while (strong < n_ranked && strengths_[strong] >= bar) ++strong;
  }
  return round_directions(found, n_ranked, strong, limit);
}


bool DirectionFinder::two_groups_sum_alike(const int* node_rows) const {
  const Eigen::Map<const MatrixXd> xs(block_.xs, static_cast<Eigen::Index>(block_.n),
                                      static_cast<Eigen::Index>(block_.p));
  const size_t width = data_.n_output();
  const size_t n_sum = data_.is_survival() ? width : data_.n_value();
  std::vector<double> first(n_sum, 0.0), second(n_sum, 0.0);
  for (size_t i = 0; i < two_point_n_; ++i) {
    const size_t position = two_point_sample_ ? two_point_sample_[i] : i;
    std::vector<double>& sums =
        rows_equal(xs, static_cast<Eigen::Index>(position), two_rows_.first) ? first : second;
    const Eigen::Index row = node_rows[position];
    for (size_t m = 0; m < width; ++m) {
      if (data_.is_classification()) {
        sums[static_cast<size_t>(block_.classes[position * width + m])] += 1.0;
      } else if (data_.is_survival()) {
        sums[m] += block_.values[position * width + m];
      } else {
        sums[m] += data_.y_real(row, m);
      }
    }
  }
  return first == second;
}

}  // namespace ccforest
