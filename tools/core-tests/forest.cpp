// Core tests: growing forests (any thread order, feature groups, the paper's
// rules) and per-tree predictions, bagging and out-of-bag estimates.
#include "core_test.h"

namespace ccforest_test {

void test_forest() {
  // Few distinct values per feature, z-scored as R would (like the letter
  // data): rows whose projections are equal in exact arithmetic differ only by
  // rounding, so any difference between the projections of training and of
  // prediction (fused multiply-adds in one and not the other, say) shows up
  // as rows on the wrong side of a threshold.
  std::mt19937_64 gen(3);
  std::uniform_int_distribution<int> level(0, 7);
  const int n = 3000, p = 6;
  std::vector<double> x(n * p), y_real(0);
  std::vector<int> y(n);
  const double centre[] = {3.4, 3.6, 3.5, 3.45, 3.55, 3.3}, spread[] = {2.3, 2.1, 2.2, 2.25, 2.35, 2.15};
  for (int i = 0; i < n; ++i) {
    int raw[p];
    for (int j = 0; j < p; ++j) {
      raw[j] = level(gen);
      x[j * n + i] = (raw[j] - centre[j]) / spread[j];
    }
    if (i % 17 == 0) x[2 * n + i] = std::nan("");
    y[i] = (raw[0] + raw[1] + raw[3] * raw[4] / 4 + static_cast<int>(gen() % 3)) % 2;
  }
  const Data data(MatrixMap(x.data(), n, p), {0, 1, 2, 3, 4, 5, 6}, {0, 0, 0, 0, 0, 0},
                  IntMatrixMap(y.data(), n, 1), {2}, MatrixMap(y_real.data(), n, 0));
  // Only column 2 has missing values: the others are gathered unchecked.
  check(data.column_missing == std::vector<char>({0, 0, 1, 0, 0, 0}),
        "the columns with missing values are found");
  check(data.row_hash[0] != 0 && data.row_hash[1] == 0, "rows with missing values are hashed");
  ModelShape shape;
  shape.n_column = p;
  shape.n_class = {2};
  const std::pair<Projection, AxisCandidates> kinds[] = {
      {Projection::kCca, AxisCandidates::kNone}, {Projection::kRotation, AxisCandidates::kNone},
      {Projection::kAxis, AxisCandidates::kNone}, {Projection::kCca, AxisCandidates::kRandom},
      {Projection::kCca, AxisCandidates::kSearch}};
  for (const auto& [projection, axes] : kinds) {
    const TreeOptions tree =
        tree_options(4, 2, 1, 0, SplitRule::kEntropy, projection, true, false, 1e-4, axes);
    const ForestOptions options(12, 99, tree);
    Runtime forward;
    Runtime backward;  // another schedule: trees grown in reverse order
    backward.parallel_for = [](size_t begin, size_t end, const std::function<void(size_t)>& body) {
      for (size_t i = end; i > begin; --i) body(i - 1);
    };
    backward.batch_size = 5;
    const Grown a = grow(data, options, shape, forward), b = grow(data, options, shape, backward);
    check(a.bytes == b.bytes && a.importance == b.importance,
          "trees do not depend on the order or batches they are grown in");
    // Trees 4..11 grown on their own are trees 4..11 of the whole forest.
    const ForestOptions tail_options(8, 99, tree, 4);
    const Grown tail = grow(data, tail_options, shape, forward);
    check(std::equal(tail.bytes.begin(), tail.bytes.end(), a.bytes.begin() + 4),
          "a range of trees grown apart equals that range of the whole forest");

    // Every training row (all rows here: projection bootstrapping) reaches a
    // leaf that holds its class: leaves keep every class of the rows grown
    // into them. This is what one projection routine for training and
    // prediction guarantees, whatever the compiler does with it.
    const ForestModel model = decode_forest(a.view(), shape, 0, a.bytes.size());
    int wrong_leaf = 0;
    std::vector<double> row(p);
    for (size_t t = 0; t < model.n_tree(); ++t) {
      const uint64_t key = tree_impute_key(99, t);
      for (int i = 0; i < n; ++i) {
        tree_row(data.x, i, true, key, data.row_hash[i], row.data());
        const int32_t leaf = find_leaf(model, t, row.data());
        const int32_t* index = model.leaf_index(t, leaf);
        const int32_t count = model.leaf(t, leaf).count;
        wrong_leaf += std::find(index, index + count, y[i]) == index + count;
      }
    }
    check(wrong_leaf == 0, "training rows reach a leaf holding their class (" +
                               std::to_string(wrong_leaf) + " did not), projection " +
                               std::to_string(static_cast<int>(projection)) + ", axes " +
                               std::to_string(static_cast<int>(axes)));

    std::vector<double> prob(static_cast<size_t>(n) * 2, 0.0);
    PredictOptions po;
    po.seed = 99;
    add_tree_predictions(model, data.x, data.row_hash, po, forward, prob.data());
    bool sums = true;
    for (int i = 0; i < n; ++i) {
      sums = sums && std::abs(prob[i] + prob[n + i] - static_cast<double>(model.n_tree())) < 1e-9;
    }
    check(sums, "class probabilities sum to one");
  }
}

void test_limit_counts() {
  // Four classes from two scores: a node's CCA has up to three directions.
  std::mt19937_64 gen(8);
  std::normal_distribution<double> normal(0.0, 1.0);
  const int n = 2000, p = 5;
  std::vector<double> x(n * p), y_real(0);
  std::vector<int> y(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < p; ++j) x[j * n + i] = normal(gen);
    const double a = x[i] + 0.5 * x[n + i] + 0.3 * normal(gen), b = x[2 * n + i] - x[3 * n + i];
    y[i] = (a > 0) + 2 * (b > 0.3 * normal(gen));
  }
  const Data data(MatrixMap(x.data(), n, p), {0, 1, 2, 3, 4, 5}, {0, 0, 0, 0, 0},
                  IntMatrixMap(y.data(), n, 1), {4}, MatrixMap(y_real.data(), n, 0));
  ModelShape shape;
  shape.n_column = p;
  shape.n_class = {4};
  auto total = [&](TreeOptions tree) {
    Runtime runtime;
    const Grown grown = grow(data, ForestOptions(6, 5, tree), shape, runtime);
    LimitCounts sum;
    for (const LimitCounts& c : grown.limits) sum += c;
    check(grown.limits.size() == 6, "one count of the limits per tree");
    return sum;
  };
  TreeOptions plain = tree_options(4, 2, 1, 0, SplitRule::kEntropy, Projection::kCca, true, false);
  const LimitCounts none = total(plain);
  check(none.max_directions == 0 && none.direction_ratio == 0 && none.bootstrap_max_rows == 0 &&
            none.exact_split_max_rows == 0,
        "no limit acts when none is set");
  TreeOptions one = plain;
  one.max_directions = 1;
  check(total(one).max_directions > 0, "max_directions = 1 acts where a node has two directions");
  TreeOptions three = plain;
  three.max_directions = 3;  // four classes: never more than three directions
  check(total(three).max_directions == 0, "max_directions at the most directions possible never acts");
  TreeOptions ratio = plain;
  ratio.direction_ratio = 0.999;
  const LimitCounts by_ratio = total(ratio);
  check(by_ratio.direction_ratio > 0 && by_ratio.max_directions == 0,
        "direction_ratio acts alone when max_directions is off");
  ratio.max_directions = 1;
  check(total(ratio).direction_ratio == 0, "direction_ratio never acts beside max_directions = 1");
  TreeOptions capped = plain;
  capped.bootstrap_max_rows = 500;
  check(total(capped).bootstrap_max_rows >= 6, "bootstrap_max_rows acts at each tree's root at least");
  capped.bootstrap_max_rows = n;
  check(total(capped).bootstrap_max_rows == 0, "bootstrap_max_rows above every node never acts");
  TreeOptions binned = plain;
  binned.exact_split_max_rows = 400;
  check(total(binned).exact_split_max_rows > 0, "large nodes are searched binned");
  binned.variant = Variant::kPaper;
  check(total(binned).exact_split_max_rows == 0, "the authors' rules never search binned");

