// Times jacobi_eigen() against Eigen's fixed-size tridiagonal QR solver on
// the sizes a node's class CCA produces (r = 2..5 on a 16-feature data set),
// at R's optimisation level: the measurement behind keeping Jacobi (see
// SmallDense.h). `make -C tools/core-tests small-dense-bench`.
#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "SmallDense.h"

namespace {

constexpr int kMatrices = 100000;
constexpr int kRounds = 5;

template <int R>
void time_size() {
  using Matrix = Eigen::Matrix<double, R, R>;
  std::mt19937_64 gen(1);
  std::normal_distribution<double> normal;
  // Gram matrices of R x 8 blocks, symmetric positive definite like the CCA's.
  std::vector<Matrix> matrices(kMatrices);
  for (Matrix& m : matrices) {
    Eigen::Matrix<double, R, 8> b;
    for (int i = 0; i < b.size(); ++i) b(i) = normal(gen);
    m = b * b.transpose();
  }
  double sink = 0.0, best_jacobi = 1e300, best_eigen = 1e300;
  for (int round = 0; round < kRounds; ++round) {
    auto start = std::chrono::steady_clock::now();
    double a[R * R], vectors[R * R], values[R];
    for (const Matrix& m : matrices) {
      std::copy(m.data(), m.data() + R * R, a);
      ccforest::jacobi_eigen(a, R, values, vectors);
      sink += values[0] + vectors[0];
    }
    auto middle = std::chrono::steady_clock::now();
    Eigen::SelfAdjointEigenSolver<Matrix> solver;
    for (const Matrix& m : matrices) {
      solver.compute(m);
      sink += solver.eigenvalues()(R - 1) + solver.eigenvectors()(0, R - 1);
    }
    auto end = std::chrono::steady_clock::now();
    best_jacobi = std::min(best_jacobi, std::chrono::duration<double>(middle - start).count());
    best_eigen = std::min(best_eigen, std::chrono::duration<double>(end - middle).count());
  }
  // Stored where the compiler must assume it is read, so the solves are not optimised away.
  volatile double keep = sink;
  (void)keep;
  std::printf("%d x %d: jacobi_eigen %.3f us, Eigen's SelfAdjointEigenSolver (fixed size) %.3f us\n",
              R, R, 1e6 * best_jacobi / kMatrices, 1e6 * best_eigen / kMatrices);
}

}  // namespace

int main() {
  std::printf("best of %d rounds over %d random matrices each\n", kRounds, kMatrices);
  time_size<2>();
  time_size<3>();
  time_size<4>();
  time_size<5>();
  time_size<6>();
  return 0;
}
