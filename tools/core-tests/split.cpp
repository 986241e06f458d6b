// Core tests: the cut search (exhaustive, binned, random cuts) against brute force.
#include "core_test.h"

namespace ccforest_test {

void test_split_search() {
  // Classes 0 0 0 1 1 1 along u: the best split is between 3 and 4, gain = n H(0.5).
  const std::vector<double> u = {1, 2, 3, 4, 5, 6};
  const std::vector<int> classes = {0, 0, 0, 1, 1, 1};
  NodeTargets t;
  t.classes = classes.data();
  t.n = 6;
  t.width = 1;
  const EntropyTable table(6);
  SplitSearch search(SplitRule::kEntropy, 2, &table);
  search.set_node(t);
  Rng rng(1, 1);
  BestSplit best;
  search.sweep(u.data(), 1, 0, rng, best);
  check(best.n_left == 3 && best.lo == 3 && best.hi == 4, "the pure split is found between 3 and 4");
  check(short_threshold(best.lo, best.hi) == 3.5, "and its threshold is the short 3.5");
  check(std::abs(best.gain - 6.0 * std::log(2.0)) < 1e-12, "its gain is n log 2");
  BestSplit none;
  search.sweep(u.data(), 4, 0, rng, none);
  check(none.direction < 0, "min_leaf larger than half the node allows no split");
}

/** How a sweep agreed with a brute-force search, over many nodes. */
struct SweepAgreement {
  bool gains = true, cuts = true, none = true;
};

/**
 * Sweeps u with `search` (already set to the node) and compares the result
 * with a brute-force search: brute(order, cut) is the gain of the cut after
 * sorted position cut, order the rows sorted by u (stably), evaluated at
 * every cut min_leaf allows between distinct values. `scale` sizes the
 * tolerance on gains.
 */
void compare_sweep(
    SplitSearch& search, const std::vector<double>& u, size_t min_leaf, uint64_t stream,
    const std::function<double(const std::vector<size_t>&, size_t)>& brute, double scale,
    SweepAgreement& agree) {
  const size_t n = u.size();
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return u[a] < u[b]; });
  double best_gain = -std::numeric_limits<double>::infinity();
  for (size_t cut = 0; cut + 1 < n; ++cut) {
    if (cut + 1 < min_leaf || n - cut - 1 < min_leaf) continue;
    if (!(u[order[cut]] < u[order[cut + 1]])) continue;
    best_gain = std::max(best_gain, brute(order, cut));
  }
  Rng rng(3, stream);
  BestSplit best;
  search.sweep(u.data(), min_leaf, 0, rng, best);
  if (!std::isfinite(best_gain)) {
    agree.none = agree.none && best.direction < 0;
    return;
  }
  const size_t cut = best.n_left - 1;
  const double tol = 1e-9 * (1.0 + scale);
  agree.gains = agree.gains && best.direction == 0 && std::abs(best.gain - best_gain) <= tol;
  agree.cuts = agree.cuts && best.lo == u[order[cut]] && best.hi == u[order[cut + 1]] &&
               best.lo < best.hi && best.n_left >= min_leaf && n - best.n_left >= min_leaf &&
               std::abs(brute(order, cut) - best_gain) <= tol;
}

