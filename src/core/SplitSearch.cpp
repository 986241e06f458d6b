#include "SplitSearch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "ClassCriteria.h"
#include "LogRankCriterion.h"
#include "VarianceCriterion.h"

namespace ccforest {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/** Cuts after sorted positions [first, last) leave min_leaf rows on each side. */
std::pair<size_t, size_t> allowed_cuts(size_t n, size_t min_leaf) {
  return {std::max<size_t>(min_leaf, 1) - 1, n > min_leaf ? std::min(n - 1, n - min_leaf) : 0};
}

}  // namespace

std::unique_ptr<SplitCriterion> make_criterion(SplitRule rule, size_t n_value,
                                               const EntropyTable* entropy, size_t min_events) {
  switch (rule) {
    case SplitRule::kEntropy:
      return std::make_unique<EntropyCriterion>(n_value, entropy);
    case SplitRule::kGini:
      return std::make_unique<GiniCriterion>(n_value, entropy);
    case SplitRule::kVariance:
      return std::make_unique<VarianceCriterion>(n_value);
    case SplitRule::kLogRank:
      return std::make_unique<LogRankCriterion>(n_value, min_events);
  }
  return nullptr;
}

double SplitSearch::tolerance() const {
  if (!authors_tolerance_) return 1e-10 * base_;
  const double per_row = rule_ == SplitRule::kEntropy ? std::log(2.0) : 1.0;
  return 10.0 * std::numeric_limits<double>::epsilon() * per_row * static_cast<double>(n_);
}

void SplitSearch::mark_ties(const double* sorted, size_t n) {
  bar_.resize(n);
  for (size_t pos = 0; pos + 1 < n; ++pos) {
    bar_[pos] = sorted[pos + 1] - sorted[pos] > resolution_ ? 0.0 : kInfinity;
  }
}

namespace {

// Two running minima and maxima, so that consecutive rows do not wait on
// each other.
void value_range(const double* u, size_t n, double& lo, double& hi) {
  double low[2] = {u[0], u[n - 1]}, high[2] = {u[0], u[n - 1]};
  for (size_t i = 0; i + 1 < n; i += 2) {
    for (size_t k = 0; k < 2; ++k) {
      low[k] = std::min(low[k], u[i + k]);
      high[k] = std::max(high[k], u[i + k]);
    }
  }
  lo = std::min(low[0], low[1]);
  hi = std::max(high[0], high[1]);
}

}  // namespace

void SplitSearch::sweep(const double* u, size_t min_leaf, int direction, Rng& rng,
                        BestSplit& best) {
  if (exact_max_rows_ > 0 && n_ > exact_max_rows_ && binned_sweep(u, min_leaf, direction, rng, best)) {
    ++binned_searches_;
    return;
  }
  sorter_.sort(u, n_);
  const double* sorted = sorter_.values();
  mark_ties(sorted, n_);
  const auto [first, last] = allowed_cuts(n_, min_leaf);
  CutOffers offers(sorted, direction, tolerance(), rng, best);
  criterion_->sweep(sorter_.positions(), bar_.data(), first, last, offers);
}

bool SplitSearch::binned_sweep(const double* u, size_t min_leaf, int direction, Rng& rng,
                               BestSplit& best) {
  const size_t n = n_;
  double lo, hi;
  value_range(u, n, lo, hi);
  if (lo == hi) return true;  // all equal: no cut at all
  if (!(lo < hi)) return false;
  // Subtraction and multiplication round monotonically, so bins never
  // decrease as values grow; the factor below 1 keeps the largest in range.
  const double scale = static_cast<double>(kBins) * (1.0 - 1e-9) / (hi - lo);
  if (!(hi - lo < kInfinity) || !(scale < kInfinity)) return false;
  bins_.resize(n);
  bin_rows_.fill(0);
  for (size_t i = 0; i < n; ++i) {
    const size_t bin = std::min(static_cast<size_t>((u[i] - lo) * scale), kBins - 1);
    bins_[i] = static_cast<uint8_t>(bin);
    ++bin_rows_[bin];
  }
  const long best_bin = criterion_->best_bin(bins_.data(), bin_rows_.data(), kBins, min_leaf);
  if (best_bin < 0) return false;
  // The two bins holding rows on either side of the best boundary, searched
  // exhaustively (the boundary itself is the cut between the second and
  // third).
  const size_t boundary = static_cast<size_t>(best_bin);
  size_t first = boundary, last = boundary;
  for (size_t b = boundary; b-- > 0;) {
    if (bin_rows_[b] > 0) {
      first = b;
      break;
    }
  }
  for (size_t b = boundary + 1, found = 0; b < kBins && found < 2; ++b) {
    if (bin_rows_[b] > 0) {
      last = b;
      ++found;
    }
  }
  size_t before = 0, m = 0;  // rows of the bins below the window, and in it
  for (size_t b = 0; b < first; ++b) before += bin_rows_[b];
  for (size_t b = first; b <= last; ++b) m += bin_rows_[b];
  // Values crowded into a few bins (a far outlier widens them all) leave
  // little to save: search all the rows then.
  if (m > n / 2) return false;
  window_values_.resize(m);
  window_rows_.resize(m);
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    if (static_cast<size_t>(bins_[i] - first) <= last - first) {
      window_values_[k] = u[i];
      window_rows_[k++] = static_cast<int>(i);
    }
  }
  sorter_.sort(window_values_.data(), m);
  const double* sorted = sorter_.values();
  const int* order = sorter_.positions();
  mark_ties(sorted, m);
  bar_[m - 1] = kInfinity;  // the next value lies beyond the window
  sorted_rows_.resize(m);
  for (size_t k = 0; k < m; ++k) sorted_rows_[k] = window_rows_[static_cast<size_t>(order[k])];
  CutOffers offers(sorted, direction, tolerance(), rng, best, before);
  criterion_->sweep_window(first, sorted_rows_.data(), m, bar_.data(), min_leaf, offers);
  return true;
}

void SplitSearch::random_cut(const double* u, size_t min_leaf, int direction, Rng& rng,
                             BestSplit& best) {
  const size_t n = n_;
  if (n < 2) return;
  double lo, hi;
  value_range(u, n, lo, hi);
  if (!(lo < hi)) return;
  const double cut = lo + rng.uniform() * (hi - lo);
  size_t n_left = 0;
  const double gain = criterion_->cut_gain(u, cut, n_left);
  const size_t least = std::max<size_t>(min_leaf, 1);
  if (n_left < least || n - n_left < least) return;
  CutOffers offers(nullptr, direction, tolerance(), rng, best);
  // The values either side of the cut (for its threshold) only when it may
  // be taken, which is rare: the gain's loop stays short.
  if (!(gain >= offers.reach())) return;
  double left_max = -kInfinity, right_min = kInfinity;
  for (size_t i = 0; i < n; ++i) {
    if (u[i] < cut) {
      left_max = std::max(left_max, u[i]);
    } else {
      right_min = std::min(right_min, u[i]);
    }
  }
  offers.offer_cut(gain, left_max, right_min, n_left);
}

double SplitSearch::gain_at(const double* u, double threshold) {
  size_t n_left = 0;
  return criterion_->cut_gain(u, std::nextafter(threshold, kInfinity), n_left);
}

}  // namespace ccforest
