#include "Cca.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ccforest {

namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using MatrixMap = Eigen::Map<MatrixXd>;

// Blocks whose largest centred value lies within 2^+-256 are not rescaled.
constexpr int kOrdinaryExponent = 256;

/** Factorises `centred` in place (it is overwritten) and keeps R and the pivots. */
ReducedQr reduced_qr(MatrixMap centred, double tolerance) {
  ReducedQr out;
  const Index n = centred.rows(), p = centred.cols();
  if (n == 0 || p == 0) return out;
  Eigen::ColPivHouseholderQR<Eigen::Ref<MatrixXd>> qr(centred);
  const Index k = std::min(n, p);
  const double r11 = std::abs(centred(0, 0));
  if (!(r11 > 0.0) || !std::isfinite(r11)) return out;
  Index rank = 0;
  while (rank < k && std::abs(centred(rank, rank)) > tolerance * r11) ++rank;
  out.rank = rank;
  out.r = centred.topLeftCorner(rank, rank).triangularView<Eigen::Upper>();
  out.columns = qr.colsPermutation().indices();
  return out;
}

/**
 * R from the Cholesky factor of the Gram matrix Xc'Xc (Xc = L L' gives
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
  for (Index a = 0; a < p; ++a) {
    for (Index b = 0; b <= a; ++b) gram(a, b) = gram(b, a) = centred.col(a).dot(centred.col(b));
  }
  const double largest_column = std::sqrt(gram.diagonal().maxCoeff());
  if (!(largest_column > 0.0) || !std::isfinite(largest_column)) return false;
  Eigen::LLT<MatrixXd>& llt = work.llt;
  llt.compute(gram);
  if (llt.info() != Eigen::Success) return false;
  if (!(llt.matrixLLT().diagonal().minCoeff() > 0.0)) return false;
  MatrixXd& inverse = work.inverse;
  inverse.setIdentity(p, p);
  llt.matrixL().solveInPlace(inverse);
  const double inverse_norm = inverse.norm();
  if (!(inverse_norm > 0.0) || !std::isfinite(inverse_norm)) return false;
  if (!(1.0 / inverse_norm > 16.0 * tolerance * largest_column)) return false;
  ReducedQr& out = work.factor;
  out.r = llt.matrixU();
  out.columns.setLinSpaced(p, 0, static_cast<int>(p - 1));
  out.rank = p;
  return true;
}

/**
 * Sets `sums` (p x n_class) to the class sums of the rows of the column-major
 * block `centred`. Rows of one class often follow each other, and each add
 * would wait for the previous one to the same sums: even and odd rows go to
 * separate sums (added at the end), and a row adds all its columns at once.
 */
void sum_by_class(const MatrixMap& centred, const int* codes, MatrixXd& sums, MatrixXd& odd) {
  const Index n = centred.rows(), p = centred.cols();
  sums.setZero();
  odd.setZero(sums.rows(), sums.cols());
  const double* x = centred.data();
  double* even_sums = sums.data();  // (j, k) at k * p + j
  double* odd_sums = odd.data();
  Index i = 0;
  for (; i + 1 < n; i += 2) {
    double* a = even_sums + codes[i] * p;
    double* b = odd_sums + codes[i + 1] * p;
    for (Index j = 0; j < p; ++j) {
      a[j] += x[j * n + i];
      b[j] += x[j * n + i + 1];
    }
  }
  if (i < n) {
    double* a = even_sums + codes[i] * p;
    for (Index j = 0; j < p; ++j) a[j] += x[j * n + i];
  }
  sums += odd;
}

/**
 * Copies m into `buffer` and centres its columns; with `codes`, also sets
 * `sums` (p x n_class) to the class sums of the centred columns.
 *
 * Blocks of extreme magnitude are divided by a power of two near their
 * largest value, which keeps the squared norms inside the Householder steps
 * finite for data near 1e200 and above zero near 1e-200. Such a scaling is
 * exact and every later step commutes with it (the rank decisions are
 * relative to |R_11|, the directions are normalised), so blocks of ordinary
 * magnitude skip it and give the same directions.
 */
MatrixMap centre(const ConstMatrixRef& m, Buffer<double>& buffer, const int* codes = nullptr,
                 MatrixXd* sums = nullptr, MatrixXd* odd = nullptr) {
  const Index n = m.rows(), p = m.cols();
  buffer.resize(static_cast<size_t>(n * p));
  MatrixMap centred(buffer.data(), n, p);
  double largest = 0.0;
  for (Index j = 0; j < p; ++j) {
    const double mu = m.col(j).mean();
    centred.col(j) = m.col(j).array() - mu;
    // Rounding is monotone, so the largest |x - mu| is at the column's
    // largest or smallest value: two vectorised reductions instead of a
    // chain of comparisons.
    if (n > 0) {
      largest = std::max({largest, m.col(j).maxCoeff() - mu, mu - m.col(j).minCoeff()});
    }
  }
  if (largest > 0.0 && std::isfinite(largest) &&
      std::abs(std::ilogb(largest)) > kOrdinaryExponent) {
    centred /= std::ldexp(1.0, std::ilogb(largest));
  }
  if (codes != nullptr) sum_by_class(centred, codes, *sums, *odd);
  return centred;
}

