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

  task_.cca_outputs(rows, n, outputs_);
  CcaResult found = outputs_.codes != nullptr
                        ? cca_classes(x, rows, n, outputs_.codes, outputs_.n_class, tol, cca_work_)
                        : cca(x, rows, outputs_.y, tol, cca_work_);
  if (!outputs_.ranked) return std::move(found.directions);
  return kept_strengths(std::move(found));
}

MatrixXd DirectionFinder::kept_strengths(CcaResult&& found) {
  const auto& rho = found.correlations;
  strengths_.assign(rho.data(), rho.data() + rho.size());
  return std::move(found.directions);
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
    counts_.bootstrap_max_rows += draws < n;
    sample_.resize(draws);
    if (block_.weights != nullptr) {
      cumulative_.resize(n);
      double total = 0.0;
      for (size_t i = 0; i < n; ++i) cumulative_[i] = total += block_.weights[i];
      weighted_draws(cumulative_.data(), n, draws, *rng_, sample_.data());
    } else {
      for (size_t& s : sample_) s = rng_->index(n);
    }
    bool x_varies = false;
    if (rules_.authors_sample_tests()) {
      x_varies = sample_varies(xs);
    } else {
      for (size_t i = 1; i < draws && !x_varies; ++i) {
        x_varies = !rows_equal(xs, static_cast<Eigen::Index>(sample_[0]),
                               static_cast<Eigen::Index>(sample_[i]));
      }
    }
    const bool y_varies = task_.sample_varies(sample_.data(), draws);
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
      if (std::abs(step) > Rules::kAuthorsResolution) return true;
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
  // Reserved whole: grown one emplace at a time, a tree's first nodes
  // reallocated these vectors three or four times each.
  order_.reserve(static_cast<size_t>(p));
  for (Eigen::Index j = 0; j < p; ++j) order_.emplace_back(block_.columns[j], j);
  std::sort(order_.begin(), order_.end());
  for (Eigen::Index d = 0; d < directions.cols(); ++d) {
    // Ranked directions beyond the strongest `limit` that survive, or past
    // the strong ones, are never searched.
    if (static_cast<size_t>(d) < n_ranked && (kept == limit || static_cast<size_t>(d) >= n_strong)) {
      // What ended the search: the limit reached, or else the ratio.
      if (kept == limit) {
        ++counts_.max_directions;
      } else {
        ++counts_.direction_ratio;
      }
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
    out.exact.reserve(static_cast<size_t>(p));
    for (const auto& column_position : order_) {
      const double c = a(column_position.second) / scale;
      if (c != 0.0) out.exact.emplace_back(static_cast<int>(column_position.second), c);
    }
    // The authors' code keeps directions in double precision.
    store_direction(out, rules_.first_precision());
    ++kept;
  }
  return kept;
}

void DirectionFinder::store_direction(Direction& direction, Precision precision) const {
  direction.precision = precision;
  direction.term.clear();
  direction.term.reserve(2 * direction.exact.size());  // two terms per coefficient at most
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
  std::vector<double> first(task_.n_sums(), 0.0), second(task_.n_sums(), 0.0);
  for (size_t i = 0; i < two_point_n_; ++i) {
    const size_t position = two_point_sample_ ? two_point_sample_[i] : i;
    std::vector<double>& sums =
        rows_equal(xs, static_cast<Eigen::Index>(position), two_rows_.first) ? first : second;
    task_.add_targets(position, static_cast<size_t>(node_rows[position]), sums);
  }
  return first == second;
}

}  // namespace ccforest
