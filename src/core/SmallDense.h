#ifndef CCFOREST_SMALL_DENSE_H_
#define CCFOREST_SMALL_DENSE_H_

#include <cstddef>

namespace ccforest {

/**
 * Dense factorisations written out for the few columns a node's CCA has
 * (five on a 16-feature data set). At that size Eigen's general routines
 * spent most of a CCA's time setting up, allocating and dispatching rather
 * than computing: a node's CCA took about 3.5 us for well under a thousand
 * floating-point operations. These work in place on column-major arrays the
 * caller owns and never allocate.
 */

/**
 * Householder QR with column pivoting of the column-major n x p block `a`
 * (leading dimension n), in place: at each step the remaining column of
 * largest norm (the first of equal ones) comes next, its norm downdated as
 * in LAPACK's dgeqp3. Stops at the numerical rank, the first step whose
 * |R_kk| is below `tolerance` times |R_11| (or zero), so later columns are left
 * part-reduced. Afterwards R is the upper triangle of a's leading
 * rank x rank block and columns[k] the original column of pivoted position
 * k (all p are set).
 *
 * @param norms scratch of 2p doubles.
 * @return the numerical rank (0 if the block is zero or not finite).
 */
std::ptrdiff_t pivoted_qr(double* a, std::ptrdiff_t n, std::ptrdiff_t p, double tolerance,
                          int* columns, double* norms);

/**
 * Cholesky factor L (lower, L L' = A) of the symmetric p x p column-major
 * matrix `a`, in place; only the lower triangle is read or written.
 * @return false if a pivot is not positive (A not numerically positive definite).
 */
bool cholesky_lower(double* a, std::ptrdiff_t p);

/**
 * Eigenvalues and eigenvectors of the symmetric r x r column-major matrix
 * `a` (overwritten) by cyclic Jacobi rotations, which converge quadratically
 * and are accurate to rounding in every eigenpair; for the matrices a node
 * produces (r = 2..5 on 16 features) they beat a tridiagonal reduction, even
 * Eigen's of fixed size (`make -C tools/core-tests small-dense-bench`: 0.8
 * against 1.0 us at 5 x 5, level at 6 x 6).
 * values[0..r) come in decreasing order, the k-th vector in column k of
 * `vectors` (r x r, column-major).
 */
void jacobi_eigen(double* a, std::ptrdiff_t r, double* values, double* vectors);

/** Rows of the matrices jacobi_eigen() is used for; larger ones go to Eigen. */
constexpr std::ptrdiff_t kJacobiMaxRows = 16;

}  // namespace ccforest

#endif  // CCFOREST_SMALL_DENSE_H_
