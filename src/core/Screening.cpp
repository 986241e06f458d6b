#include "Screening.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <Eigen/Dense>

namespace ccforest {

std::vector<double> screening_r2(const Data& data) { return screen_features(data).r2; }

Screening screen_features(const Data& data) {
  if (data.is_survival()) throw std::invalid_argument("screening is not defined for survival outcomes");
  std::vector<Eigen::Index> rows;
  rows.reserve(data.n_row());
  for (size_t i = 0; i < data.n_row(); ++i) {
    if (data.weight == nullptr || data.weight[i] > 0.0) rows.push_back(static_cast<Eigen::Index>(i));
  }
  const Eigen::Index n = static_cast<Eigen::Index>(rows.size());
  Screening result;
  result.r2.assign(data.n_feature(), 0.0);
  result.n_row = rows.size();
  std::vector<double>& r2 = result.r2;
  if (n < 2) return result;

  // The outputs' block, centred: class indicators, or the numeric outputs.
  const Eigen::Index width = data.is_classification() ? static_cast<Eigen::Index>(data.class_offset.back())
                                                      : static_cast<Eigen::Index>(data.n_output());
  Eigen::MatrixXd y = Eigen::MatrixXd::Zero(n, width);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (size_t m = 0; m < data.n_output(); ++m) {
      if (data.is_classification()) {
        y(i, data.class_offset[m] + data.y_class(rows[i], static_cast<Eigen::Index>(m))) = 1.0;
      } else {
        y(i, static_cast<Eigen::Index>(m)) = data.y_real(rows[i], static_cast<Eigen::Index>(m));
      }
    }
  }
  y.rowwise() -= y.colwise().mean();
  // An orthonormal basis of the outputs' span: the indicators of each output
  // sum to one, so centred they lose a dimension, which the pivoted QR drops.
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(y);
  qr.setThreshold(1e-9);
  const Eigen::Index rank = qr.rank();
  result.rank = static_cast<size_t>(rank);
  if (rank == 0) return result;
  const Eigen::MatrixXd basis = qr.householderQ() * Eigen::MatrixXd::Identity(n, rank);

  Eigen::VectorXd column(n);
  std::vector<double> scratch(data.is_sparse() ? data.n_row() : 0, 0.0);
  for (size_t feature = 0; feature < data.n_feature(); ++feature) {
    double best = 0.0;
    for (int c = data.feature_start[feature]; c < data.feature_start[feature + 1]; ++c) {
      const double* cells = data.column(c, scratch.data());
      for (Eigen::Index i = 0; i < n; ++i) {
        const double value = cells[rows[i]];
        column[i] = std::isnan(value) ? 0.0 : value;
      }
      data.clear_column(c, scratch.data());
      column.array() -= column.mean();
      const double total = column.squaredNorm();
      // A column constant up to rounding explains nothing.
      if (!(total > 1e-12 * static_cast<double>(n))) continue;
      const double explained = (basis.transpose() * column).squaredNorm();
      best = std::max(best, std::min(1.0, explained / total));
    }
    r2[feature] = best;
  }
  return result;
}

}  // namespace ccforest
