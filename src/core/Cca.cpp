#include "Cca.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "SmallDense.h"

namespace ccforest {

namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using MatrixMap = Eigen::Map<MatrixXd>;

// Blocks whose largest centred value lies within 2^+-256 are not rescaled.
constexpr int kOrdinaryExponent = 256;

/** Factorises `centred` in place (it is overwritten) and keeps R and the pivots. */
void reduced_qr(MatrixMap centred, double tolerance, ReducedQr& out, CcaWorkspace& work) {
  const Index n = centred.rows(), p = centred.cols();
  out.columns.resize(p);
  work.norms.resize(2 * static_cast<size_t>(p));
  const Index rank = n == 0 || p == 0 ? 0
                                      : pivoted_qr(centred.data(), n, p, tolerance,
                                                   out.columns.data(), work.norms.data());
  out.rank = rank;
  out.r = centred.topLeftCorner(rank, rank).triangularView<Eigen::Upper>();
}

/**
 * R from the Cholesky factor of the Gram matrix Xc'Xc (Xc'Xc = L L' gives
 * R = L'), when that is as good as the pivoted QR: it is a few times cheaper
 * and needs no pivoting, but squares the condition number. Taken only when
 * the QR would keep every column: its |R_kk| are at least the smallest
 * singular value s of Xc, at least 1 / ||L^-1||_F, and its |R_11| is the
 * largest column norm; requiring s above 16 tolerance times that also keeps
 * the condition number below sqrt(p) / (16 tolerance), so the squared one
 * costs at most about 1e-8 relative accuracy at the default tolerance, far
 * below the 2^-11 rounding of stored coefficients. Returns false otherwise.
 */
bool gram_factor(const MatrixMap& centred, double tolerance, CcaWorkspace& work) {
  const Index n = centred.rows(), p = centred.cols();
  if (n <= p || p == 0) return false;
  // Column by column: for the few columns of a node, a general matrix
  // product would spend longer packing its blocks than multiplying.
  MatrixXd& gram = work.gram;
  gram.resize(p, p);
  double largest = 0.0;
  for (Index a = 0; a < p; ++a) {
    for (Index b = 0; b <= a; ++b) gram(a, b) = centred.col(a).dot(centred.col(b));
    largest = std::max(largest, gram(a, a));
  }
  const double largest_column = std::sqrt(largest);
  if (!(largest_column > 0.0) || !std::isfinite(largest_column)) return false;
  if (!cholesky_lower(gram.data(), p)) return false;
  // ||L^-1||_F, column by column of L^-1 by forward substitution.
  double inverse_norm2 = 0.0;
  work.column.resize(static_cast<size_t>(p));
  double* x = work.column.data();
  for (Index c = 0; c < p; ++c) {
    for (Index i = c; i < p; ++i) {
      double s = i == c ? 1.0 : 0.0;
      for (Index k = c; k < i; ++k) s -= gram(i, k) * x[k];
      x[i] = s / gram(i, i);
      inverse_norm2 += x[i] * x[i];
    }
  }
  const double inverse_norm = std::sqrt(inverse_norm2);
  if (!(inverse_norm > 0.0) || !std::isfinite(inverse_norm)) return false;
  if (!(1.0 / inverse_norm > 16.0 * tolerance * largest_column)) return false;
  ReducedQr& out = work.factor;
  out.r.resize(p, p);
  for (Index j = 0; j < p; ++j) {
    for (Index i = 0; i < p; ++i) out.r(i, j) = i <= j ? gram(j, i) : 0.0;
  }
  out.columns.resize(p);
  for (Index j = 0; j < p; ++j) out.columns(j) = static_cast<int>(j);
  out.rank = p;
  return true;
}

/**
 * Sets work.sums (p x n_class, sized by the caller) to the class sums of the
 * rows of the column-major block `centred`, and work.counts to each class's
 * number of rows. Rows of one class often follow each other, and each add would wait
 * for the previous one to the same sums: even and odd rows go to separate
 * sums and counts (added at the end), and a row adds all its columns at once.
 */
void sum_by_class(const MatrixMap& centred, const int* codes, CcaWorkspace& work) {
  const Index n = centred.rows(), p = centred.cols();
  MatrixXd& sums = work.sums;
  const size_t n_class = static_cast<size_t>(sums.cols());
  sums.setZero();
  work.counts.assign(n_class, 0);
  Index* even_counts = work.counts.data();
  const double* x = centred.data();
  double* even_sums = sums.data();  // (j, k) at k * p + j
  // Below this many rows the second set of sums costs more to clear and add
  // than the waits it saves.
  constexpr Index kTwoSumsMin = 64;
  if (n < kTwoSumsMin) {
    for (Index i = 0; i < n; ++i) {
      double* a = even_sums + codes[i] * p;
      for (Index j = 0; j < p; ++j) a[j] += x[j * n + i];
      ++even_counts[codes[i]];
    }
    return;
  }
  MatrixXd& odd = work.odd_sums;
  odd.setZero(sums.rows(), sums.cols());
  work.odd_counts.assign(n_class, 0);
  Index* odd_counts = work.odd_counts.data();
  double* odd_sums = odd.data();
  Index i = 0;
  for (; i + 1 < n; i += 2) {
    double* a = even_sums + codes[i] * p;
    double* b = odd_sums + codes[i + 1] * p;
    for (Index j = 0; j < p; ++j) {
      a[j] += x[j * n + i];
      b[j] += x[j * n + i + 1];
    }
    ++even_counts[codes[i]];
    ++odd_counts[codes[i + 1]];
  }
  if (i < n) {
    double* a = even_sums + codes[i] * p;
    for (Index j = 0; j < p; ++j) a[j] += x[j * n + i];
    ++even_counts[codes[i]];
  }
  sums += odd;
  for (size_t k = 0; k < n_class; ++k) even_counts[k] += odd_counts[k];
}

/**
 * Copies m into `buffer` and centres its columns; with `rows`, copies the
 * rows m.row(rows[i]) instead (a bootstrap sample, gathered here rather than
 * copied twice). With `codes`, also sets the class sums of the centred
 * columns and the class counts in `totals` (see sum_by_class()).
 *
 * Blocks of extreme magnitude are divided by a power of two near their
 * largest value, which keeps the squared norms inside the Householder steps
 * finite for data near 1e200 and above zero near 1e-200. Such a scaling is
 * exact and every later step commutes with it (the rank decisions are
 * relative to |R_11|, the directions are normalised), so blocks of ordinary
 * magnitude skip it and give the same directions.
 */
MatrixMap centre(const ConstMatrixRef& m, const size_t* rows, Index n_rows, Buffer<double>& buffer,
                 const int* codes = nullptr, CcaWorkspace* totals = nullptr) {
  const Index n = rows != nullptr ? n_rows : m.rows(), p = m.cols();
  buffer.resize(static_cast<size_t>(n * p));
  MatrixMap centred(buffer.data(), n, p);
  double largest = 0.0;
  for (Index j = 0; j < p; ++j) {
    auto column = centred.col(j);
    if (n == 0) continue;
    if (rows != nullptr) {
      const double* from = m.data() + j * m.outerStride();
      for (Index i = 0; i < n; ++i) column(i) = from[rows[i]];
    } else {
      column = m.col(j);
    }
    const double mu = column.mean();
    column.array() -= mu;
    // The largest |x - mu|, that of the column's largest or smallest value
    // (rounding is monotone), by a vectorised reduction.
    largest = std::max(largest, column.cwiseAbs().maxCoeff());
  }
  if (largest > 0.0 && std::isfinite(largest) &&
      std::abs(std::ilogb(largest)) > kOrdinaryExponent) {
    centred /= std::ldexp(1.0, std::ilogb(largest));
  }
  if (codes != nullptr) sum_by_class(centred, codes, *totals);
  return centred;
}

/** A = R^{-1} U, then rows put back in the original column order. */
MatrixXd back_substitute(const ReducedQr& qr, const Eigen::Ref<const MatrixXd>& u, Index p,
                         Buffer<double>& scratch) {
  const Index r = qr.rank;
  scratch.resize(static_cast<size_t>(r));
  double* x = scratch.data();
  MatrixXd directions = MatrixXd::Zero(p, u.cols());
  for (Index d = 0; d < u.cols(); ++d) {
    for (Index j = r - 1; j >= 0; --j) {
      double s = u(j, d);
      for (Index k = j + 1; k < r; ++k) s -= qr.r(j, k) * x[k];
      x[j] = s / qr.r(j, j);
    }
    for (Index j = 0; j < r; ++j) directions(qr.columns(j), d) = x[j];
  }
  return directions;
}

/** A rows x cols matrix over `storage`, which keeps its capacity between nodes. */
MatrixMap sized(Buffer<double>& storage, Index rows, Index cols) {
  storage.resize(static_cast<size_t>(rows * cols));
  return MatrixMap(storage.data(), rows, cols);
}

/**
 * R^-T applied to the pivoted, reduced rows of m: the rows of Q' for
 * m = Xc' Z, into `out` (rank x m.cols()).
 */
template <typename M>
void q_transpose_times(const ReducedQr& qr, const M& m, MatrixMap out) {
  const Index r = qr.rank;
  for (Index c = 0; c < m.cols(); ++c) {
    for (Index j = 0; j < r; ++j) {
      double s = m(qr.columns(j), c);
      for (Index k = 0; k < j; ++k) s -= qr.r(k, j) * out(k, c);
      out(j, c) = s / qr.r(j, j);
    }
  }
}

/**
 * Unit-length columns, dropping those that are zero or not finite (the
 * back-substitution can overflow for subnormal data) with their correlations.
 */
CcaResult normalised(MatrixXd directions, Eigen::VectorXd correlations) {
  Index kept = 0;
  for (Index d = 0; d < directions.cols(); ++d) {
    const double norm = directions.col(d).norm();
    if (!(norm > 0.0) || !std::isfinite(norm)) continue;
    directions.col(kept) = directions.col(d) / norm;
    correlations(kept) = correlations(d);
    ++kept;
  }
  CcaResult out;
  // Usually every column is kept: then the matrices move, unallocated.
  if (kept == directions.cols()) {
    out.directions = std::move(directions);
    out.correlations = std::move(correlations);
  } else {
    out.directions = directions.leftCols(kept);
    out.correlations = correlations.head(kept);
  }
  return out;
}

CcaResult empty_result(Index p) {
  CcaResult out;
  out.directions = MatrixXd::Zero(p, 0);
  out.correlations = Eigen::VectorXd::Zero(0);
  return out;
}

/**
 * Adds to out (p x kQ) the products of rows [begin, end) of x (n x p) and y
 * (n x kQ), each entry summed in order of rows from zero. Two columns of x
 * against all of y at once: each sum waits on its own previous add, so
 * 2 kQ independent ones keep the adder busy.
 */
template <int kQ>
void add_block_products(const double* x, const double* y, Index n, Index p, Index begin, Index end,
                        MatrixXd& out) {
  const double* b[kQ];
  for (int j = 0; j < kQ; ++j) b[j] = y + j * n;
  Index i = 0;
  for (; i + 2 <= p; i += 2) {
    const double *a0 = x + i * n, *a1 = a0 + n;
    double s0[kQ] = {}, s1[kQ] = {};
    for (Index k = begin; k < end; ++k) {
      for (int j = 0; j < kQ; ++j) {
        s0[j] += a0[k] * b[j][k];
        s1[j] += a1[k] * b[j][k];
      }
    }
    for (int j = 0; j < kQ; ++j) {
      out(i, j) += s0[j];
      out(i + 1, j) += s1[j];
    }
  }
  if (i < p) {
    const double* a = x + i * n;
    double s[kQ] = {};
    for (Index k = begin; k < end; ++k) {
      for (int j = 0; j < kQ; ++j) s[j] += a[k] * b[j][k];
    }
    for (int j = 0; j < kQ; ++j) out(i, j) += s[j];
  }
}

}  // namespace