/** A = R^{-1} U, then rows put back in the original column order. */
MatrixXd back_substitute(const ReducedQr& qr, const MatrixXd& u, Index p) {
  const MatrixXd reduced = qr.r.triangularView<Eigen::Upper>().solve(u);
  MatrixXd directions = MatrixXd::Zero(p, u.cols());
  for (Index j = 0; j < qr.rank; ++j) directions.row(qr.columns(j)) = reduced.row(j);
  return directions;
}

/** R^-T applied to the pivoted, reduced rows of m: the rows of Q' for m = Xc' Z. */
void q_transpose_times(const ReducedQr& qr, const MatrixXd& m, MatrixXd& out) {
  out.resize(qr.rank, m.cols());
  for (Index j = 0; j < qr.rank; ++j) out.row(j) = m.row(qr.columns(j));
  qr.r.transpose().triangularView<Eigen::Lower>().solveInPlace(out);
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
  out.directions = directions.leftCols(kept);
  out.correlations = correlations.head(kept);
  return out;
}

CcaResult empty_result(Index p) {
  CcaResult out;
  out.directions = MatrixXd::Zero(p, 0);
  out.correlations = Eigen::VectorXd::Zero(0);
  return out;
}

}  // namespace

CcaResult cca(const ConstMatrixRef& x, const ConstMatrixRef& y, double tolerance,
              CcaWorkspace& work) {
  const Index p = x.cols();
  MatrixMap xc = centre(x, work.x), yc = centre(y, work.y);
  const MatrixXd cross_product = xc.transpose() * yc;
  const ReducedQr qx = reduced_qr(xc, tolerance);
  const ReducedQr qy = reduced_qr(yc, tolerance);
  const Index n_dir = std::min(qx.rank, qy.rank);
  if (n_dir == 0) return empty_result(p);
  // Qx'Qy = Rx^-T (Xc Px)'(Yc Py) Ry^-1, built as (Ry^-T (Rx^-T M)')'.
  MatrixXd left, right;
  q_transpose_times(qx, cross_product, left);  // r_x x q
  q_transpose_times(qy, left.transpose(), right);
  const MatrixXd cross = right.transpose();
  // Only the x-side singular vectors are needed, so decompose the r_x x r_y
  // cross product whichever way round it is.
  Eigen::JacobiSVD<MatrixXd> svd(cross, Eigen::ComputeThinU);
  return normalised(back_substitute(qx, svd.matrixU().leftCols(n_dir), p),
                    svd.singularValues().head(n_dir).cwiseMin(1.0));
}

CcaResult cca_classes(const ConstMatrixRef& x, const int* codes, int n_class, double tolerance,
                      CcaWorkspace& work) {
  const Index p = x.cols(), n = x.rows();
  MatrixXd& sums = work.sums;
  sums.resize(p, n_class);
  // Class sums of the centred columns, taken before the QR overwrites them.
  MatrixMap xc = centre(x, work.x, codes, &sums, &work.odd_sums);
  std::vector<Index>& counts = work.counts;
  counts.assign(static_cast<size_t>(n_class), 0);
  for (Index i = 0; i < n; ++i) ++counts[codes[i]];
  if (!gram_factor(xc, tolerance, work)) work.factor = reduced_qr(xc, tolerance);
  const ReducedQr& qx = work.factor;
  if (qx.rank == 0) return empty_result(p);
  const Index r = qx.rank;
  MatrixXd& class_sums = work.class_sums;  // r x n_class
  q_transpose_times(qx, sums, class_sums);

  Index present = 0;
  MatrixXd& gram = work.class_gram;
  gram.setZero(r, r);
  for (int k = 0; k < n_class; ++k) {
    if (counts[k] == 0) continue;
    ++present;
    gram.selfadjointView<Eigen::Lower>().rankUpdate(class_sums.col(k),
                                                    1.0 / static_cast<double>(counts[k]));
  }
  const Index n_dir = std::min(r, present - 1);
  if (n_dir <= 0) return empty_result(p);

  Eigen::SelfAdjointEigenSolver<MatrixXd>& eigen = work.eigen;
  eigen.compute(gram.selfadjointView<Eigen::Lower>());
  // Eigenvalues come in increasing order; the canonical pairs are the largest.
  MatrixXd& vectors = work.vectors;
  vectors = eigen.eigenvectors().rowwise().reverse().leftCols(n_dir);
  const Eigen::VectorXd values = eigen.eigenvalues().reverse().head(n_dir);

  return normalised(back_substitute(qx, vectors, p), values.cwiseMax(0.0).cwiseSqrt().cwiseMin(1.0));
}

CcaResult cca(const ConstMatrixRef& x, const ConstMatrixRef& y, double tolerance) {
  CcaWorkspace work;
  return cca(x, y, tolerance, work);
}

CcaResult cca_classes(const ConstMatrixRef& x, const int* codes, int n_class, double tolerance) {
  CcaWorkspace work;
  return cca_classes(x, codes, n_class, tolerance, work);
}

}  // namespace ccforest
