#ifndef CCFOREST_DATA_H_
#define CCFOREST_DATA_H_

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "Rng.h"

namespace ccforest {

using MatrixMap = Eigen::Map<const Eigen::MatrixXd>;

/** The most rows the core handles: R's own limit on a matrix's rows. */
constexpr Eigen::Index kMaxRows = 2147483647;
using IntMatrixMap = Eigen::Map<const Eigen::MatrixXi>;

/**
 * Hashes each row of `x` from its bit patterns (NaN canonicalised, and -0 as
 * 0, which equals it), so that random imputation can be keyed on a row's
 * content instead of its position.
 * Rows without missing values never need a hash; they get 0, and only they do.
 * With `column_missing`, also sets it to 1 for each column with a missing
 * value, 0 for the others.
 */
inline std::vector<uint64_t> row_hashes(const MatrixMap& x,
                                        std::vector<char>* column_missing = nullptr) {
  const Eigen::Index n = x.rows(), p = x.cols();
  std::vector<uint64_t> hash(n, 0);
  std::vector<char> has_na(n, 0);
  if (column_missing != nullptr) column_missing->assign(static_cast<size_t>(p), 0);
  for (Eigen::Index j = 0; j < p; ++j) {
    char any = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      if (std::isnan(x(i, j))) has_na[i] = any = 1;
    }
    if (column_missing != nullptr) (*column_missing)[static_cast<size_t>(j)] = any;
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!has_na[i]) continue;
    uint64_t h = 0x6a09e667f3bcc909ULL;
    for (Eigen::Index j = 0; j < p; ++j) {
      const double v = x(i, j);
      uint64_t bits = 0x7ff8000000000000ULL;
      const double same = v == 0.0 ? 0.0 : v;
      if (!std::isnan(v)) std::memcpy(&bits, &same, sizeof bits);
      h = mix64(h, bits);
    }
    hash[i] = h == 0 ? 1 : h;  // 0 marks a complete row
  }
  return hash;
}

/**
 * A compressed-column matrix over memory owned by the caller (R's dgCMatrix:
 * slots p, i and x): column j's stored values are value[start[j]] up to
 * value[start[j + 1]], in rows row[...], increasing. Every other cell is 0.
 */
struct SparseColumns {
  const int* start = nullptr;
  const int* row = nullptr;
  const double* value = nullptr;

  bool present() const { return start != nullptr; }
};

/**
 * The same cells by row (compressed rows), for the readers that walk whole
 * rows down a tree: out-of-bag predictions, importance, quantile samples.
 */
struct SparseRows {
  std::vector<int> start;
  std::vector<int> column;
  std::vector<double> value;
};

/** `columns` (n rows, p columns) by row: one counting pass, one placing pass. */
inline SparseRows sparse_rows(const SparseColumns& columns, Eigen::Index n, Eigen::Index p) {
  SparseRows out;
  const int n_stored = columns.start[p];
  out.start.assign(static_cast<size_t>(n) + 1, 0);
  for (int k = 0; k < n_stored; ++k) ++out.start[static_cast<size_t>(columns.row[k]) + 1];
  for (Eigen::Index i = 0; i < n; ++i) out.start[i + 1] += out.start[i];
  out.column.resize(static_cast<size_t>(n_stored));
  out.value.resize(static_cast<size_t>(n_stored));
  std::vector<int> next(out.start.begin(), out.start.end() - 1);
  for (Eigen::Index j = 0; j < p; ++j) {
    for (int k = columns.start[j]; k < columns.start[j + 1]; ++k) {
      const int at = next[static_cast<size_t>(columns.row[k])]++;
      out.column[static_cast<size_t>(at)] = static_cast<int>(j);
      out.value[static_cast<size_t>(at)] = columns.value[k];
    }
  }
  return out;
}

/**
 * row_hashes() of the dense matrix `columns` stands for, without making it:
 * a row's hash mixes every cell in column order, zeros included, so the
 * imputation of a sparse fit is that of the same data given dense.
 */