void cross_product(const double* x, const double* y, Index n, Index p, Index q, MatrixXd& out) {
#if EIGEN_WORLD_VERSION == 3 && EIGEN_MAJOR_VERSION == 3 && !defined(__FMA__)
  // Eigen 3.3's kernels without fused multiply-adds sum each entry of a
  // product with fewer than four columns over the rows in order, block by
  // block of their depth blocking, each block's sum added to the entry.
  // Only there, and only with Eigen 3.3's internal blocking (compiled only
  // with it), are these sums Eigen's own bits; anywhere else Eigen computes.
  if (q < 4 && n + p + q >= 20 && n > 0 && p > 0 && q > 0) {
    Index depth = n, rows = p, cols = q;
    Eigen::internal::computeProductBlockingSizes<double, double, 1>(depth, rows, cols, Index{1});
    out.setZero(p, q);
    for (Index begin = 0; begin < n; begin += depth) {
      const Index end = std::min(n, begin + depth);
      switch (q) {
        case 1:
          add_block_products<1>(x, y, n, p, begin, end, out);
          break;
        case 2:
          add_block_products<2>(x, y, n, p, begin, end, out);
          break;
        default:
          add_block_products<3>(x, y, n, p, begin, end, out);
          break;
      }
    }
    return;
  }
#endif
  out.noalias() = Eigen::Map<const MatrixXd>(x, n, p).transpose() * Eigen::Map<const MatrixXd>(y, n, q);
}

