#include "Bagging.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "Data.h"
#include "Rng.h"
#include "Sampling.h"

namespace ccforest {

namespace {

// Training rows per block of the products below: a block of in-bag counts as
// doubles (rows x trees) stays within a few megabytes.
constexpr size_t kTrainBlock = 512;
// New rows per task of jackknife_plus(): each task holds one leave-one-out
// mean per training row and new row.
constexpr size_t kNewBlock = 32;

}  // namespace

std::vector<uint16_t> in_bag_counts(const BagSource& source, size_t n_tree,
                                    const Runtime& runtime) {
  const size_t n = source.n_row;
  std::vector<uint16_t> counts(n * n_tree, 0);
  // draw_sample() reads the rows' number, weights and (per-class sizes)
  // classes only.
  const Eigen::Index rows = static_cast<Eigen::Index>(n);
  const bool classes = source.classes != nullptr;
  const Data data(MatrixMap(nullptr, rows, 0), {0}, {},
                  IntMatrixMap(source.classes, rows, classes ? 1 : 0),
                  classes ? std::vector<int>{source.n_class} : std::vector<int>{},
                  MatrixMap(nullptr, rows, 0), source.weight, source.uniform_weight);
  run_batched(runtime, n_tree, [&](size_t t) {
    Rng rng(source.seed, source.first_tree + t);
    std::vector<int> sample;
    draw_sample(data, source.sample, rng, sample);
    uint16_t* count = counts.data() + n * t;
    for (int r : sample) {
      if (count[r] == std::numeric_limits<uint16_t>::max()) {
        throw std::runtime_error("a tree drew one row more than 65535 times");
      }
      ++count[r];
    }
  });
  return counts;
}

JackknifeVariance infinitesimal_jackknife(const std::vector<uint16_t>& counts, size_t n_row,
                                          size_t n_tree, const double* values, size_t n_col,
                                          const Runtime& runtime) {
  const Eigen::Index B = static_cast<Eigen::Index>(n_tree);
  const Eigen::Map<const Eigen::MatrixXd> t(values, static_cast<Eigen::Index>(n_col), B);
  const Eigen::MatrixXd centred = t.colwise() - t.rowwise().mean();
  const size_t n_block = (n_row + kTrainBlock - 1) / kTrainBlock;
  std::vector<Eigen::VectorXd> block_raw(n_block);
  std::vector<double> block_var(n_block, 0.0);
  JackknifeVariance out;
  out.raw.assign(n_col, 0.0);
  double sum_var = 0.0;
  run_batched(runtime, n_block, [&](size_t k) {
    runtime.throw_if_cancelled();
    const size_t begin = k * kTrainBlock, end = std::min(n_row, begin + kTrainBlock);
    const Eigen::Index r = static_cast<Eigen::Index>(end - begin);
    Eigen::MatrixXd n_block_counts(r, B);
    for (Eigen::Index b = 0; b < B; ++b) {
      const uint16_t* column = counts.data() + n_row * static_cast<size_t>(b) + begin;
      for (Eigen::Index i = 0; i < r; ++i) n_block_counts(i, b) = column[i];
    }
    const Eigen::VectorXd mean = n_block_counts.rowwise().mean();
    block_var[k] = ((n_block_counts.colwise() - mean).rowwise().squaredNorm() /
                    static_cast<double>(B)).sum();
    // cov_b(N_bi, t_b) = sum_b N_bi (t_b - mean t) / B, as the centred t sum to 0.
    const Eigen::MatrixXd cov = n_block_counts * centred.transpose() / static_cast<double>(B);
    block_raw[k] = cov.colwise().squaredNorm().transpose();
  }, [&](size_t begin, size_t end) {
    // In block order, so the sums do not depend on the threads.
    for (size_t k = begin; k < end; ++k) {
      for (size_t c = 0; c < n_col; ++c) out.raw[c] += block_raw[k](static_cast<Eigen::Index>(c));
      sum_var += block_var[k];
      block_raw[k] = Eigen::VectorXd();
    }
  });
  out.bias.resize(n_col);
  for (size_t c = 0; c < n_col; ++c) {
    const double var_t = centred.row(static_cast<Eigen::Index>(c)).squaredNorm() /
                         static_cast<double>(B);
    out.bias[c] = sum_var * var_t / static_cast<double>(B);
  }
  return out;
}

void jackknife_plus(const std::vector<uint16_t>& counts, size_t n_row, size_t n_tree,
                    const double* values, size_t m, const double* residual, size_t rank_lower,
                    size_t rank_upper, const Runtime& runtime, double* lower, double* upper) {
  const Eigen::Index B = static_cast<Eigen::Index>(n_tree);
  std::vector<size_t> used;
  for (size_t i = 0; i < n_row; ++i) {
    if (!std::isnan(residual[i])) used.push_back(i);
  }
  const size_t n = used.size();
  std::vector<double> n_out(n, 0.0);
  for (size_t k = 0; k < n; ++k) {
    for (size_t b = 0; b < n_tree; ++b) n_out[k] += counts[used[k] + n_row * b] == 0 ? 1.0 : 0.0;
    if (n_out[k] == 0.0) throw std::invalid_argument("a row with a residual is in every bag");
  }
  const Eigen::Map<const Eigen::MatrixXd> t(values, static_cast<Eigen::Index>(m), B);
  const double inf = std::numeric_limits<double>::infinity();
  const size_t n_task = (m + kNewBlock - 1) / kNewBlock;
  run_batched(runtime, n_task, [&](size_t task) {
    const size_t j0 = task * kNewBlock, j1 = std::min(m, j0 + kNewBlock);
    const Eigen::Index c = static_cast<Eigen::Index>(j1 - j0);
    Eigen::MatrixXd loo(static_cast<Eigen::Index>(n), c);  // mu_{-i}(x_j)
    for (size_t k0 = 0; k0 < n; k0 += kTrainBlock) {
      runtime.throw_if_cancelled();
      const size_t k1 = std::min(n, k0 + kTrainBlock);
      const Eigen::Index r = static_cast<Eigen::Index>(k1 - k0);
      Eigen::MatrixXd out_of_bag(r, B);
      for (Eigen::Index b = 0; b < B; ++b) {
        const uint16_t* column = counts.data() + n_row * static_cast<size_t>(b);
        for (Eigen::Index i = 0; i < r; ++i) {
          out_of_bag(i, b) = column[used[k0 + static_cast<size_t>(i)]] == 0 ? 1.0 : 0.0;
        }
      }
      loo.middleRows(static_cast<Eigen::Index>(k0), r).noalias() =
          out_of_bag * t.middleRows(static_cast<Eigen::Index>(j0), c).transpose();
    }
    std::vector<double> low(n), high(n);
    for (Eigen::Index j = 0; j < c; ++j) {
      for (size_t k = 0; k < n; ++k) {
        const double mu = loo(static_cast<Eigen::Index>(k), j) / n_out[k];
        const double r_k = residual[used[k]];
        low[k] = mu - r_k;
        high[k] = mu + r_k;
      }
      const size_t at = j0 + static_cast<size_t>(j);
      if (rank_lower < 1 || rank_lower > n) {
        lower[at] = -inf;
      } else {
        std::nth_element(low.begin(), low.begin() + static_cast<std::ptrdiff_t>(rank_lower - 1),
                         low.end());
        lower[at] = low[rank_lower - 1];
      }
      if (rank_upper < 1 || rank_upper > n) {
        upper[at] = inf;
      } else {
        std::nth_element(high.begin(), high.begin() + static_cast<std::ptrdiff_t>(rank_upper - 1),
                         high.end());
        upper[at] = high[rank_upper - 1];
      }
    }
  });
}

}  // namespace ccforest