  // Output bins are regression's (one output): the core refuses them for classes.
  TreeOptions bins = plain;
  bins.output_bins = 4;
  bool refused = false;
  try {
    const EntropyTable entropy(static_cast<size_t>(n));
    TreeTrainer(data, bins, &entropy);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  check(refused, "output_bins is refused for a classification task");
}

void test_feature_groups() {
  // One numeric feature and one feature of three independent columns, the
  // class given by the group's last column. A factor's 1-of-K indicators sum
  // to one, so a node leaves the last varying one out of its CCA; a group of
  // independent columns (a factor valued on several axes) keeps them all.
  std::mt19937_64 gen(5);
  std::normal_distribution<double> normal;
  const int n = 400, p = 4;
  std::vector<double> x(n * p), y_real(0);
  std::vector<int> y(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < p; ++j) x[j * n + i] = normal(gen);
    y[i] = x[3 * n + i] > 0;
  }
  ModelShape shape;
  shape.n_column = p;
  shape.n_class = {2};
  const TreeOptions tree = tree_options(2, 2, 1, 0, SplitRule::kEntropy, Projection::kCca, true, false);
  const ForestOptions options(5, 7, tree);
  auto terms_on_last = [&](std::vector<char> indicators, int& splits) {
    const Data data(MatrixMap(x.data(), n, p), {0, 1, 4}, std::move(indicators),
                    IntMatrixMap(y.data(), n, 1), {2}, MatrixMap(y_real.data(), n, 0));
    const Grown grown = grow(data, options, shape, Runtime());
    const ForestModel model = decode_forest(grown.view(), shape, 0, grown.bytes.size());
    int on_last = 0;
    splits = 0;
    for (size_t t = 0; t < model.n_tree(); ++t) {
      const uint64_t* records = model.tree(t);
      size_t at = 0;
      while (at < model.tree_words(t)) {
        const int32_t here = static_cast<int32_t>(at);
        const SplitTerm* terms = ForestModel::terms(records, here);
        ++splits;
        for (int32_t e = 0; e < ForestModel::head(records, here).count; ++e) {
          on_last += terms[e].column == 3;
        }
        at += ForestModel::record_words(records, here);
      }
    }
    return on_last;
  };
  int splits_onehot = 0, splits_axes = 0;
  const int onehot = terms_on_last({0, 1}, splits_onehot), axes = terms_on_last({0, 0}, splits_axes);
  check(splits_onehot > 0 && onehot == 0,
        "a 1-of-K group leaves its last varying column out of every split");
  check(axes > 0, "a group of independent columns keeps all of them (" + std::to_string(axes) +
                      " terms on the last of " + std::to_string(splits_axes) + " splits)");
  bool refused = false;
  try {
    const Data bad(MatrixMap(x.data(), n, p), {0, 1, 4}, {0}, IntMatrixMap(y.data(), n, 1), {2},
                   MatrixMap(y_real.data(), n, 0));
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  check(refused, "data without one indicator flag per feature is refused");
}

void test_paper_rules() {
  // Two identical features, their own axes as the candidate directions:
  // every cut ties. The authors' rules give the tie to the first direction,
  // which is the first feature sampled at the root (the root's first draw
  // from the tree's stream, rng.index(2), without bagging or weights);
  // ccforest's break it at random.
  const int n = 60;
  std::vector<double> x(2 * n), y_real(0);
  std::vector<int> y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = x[n + i] = i % 10;
    y[i] = i % 10 < 4;
  }
  const Data data(MatrixMap(x.data(), n, 2), {0, 1, 2}, {0, 0}, IntMatrixMap(y.data(), n, 1), {2},
                  MatrixMap(y_real.data(), n, 0));
  const EntropyTable entropy(n);
  TreeOptions options = tree_options(2, 2, 1, 1, SplitRule::kEntropy, Projection::kAxis, false, false);
  int first_paper = 0, first_ccforest = 0;
  const int trees = 200;
  for (uint64_t t = 0; t < trees; ++t) {
    Rng rng(17, t);
    const int first = static_cast<int>(rng.index(2));
    for (Variant variant : {Variant::kPaper, Variant::kCcforest}) {
      options.variant = variant;
      TreeTrainer trainer(data, options, &entropy);
      const Tree& tree = trainer.grow(17, t);
      const bool is_first = tree.n_splits() == 1 && tree.column[0] == first;
      (variant == Variant::kPaper ? first_paper : first_ccforest) += is_first;
    }
  }
  check(first_paper == trees, "the authors' rules give ties between directions to the first (" +
                                  std::to_string(first_paper) + " of 200)");
  check(first_ccforest > 60 && first_ccforest < 140,
        "ccforest's rules break ties between directions at random (" +
            std::to_string(first_ccforest) + " of 200 to the first)");

