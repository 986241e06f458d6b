#include "SmallDense.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ccforest {

using Index = std::ptrdiff_t;

namespace {

// Eigen's vectorised kernels on raw columns: R's -O2 does not vectorise
// these loops by itself, and Eigen's decompositions cost more in setup than
// in arithmetic at a node's size.
using ConstColumn = Eigen::Map<const Eigen::VectorXd>;
using Column = Eigen::Map<Eigen::VectorXd>;

double dot(const double* x, const double* y, Index n) {
  return n > 0 ? ConstColumn(x, n).dot(ConstColumn(y, n)) : 0.0;
}

}  // namespace

std::ptrdiff_t pivoted_qr(double* a, Index n, Index p, double tolerance, int* columns,
                          double* norms) {
  // The remaining columns' norms below the current row are downdated as
  // rows are eliminated (LAPACK's dlaqp2): norms[j] the current value,
  // norms[p + j] its value when last computed outright, which it is again
  // once cancellation has eaten half the digits.
  double* exact = norms + p;
  for (Index j = 0; j < p; ++j) {
    columns[j] = static_cast<int>(j);
    norms[j] = exact[j] = std::sqrt(dot(a + j * n, a + j * n, n));
  }
  const double drift = std::sqrt(std::numeric_limits<double>::epsilon());
  const Index steps = std::min(n, p);
  double r11 = 0.0;
  for (Index k = 0; k < steps; ++k) {
    Index pivot = k;
    for (Index j = k + 1; j < p; ++j) {
      if (norms[j] > norms[pivot]) pivot = j;
    }
    if (pivot != k) {
      std::swap_ranges(a + k * n, a + (k + 1) * n, a + pivot * n);
      std::swap(columns[k], columns[pivot]);
      std::swap(norms[k], norms[pivot]);
      std::swap(exact[k], exact[pivot]);
    }
    double* v = a + k * n;
    const double alpha = v[k];
    // The pivot's own norm summed directly, for the rank decision.
    const double tail = dot(v + k + 1, v + k + 1, n - k - 1);
    const double norm = std::sqrt(alpha * alpha + tail);
    if (k == 0) {
      r11 = norm;
      if (!(r11 > 0.0) || !std::isfinite(r11)) return 0;
    }
    // The authors' rule (componentAnalysis.m): a column is kept when its
    // |R_kk| reaches tolerance * |R_11|, and never when it is zero.
    if (!(norm >= tolerance * r11 && norm > 0.0)) return k;
    if (tail > 0.0) {  // a column already zero below its diagonal needs no reflection
      const double beta = alpha > 0.0 ? -norm : norm;
      const double tau = (beta - alpha) / beta;
      const double scale = 1.0 / (alpha - beta);
      Column(v + k + 1, n - k - 1) *= scale;
      v[k] = beta;
      for (Index j = k + 1; j < p; ++j) {
        double* col = a + j * n;
        const double w = tau * (col[k] + dot(v + k + 1, col + k + 1, n - k - 1));
        col[k] -= w;
        Column(col + k + 1, n - k - 1) -= w * ConstColumn(v + k + 1, n - k - 1);
      }
    }
    for (Index j = k + 1; j < p; ++j) {
      if (!(norms[j] > 0.0)) continue;
      const double ratio = std::abs(a[j * n + k]) / norms[j];
      const double left = std::max(0.0, (1.0 - ratio) * (1.0 + ratio));
      const double relative = norms[j] / exact[j];
      if (left * relative * relative <= drift) {
        norms[j] = exact[j] = std::sqrt(dot(a + j * n + k + 1, a + j * n + k + 1, n - k - 1));
      } else {
        norms[j] *= std::sqrt(left);
      }
    }
  }
  return steps;
}

bool cholesky_lower(double* a, Index p) {
  for (Index j = 0; j < p; ++j) {
    double d = a[j * p + j];
    for (Index k = 0; k < j; ++k) d -= a[k * p + j] * a[k * p + j];
    if (!(d > 0.0)) return false;
    const double ljj = std::sqrt(d);
    a[j * p + j] = ljj;
    for (Index i = j + 1; i < p; ++i) {
      double s = a[j * p + i];
      for (Index k = 0; k < j; ++k) s -= a[k * p + i] * a[k * p + j];
      a[j * p + i] = s / ljj;
    }
  }
  return true;
}

