#ifndef CCFOREST_CCA_H_
#define CCFOREST_CCA_H_

#include <Eigen/Dense>

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

/**
 * Numerically stable CCA of the paper's Appendix A (Bjorck and Golub): centre
 * both blocks, pivoted QR of each reduced to the columns whose |R_ii| exceeds
 * tolerance * |R_11|, SVD of Qx'Qy, back-substitution and un-pivoting.
 *
 * @param x n x p first block (copied and centred here).
 * @param y n x q second block.
 * @param tolerance rank tolerance epsilon (the paper uses 1e-4).
 */
CcaResult cca(const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, double tolerance);

/**
 * The same CCA when the second block is the 1-of-K encoding of one class
 * output, without forming it. With Qx orthogonal to the constant vector,
 * Qx' Qy Qy' Qx equals sum_k S_k S_k' / n_k, where S_k sums the rows of Qx in
 * class k, so the left singular vectors come from a small symmetric
 * eigenproblem in O(n r) instead of a QR of the n x K indicator matrix.
 *
 * @param codes n class codes in [0, n_class).
 */
CcaResult cca_classes(const Eigen::MatrixXd& x, const int* codes, int n_class,
                      double tolerance);

}  // namespace ccforest

#endif  // CCFOREST_CCA_H_