CcaWorkspace::CrossSvd& CcaWorkspace::cross_svd(Index rows, Index cols) {
  for (auto& shape_svd : svds) {
    if (shape_svd.first.first == rows && shape_svd.first.second == cols) return *shape_svd.second;
  }
  if (svds.size() == kMaxShapes) return *svds.back().second;
  svds.emplace_back(std::make_pair(rows, cols), std::make_unique<CrossSvd>());
  return *svds.back().second;
}

CcaResult cca(const ConstMatrixRef& x, const size_t* rows, const ConstMatrixRef& y,
              double tolerance, CcaWorkspace& work) {
  const Index p = x.cols();
  MatrixMap xc = centre(x, rows, y.rows(), work.x), yc = centre(y, nullptr, y.rows(), work.y);
  MatrixXd& product = work.cross_product;
  cross_product(xc.data(), yc.data(), xc.rows(), p, yc.cols(), product);
  ReducedQr& qx = work.factor;
  ReducedQr& qy = work.y_factor;
  reduced_qr(xc, tolerance, qx, work);
  reduced_qr(yc, tolerance, qy, work);
  const Index n_dir = std::min(qx.rank, qy.rank);
  if (n_dir == 0) return empty_result(p);
  // Qx'Qy = Rx^-T (Xc Px)'(Yc Py) Ry^-1, built as (Ry^-T (Rx^-T M)')'.
  MatrixMap left = sized(work.left, qx.rank, product.cols());  // r_x x q
  MatrixMap right = sized(work.right, qy.rank, qx.rank);
  q_transpose_times(qx, product, left);
  // Read through the transposed view: a Ref would have copied it.
  q_transpose_times(qy, left.transpose(), right);
  CcaWorkspace::CrossSvd& cross_svd = work.cross_svd(qx.rank, qy.rank);
  MatrixXd& cross = cross_svd.cross;
  cross = right.transpose();
  // Only the x-side singular vectors are needed, so decompose the r_x x r_y
  // cross product whichever way round it is.
  Eigen::JacobiSVD<MatrixXd>& svd = cross_svd.svd;
  svd.compute(cross, Eigen::ComputeThinU);
  return normalised(back_substitute(qx, svd.matrixU().leftCols(n_dir), p, work.column),
                    svd.singularValues().head(n_dir).cwiseMin(1.0));
}