void test_split_search_reference() {
  // Small nodes with many tied values (the sweep must never cut inside a
  // run of equal values) against every allowed cut evaluated from scratch:
  // n times the decrease in entropy or Gini impurity.
  std::mt19937_64 gen(11);
  SweepAgreement agree;
  for (int trial = 0; trial < 3000; ++trial) {
    const size_t n = 2 + gen() % 40;
    const int n_class = 2 + static_cast<int>(gen() % 4);
    const int n_value = 1 + static_cast<int>(gen() % 8);
    const size_t min_leaf = 1 + gen() % 4;
    const bool entropy = gen() % 2 == 0;
    std::vector<double> u(n);
    std::vector<int> classes(n);
    for (size_t i = 0; i < n; ++i) {
      u[i] = static_cast<double>(gen() % static_cast<uint64_t>(n_value));
      classes[i] = static_cast<int>(gen() % static_cast<uint64_t>(n_class));
    }
    auto impurity_times_n = [&](const std::vector<size_t>& order, size_t begin, size_t end) {
      std::vector<double> count(static_cast<size_t>(n_class), 0.0);
      for (size_t k = begin; k < end; ++k) count[static_cast<size_t>(classes[order[k]])] += 1.0;
      const double size = static_cast<double>(end - begin);
      double out = 0.0;
      for (double c : count) {
        if (c > 0.0) out += entropy ? -c * std::log(c / size) : c * (1.0 - c / size);
      }
      return out;
    };
    auto brute = [&](const std::vector<size_t>& order, size_t cut) {
      return impurity_times_n(order, 0, n) - impurity_times_n(order, 0, cut + 1) -
             impurity_times_n(order, cut + 1, n);
    };
    NodeTargets t;
    t.classes = classes.data();
    t.n = n;
    t.width = 1;
    const EntropyTable table(n);
    SplitSearch search(entropy ? SplitRule::kEntropy : SplitRule::kGini,
                       static_cast<size_t>(n_class), &table);
    search.set_node(t);
    compare_sweep(search, u, min_leaf, static_cast<uint64_t>(trial), brute, static_cast<double>(n),
                  agree);
  }
  check(agree.gains, "the sweep finds the best gain of a brute-force search (ties, min_leaf)");
  check(agree.cuts, "the chosen cut lies between distinct values and attains that gain");
  check(agree.none, "no split is offered when every cut falls inside a tie or breaks min_leaf");
}

void test_split_search_values_reference() {
  // The variance sweep on tied values, one and two outputs, against the
  // decrease in squared error of every allowed cut computed from scratch.
  std::mt19937_64 gen(17);
  std::normal_distribution<double> normal;
  SweepAgreement agree;
  for (int trial = 0; trial < 3000; ++trial) {
    const size_t n = 2 + gen() % 40, width = 1 + gen() % 2;
    const int n_value = 1 + static_cast<int>(gen() % 8);
    const size_t min_leaf = 1 + gen() % 4;
    std::vector<double> u(n), y(n * width);
    for (size_t i = 0; i < n; ++i) u[i] = static_cast<double>(gen() % static_cast<uint64_t>(n_value));
    for (double& v : y) v = normal(gen);
    for (size_t m = 0; m < width; ++m) {  // centred at the node, as the trainer gives them
      double mean = 0.0;
      for (size_t i = 0; i < n; ++i) mean += y[i * width + m] / static_cast<double>(n);
      for (size_t i = 0; i < n; ++i) y[i * width + m] -= mean;
    }
    auto sse = [&](const std::vector<size_t>& order, size_t begin, size_t end) {
      double out = 0.0;
      for (size_t m = 0; m < width; ++m) {
        double mean = 0.0;
        for (size_t k = begin; k < end; ++k) mean += y[order[k] * width + m];
        mean /= static_cast<double>(end - begin);
        for (size_t k = begin; k < end; ++k) {
          out += (y[order[k] * width + m] - mean) * (y[order[k] * width + m] - mean);
        }
      }
      return out / static_cast<double>(width);
    };
    auto brute = [&](const std::vector<size_t>& order, size_t cut) {
      return sse(order, 0, n) - sse(order, 0, cut + 1) - sse(order, cut + 1, n);
    };
    std::vector<size_t> identity(n);
    for (size_t i = 0; i < n; ++i) identity[i] = i;
    NodeTargets t;
    t.values = y.data();
    t.n = n;
    t.width = width;
    SplitSearch search(SplitRule::kVariance, width, nullptr);
    search.set_node(t);
    compare_sweep(search, u, min_leaf, static_cast<uint64_t>(trial), brute, sse(identity, 0, n),
                  agree);
  }
  check(agree.gains, "the variance sweep finds the best decrease in squared error (ties, min_leaf)");
  check(agree.cuts, "its cut lies between distinct values and attains that decrease");
  check(agree.none, "the variance sweep offers nothing when no cut is allowed");
}

