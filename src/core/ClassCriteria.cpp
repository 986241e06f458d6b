#include "ClassCriteria.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ccforest {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}  // namespace

template <bool kEntropy>
ClassCriterion<kEntropy>::ClassCriterion(size_t n_value, const EntropyTable* entropy)
    : node_count_(n_value, 0), left_count_(n_value, 0), node_weight_(n_value, 0.0),
      left_weight_(n_value, 0.0) {
  if (kEntropy) {
    xlogx_ = entropy->xlogx.data();
    step_ = entropy->step.data();
  }
}

template <bool kEntropy>
double ClassCriterion<kEntropy>::class_term(int count) const {
  const double c = static_cast<double>(count);
  return kEntropy ? xlogx_[static_cast<size_t>(count)] : c * c;
}

template <bool kEntropy>
double ClassCriterion<kEntropy>::weighted_term(double w) const {
  return kEntropy ? (w > 0.0 ? w * std::log(w) : 0.0) : w * w;
}

template <bool kEntropy>
double ClassCriterion<kEntropy>::set_node(const NodeTargets& targets) {
  targets_ = targets;
  const size_t n = targets.n, w = targets.width;
  const double width = static_cast<double>(w);
  if (targets.weights != nullptr) {
    node_total_ = 0.0;
    for (size_t i = 0; i < n; ++i) node_total_ += targets.weights[i];
    std::fill(node_weight_.begin(), node_weight_.end(), 0.0);
    for (size_t i = 0; i < n; ++i) {
      for (size_t m = 0; m < w; ++m) node_weight_[targets.classes[i * w + m]] += targets.weights[i];
    }
    node_sum_ = 0.0;
    for (double total : node_weight_) node_sum_ += weighted_term(total);
    base_ = kEntropy ? weighted_term(node_total_) - node_sum_ / width
                     : node_total_ - node_sum_ / (width * node_total_);
    return base_;
  }
  std::fill(node_count_.begin(), node_count_.end(), 0);
  for (size_t i = 0; i < n * w; ++i) ++node_count_[targets.classes[i]];
  node_sum_ = 0.0;
  for (int count : node_count_) node_sum_ += class_term(count);
  const double rows = static_cast<double>(n);
  base_ = kEntropy ? xlogx_[n] - node_sum_ / width : rows - node_sum_ / (width * rows);
  return base_;
}

template <bool kEntropy>
void ClassCriterion<kEntropy>::sweep(const int* rows, const double* bar, size_t first, size_t last,
                                     CutOffers& offers) {
  if (targets_.weights != nullptr) {
    sweep_weights(rows, bar, first, last, offers);
  } else if (targets_.width == 1) {
    sweep_counts<true>(rows, bar, first, last, offers);
  } else {
    sweep_counts<false>(rows, bar, first, last, offers);
  }
}

// Class counts move one row at a time from the right child to the left, and
// the sums of c log c (entropy) or c^2 (Gini) follow in O(outputs) per row.
// kOneOutput lets the compiler drop the loop over outputs (dividing by a
// width of 1 is exact, so both versions give the same gains).
//
// Every position's gain is computed; ties only raise the bar of the one
// branch left, rarely taken: whether the gain reaches the best so far.
template <bool kEntropy>
template <bool kOneOutput>
void ClassCriterion<kEntropy>::sweep_counts(const int* rows, const double* bar, size_t first,
                                            size_t last, CutOffers& offers) {
  const size_t n = targets_.n, w = kOneOutput ? 1 : targets_.width;
  const double width = static_cast<double>(w);
  std::fill(left_count_.begin(), left_count_.end(), 0);
  // One output: gather the classes in sorted order first, a loop without
  // dependencies, so the sweep below reads them in sequence.
  const int* classes = targets_.classes;
  if (kOneOutput) {
    sorted_classes_.resize(n);
    for (size_t pos = 0; pos < n; ++pos) sorted_classes_[pos] = classes[rows[pos]];
    classes = sorted_classes_.data();
  }
  double left_sum = 0.0, right_sum = node_sum_;
  double reach = offers.reach();
  for (size_t pos = 0; pos < last; ++pos) {
    const int* c = kOneOutput ? classes + pos : classes + static_cast<size_t>(rows[pos]) * w;
    for (size_t m = 0; m < w; ++m) {
      const int l = left_count_[c[m]]++;
      const int r = node_count_[c[m]] - l;  // the right child's count before the move
      if (kEntropy) {
        left_sum += step_[l];
        right_sum -= step_[r - 1];
      } else {
        left_sum += 2.0 * l + 1.0;
        right_sum -= 2.0 * r - 1.0;
      }
    }
    if (pos < first) continue;
    const size_t n_left = pos + 1, n_right = n - n_left;
    double gain;
    if (kEntropy) {
      gain = base_ - (xlogx_[n_left] + xlogx_[n_right] - (left_sum + right_sum) / width);
    } else {
      const double nl = static_cast<double>(n_left), nr = static_cast<double>(n_right);
      gain = base_ - (nl + nr - (left_sum / nl + right_sum / nr) / width);
    }
    if (gain - bar[pos] >= reach) {
      offers.offer(gain, pos);
      reach = offers.reach();
    }
  }
}