CcaResult cca_classes(const ConstMatrixRef& x, const size_t* rows, Index n_rows, const int* codes,
                      int n_class, double tolerance, CcaWorkspace& work) {
  const Index p = x.cols(), n = rows != nullptr ? n_rows : x.rows();
  MatrixXd& sums = work.sums;
  sums.resize(p, n_class);
  // Class sums of the centred columns, taken before the QR overwrites them.
  MatrixMap xc = centre(x, rows, n, work.x, codes, &work);
  const std::vector<Index>& counts = work.counts;
  if (!gram_factor(xc, tolerance, work)) reduced_qr(xc, tolerance, work.factor, work);
  const ReducedQr& qx = work.factor;
  if (qx.rank == 0) return empty_result(p);
  const Index r = qx.rank;
  // Only the classes present have non-zero sums; keep theirs. Listed
  // without a branch: whether a class is present is a coin toss for the
  // predictor, with many classes.
  Buffer<int>& present = work.present;
  present.resize(static_cast<size_t>(n_class));
  Index n_present = 0;
  for (int k = 0; k < n_class; ++k) {
    present[static_cast<size_t>(n_present)] = k;
    n_present += counts[k] > 0;
  }
  const Index n_dir = std::min(r, n_present - 1);
  if (n_dir <= 0) return empty_result(p);
  MatrixMap kept_sums = sized(work.kept_sums, p, n_present);
  for (Index c = 0; c < n_present; ++c) kept_sums.col(c) = sums.col(present[c]);
  MatrixMap class_sums = sized(work.class_sums, r, n_present);
  q_transpose_times(qx, kept_sums, class_sums);

  // The eigenproblem's size: one direction for two classes, m = n_present - 1
  // when that is below r (shrunk, see below), else r.
  const bool shrunk = n_present > 2 && n_present - 1 < r && n_present - 1 <= kJacobiMaxRows;
  const Index width = n_present == 2 ? 1 : shrunk ? n_present - 1 : r;
  MatrixMap vectors = sized(work.vectors, r, width), values = sized(work.values, width, 1);
  if (n_present == 2) {
    // One direction, the difference of the two class means in the whitened
    // coordinates (Fisher's discriminant): the centred sums are opposite, so
    // the matrix below has rank one and this is its eigenvector.
    const double n0 = static_cast<double>(counts[present[0]]);
    const double n1 = static_cast<double>(counts[present[1]]);
    vectors = class_sums.col(0) / n0 - class_sums.col(1) / n1;
    const double length = vectors.norm();
    values(0) = length * length / (1.0 / n0 + 1.0 / n1);
    if (length > 0.0) vectors /= length;
  } else if (shrunk) {
    // The matrix below has rank m = n_present - 1 < r: with B the first m
    // whitened sums (the last is minus their total) it is B M B', M = D + 1 1'/n_last
    // and D = diag(1 / n_c), so with M = L L' its eigenvectors are B L v for
    // those v of the m x m matrix L' B'B L, and the eigenproblem shrinks.
    const Index m = n_present - 1;
    const double last = 1.0 / static_cast<double>(counts[present[m]]);
    MatrixMap factor = sized(work.shrink_factor, m, m);  // the lower triangle of M, then L
    for (Index j = 0; j < m; ++j) {
      for (Index i = j; i < m; ++i) factor(i, j) = last;
      factor(j, j) += 1.0 / static_cast<double>(counts[present[j]]);
    }
    cholesky_lower(factor.data(), m);  // M is positive definite: D is
    // B L and (B L) v by plain loops: Eigen's general products took longer
    // to set up than to compute at this size. Each sum runs over k in
    // increasing order, as theirs do, so the result is the same.
    MatrixMap bl = sized(work.shrink_basis, r, m);
    for (Index j = 0; j < m; ++j) {
      for (Index i = 0; i < r; ++i) {
        double s = 0.0;
        for (Index k = j; k < m; ++k) s += class_sums(i, k) * factor(k, j);
        bl(i, j) = s;
      }
    }
    MatrixMap small = sized(work.class_gram, m, m);
    for (Index j = 0; j < m; ++j) {
      for (Index i = j; i < m; ++i) small(i, j) = small(j, i) = bl.col(i).dot(bl.col(j));
    }
    MatrixMap v = sized(work.small_vectors, m, m);
    jacobi_eigen(small.data(), m, values.data(), v.data());
    for (Index j = 0; j < m; ++j) {
      for (Index i = 0; i < r; ++i) {
        double s = bl(i, 0) * v(0, j);
        for (Index k = 1; k < m; ++k) s += bl(i, k) * v(k, j);
        vectors(i, j) = s;
      }
    }
  } else {
    MatrixMap gram = sized(work.class_gram, r, r);
    gram.setZero();
    for (Index c = 0; c < n_present; ++c) {
      const double weight = 1.0 / static_cast<double>(counts[present[c]]);
      for (Index j = 0; j < r; ++j) {
        const double a = weight * class_sums(j, c);
        for (Index i = j; i < r; ++i) gram(i, j) += a * class_sums(i, c);
      }
    }
    for (Index j = 0; j < r; ++j) {
      for (Index i = j + 1; i < r; ++i) gram(j, i) = gram(i, j);
    }
    if (r <= kJacobiMaxRows) {
      jacobi_eigen(gram.data(), r, values.data(), vectors.data());
    } else {
      Eigen::SelfAdjointEigenSolver<MatrixXd>& eigen = work.eigen;
      eigen.compute(gram);
      // Eigenvalues come in increasing order; the canonical pairs are the largest.
      vectors = eigen.eigenvectors().rowwise().reverse();
      values = eigen.eigenvalues().reverse();
    }
  }
  return normalised(back_substitute(qx, vectors.leftCols(n_dir), p, work.column),
                    values.col(0).head(n_dir).cwiseMax(0.0).cwiseSqrt().cwiseMin(1.0));
}

CcaResult cca(const ConstMatrixRef& x, const ConstMatrixRef& y, double tolerance) {
  CcaWorkspace work;
  return cca(x, nullptr, y, tolerance, work);
}

CcaResult cca_classes(const ConstMatrixRef& x, const int* codes, int n_class, double tolerance) {
  CcaWorkspace work;
  return cca_classes(x, nullptr, x.rows(), codes, n_class, tolerance, work);
}

}  // namespace ccforest
