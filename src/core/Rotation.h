#ifndef CCFOREST_ROTATION_H_
#define CCFOREST_ROTATION_H_

#include <Eigen/Dense>

#include "Rng.h"

namespace ccforest {

/**
 * A p x p rotation drawn uniformly (Haar measure on the orthogonal group):
 * the Q of a Gaussian matrix's QR decomposition, with each column signed so
 * that R has a positive diagonal (Mezzadri, 2007). Without the sign
 * correction the distribution would depend on the QR routine's conventions.
 */
inline Eigen::MatrixXd random_rotation(Eigen::Index p, Rng& rng) {
  Eigen::MatrixXd gaussian(p, p);
  for (Eigen::Index j = 0; j < p; ++j) {
    for (Eigen::Index i = 0; i < p; ++i) gaussian(i, j) = rng.normal();
  }
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(gaussian);
  Eigen::MatrixXd q = qr.householderQ();
  for (Eigen::Index j = 0; j < p; ++j) {
    if (qr.matrixQR()(j, j) < 0.0) q.col(j) = -q.col(j);
  }
  return q;
}

}  // namespace ccforest

#endif  // CCFOREST_ROTATION_H_