void test_binned_search() {
  // Nodes searched binned (exact_max_rows 1: every node of two rows or more)
  // against the impurity decrease of every allowed cut from scratch: every
  // rule, one and two outputs, with and without weights. The cut found must
  // be a cut the exhaustive search could make (between distinct values, at
  // least min_leaf rows a side) with the gain it reports, at least as good
  // as the best cut between two of the 256 bins, and the best cut of all
  // when that one lies near the best boundary (a clean threshold).
  std::mt19937_64 gen(29);
  std::normal_distribution<double> normal;
  bool valid = true, beats_bins = true, clean = true, none = true;
  int searched = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const size_t n = 2 + gen() % 700, width = 1 + gen() % 2, min_leaf = 1 + gen() % 4;
    const int rule_code = static_cast<int>(gen() % 3), n_class = 2 + static_cast<int>(gen() % 5);
    const SplitRule rule = static_cast<SplitRule>(rule_code);
    const bool values = rule == SplitRule::kVariance, weighted = gen() % 2 == 0;
    const bool threshold = trial % 3 == 0;  // outputs decided by u alone
    std::vector<double> u(n), y(n * width), w(n, 1.0);
    std::vector<int> classes(n * width);
    const double cut_at = normal(gen);
    for (size_t i = 0; i < n; ++i) {
      u[i] = trial % 2 == 0 ? normal(gen) : static_cast<double>(gen() % 50) / 7.0;
      if (weighted) w[i] = 0.25 + static_cast<double>(gen() % 8);
      for (size_t m = 0; m < width; ++m) {
        const int code = threshold ? (u[i] > cut_at ? 1 : 0) : static_cast<int>(gen() % n_class);
        classes[i * width + m] = static_cast<int>(m) * n_class + code;
        y[i * width + m] = threshold ? (u[i] > cut_at ? 2.0 : -1.0) : normal(gen);
      }
    }
    if (values) {  // centred at the node's (weighted) means, as the trainer gives them
      for (size_t m = 0; m < width; ++m) {
        double sum = 0.0, total = 0.0;
        for (size_t i = 0; i < n; ++i) {
          sum += w[i] * y[i * width + m];
          total += w[i];
        }
        for (size_t i = 0; i < n; ++i) y[i * width + m] -= sum / total;
      }
    }
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return u[a] < u[b]; });
    auto impurity = [&](size_t begin, size_t end) {
      double out = 0.0;
      for (size_t m = 0; m < width; ++m) {
        if (values) {
          double sum = 0.0, total = 0.0;
          for (size_t k = begin; k < end; ++k) {
            sum += w[order[k]] * y[order[k] * width + m];
            total += w[order[k]];
          }
          for (size_t k = begin; k < end; ++k) {
            const double d = y[order[k] * width + m] - sum / total;
            out += w[order[k]] * d * d;
          }
          continue;
        }
        std::vector<double> count(static_cast<size_t>(n_class) * width, 0.0);
        double total = 0.0;
        for (size_t k = begin; k < end; ++k) {
          count[static_cast<size_t>(classes[order[k] * width + m])] += w[order[k]];
          total += w[order[k]];
        }
        for (double c : count) {
          if (c > 0.0) out += rule == SplitRule::kEntropy ? -c * std::log(c / total) : c * (1.0 - c / total);
        }
      }
      return out / static_cast<double>(width);
    };
    auto gain = [&](size_t left) { return impurity(0, n) - impurity(0, left) - impurity(left, n); };
    double best_gain = -std::numeric_limits<double>::infinity(), best_bins = best_gain;
    const double lo = u[order[0]], hi = u[order[n - 1]];
    const double scale = 256.0 * (1.0 - 1e-9) / (hi - lo);
    auto bin = [&](double v) { return std::min<size_t>(255, static_cast<size_t>((v - lo) * scale)); };
    for (size_t left = min_leaf; left + min_leaf <= n; ++left) {
      if (!(u[order[left - 1]] < u[order[left]])) continue;
      const double g = gain(left);
      best_gain = std::max(best_gain, g);
      if (bin(u[order[left - 1]]) < bin(u[order[left]])) best_bins = std::max(best_bins, g);
    }
    const EntropyTable table(n);
    SearchSettings binned_everywhere;
    binned_everywhere.exact_max_rows = 1;
    SplitSearch search(rule, values ? width : static_cast<size_t>(n_class) * width, &table,
                       binned_everywhere);
    NodeTargets t;
    t.classes = classes.data();
    t.values = y.data();
    t.weights = weighted ? w.data() : nullptr;
    t.n = n;
    t.width = width;
    search.set_node(t);
    Rng rng(5, static_cast<uint64_t>(trial));
    BestSplit best;
    search.sweep(u.data(), min_leaf, 0, rng, best);
    if (!std::isfinite(best_gain)) {
      none = none && best.direction < 0;
      continue;
    }
    if (best.direction < 0) {
      valid = false;
      continue;
    }
    ++searched;
    const size_t left = best.n_left;
    const double tol = 1e-9 * (1.0 + impurity(0, n));
    valid = valid && left >= min_leaf && n - left >= min_leaf && best.lo == u[order[left - 1]] &&
            best.hi == u[order[left]] && best.lo < best.hi && std::abs(best.gain - gain(left)) <= tol;
    beats_bins = beats_bins && (!std::isfinite(best_bins) || best.gain >= best_bins - tol);
    if (threshold) clean = clean && best.gain >= best_gain - tol;
  }
  check(searched > 1000, "the binned search ran on most trial nodes");
  check(valid, "a binned search's cut is one the exhaustive search could make, with its gain");
  check(beats_bins, "the binned search's cut gains at least as much as the best between bins");
  check(clean, "the binned search finds a clean threshold, the exhaustive search's cut");
  check(none, "the binned search offers nothing when no cut is allowed");
}

