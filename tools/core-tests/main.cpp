// Tests of src/core built without R: the core must compile and behave on its
// own (it never includes R headers). Run with `make core-test`, which builds
// these files with AddressSanitizer and UndefinedBehaviorSanitizer, and again
// optimised with fused multiply-add contraction. One file per area:
// numerics.cpp, sampling.cpp, split.cpp, projection.cpp, forest.cpp, codec.cpp,
// sparse.cpp, quantiles.cpp, reuse.cpp.
#include "core_test.h"

namespace ccforest_test {

namespace {
int failures = 0, checks = 0;
}  // namespace

void check(bool ok, const std::string& what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::printf("FAILED: %s\n", what.c_str());
    std::fflush(stdout);  // seen even if a later test aborts
  }
}

TreeOptions tree_options(int mtry, int min_split, int min_leaf, int max_depth, SplitRule rule,
                         Projection projection, bool projection_bootstrap, bool bagging,
                         double rank_tolerance, AxisCandidates axes) {
  TreeOptions o;
  o.mtry = mtry;
  o.min_split = min_split;
  o.min_leaf = min_leaf;
  o.max_depth = max_depth;
  o.split_rule = rule;
  o.projection = projection;
  o.projection_bootstrap = projection_bootstrap;
  o.sample = RowSample::bootstrap(bagging);
  o.rank_tolerance = rank_tolerance;
  o.axis_candidates = axes;
  return o;
}

Grown grow(const Data& data, const ForestOptions& options, const ModelShape& shape,
           const Runtime& runtime) {
  Grown out;
  out.bytes.resize(static_cast<size_t>(options.n_tree));
  grow_forest(data, options, shape, runtime,
              [&](size_t begin, GrownBatch& batch) {
                for (size_t i = 0; i < batch.encoded.size(); ++i) {
                  out.bytes[begin + i].swap(batch.encoded[i]);
                }
                out.importance.insert(out.importance.end(), batch.importance.begin(),
                                      batch.importance.end());
                out.limits.insert(out.limits.end(), batch.limits.begin(), batch.limits.end());
              });
  return out;
}

}  // namespace ccforest_test

int main() {
  using namespace ccforest_test;
  test_rng();
  test_weighted_features();
  test_sorter();
  test_sorter_few_values();
  test_cca();
  test_cross_product();
  test_small_dense();
  test_split_search();
  test_split_search_reference();
  test_split_search_values_reference();
  test_binned_search();
  test_random_cut_reference();
  test_projection_rows();
  test_coefficients();
  test_forest();
  test_feature_groups();
  test_limit_counts();
  test_codec_damage();
  test_codec_round_trip();
  test_layout();
  test_record_words();
  test_precision();
  test_paper_rules();
  test_exact_sum();
  test_per_tree_and_bagging();
  test_sparse_data();
  test_trainer_reuse();
  test_quantiles();
  std::printf("%d passed, %d failed\n", checks - failures, failures);
  return failures == 0 ? 0 : 1;
}