inline std::vector<uint64_t> sparse_row_hashes(const SparseColumns& columns, Eigen::Index n,
                                               Eigen::Index p, std::vector<char>* column_missing) {
  std::vector<uint64_t> hash(static_cast<size_t>(n), 0);
  std::vector<char> has_na(static_cast<size_t>(n), 0);
  column_missing->assign(static_cast<size_t>(p), 0);
  for (Eigen::Index j = 0; j < p; ++j) {
    for (int k = columns.start[j]; k < columns.start[j + 1]; ++k) {
      if (std::isnan(columns.value[k])) {
        has_na[static_cast<size_t>(columns.row[k])] = 1;
        (*column_missing)[static_cast<size_t>(j)] = 1;
      }
    }
  }
  // Only rows with a missing value are hashed: their cells, column by
  // column, from a scratch of their bit patterns that the stored cells
  // overwrite and that returns to 0 (the bits of 0.0) after each column.
  std::vector<int> slot(static_cast<size_t>(n), -1);
  std::vector<size_t> incomplete;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!has_na[static_cast<size_t>(i)]) continue;
    slot[static_cast<size_t>(i)] = static_cast<int>(incomplete.size());
    incomplete.push_back(static_cast<size_t>(i));
  }
  if (incomplete.empty()) return hash;
  std::vector<uint64_t> h(incomplete.size(), 0x6a09e667f3bcc909ULL), bits(incomplete.size(), 0);
  for (Eigen::Index j = 0; j < p; ++j) {
    for (int k = columns.start[j]; k < columns.start[j + 1]; ++k) {
      const int s = slot[static_cast<size_t>(columns.row[k])];
      if (s < 0) continue;
      const double v = columns.value[k];
      uint64_t b = 0x7ff8000000000000ULL;
      const double same = v == 0.0 ? 0.0 : v;
      if (!std::isnan(v)) std::memcpy(&b, &same, sizeof b);
      bits[static_cast<size_t>(s)] = b;
    }
    for (size_t s = 0; s < incomplete.size(); ++s) {
      h[s] = mix64(h[s], bits[s]);
      bits[s] = 0;
    }
  }
  for (size_t s = 0; s < incomplete.size(); ++s) hash[incomplete[s]] = h[s] == 0 ? 1 : h[s];
  return hash;
}

/**
 * A right-censored outcome, possibly with competing causes, as the core sees
 * it: the data's distinct event times t_0 < ... < t_{n_time - 1} (events of
 * any cause) are numbered, and each row carries only
 *   time_rank: the number of event times at or before its own time, minus
 *     one (-1: before the first), so the row is at risk at t_k for k <=
 *     time_rank and, when it has an event, its event is at t_{time_rank};
 *   event: 0 when censored, else its cause c in 1..n_cause.
 * The times themselves stay in R (predictions need them, the trees do not).
 * A node's response for the CCA (see SurvivalNode.h) has n_column columns:
 * martingale residuals, per cause, over `intervals` periods of the node's
 * event times.
 */
struct SurvivalOutcome {
  const int* time_rank = nullptr;
  const int* event = nullptr;
  int n_time = 0;
  int n_cause = 0;  // 0: not a survival outcome
  int intervals = 1;

  int n_column() const { return n_cause * intervals; }
};

/**
 * Training data as the core sees it: non-owning, column-major views of
 * memory owned by the caller.
 *
 * Columns of `x` are grouped into features: feature d owns columns
 * [feature_start[d], feature_start[d + 1]). A 1-of-K encoded factor is one
 * feature of K columns, so it is sampled as a single feature, and
 * indicators[d] is 1 for it: its columns sum to one. Other features may
 * have several columns too (a factor valued on several axes), which are
 * linearly independent. Missing values are NaN.
 *
 * The cells are either the dense `x`, or, when `sparse` is present, a
 * compressed-column matrix read where it lies (then `x` has the shape but no
 * memory: read cells through at(), column(), or tree_row(const Data&, ...)).
 *
 * Outputs are either class codes (0-based, one column per output, output m
 * having n_class[m] classes), real values (one column per output, already
 * standardised by the caller), or a survival outcome (SurvivalOutcome).
 */
struct Data {
  Data(MatrixMap x, std::vector<int> feature_start, std::vector<char> indicators,
       IntMatrixMap y_class, std::vector<int> n_class, MatrixMap y_real,
       const double* weight = nullptr, bool uniform_weight = false,
       SurvivalOutcome survival = SurvivalOutcome())
      : x(x), feature_start(std::move(feature_start)), indicators(std::move(indicators)),
        y_class(y_class), n_class(std::move(n_class)), y_real(y_real), weight(weight),
        uniform_weight(uniform_weight), survival(survival),
        row_hash(row_hashes(x, &column_missing)) {
    check();
  }

  /** The same over a compressed-column matrix of n_row x n_column cells. */
  Data(SparseColumns sparse, Eigen::Index n_row, Eigen::Index n_column,
       std::vector<int> feature_start, std::vector<char> indicators, IntMatrixMap y_class,
       std::vector<int> n_class, MatrixMap y_real, const double* weight = nullptr,
       bool uniform_weight = false, SurvivalOutcome survival = SurvivalOutcome())
      : x(nullptr, n_row, n_column), sparse(sparse), feature_start(std::move(feature_start)),
        indicators(std::move(indicators)), y_class(y_class), n_class(std::move(n_class)),
        y_real(y_real), weight(weight), uniform_weight(uniform_weight), survival(survival),
        row_hash(sparse_row_hashes(sparse, n_row, n_column, &column_missing)),
        by_row(std::make_shared<LazyRows>()) {
    check();
  }

  bool is_sparse() const { return sparse.present(); }

  /** The cell at (row, column), NaN when missing. */
  double at(size_t row, int column) const {
    if (!is_sparse()) return x(static_cast<Eigen::Index>(row), column);
    const int* first = sparse.row + sparse.start[column];
    const int* last = sparse.row + sparse.start[column + 1];
    const int* found = std::lower_bound(first, last, static_cast<int>(row));
    return found != last && *found == static_cast<int>(row) ? sparse.value[found - sparse.row] : 0.0;
  }