void test_random_cut_reference() {
  // One cut drawn uniformly between the smallest and largest value, against
  // the same draw from a copy of the generator and the decrease in impurity
  // of that partition computed from scratch: every rule, one and two
  // outputs, with and without case weights, on tied values.
  std::mt19937_64 gen(23);
  std::normal_distribution<double> normal;
  bool gains = true, sides = true, none = true;
  int offered = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const size_t n = 2 + gen() % 30, width = 1 + gen() % 2, min_leaf = 1 + gen() % 3;
    const int rule_code = static_cast<int>(gen() % 3), n_class = 2 + static_cast<int>(gen() % 3);
    const SplitRule rule = static_cast<SplitRule>(rule_code);
    const bool weighted = gen() % 2 == 0, values = rule == SplitRule::kVariance;
    const int n_distinct = 1 + static_cast<int>(gen() % 6);
    std::vector<double> u(n), y(n * width), w(n, 1.0);
    std::vector<int> classes(n * width);
    for (size_t i = 0; i < n; ++i) {
      u[i] = static_cast<double>(gen() % static_cast<uint64_t>(n_distinct)) * 0.7 - 1.0;
      if (weighted) w[i] = 0.25 + static_cast<double>(gen() % 8) / 4.0;
      for (size_t m = 0; m < width; ++m) {
        y[i * width + m] = normal(gen);
        // Each output's classes in their own range, as the trainer numbers them.
        classes[i * width + m] = static_cast<int>(m) * n_class +
                                 static_cast<int>(gen() % static_cast<uint64_t>(n_class));
      }
    }
    for (size_t m = 0; m < width && values; ++m) {  // centred at the weighted node mean
      double sum = 0.0, total = 0.0;
      for (size_t i = 0; i < n; ++i) sum += w[i] * y[i * width + m], total += w[i];
      for (size_t i = 0; i < n; ++i) y[i * width + m] -= sum / total;
    }
    // n times the impurity of a set of rows (weights as counts), averaged over outputs.
    auto impurity = [&](const std::vector<size_t>& rows) {
      double out = 0.0;
      for (size_t m = 0; m < width; ++m) {
        double total = 0.0, sum = 0.0;
        std::vector<double> count(static_cast<size_t>(n_class) * width, 0.0);
        for (size_t i : rows) {
          total += w[i];
          sum += w[i] * y[i * width + m];
          count[static_cast<size_t>(classes[i * width + m])] += w[i];
        }
        if (values) {
          for (size_t i : rows) {
            const double d = y[i * width + m] - sum / total;
            out += w[i] * d * d;
          }
        } else {
          for (double c : count) {
            if (!(c > 0.0)) continue;
            out += rule == SplitRule::kEntropy ? -c * std::log(c / total) : c * (1.0 - c / total);
          }
        }
      }
      return out / static_cast<double>(width);
    };
    NodeTargets t;
    t.classes = classes.data();
    t.values = y.data();
    t.weights = weighted ? w.data() : nullptr;
    t.n = n;
    t.width = width;
    const EntropyTable table(n);
    SplitSearch search(rule, values ? width : static_cast<size_t>(n_class) * width, &table);
    search.set_node(t);
    Rng rng(5, static_cast<uint64_t>(trial));
    Rng twin = rng;
    BestSplit best;
    search.random_cut(u.data(), min_leaf, 3, rng, best);

    const double lo = *std::min_element(u.begin(), u.end());
    const double hi = *std::max_element(u.begin(), u.end());
    std::vector<size_t> left, right, all;
    if (lo < hi) {
      const double cut = lo + twin.uniform() * (hi - lo);
      for (size_t i = 0; i < n; ++i) (u[i] < cut ? left : right).push_back(i);
    }
    for (size_t i = 0; i < n; ++i) all.push_back(i);
    if (left.size() < min_leaf || right.size() < min_leaf) {
      none = none && best.direction < 0;
      continue;
    }
    const double expected = impurity(all) - impurity(left) - impurity(right);
    double left_max = -1e300, right_min = 1e300;
    for (size_t i : left) left_max = std::max(left_max, u[i]);
    for (size_t i : right) right_min = std::min(right_min, u[i]);
    ++offered;
    gains = gains && best.direction == 3 &&
            std::abs(best.gain - expected) <= 1e-9 * (1.0 + impurity(all));
    sides = sides && best.n_left == left.size() && best.lo == left_max && best.hi == right_min;
  }
  check(offered > 1000,
        "random cuts were offered in most trials (" + std::to_string(offered) + ")");
  check(gains,
        "a random cut's gain is the decrease in impurity of its partition (every rule, weights)");
  check(sides,
        "a random cut keeps the rows below the draw left, its threshold between them and the rest");
  check(none, "a random cut that breaks min_leaf, or a constant projection, offers nothing");

  // The draw is uniform over the range: with values 0, 1 and 3 the cut falls
  // between 0 and 1 a third of the time.
  const std::vector<double> u = {3, 0, 1};
  const std::vector<int> classes = {0, 1, 0};
  NodeTargets t;
  t.classes = classes.data();
  t.n = 3;
  t.width = 1;
  const EntropyTable table(3);
  SplitSearch search(SplitRule::kGini, 2, &table);
  search.set_node(t);
  Rng rng(9, 9);
  int first_gap = 0;
  const int draws = 30000;
  for (int k = 0; k < draws; ++k) {
    BestSplit best;
    search.random_cut(u.data(), 1, 0, rng, best);
    first_gap += best.n_left == 1;
  }
  check(std::abs(first_gap / static_cast<double>(draws) - 1.0 / 3.0) < 0.01,
        "random cuts are uniform over the range (" + std::to_string(first_gap) +
            " of 30000 in the first third)");
}

}  // namespace ccforest_test
