// Core tests: stored trees (round trip, layout, precision, damage).
#include "core_test.h"

namespace ccforest_test {

/** The fields of two trees that the stored form keeps (gains are not stored). */
bool same_stored(const Tree& a, const Tree& b) {
  return a.is_split == b.is_split && a.precision == b.precision && a.split_begin == b.split_begin &&
         a.column == b.column && a.coef == b.coef && a.threshold == b.threshold &&
         a.leaf_begin == b.leaf_begin && a.leaf_index == b.leaf_index && a.leaf_value == b.leaf_value;
}

/** A tree of three splits, one at each precision, and four leaves. */
Tree three_precisions(bool classification) {
  Tree t;
  t.is_split = {1, 1, 0, 1, 0, 0, 0};
  t.precision = {0, 1, 2};
  t.split_begin = {0, 2, 5, 9};
  t.column = {0, 3, 1, 2, 3, 0, 0, 2, 2};
  t.coef = {1.0f, decode_coefficient(encode_coefficient(-0.3)), 0.1234567f, 1.0f, -0.987654f,
            1.0f, 0.0f, -0.33333334f, 1.1e-8f};
  t.threshold = {0.25, -1.5, 3.0};
  t.gain = {1, 1, 1};
  if (classification) {
    t.leaf_begin = {0, 1, 3, 4, 6};
    t.leaf_index = {0, 0, 2, 1, 1, 2};
    t.leaf_value = {1.0, 0.25, 0.75, 1.0, 0.5, 0.5};
  } else {
    t.leaf_begin = {0, 1, 2, 3, 4};
    t.leaf_index = {0, 0, 0, 0};
    t.leaf_value = {1.5, -2.25, 1e-300, 7.0};
  }
  return t;
}

void test_codec_round_trip() {
  ModelShape classes;
  classes.n_column = 4;
  classes.n_class = {3};
  ModelShape values;
  values.n_column = 4;
  values.n_output_real = 1;
  for (bool classification : {true, false}) {
    const ModelShape& shape = classification ? classes : values;
    const Tree tree = three_precisions(classification);
    const std::vector<uint8_t> bytes = encode_tree(tree, shape);
    check(bytes[0] == 3, "new trees are stored in format 3");
    const Tree back = parse_tree(bytes.data(), bytes.size(), shape);
    check(same_stored(tree, back) && back.gain.empty(),
          "a parsed tree is the encoded one, every precision kept");
    check(encode_tree(back, shape) == bytes, "encoding a parsed tree gives its bytes back");
  }
  // Format 2 (ccforest 0.2.0): no precisions, every split 16-bit codes. A
  // regression stump on column 1 with coefficient 1, threshold 0.5, leaves 1 and 2.
  std::vector<uint8_t> old = {2, 3, 0x01, 1, 1, 0x00, 0x00};
  const uint64_t threshold = bits_of(0.5), one = bits_of(1.0), two = bits_of(2.0);
  for (int plane = 7; plane >= 0; --plane) old.push_back(static_cast<uint8_t>(threshold >> (8 * plane)));
  for (int plane = 7; plane >= 0; --plane) {
    old.push_back(static_cast<uint8_t>(one >> (8 * plane)));
    old.push_back(static_cast<uint8_t>(two >> (8 * plane)));
  }
  ModelShape stump_shape;
  stump_shape.n_column = 2;
  stump_shape.n_output_real = 1;
  const Tree stump = parse_tree(old.data(), old.size(), stump_shape);
  check(stump.n_splits() == 1 && stump.precision[0] == 0 && stump.column == std::vector<int>{1} &&
            stump.coef == std::vector<float>{1.0f} && stump.threshold[0] == 0.5 &&
            stump.leaf_value == std::vector<double>{1.0, 2.0},
        "format 2 trees are still read, as 16-bit coefficients");
}

/** A stump over column 0 with the given leaves (entries leaf_begin, leaf_index, leaf_value). */
Tree stump(std::vector<int> leaf_begin, std::vector<int> leaf_index, std::vector<double> leaf_value) {
  Tree t;
  t.is_split = {1, 0, 0};
  t.precision = {0};
  t.split_begin = {0, 1};
  t.column = {0};
  t.coef = {1.0f};
  t.threshold = {0.5};
  t.leaf_begin = std::move(leaf_begin);
  t.leaf_index = std::move(leaf_index);
  t.leaf_value = std::move(leaf_value);
  return t;
}

/** Survival leaves of two causes over three event times, on one column. */
ModelShape two_cause_shape() {
  ModelShape shape;
  shape.n_column = 1;
  shape.n_time = 3;
  shape.n_cause = 2;
  return shape;
}

void test_record_words() {
  // Every leaf codec sizes its records from the counts alone as the parsed
  // tree lays them out: pure and mixed class leaves of two outputs, means of
  // two outputs, survival counts whole and weighted with causes without
  // events at some times (which take no entry).
  ModelShape classes;
  classes.n_column = 1;
  classes.n_class = {3, 2};
  ModelShape means;
  means.n_column = 1;
  means.n_output_real = 2;
  const ModelShape survival = two_cause_shape();
  const std::vector<std::pair<ModelShape, Tree>> cases = {
      {classes, stump({0, 2, 5}, {1, 4, 0, 2, 3}, {1.0, 1.0, 0.5, 0.5, 1.0})},
      {means, stump({0, 2, 4}, {0, 1, 0, 1}, {1.5, -2.0, 0.25, 8.0})},
      {survival, stump({0, 4, 7}, {0, 1, 6, 8, 3, 4, 5}, {5, 2, 3, 1, 4, 1, 1})},
      {survival, stump({0, 4, 6}, {0, 2, 6, 7, 3, 4}, {2.5, 0.5, 1.75, 0.25, 4.0, 0.25})},
  };
  for (const auto& c : cases) {
    const std::vector<uint8_t> bytes = encode_tree(c.second, c.first);
    const TreeWords words = record_words(bytes.data(), bytes.size(), c.first);
    const ForestModel model = decode_forest({{bytes.data(), bytes.size()}}, c.first, 0, 1);
    size_t leaf_words = 0;
    for (size_t l = 0; l < c.second.n_leaves(); ++l) {
      leaf_words += leaf_record_words(c.second.leaf_begin[l + 1] - c.second.leaf_begin[l]);
    }
    check(words.n_leaf == 2 && words.splits == 4 && words.leaves == leaf_words &&
              model.split_words.size() == 4 && model.leaf_words.size() == leaf_words &&
              model.leaf_values(0, 0)[0] == c.second.leaf_value[0],
          "a tree's records are sized from its counts as they are laid out, for every leaf codec");
  }
}

void test_layout() {
  // The layout: walks of rows through the laid-out records follow the
  // tree's splits, with every term (two per column at kDouble).
  ModelShape shape;
  shape.n_column = 4;
  shape.n_output_real = 1;
  const Tree tree = three_precisions(false);
  const std::vector<uint8_t> bytes = encode_tree(tree, shape);
  const TreeWords words = record_words(bytes.data(), bytes.size(), shape);
  const ForestModel model = decode_forest({{bytes.data(), bytes.size()}}, shape, 0, 1);
  check(model.n_tree() == 1 && model.n_leaves[0] == 4 && model.max_count == 4,
        "a laid-out tree has its leaves and its widest split's terms");
  check(words.n_leaf == 4 && words.splits == model.split_words.size() &&
            words.leaves == model.leaf_words.size(),
        "a tree's records are sized from its counts before it is parsed");
  std::mt19937_64 gen(21);
  std::normal_distribution<double> normal;
  bool same = true;
  for (int trial = 0; trial < 2000; ++trial) {
    double row[4];
    for (double& v : row) v = 3.0 * normal(gen);
    // The parsed tree walked by hand, node by node.
    size_t node = 0, split = 0, leaf = 0;
    while (true) {
      if (!tree.is_split[node]) {
        leaf = 0;
        for (size_t j = 0; j < node; ++j) leaf += !tree.is_split[j];
        break;
      }
      split = 0;
      for (size_t j = 0; j < node; ++j) split += tree.is_split[j];
      std::vector<SplitTerm> terms;
      for (int e = tree.split_begin[split]; e < tree.split_begin[split + 1]; ++e) {
        terms.push_back({tree.column[e], tree.coef[e]});
      }
      const double sum = project_row(terms.data(), static_cast<int>(terms.size()), row, 1);
      node = sum <= tree.threshold[split] ? 2 * split + 1 : 2 * split + 2;
    }
    const int32_t found = find_leaf(model, 0, row);
    same = same && model.leaf(0, found).number == static_cast<int32_t>(leaf) &&
           model.leaf_values(0, found)[0] == tree.leaf_value[leaf];
  }
  check(same, "rows reach the same leaf in the parsed and the laid-out tree");
}

void test_precision() {
  float hi = 0.0f, lo = 0.0f;
  check(round_coefficient(0.1, Precision::kShort, hi, lo) &&
            hi == decode_coefficient(encode_coefficient(0.1)) && lo == 0.0f,
        "kShort rounds to a 16-bit code");
  check(round_coefficient(0.1, Precision::kSingle, hi, lo) && hi == 0.1f && lo == 0.0f,
        "kSingle rounds to a float");
  check(round_coefficient(0.1, Precision::kDouble, hi, lo) && hi == 0.1f &&
            std::abs(static_cast<double>(hi) + static_cast<double>(lo) - 0.1) < 1e-15,
        "kDouble keeps the rest of the coefficient in a second float");
  check(!round_coefficient(1e-12, Precision::kShort, hi, lo) &&
            round_coefficient(1e-12, Precision::kSingle, hi, lo),
        "coefficients below 2^-31 are dropped at kShort only");

  // x3 = 0.6 x1 + 0.8 x2 + s z, the class the sign of z: the canonical
  // direction is nearly a difference of unit coefficients. With the rank
  // tolerance low enough to keep it, a stump's stored direction must
  // partition the rows as the exact direction does at its threshold, so the
  // precision must rise with 1 / s, and no further than needed.
  std::mt19937_64 gen(8);
  std::normal_distribution<double> normal;
  const int n = 400;
  for (double s : {3.0, 1e-2, 1e-6}) {
    std::vector<double> x(3 * n), y_real(0);
    std::vector<int> y(n);
    for (int i = 0; i < n; ++i) {
      const double a = normal(gen), b = normal(gen), z = normal(gen);
      x[i] = a;
      x[n + i] = b;
      x[2 * n + i] = 0.6 * a + 0.8 * b + s * z;
      y[i] = z > 0;
    }
    const Data data(MatrixMap(x.data(), n, 3), {0, 1, 2, 3}, {0, 0, 0},
                    IntMatrixMap(y.data(), n, 1), {2}, MatrixMap(y_real.data(), n, 0));
    const double tolerance = 1e-13;
    // Every row, every feature: the tree's CCA is this one, bit for bit.
    const TreeOptions options =
        tree_options(3, 2, 1, 1, SplitRule::kEntropy, Projection::kCca, false, false, tolerance);
    const EntropyTable entropy(n);
    TreeTrainer trainer(data, options, &entropy);
    const Tree& tree = trainer.grow(5, 0);
    const Eigen::MatrixXd a = cca_classes(MatrixMap(x.data(), n, 3), y.data(), 2, tolerance).directions;
    if (tree.n_splits() != 1 || a.cols() != 1) {
      check(false, "a stump splits on the one canonical direction, s = " + std::to_string(s));
      continue;
    }
    Eigen::Index pivot = 0;
    a.col(0).cwiseAbs().maxCoeff(&pivot);
    std::vector<SplitTerm> terms;
    for (size_t e = 0; e < tree.column.size(); ++e) terms.push_back({tree.column[e], tree.coef[e]});
    std::vector<double> stored(n);
    project_rows(terms.data(), static_cast<int>(terms.size()), x.data(), n, n, stored.data());
    int differ = 0;
    for (int i = 0; i < n; ++i) {
      double exact = 0.0;
      for (int j = 0; j < 3; ++j) exact += a(j, 0) / a(pivot, 0) * x[j * n + i];
      differ += (stored[i] <= tree.threshold[0]) != (exact <= tree.threshold[0]);
    }
    const int expected = s >= 1.0 ? 0 : s >= 1e-3 ? 1 : 2;
    check(differ == 0, "a stored direction partitions its node as the exact one, s = " +
                           std::to_string(s) + " (" + std::to_string(differ) + " rows differ)");
    check(tree.precision[0] == expected, "precision rises only as far as needed, s = " +
                                             std::to_string(s) + " (" +
                                             std::to_string(tree.precision[0]) + ")");
  }
}

void test_codec_damage() {
  std::vector<double> x(40), y_real(0);
  std::vector<int> y(20);
  for (int i = 0; i < 20; ++i) {
    x[i] = i;
    x[20 + i] = (i * 7) % 5;
    y[i] = i % 3 == 0;
  }
  const Data data(MatrixMap(x.data(), 20, 2), {0, 1, 2}, {0, 0}, IntMatrixMap(y.data(), 20, 1),
                  {2}, MatrixMap(y_real.data(), 20, 0));
  ModelShape shape;
  shape.n_column = 2;
  shape.n_class = {2};
  const TreeOptions tree = tree_options(2, 2, 1, 0, SplitRule::kGini, Projection::kCca, true, false);
  const Grown g = grow(data, ForestOptions(1, 7, tree), shape, Runtime());
  // The grown tree, and trees of the other two leaf codecs (means, with a
  // split at each precision; survival counts of two causes).
  ModelShape means;
  means.n_column = 4;
  means.n_output_real = 1;
  const ModelShape survival = two_cause_shape();
  const std::vector<std::pair<ModelShape, std::vector<uint8_t>>> trees = {
      {shape, g.bytes[0]},
      {means, encode_tree(three_precisions(false), means)},
      {survival, encode_tree(stump({0, 4, 7}, {0, 1, 6, 8, 3, 4, 5}, {5, 2, 3, 1, 4, 1, 1}), survival)},
  };
  std::mt19937_64 gen(11);
  int refused = 0, decoded = 0, crashed = 0, disagreed = 0;
  const int n_trial = 30000;
  for (int trial = 0; trial < n_trial; ++trial) {
    const ModelShape& tree_shape = trees[trial % 3].first;
    std::vector<uint8_t> bytes = trees[trial % 3].second;
    const int kind = (trial / 3) % 3;
    if (kind == 0) {
      bytes[gen() % bytes.size()] ^= static_cast<uint8_t>(1u << (gen() % 8));
    } else if (kind == 1) {
      bytes.resize(gen() % bytes.size());
    } else {
      for (int k = 0; k < 4; ++k) bytes[gen() % bytes.size()] = static_cast<uint8_t>(gen());
    }
    bool parsed = true;
    try {
      parse_tree(bytes.data(), bytes.size(), tree_shape);
    } catch (const DamagedModel&) {
      parsed = false;
    }
    try {
      const ForestModel model = decode_forest({{bytes.data(), bytes.size()}}, tree_shape, 0, 1);
      ++decoded;
      // Prediction decodes without the trainer's Tree: it must refuse all
      // that parse_tree() refuses.
      disagreed += !parsed;
      // A tree that decodes must be walkable to a leaf for any row.
      std::vector<double> row = {1.0, 2.0, -1.0, 0.5};
      const int32_t leaf = find_leaf(model, 0, row.data());
      crashed += !(leaf >= 0 && static_cast<size_t>(leaf) < model.leaf_begin[1] - model.leaf_begin[0]) ||
                 model.leaf(0, leaf).count < 1;
    } catch (const DamagedModel&) {
      ++refused;
    }
  }
  check(crashed == 0 && disagreed == 0 && refused + decoded == n_trial && refused > n_trial / 2,
        "damaged trees of every leaf codec are refused or decode to walkable trees, and none that "
        "parse_tree() refuses decodes (" + std::to_string(refused) + " refused, " +
            std::to_string(disagreed) + " disagreed)");
}

}  // namespace ccforest_test