  // Values less than 1e-10 apart are one value under the authors' rules:
  // a feature that varies by 1e-11 does not vary, so the node is a leaf.
  std::vector<double> tiny(n);
  for (int i = 0; i < n; ++i) tiny[i] = 1.0 + 1e-11 * (i % 2);
  for (int i = 0; i < n; ++i) y[i] = i % 2;
  const Data flat(MatrixMap(tiny.data(), n, 1), {0, 1}, {0}, IntMatrixMap(y.data(), n, 1), {2},
                  MatrixMap(y_real.data(), n, 0));
  options = tree_options(1, 2, 1, 0, SplitRule::kEntropy, Projection::kCca, false, false);
  options.variant = Variant::kPaper;
  check(TreeTrainer(flat, options, &entropy).grow(1, 0).n_splits() == 0,
        "the authors' rules see no variation below 1e-10");
  options.variant = Variant::kCcforest;
  const Tree exact = TreeTrainer(flat, options, &entropy).grow(1, 0);
  check(exact.n_splits() == 1 && exact.threshold[0] > 1.0 && exact.threshold[0] < 1.0 + 1e-11,
        "ccforest's rules split between any two distinct values");

  // Split points: halfway between adjacent projected values (the paper), or
  // a short number in the middle half of the gap (ccforest).
  for (int i = 0; i < n; ++i) {
    tiny[i] = 0.1 + 0.37 * (i % 7);
    y[i] = i % 7 < 3;
  }
  options.variant = Variant::kPaper;
  const Tree paper = TreeTrainer(flat, options, &entropy).grow(1, 0);
  check(paper.n_splits() == 1 && paper.threshold[0] == 0.1 + 0.37 * 2 + 0.5 * 0.37,
        "the authors' rules split halfway between adjacent values");
}

