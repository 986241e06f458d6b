// Sparse training data (issue 38): a compressed-column Data must read as the
// dense Data of the same cells: row hashes, missing columns, cells, columns,
// rows, the trees grown on it and their out-of-bag predictions.
#include "core_test.h"

namespace ccforest_test {

void test_sparse_data() {
  std::mt19937_64 gen(38);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int n = 150, p = 9;
  std::vector<double> dense(static_cast<size_t>(n) * p, 0.0);
  std::vector<int> start(1, 0), row;
  std::vector<double> value;
  for (int j = 0; j < p; ++j) {
    // Column 2 has no stored cell, column 3 one; column 5 stores a zero.
    const double density = j == 2 ? 0.0 : (j < 2 ? 0.5 : 0.15);
    for (int i = 0; i < n; ++i) {
      bool stored = unit(gen) < density || (j == 3 && i == 7) || (j == 5 && i == 0);
      if (j == 3 && i != 7) stored = false;
      if (!stored) continue;
      double v = (j == 5 && i == 0) ? 0.0 : normal(gen);
      if (j > 3 && unit(gen) < 0.05) v = std::numeric_limits<double>::quiet_NaN();
      dense[static_cast<size_t>(j) * n + i] = v;
      row.push_back(i);
      value.push_back(v);
    }
    start.push_back(static_cast<int>(row.size()));
  }
  std::vector<int> y(n), no_class;
  std::vector<double> no_real;
  for (int i = 0; i < n; ++i) {
    const double a = dense[i], b = dense[n + i];
    y[i] = (std::isnan(a) ? 0.0 : a) - (std::isnan(b) ? 0.0 : b) > 0 ? 1 : 0;
  }
  std::vector<int> feature_start(p + 1);
  for (int j = 0; j <= p; ++j) feature_start[j] = j;
  const std::vector<char> flags(p, 0);
  const Data full(MatrixMap(dense.data(), n, p), feature_start, flags,
                  IntMatrixMap(y.data(), n, 1), {2}, MatrixMap(no_real.data(), n, 0));
  const Data sparse(sparse_columns(start, row, value), n, p, feature_start, flags,
                    IntMatrixMap(y.data(), n, 1), {2}, MatrixMap(no_real.data(), n, 0));

  check(sparse.is_sparse() && !full.is_sparse(), "a Data knows whether it is sparse");
  check(sparse.row_hash == full.row_hash, "sparse row hashes equal the dense ones");
  check(sparse.column_missing == full.column_missing, "sparse missing columns equal the dense ones");
  bool cells = true, by_column = true, by_row = true;
  std::vector<double> scratch(n, 0.0);
  auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
  for (int j = 0; j < p; ++j) {
    const double* c = sparse.column(j, scratch.data());
    for (int i = 0; i < n; ++i) {
      cells = cells && same(sparse.at(i, j), full.at(i, j));
      by_column = by_column && same(c[i], dense[static_cast<size_t>(j) * n + i]);
    }
    sparse.clear_column(j, scratch.data());
  }
  check(std::all_of(scratch.begin(), scratch.end(), [](double v) { return v == 0.0; }),
        "clear_column() leaves the scratch all zero");
  std::vector<double> a(p), b(p);
  for (int i = 0; i < n; ++i) {
    tree_row(sparse, i, true, 99, sparse.row_hash[i], a.data());
    tree_row(full, i, true, 99, full.row_hash[i], b.data());
    by_row = by_row && a == b;
  }
  check(cells && by_column && by_row, "sparse cells, columns and rows read as dense ones");
  std::vector<int> marks(p, 0), some_rows{3, 7, 40};
  sparse.mark_columns(some_rows.data(), some_rows.size(), 5, marks.data());
  bool marked = true;
  for (int j = 0; j < p; ++j) {
    bool stored = false;  // a stored zero counts: it is a stored cell
    for (int k = start[j]; k < start[j + 1]; ++k) {
      stored = stored || std::find(some_rows.begin(), some_rows.end(), row[k]) != some_rows.end();
    }
    marked = marked && (marks[j] == 5) == stored;
  }
  check(marks[3] == 5 && marks[2] == 0, "mark_columns() marks the columns with a stored cell");
  check(marked, "mark_columns() marks exactly the columns with a stored cell in the rows");

  ModelShape shape;
  shape.n_column = p;
  shape.n_class = {2};
  for (bool bagging : {false, true}) {
    const TreeOptions tree = tree_options(3, 2, 1, 0, SplitRule::kEntropy, Projection::kCca, true,
                                          bagging);
    const ForestOptions options(6, 11, tree);
    const Grown from_sparse = grow(sparse, options, shape, Runtime());
    const Grown from_dense = grow(full, options, shape, Runtime());
    check(from_sparse.bytes == from_dense.bytes, bagging ? "bagged sparse trees equal dense ones"
                                                         : "sparse trees equal dense ones");
    if (bagging) {
      ForestSource source;
      source.seed = 11;
      source.sample = tree.sample;
      const OutOfBag oob_sparse = out_of_bag(from_sparse.view(), shape, sparse, source, Runtime());
      const OutOfBag oob_dense = out_of_bag(from_dense.view(), shape, full, source, Runtime());
      check(oob_sparse.sum == oob_dense.sum && oob_sparse.count == oob_dense.count,
            "sparse out-of-bag sums equal dense ones");
    }
  }
}

}  // namespace ccforest_test
