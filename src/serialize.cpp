#include "serialize.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace ccforest {

namespace {

template <typename Vector>
Vector element(const Rcpp::List& forest, const char* name, SEXPTYPE type) {
  if (!forest.containsElementNamed(name)) {
    throw std::invalid_argument(std::string("the forest is damaged: it has no `") + name + "`");
  }
  SEXP value = forest[name];
  if (TYPEOF(value) != type) {
    throw std::invalid_argument(std::string("the forest is damaged: `") + name +
                                "` has the wrong type");
  }
  return Vector(value);
}

[[noreturn]] void damaged(const std::string& what) {
  throw std::invalid_argument("the forest is damaged: " + what);
}

}  // namespace

Rcpp::List forest_to_list(const std::vector<Tree>& trees) {
  size_t n_nodes = 0, n_entries = 0;
  for (const Tree& tree : trees) {
    n_nodes += tree.n_nodes();
    n_entries += tree.payload_index.size();
  }
  const size_t limit = static_cast<size_t>(std::numeric_limits<int>::max());
  if (n_nodes >= limit || n_entries >= limit) {
    throw std::runtime_error("the forest is too large to store; use fewer trees or a larger min_leaf");
  }
  Rcpp::IntegerVector node_start(trees.size() + 1), child_left(n_nodes),
      payload_start(n_nodes + 1), payload_index(n_entries);
  Rcpp::NumericVector threshold(n_nodes), gain(n_nodes), payload_value(n_entries);
  size_t node = 0, entry = 0;
  for (size_t t = 0; t < trees.size(); ++t) {
    const Tree& tree = trees[t];
    node_start[t] = static_cast<int>(node);
    for (size_t j = 0; j < tree.n_nodes(); ++j, ++node) {
      child_left[node] = tree.child_left[j];
      threshold[node] = tree.threshold[j];
      gain[node] = tree.gain[j];
      payload_start[node] = static_cast<int>(entry) + tree.payload_start[j];
    }
    for (size_t e = 0; e < tree.payload_index.size(); ++e) {
      payload_index[entry + e] = tree.payload_index[e];
      payload_value[entry + e] = tree.payload_value[e];
    }
    entry += tree.payload_index.size();
  }
  node_start[trees.size()] = static_cast<int>(node);
  payload_start[n_nodes] = static_cast<int>(entry);
  return Rcpp::List::create(
      Rcpp::Named("node_start") = node_start, Rcpp::Named("child_left") = child_left,
      Rcpp::Named("threshold") = threshold, Rcpp::Named("gain") = gain,
      Rcpp::Named("payload_start") = payload_start, Rcpp::Named("payload_index") = payload_index,
      Rcpp::Named("payload_value") = payload_value);
}

ForestView forest_view(const Rcpp::List& forest, int n_column, int n_value) {
  const auto node_start = element<Rcpp::IntegerVector>(forest, "node_start", INTSXP);
  const auto child_left = element<Rcpp::IntegerVector>(forest, "child_left", INTSXP);
  const auto threshold = element<Rcpp::NumericVector>(forest, "threshold", REALSXP);
  const auto payload_start = element<Rcpp::IntegerVector>(forest, "payload_start", INTSXP);
  const auto payload_index = element<Rcpp::IntegerVector>(forest, "payload_index", INTSXP);
  const auto payload_value = element<Rcpp::NumericVector>(forest, "payload_value", REALSXP);

  const R_xlen_t n_tree = node_start.size() - 1;
  const R_xlen_t n_nodes = child_left.size();
  if (n_tree < 1 || node_start[0] != 0 || node_start[n_tree] != n_nodes) {
    damaged("its tree offsets do not match its nodes");
  }
  if (threshold.size() != n_nodes || payload_start.size() != n_nodes + 1 ||
      payload_index.size() != payload_value.size() || payload_start[0] != 0 ||
      payload_start[n_nodes] != payload_index.size()) {
    damaged("its node arrays have inconsistent lengths");
  }
  const int64_t n_entries = payload_index.size();
  for (double value : payload_value) {
    if (!std::isfinite(value)) damaged("a coefficient or leaf value is not finite");
  }
  for (R_xlen_t g = 0; g < n_nodes; ++g) {
    if (payload_start[g + 1] < payload_start[g] || payload_start[g + 1] > n_entries) {
      damaged("its payload offsets are out of order or out of range");
    }
  }
  for (R_xlen_t t = 0; t < n_tree; ++t) {
    const int64_t first = node_start[t], last = node_start[t + 1];
    if (last <= first || last > n_nodes) damaged("a tree has no nodes or too many");
    for (int64_t g = first; g < last; ++g) {
      // 64-bit arithmetic, so that huge stored values cannot wrap around.
      const int64_t left = child_left[g], local = g - first;
      // Children come after their parent, so every walk ends at a leaf.
      if (left != 0 && (left <= local || left + 1 >= last - first)) {
        damaged("a node points outside its tree");
      }
      if (left != 0 && !(threshold[g] == threshold[g])) damaged("a split threshold is missing");
      const int64_t bound = left == 0 ? n_value : n_column;
      for (int64_t e = payload_start[g]; e < payload_start[g + 1]; ++e) {
        if (payload_index[e] < 0 || payload_index[e] >= bound) {
          damaged("a node refers to a column or value out of range");
        }
      }
    }
  }
  ForestView view;
  view.n_tree = static_cast<int>(n_tree);
  view.node_start = node_start.begin();
  view.child_left = child_left.begin();
  view.threshold = threshold.begin();
  view.payload_start = payload_start.begin();
  view.payload_index = payload_index.begin();
  view.payload_value = payload_value.begin();
  return view;
}

}  // namespace ccforest