void test_per_tree_and_bagging() {
  // A small bagged regression forest: each tree's own predictions, terminal
  // nodes, in-bag counts, the infinitesimal jackknife, jackknife+ and
  // negated columns, each against a brute-force computation here.
  std::mt19937_64 gen(5);
  std::normal_distribution<double> normal(0.0, 1.0);
  const int n = 120, p = 3, n_tree = 9;
  std::vector<double> x(n * p), y(n);
  std::vector<int> no_class;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < p; ++j) x[j * n + i] = normal(gen);
    y[i] = x[i] + 0.5 * x[n + i] * x[n + i] + 0.3 * normal(gen);
  }
  const Data data(MatrixMap(x.data(), n, p), {0, 1, 2, 3}, {0, 0, 0},
                  IntMatrixMap(no_class.data(), n, 0), {}, MatrixMap(y.data(), n, 1));
  ModelShape shape;
  shape.n_column = p;
  shape.n_output_real = 1;
  const TreeOptions tree = tree_options(3, 6, 3, 0, SplitRule::kVariance, Projection::kCca, false, true);
  const ForestOptions options(n_tree, 17, tree);
  Runtime runtime;
  const Grown grown = grow(data, options, shape, runtime);
  const ForestModel model = decode_forest(grown.view(), shape, 0, n_tree);
  PredictOptions po;
  po.seed = 17;

  std::vector<double> per_tree(static_cast<size_t>(n) * n_tree), mean(n, 0.0);
  per_tree_values(model, data.x, data.row_hash, po, runtime, per_tree.data());
  add_tree_predictions(model, data.x, data.row_hash, po, runtime, mean.data());
  std::vector<int32_t> nodes(static_cast<size_t>(n) * n_tree);
  terminal_nodes(model, data.x, data.row_hash, po, runtime, nodes.data());
  bool average = true, walk = true;
  std::vector<double> row(p);
  for (int i = 0; i < n; ++i) {
    double sum = 0.0;
    for (int t = 0; t < n_tree; ++t) {
      sum += per_tree[i + n * t];
      tree_row(data.x, i, true, tree_impute_key(17, t), data.row_hash[i], row.data());
      const int32_t leaf = find_leaf(model, t, row.data());
      walk = walk && per_tree[i + n * t] == model.leaf_values(t, leaf)[0] &&
             nodes[i + n * t] == leaf_node_numbers(model, t)[model.leaf(t, leaf).number];
    }
    average = average && std::abs(sum - mean[i]) < 1e-9;
  }
  check(average, "per-tree values add up to the forest's sums");
  check(walk, "per-tree values and terminal nodes are the leaves each row reaches");

  BagSource source;
  source.n_row = n;
  source.seed = 17;
  const std::vector<uint16_t> counts = in_bag_counts(source, n_tree, runtime);
  bool same_bag = true;
  for (int t = 0; t < n_tree; ++t) {
    const std::vector<char> flags = in_bag(data, RowSample::bootstrap(true), 17, t);
    int total = 0;
    for (int i = 0; i < n; ++i) {
      same_bag = same_bag && (counts[i + n * t] > 0) == (flags[i] != 0);
      total += counts[i + n * t];
    }
    same_bag = same_bag && total == n;
  }
  check(same_bag, "in-bag counts are the samples out-of-bag estimates redraw");

  // Infinitesimal jackknife of the first five rows' predictions, by loops.
  const int m = 5;
  std::vector<double> values(static_cast<size_t>(m) * n_tree);
  for (int j = 0; j < m; ++j) {
    for (int t = 0; t < n_tree; ++t) values[j + m * t] = per_tree[j + n * t];
  }
  const JackknifeVariance ij = infinitesimal_jackknife(counts, n, n_tree, values.data(), m, runtime);
  bool ij_ok = true;
  for (int j = 0; j < m; ++j) {
    double t_mean = 0.0;
    for (int t = 0; t < n_tree; ++t) t_mean += values[j + m * t] / n_tree;
    double raw = 0.0, sum_var = 0.0, var_t = 0.0;
    for (int t = 0; t < n_tree; ++t) var_t += std::pow(values[j + m * t] - t_mean, 2) / n_tree;
    for (int i = 0; i < n; ++i) {
      double n_mean = 0.0, cov = 0.0, var = 0.0;
      for (int t = 0; t < n_tree; ++t) n_mean += counts[i + n * t] / static_cast<double>(n_tree);
      for (int t = 0; t < n_tree; ++t) {
        cov += (counts[i + n * t] - n_mean) * (values[j + m * t] - t_mean) / n_tree;
        var += std::pow(counts[i + n * t] - n_mean, 2) / n_tree;
      }
      raw += cov * cov;
      sum_var += var;
    }
    ij_ok = ij_ok && std::abs(ij.raw[j] - raw) < 1e-9 * (1 + raw) &&
            std::abs(ij.bias[j] - sum_var * var_t / n_tree) < 1e-9 * (1 + ij.bias[j]);
  }
  check(ij_ok, "the infinitesimal jackknife is the sum of squared covariances, less its bias");

  // Jackknife+ with ranks 3 and n_used - 2, by sorting.
  std::vector<double> residual(n, std::nan(""));
  std::vector<int> used;
  for (int i = 0; i < n; ++i) {
    int out = 0;
    for (int t = 0; t < n_tree; ++t) out += counts[i + n * t] == 0;
    if (out > 0 && i % 3 != 0) {
      residual[i] = std::abs(normal(gen));
      used.push_back(i);
    }
  }
  const size_t n_used = used.size();
  std::vector<double> lower(m), upper(m);
  jackknife_plus(counts, n, n_tree, values.data(), m, residual.data(), 3, n_used - 2, runtime,
                 lower.data(), upper.data());
  bool jab_ok = true;
  for (int j = 0; j < m; ++j) {
    std::vector<double> lo, hi;
    for (int i : used) {
      double sum = 0.0;
      int out = 0;
      for (int t = 0; t < n_tree; ++t) {
        if (counts[i + n * t] == 0) {
          sum += values[j + m * t];
          ++out;
        }
      }
      lo.push_back(sum / out - residual[i]);
      hi.push_back(sum / out + residual[i]);
    }
    std::sort(lo.begin(), lo.end());
    std::sort(hi.begin(), hi.end());
    jab_ok = jab_ok && std::abs(lower[j] - lo[2]) < 1e-12 && std::abs(upper[j] - hi[n_used - 3]) < 1e-12;
  }
  check(jab_ok, "jackknife+ bounds are the ranked leave-one-out values");

  // Reading column 1 negated is predicting rows whose column 1 is negated.
  std::vector<double> flipped(x);
  for (int i = 0; i < n; ++i) flipped[n + i] = -flipped[n + i];
  const MatrixMap flipped_x(flipped.data(), n, p);
  std::vector<double> a(n, 0.0), b(n, 0.0);
  PredictOptions negated = po;
  negated.negate_begin = 1;
  negated.negate_end = 2;
  add_tree_predictions(model, data.x, data.row_hash, negated, runtime, a.data());
  add_tree_predictions(model, flipped_x, row_hashes(flipped_x), po, runtime, b.data());
  check(a == b, "a negated column range is read as the negated data");
}

}  // namespace ccforest_test