  /**
   * Column `column`'s n_row cells: dense, in place; sparse, its stored cells
   * scattered into `scratch` (n_row zeros, which clear_column() restores).
   */
  const double* column(int column, double* scratch) const {
    if (!is_sparse()) return x.data() + static_cast<size_t>(column) * n_row();
    for (int k = sparse.start[column]; k < sparse.start[column + 1]; ++k) {
      scratch[sparse.row[k]] = sparse.value[k];
    }
    return scratch;
  }

  /**
   * Whether marking the columns with a stored cell in n_rows rows (which
   * visits those rows' stored cells) costs less than `tries` gathers of a
   * column (each visits the column's stored cells twice and reads n_rows).
   */
  bool marking_pays(size_t n_rows, size_t tries) const {
    const double stored = static_cast<double>(sparse.start[x.cols()]);
    const double per_row = stored / static_cast<double>(x.rows());
    const double per_column = stored / static_cast<double>(x.cols());
    return static_cast<double>(n_rows) * per_row <
           static_cast<double>(tries) * (static_cast<double>(n_rows) + 2.0 * per_column);
  }

  /** Sets mark[j] = stamp for each column j with a stored cell in rows[0..n). */
  void mark_columns(const int* rows, size_t n, int stamp, int* mark) const {
    const SparseRows& by_row = this->rows();
    for (size_t i = 0; i < n; ++i) {
      const size_t r = static_cast<size_t>(rows[i]);
      for (int k = by_row.start[r]; k < by_row.start[r + 1]; ++k) mark[by_row.column[static_cast<size_t>(k)]] = stamp;
    }
  }

  /** Zeros again the cells column() scattered into `scratch`. */
  void clear_column(int column, double* scratch) const {
    if (!is_sparse()) return;
    for (int k = sparse.start[column]; k < sparse.start[column + 1]; ++k) scratch[sparse.row[k]] = 0.0;
  }

  /**
   * The cells by row, built on first use (by whichever thread comes first)
   * and kept while the data lives: training never needs them.
   */
  const SparseRows& rows() const {
    std::call_once(by_row->once, [&] { by_row->rows = sparse_rows(sparse, x.rows(), x.cols()); });
    return by_row->rows;
  }

  bool is_classification() const { return !n_class.empty(); }
  bool is_survival() const { return survival.n_cause > 0; }
  size_t n_row() const { return static_cast<size_t>(x.rows()); }
  size_t n_feature() const { return feature_start.size() - 1; }
  /** Columns of a node's targets: outputs, or a survival node's residual columns. */
  size_t n_output() const {
    if (is_survival()) return static_cast<size_t>(survival.n_column());
    return static_cast<size_t>(is_classification() ? y_class.cols() : y_real.cols());
  }
  /** Width of a leaf's value vector: all classes of all outputs, or the outputs (causes). */
  size_t n_value() const {
    if (is_survival()) return static_cast<size_t>(survival.n_cause);
    return is_classification() ? static_cast<size_t>(class_offset.back()) : n_output();
  }

  MatrixMap x;
  SparseColumns sparse;
  std::vector<int> feature_start;
  std::vector<char> indicators;
  IntMatrixMap y_class;
  std::vector<int> n_class;
  std::vector<int> class_offset;
  MatrixMap y_real;
  /**
   * Case weights, one finite non-negative value per row, or null for none.
   * A row of weight 0 takes no part in any tree. A weight counts as that
   * many copies of the row: trees grown on samples (bagging) draw their rows
   * with probabilities proportional to the weights, and trees grown on
   * every row (projection bootstrapping) weight each row in the projection
   * bootstrap, the impurities and the leaves. R scales the weights so that
   * their sums cannot overflow (see row_weights() in R/fit-weights.R).
   */
  const double* weight = nullptr;
  /**
   * All positive weights are equal: they only say which rows take part, and
   * the trees are exactly those grown on those rows alone, unweighted.
   */
  bool uniform_weight = false;
  SurvivalOutcome survival;
  /**
   * Per column of x, 1 when it has a missing value: the others gather
   * without checks. Declared before row_hash, whose scan fills it.
   */
  std::vector<char> column_missing;
  std::vector<uint64_t> row_hash;

 private:
  /** What both constructors check and derive. */
  void check() {
    if (this->feature_start.empty() || this->indicators.size() != this->feature_start.size() - 1) {
      throw std::invalid_argument("one indicator flag per feature is needed");
    }
    // Rows are int in node index arrays and 32-bit positions in sort keys;
    // R's matrices and data frames cannot have more rows anyway.
    if (x.rows() > kMaxRows) throw std::invalid_argument("the data has more than 2^31 - 1 rows");
    class_offset.assign(this->n_class.size() + 1, 0);
    for (size_t m = 0; m < this->n_class.size(); ++m) {
      class_offset[m + 1] = class_offset[m] + this->n_class[m];
    }
  }

  struct LazyRows {
    std::once_flag once;
    SparseRows rows;
  };
  std::shared_ptr<LazyRows> by_row;
};

}  // namespace ccforest

#endif  // CCFOREST_DATA_H_
