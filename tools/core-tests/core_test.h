// Shared by the tests of src/core built without R (see main.cpp): the
// check counter, a forest grower, and the test functions, one file per area.
#ifndef CCFOREST_CORE_TEST_H_
#define CCFOREST_CORE_TEST_H_

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <cstdlib>
#include <string>
#include <vector>

#include "Bagging.h"
#include "Bytes.h"
#include "Cca.h"
#include "Data.h"
#include "ExactSum.h"
#include "FeatureWeights.h"
#include "Forest.h"
#include "PerTree.h"
#include "Predictor.h"
#include "Projection.h"
#include "Rng.h"
#include "Sampling.h"
#include "SmallDense.h"
#include "TreeCodec.h"
#include "SortKeys.h"
#include "SplitSearch.h"
#include "TreeTrainer.h"

namespace ccforest_test {

using namespace ccforest;

/** Counts a check, and prints what failed. */
void check(bool ok, const std::string& what);

/** A forest's encoded trees, collected from grow_forest(). */
struct Grown {
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<double> importance;
  std::vector<LimitCounts> limits;  // per tree
  EncodedTrees view() const {
    EncodedTrees out;
    for (const auto& b : bytes) out.emplace_back(b.data(), b.size());
    return out;
  }
};

/** Tree options from the few fields a test sets. */
TreeOptions tree_options(int mtry, int min_split, int min_leaf, int max_depth, SplitRule rule,
                         Projection projection, bool projection_bootstrap, bool bagging,
                         double rank_tolerance = 1e-4,
                         AxisCandidates axes = AxisCandidates::kNone);

Grown grow(const Data& data, const ForestOptions& options, const ModelShape& shape,
           const Runtime& runtime);

/** A view of compressed columns (start, row, value), as the R bindings pass a dgCMatrix. */
inline SparseColumns sparse_columns(const std::vector<int>& start, const std::vector<int>& row,
                                    const std::vector<double>& value) {
  SparseColumns columns;
  columns.start = start.data();
  columns.row = row.data();
  columns.value = value.data();
  return columns;
}

// numerics.cpp
void test_rng();
void test_sorter();
void test_sorter_few_values();
void test_cca();
void test_cross_product();
void test_small_dense();
void test_exact_sum();
// sampling.cpp
void test_weighted_features();
// split.cpp
void test_split_search();
void test_split_search_reference();
void test_split_search_values_reference();
void test_binned_search();
void test_random_cut_reference();
// projection.cpp
void test_projection_rows();
void test_coefficients();
// forest.cpp
void test_forest();
void test_feature_groups();
void test_limit_counts();
void test_paper_rules();
void test_per_tree_and_bagging();
// sparse.cpp
void test_sparse_data();
// reuse.cpp
void test_trainer_reuse();
// quantiles.cpp
void test_quantiles();
// codec.cpp
void test_codec_round_trip();
void test_layout();
void test_record_words();
void test_precision();
void test_codec_damage();

}  // namespace ccforest_test

#endif  // CCFOREST_CORE_TEST_H_