template <bool kEntropy>
void ClassCriterion<kEntropy>::sweep_weights(const int* rows, const double* bar, size_t first,
                                             size_t last, CutOffers& offers) {
  const size_t w = targets_.width;
  const double width = static_cast<double>(w);
  std::fill(left_weight_.begin(), left_weight_.end(), 0.0);
  double left_sum = 0.0, right_sum = node_sum_, left_total = 0.0;
  for (size_t pos = 0; pos < last; ++pos) {
    const size_t row = static_cast<size_t>(rows[pos]);
    const double weight = targets_.weights[row];
    left_total += weight;
    for (size_t m = 0; m < w; ++m) {
      const int k = targets_.classes[row * w + m];
      const double l = left_weight_[k], r = node_weight_[k] - l;
      left_sum += weighted_term(l + weight) - weighted_term(l);
      right_sum += weighted_term(r - weight) - weighted_term(r);
      left_weight_[k] = l + weight;
    }
    if (pos < first || bar[pos] != 0.0) continue;
    const double right_total = node_total_ - left_total;
    if (!(left_total > 0.0) || !(right_total > 0.0)) continue;
    double gain;
    if (kEntropy) {
      gain = base_ - (weighted_term(left_total) + weighted_term(right_total) -
                      (left_sum + right_sum) / width);
    } else {
      gain = base_ - (left_total + right_total -
                      (left_sum / left_total + right_sum / right_total) / width);
    }
    offers.offer(gain, pos);
  }
}

template <bool kEntropy>
double ClassCriterion<kEntropy>::cut_gain(const double* u, double cut, size_t& n_left) {
  // Which side a row falls on is a coin toss, so the loop takes no branch on
  // it: each row adds itself times 0 or 1.
  const size_t n = targets_.n, w = targets_.width;
  const double* weights = targets_.weights;
  const bool weighted = weights != nullptr;
  const double width = static_cast<double>(w);
  std::fill(left_count_.begin(), left_count_.end(), 0);
  std::fill(left_weight_.begin(), left_weight_.end(), 0.0);
  n_left = 0;
  double left_total = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const bool left = u[i] < cut;
    const double weight = (left ? 1.0 : 0.0) * (weighted ? weights[i] : 1.0);
    n_left += left;
    left_total += weight;
    for (size_t m = 0; m < w; ++m) {
      if (weighted) {
        left_weight_[static_cast<size_t>(targets_.classes[i * w + m])] += weight;
      } else {
        left_count_[static_cast<size_t>(targets_.classes[i * w + m])] += left;
      }
    }
  }
  const double nl = weighted ? left_total : static_cast<double>(n_left);
  const double nr = weighted ? node_total_ - left_total : static_cast<double>(n - n_left);
  if (!(nl > 0.0) || !(nr > 0.0)) return -kInfinity;
  double left_sum = 0.0, right_sum = 0.0;
  for (size_t k = 0; k < node_count_.size(); ++k) {
    if (weighted) {
      left_sum += weighted_term(left_weight_[k]);
      right_sum += weighted_term(node_weight_[k] - left_weight_[k]);
    } else {
      left_sum += class_term(left_count_[k]);
      right_sum += class_term(node_count_[k] - left_count_[k]);
    }
  }
  if (kEntropy) {
    const double children = weighted ? weighted_term(nl) + weighted_term(nr)
                                     : xlogx_[n_left] + xlogx_[n - n_left];
    return base_ - (children - (left_sum + right_sum) / width);
  }
  return base_ - (nl + nr - (left_sum / nl + right_sum / nr) / width);
}

