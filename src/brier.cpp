// The inverse-probability-of-censoring weighted Brier score at each time and
// its integral (R/task-survival-oob.R's integrated_brier()), computed here:
// in R one pass per time, then the weights' look-ups, were most of the fixed
// cost of a small survival fit.
#include <Rcpp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace {

/**
 * The Brier score of incidences `cif` (n rows x n_time times, column-major;
 * with `one_curve`, one row x n_time, every row's) at each of `times`: the
 * mean over rows of w * (y - cif)^2, where a row
 * with an event by t has w = event_weight and y = 1 if it is of `cause`, a
 * row still at risk w = 1 / g_times (and y = 0), others w = 0. Each mean is
 * R's mean(): a long double sum divided by n, then corrected by the long
 * double sum of the differences, so the scores are bitwise R's.
 */
void brier_scores(const double* cif, bool one_curve, const double* time, const int* status, int cause,
                  R_xlen_t n, const double* times, const double* event_weight, const double* g_times,
                  R_xlen_t n_time, double* score) {
  std::vector<double> terms(static_cast<size_t>(n));
  const size_t row_step = one_curve ? 0 : 1;
  for (R_xlen_t k = 0; k < n_time; ++k) {
    const double t = times[k];
    const double alive_weight = 1 / g_times[k];
    const double* p = cif + static_cast<size_t>(k) * (one_curve ? 1 : static_cast<size_t>(n));
    for (R_xlen_t i = 0; i < n; ++i) {
      const bool ended = time[i] <= t && status[i] > 0;
      const double w = ended ? event_weight[i] : (time[i] > t ? alive_weight : 0.0);
      const double d = ((ended && status[i] == cause) ? 1.0 : 0.0) - p[static_cast<size_t>(i) * row_step];
      terms[static_cast<size_t>(i)] = w * (d * d);
    }
    long double s = 0.0;
    for (R_xlen_t i = 0; i < n; ++i) s += terms[static_cast<size_t>(i)];
    s /= n;
    if (std::isfinite(static_cast<double>(s))) {
      long double c = 0.0;
      for (R_xlen_t i = 0; i < n; ++i) c += (terms[static_cast<size_t>(i)] - s);
      s += c / n;
    }
    score[k] = static_cast<double>(s);
  }
}

/**
 * The censoring survival G at t (1 before its first time), as R's
 * c(1, G$surv)[findInterval(t, G$time, left.open = left) + 1]: with `left`,
 * its left limit G(t-).
 */
double censoring_at(const Rcpp::NumericVector& g_time, const Rcpp::NumericVector& g_surv, double t,
                    bool left) {
  if (std::isnan(t)) return NA_REAL;
  const double* begin = g_time.begin();
  const double* end = g_time.end();
  const R_xlen_t before = left ? std::lower_bound(begin, end, t) - begin
                               : std::upper_bound(begin, end, t) - begin;
  return before == 0 ? 1.0 : g_surv[before - 1];
}

}  // namespace

//' The integrated Brier score of incidences `cif` (rows x times, or one row
//' that is every row's: a null model's) of one
//' cause (R/task-survival-oob.R's integrated_brier(), whose arithmetic this
//' is, operation for operation): the weights from the censoring survival
//' (g_time, g_surv), the score at each of `times` (brier_scores()), then
//' the trapezoids' sum (long double, as R's sum()) over the times' range;
//' NA if G reaches 0 at one of the times, the one score for a single time.
//' @noRd
// [[Rcpp::export(rng = false)]]
double ccf_integrated_brier_cpp(const Rcpp::NumericMatrix& cif, const Rcpp::NumericVector& time,
                                const Rcpp::IntegerVector& status, int cause,
                                const Rcpp::NumericVector& times,
                                const Rcpp::NumericVector& g_time,
                                const Rcpp::NumericVector& g_surv) {
  const R_xlen_t n = time.size(), n_time = times.size();
  const bool one_curve = cif.nrow() == 1 && n != 1;
  if ((cif.nrow() != n && !one_curve) || cif.ncol() != n_time || status.size() != n || n_time < 1 ||
      g_surv.size() != g_time.size()) {
    Rcpp::stop("ccf_integrated_brier_cpp: inconsistent sizes");
  }
  std::vector<double> g_times(static_cast<size_t>(n_time));
  for (R_xlen_t k = 0; k < n_time; ++k) {
    g_times[static_cast<size_t>(k)] = censoring_at(g_time, g_surv, times[k], false);
    if (g_times[static_cast<size_t>(k)] <= 0) return NA_REAL;
  }
  std::vector<double> event_weight(static_cast<size_t>(n));
  for (R_xlen_t i = 0; i < n; ++i) {
    const double g = censoring_at(g_time, g_surv, time[i], true);
    event_weight[static_cast<size_t>(i)] = std::isnan(g) ? NA_REAL : (g > 0 ? 1 / g : 0.0);
  }
  std::vector<double> score(static_cast<size_t>(n_time));
  brier_scores(cif.begin(), one_curve, time.begin(), status.begin(), cause, n, times.begin(),
               event_weight.data(), g_times.data(), n_time, score.data());
  if (n_time == 1) return score[0];
  long double sum = 0.0;
  for (R_xlen_t k = 0; k + 1 < n_time; ++k) {
    sum += (times[k + 1] - times[k]) * (score[static_cast<size_t>(k + 1)] + score[static_cast<size_t>(k)]) / 2;
  }
  const double range = *std::max_element(times.begin(), times.end()) -
                       *std::min_element(times.begin(), times.end());
  return static_cast<double>(sum) / range;
}

//' Harrell's C's pair counts of a risk score, as survival::concordance()
//' counts them with `reverse = TRUE`: over pairs of an event row i and a row
//' j that outlived it (a later time, or the same time censored), whether
//' i's risk is larger (concordant), smaller (discordant) or equal (tied).
//' Every pair is visited: for the small sets where concordance()'s set-up
//' costs more than the count. Each pair adds its comparisons to whole
//' counts, without a branch: which way a pair goes is a coin toss.
//' @noRd
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector ccf_concordance_counts_cpp(Rcpp::NumericVector risk, Rcpp::NumericVector time,
                                               Rcpp::LogicalVector event) {
  const R_xlen_t n = risk.size();
  if (time.size() != n || event.size() != n) Rcpp::stop("ccf_concordance_counts_cpp: inconsistent sizes");
  int64_t concordant = 0, discordant = 0, tied = 0;
  for (R_xlen_t i = 0; i < n; ++i) {
    if (event[i] != TRUE) continue;
    const double ti = time[i];
    const double ri = risk[i];
    for (R_xlen_t j = 0; j < n; ++j) {
      // Row j outlived row i: a later time, or the same time censored.
      const int64_t pair = (time[j] > ti) | ((time[j] == ti) & (event[j] != TRUE));
      const double rj = risk[j];
      const int64_t above = ri > rj, below = ri < rj;
      concordant += pair & above;
      discordant += pair & below;
      tied += pair & (1 - (above | below));
    }
  }
  return Rcpp::NumericVector::create(static_cast<double>(concordant), static_cast<double>(discordant),
                                     static_cast<double>(tied));
}