void jacobi_eigen(double* a, Index r, double* values, double* vectors) {
  if (r > kJacobiMaxRows) throw std::logic_error("jacobi_eigen: matrix too large");
  for (Index j = 0; j < r; ++j) {
    for (Index i = 0; i < r; ++i) vectors[j * r + i] = i == j ? 1.0 : 0.0;
  }
  double scale = 0.0;
  for (Index i = 0; i < r * r; ++i) scale = std::max(scale, std::abs(a[i]));
  // An off-diagonal entry at the rounding level of the largest entry moves
  // no eigenvalue by more than rounding already has (a backward-stable
  // solver's error); with the eigenvalue gap it bounds the vectors' error.
  const double negligible = scale * std::numeric_limits<double>::epsilon();
  // The angles are computed from entries divided by the largest, which
  // keeps their squares finite whatever the matrix's scale.
  const double unit = scale > 0.0 ? 1.0 / scale : 0.0;
  for (int sweep = 0; sweep < 64; ++sweep) {
    bool rotated = false;
    for (Index p = 0; p + 1 < r; ++p) {
      for (Index q = p + 1; q < r; ++q) {
        const double apq = a[q * r + p];
        const double app = a[p * r + p], aqq = a[q * r + q];
        // Once rotations have converged, an entry too small to change
        // either diagonal entry it couples is dropped (Numerical Recipes).
        const double g = 100.0 * std::abs(apq);
        if (!(std::abs(apq) > negligible) ||
            (sweep > 3 && std::abs(app) + g == std::abs(app) && std::abs(aqq) + g == std::abs(aqq))) {
          a[q * r + p] = a[p * r + q] = 0.0;
          continue;
        }
        // The rotation that zeroes a_pq, with |angle| <= pi / 4 (Golub and
        // Van Loan, Algorithm 8.4.1), so the diagonal changes least: with
        // d = a_qq - a_pp, e = 2 a_pq and h = |(d, e)|, its tangent is
        // sign(d) e / (|d| + h) and its cosine sqrt((h + |d|) / 2h). Each
        // rotation waits on the previous one's, so the chain of square roots
        // and divisions is what a solve costs: this one has two of each,
        // side by side, where the textbook's cot(2 angle) route has five.
        const double d = (aqq - app) * unit, e = 2.0 * apq * unit;
        const double h = std::sqrt(d * d + e * e);
        const double t = (d >= 0.0 ? e : -e) / (std::abs(d) + h);
        const double c = std::sqrt((h + std::abs(d)) / (2.0 * h)), s = t * c;
        // Rows and columns p and q change; by symmetry only the entries
        // outside the 2 x 2 block need computing, once, and mirroring.
        auto rotate = [&](Index k) {
          const double kp = a[p * r + k], kq = a[q * r + k];
          const double new_kp = c * kp - s * kq, new_kq = s * kp + c * kq;
          a[p * r + k] = a[k * r + p] = new_kp;
          a[q * r + k] = a[k * r + q] = new_kq;
        };
        for (Index k = 0; k < p; ++k) rotate(k);
        for (Index k = p + 1; k < q; ++k) rotate(k);
        for (Index k = q + 1; k < r; ++k) rotate(k);
        a[q * r + p] = a[p * r + q] = 0.0;
        a[p * r + p] = app - t * apq;
        a[q * r + q] = aqq + t * apq;
        for (Index k = 0; k < r; ++k) {
          const double kp = vectors[p * r + k], kq = vectors[q * r + k];
          vectors[p * r + k] = c * kp - s * kq;
          vectors[q * r + k] = s * kp + c * kq;
        }
        rotated = true;
      }
    }
    if (!rotated) break;
  }
  // Decreasing eigenvalues, ties in their original order (an insertion
  // sort: stable, and std::stable_sort would allocate).
  Index order[kJacobiMaxRows];
  for (Index k = 0; k < r; ++k) {
    Index at = k;
    while (at > 0 && a[k * r + k] > a[order[at - 1] * r + order[at - 1]]) {
      order[at] = order[at - 1];
      --at;
    }
    order[at] = k;
  }
  double sorted[kJacobiMaxRows * kJacobiMaxRows];
  for (Index k = 0; k < r; ++k) {
    values[k] = a[order[k] * r + order[k]];
    std::copy(vectors + order[k] * r, vectors + (order[k] + 1) * r, sorted + k * r);
  }
  std::copy(sorted, sorted + r * r, vectors);
}

}  // namespace ccforest