template <bool kEntropy>
double ClassCriterion<kEntropy>::gain_of(size_t n_left, double left_total, double left_sum,
                                         double right_sum) const {
  const double width = static_cast<double>(targets_.width);
  if (targets_.weights != nullptr) {
    const double right_total = node_total_ - left_total;
    if (!(left_total > 0.0) || !(right_total > 0.0)) return -kInfinity;
    return kEntropy ? base_ - (weighted_term(left_total) + weighted_term(right_total) -
                               (left_sum + right_sum) / width)
                    : base_ - (left_total + right_total -
                               (left_sum / left_total + right_sum / right_total) / width);
  }
  const size_t n_right = targets_.n - n_left;
  if (kEntropy) return base_ - (xlogx_[n_left] + xlogx_[n_right] - (left_sum + right_sum) / width);
  const double nl = static_cast<double>(n_left), nr = static_cast<double>(n_right);
  return base_ - (nl + nr - (left_sum / nl + right_sum / nr) / width);
}

template <bool kEntropy>
template <bool kWeighted>
void ClassCriterion<kEntropy>::add_bin(size_t b, double& left_sum, double& right_sum) {
  const size_t n_value = node_count_.size();
  auto add_class = [&](size_t k) {
    if (kWeighted) {
      const double t = bin_weights_[b * n_value + k];
      if (!(t != 0.0)) return;
      const double l = left_weight_[k], r = node_weight_[k] - l;
      left_sum += weighted_term(l + t) - weighted_term(l);
      right_sum += weighted_term(r - t) - weighted_term(r);
      left_weight_[k] = l + t;
    } else {
      const int c = bin_counts_[b * n_value + k];
      if (c == 0) return;
      const int l = left_count_[k], r = node_count_[k] - l;
      left_sum += class_term(l + c) - class_term(l);
      right_sum += class_term(r - c) - class_term(r);
      left_count_[k] = l + c;
    }
  };
  if (bin_present_.empty()) {
    for (size_t k = 0; k < n_value; ++k) add_class(k);
    return;
  }
  for (uint64_t mask = bin_present_[b]; mask != 0; mask &= mask - 1) {
    add_class(static_cast<size_t>(__builtin_ctzll(mask)));
  }
}

template <bool kEntropy>
template <bool kWeighted, bool kOneOutput>
void ClassCriterion<kEntropy>::count_bins(const uint8_t* bins) {
  const size_t n = targets_.n, w = kOneOutput ? 1 : targets_.width;
  const size_t n_value = node_count_.size();
  const int* classes = targets_.classes;
  const bool masks = !bin_present_.empty();
  for (size_t i = 0; i < n; ++i) {
    const size_t b = bins[i];
    for (size_t m = 0; m < w; ++m) {
      const size_t k = static_cast<size_t>(classes[i * w + m]);
      if (kWeighted) {
        bin_weights_[b * n_value + k] += targets_.weights[i];
      } else {
        ++bin_counts_[b * n_value + k];
      }
      if (masks) bin_present_[b] |= uint64_t{1} << k;
    }
    if (kWeighted) bin_total_[b] += targets_.weights[i];
  }
}

template <bool kEntropy>
template <bool kWeighted>
long ClassCriterion<kEntropy>::best_bin_of(const uint32_t* bin_rows, size_t n_bins,
                                           size_t min_leaf) {
  const size_t n = targets_.n;
  std::fill(left_count_.begin(), left_count_.end(), 0);
  std::fill(left_weight_.begin(), left_weight_.end(), 0.0);
  const size_t least = std::max<size_t>(min_leaf, 1);
  double left_sum = 0.0, right_sum = node_sum_, left_total = 0.0, best = -kInfinity;
  size_t n_left = 0;
  long best_bin = -1;
  for (size_t b = 0; b + 1 < n_bins; ++b) {
    if (bin_rows[b] == 0) continue;
    add_bin<kWeighted>(b, left_sum, right_sum);
    n_left += bin_rows[b];
    if (kWeighted) left_total += bin_total_[b];
    if (n_left < least || n - n_left < least) continue;
    const double gain = gain_of(n_left, left_total, left_sum, right_sum);
    if (gain > best) {
      best = gain;
      best_bin = static_cast<long>(b);
    }
  }
  return best_bin;
}

