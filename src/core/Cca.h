#ifndef CCFOREST_CCA_H_
#define CCFOREST_CCA_H_

#include <Eigen/Dense>
#include <memory>
#include <utility>
#include <vector>

#include "Buffer.h"

namespace ccforest {

/**
 * Canonical correlation directions for the first block.
 *
 * `directions` is p x n_dir with one unit-length column per canonical pair,
 * in decreasing order of correlation; rows of columns dropped as linearly
 * dependent are zero. The directions act on centred data, and so equally (up
 * to a shift) on un-centred data. n_dir = min(rank x, rank y) and may be 0.
 */
struct CcaResult {
  Eigen::MatrixXd directions;
  Eigen::VectorXd correlations;
};

/** R and the pivots of a pivoted QR (or a Cholesky factor), reduced to numerical rank. */
struct ReducedQr {
  Eigen::MatrixXd r;        // rank x rank, upper triangular
  Eigen::VectorXi columns;  // original column of each pivoted position
  Eigen::Index rank = 0;
};

/**
 * Buffers kept between calls, so that a tree's CCAs, one per node, neither
 * allocate memory of the node's size nor, on the class route, allocate the
 * small matrices again while the number of columns stays the same.
 */
struct CcaWorkspace {
  Buffer<double> x, y;
  Eigen::MatrixXd sums, odd_sums;
  std::vector<Eigen::Index> counts, odd_counts;
  Buffer<int> present;  // the classes present, in increasing order (the first n_present)
  // The class route's small matrices: the Gram matrix and its factor; the
  // sums of the classes present, whitened, the matrix of those and its
  // eigenvectors and values, and the factor L of M and basis B L of the
  // shrunken eigenproblem (few classes, see cca_classes()). Their sizes
  // change from node to node: kept as buffers, which keep their capacity,
  // they are not allocated again at every node.
  Eigen::MatrixXd gram;
  Buffer<double> kept_sums, class_sums, class_gram, vectors, values, small_vectors, shrink_factor,
      shrink_basis;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen;
  ReducedQr factor;
  // The general route's cross product of the centred blocks and the second
  // block's factor (the first's is `factor`); then Rx^-T times it and Qx'Qy
  // transposed.
  Eigen::MatrixXd cross_product;
  ReducedQr y_factor;
  Buffer<double> left, right;
  /** Qx'Qy (r_x x r_y) and its SVD. */
  struct CrossSvd {
    Eigen::MatrixXd cross;
    Eigen::JacobiSVD<Eigen::MatrixXd> svd;
  };
  /**
   * The CrossSvd of an r_x x r_y Qx'Qy. Eigen's SVD and its QR
   * preconditioner allocate their matrices again whenever the shape
   * changes, and a survival tree's nodes move between a few ranks (twenty
   * thousand allocations a small fit): one is kept per shape seen, the first
   * kMaxShapes of them (later shapes share the last). An SVD overwrites all
   * it computes from, so which one runs never shows in its result.
   */
  CrossSvd& cross_svd(Eigen::Index rows, Eigen::Index cols);
  static constexpr size_t kMaxShapes = 16;
  std::vector<std::pair<std::pair<Eigen::Index, Eigen::Index>, std::unique_ptr<CrossSvd>>> svds;
  Buffer<double> norms, column;  // scratch of the QR and the triangular solves
};

using ConstMatrixRef = Eigen::Ref<const Eigen::MatrixXd>;

/**
 * Numerically stable CCA of the paper's Appendix A (Bjorck and Golub): centre
 * both blocks, pivoted QR of each reduced to the columns whose |R_ii| reaches
 * tolerance * |R_11|, SVD of Qx'Qy, back-substitution and un-pivoting.
 *
 * Qx is never formed: the reduced QR gives Xc P = Q R on its first r columns,
 * so Qx'Qy = Rx^-T (Xc Px)' (Yc Py) Ry^-1, from the p x q cross product of the
 * centred blocks (taken before the factorisations overwrite them) and two
 * triangular solves. The pivoting and the rank decision are the paper's.
 *
 * @param x the first block's source (not modified): the first block itself
 *   (n x p) when `rows` is null.
 * @param rows null, or n = y.rows() indices of rows of x: the first block is
 *   then the rows x.row(rows[i]), repeats allowed (a bootstrap sample),
 *   gathered while centring instead of copied first.
 * @param y n x q second block, row i belonging with the first block's row i.
 * @param tolerance rank tolerance epsilon (the paper uses 1e-4).
 */
CcaResult cca(const ConstMatrixRef& x, const size_t* rows, const ConstMatrixRef& y,
              double tolerance, CcaWorkspace& work);
CcaResult cca(const ConstMatrixRef& x, const ConstMatrixRef& y, double tolerance);

/**
 * out = X'Y for column-major X (n x p) and Y (n x q), bit for bit as Eigen's
 * product computes it. At a node's sizes (a few columns, tens to hundreds of
 * rows) Eigen spends longer packing its blocks than multiplying them, about
 * a twentieth of growing a small survival tree; where its sums are known to
 * run in order of rows (fewer than four columns in Y, blocks beyond its
 * coefficient-wise product, no fused multiply-adds) they are computed here,
 * with its depth blocking. tools/core-tests compares the two.
 */
void cross_product(const double* x, const double* y, Eigen::Index n, Eigen::Index p, Eigen::Index q,
                   Eigen::MatrixXd& out);

/**
 * The same CCA when the second block is the 1-of-K encoding of one class
 * output, without forming it. With Qx orthogonal to the constant vector,
 * Qx' Qy Qy' Qx equals sum_k S_k S_k' / n_k, where S_k = Rx^-T (Xc Px)' 1_k
 * sums the rows of Qx in class k, so the left singular vectors come from a
 * small symmetric eigenproblem in O(n p) after the QR, instead of a QR of the
 * n x K indicator matrix (the "LDA equivalence" of the paper's footnote).
 *
 * @param rows null (the CCA is of x), or `n_rows` indices of rows of x: the
 *   CCA is then of the rows x.row(rows[i]), repeats allowed (a bootstrap
 *   sample, as many rows as x has or fewer), gathered while centring
 *   instead of copied first.
 * @param codes the class code in [0, n_class) of each row of the CCA.
 */
CcaResult cca_classes(const ConstMatrixRef& x, const size_t* rows, Eigen::Index n_rows,
                      const int* codes, int n_class, double tolerance, CcaWorkspace& work);
CcaResult cca_classes(const ConstMatrixRef& x, const int* codes, int n_class, double tolerance);

}  // namespace ccforest

#endif  // CCFOREST_CCA_H_