template <bool kEntropy>
long ClassCriterion<kEntropy>::best_bin(const uint8_t* bins, const uint32_t* bin_rows,
                                        size_t n_bins, size_t min_leaf) {
  const size_t n_value = node_count_.size();
  const bool weighted = targets_.weights != nullptr;
  n_bins_ = n_bins;
  bin_present_.assign(n_value <= 64 ? n_bins : 0, 0);
  if (weighted) {
    bin_weights_.assign(n_bins * n_value, 0.0);
    bin_total_.assign(n_bins, 0.0);
    if (targets_.width == 1) {
      count_bins<true, true>(bins);
    } else {
      count_bins<true, false>(bins);
    }
    return best_bin_of<true>(bin_rows, n_bins, min_leaf);
  }
  bin_counts_.assign(n_bins * n_value, 0);
  if (targets_.width == 1) {
    count_bins<false, true>(bins);
  } else {
    count_bins<false, false>(bins);
  }
  return best_bin_of<false>(bin_rows, n_bins, min_leaf);
}

template <bool kEntropy>
void ClassCriterion<kEntropy>::sweep_window(size_t first_bin, const int* rows, size_t m,
                                            const double* bar, size_t min_leaf,
                                            CutOffers& offers) {
  const size_t n = targets_.n, w = targets_.width, n_value = node_count_.size();
  const double* weights = targets_.weights;
  // The rows of the bins below the window are left: their totals, and the
  // sums of the class terms from them.
  std::fill(left_count_.begin(), left_count_.end(), 0);
  std::fill(left_weight_.begin(), left_weight_.end(), 0.0);
  double left_total = 0.0;
  for (size_t b = 0; b < first_bin && b < n_bins_; ++b) {
    for (size_t k = 0; k < n_value; ++k) {
      if (weights != nullptr) {
        left_weight_[k] += bin_weights_[b * n_value + k];
      } else {
        left_count_[k] += bin_counts_[b * n_value + k];
      }
    }
    if (weights != nullptr) left_total += bin_total_[b];
  }
  double left_sum = 0.0, right_sum = 0.0;
  for (size_t k = 0; k < n_value; ++k) {
    if (weights != nullptr) {
      left_sum += weighted_term(left_weight_[k]);
      right_sum += weighted_term(node_weight_[k] - left_weight_[k]);
    } else {
      left_sum += class_term(left_count_[k]);
      right_sum += class_term(node_count_[k] - left_count_[k]);
    }
  }
  size_t n_left = offers.before();
  const size_t least = std::max<size_t>(min_leaf, 1);
  for (size_t pos = 0; pos < m; ++pos) {
    const size_t row = static_cast<size_t>(rows[pos]);
    const double weight = weights != nullptr ? weights[row] : 1.0;
    for (size_t o = 0; o < w; ++o) {
      const int k = targets_.classes[row * w + o];
      if (weights != nullptr) {
        const double l = left_weight_[k], r = node_weight_[k] - l;
        left_sum += weighted_term(l + weight) - weighted_term(l);
        right_sum += weighted_term(r - weight) - weighted_term(r);
        left_weight_[k] = l + weight;
      } else {
        const int l = left_count_[k]++;
        const int r = node_count_[k] - l;
        left_sum += class_term(l + 1) - class_term(l);
        right_sum += class_term(r - 1) - class_term(r);
      }
    }
    ++n_left;
    left_total += weight;
    if (bar[pos] != 0.0 || n_left < least || n - n_left < least) continue;
    offers.offer(gain_of(n_left, left_total, left_sum, right_sum), pos);
  }
}

template class ClassCriterion<true>;
template class ClassCriterion<false>;

}  // namespace ccforest
