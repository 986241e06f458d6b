// The inverse-probability-of-censoring weighted Brier score at each time
// (R/task-survival-oob.R's integrated_brier()), summed here: in R one pass
// per time was most of the fixed cost of a small survival fit.
#include <Rcpp.h>

#include <cmath>

//' The Brier score of incidences `cif` (rows x times) at each of `times`:
//' the mean over rows of w * (y - cif)^2, where a row with an event by t
//' has w = event_weight and y = 1 if it is of `cause`, a row still at risk
//' w = 1 / g_times (and y = 0), others w = 0. Each mean is R's mean(): a
//' long double sum divided by n, then corrected by the long double sum of
//' the differences, so the scores are bitwise R's.
//' @noRd
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector ccf_brier_scores_cpp(Rcpp::NumericMatrix cif, Rcpp::NumericVector time,
                                         Rcpp::IntegerVector status, int cause,
                                         Rcpp::NumericVector times, Rcpp::NumericVector event_weight,
                                         Rcpp::NumericVector g_times) {
  const R_xlen_t n = time.size(), n_time = times.size();
  if (cif.nrow() != n || cif.ncol() != n_time || status.size() != n || event_weight.size() != n ||
      g_times.size() != n_time) {
    Rcpp::stop("ccf_brier_scores_cpp: inconsistent sizes");
  }
  Rcpp::NumericVector score(n_time);
  std::vector<double> terms(static_cast<size_t>(n));
  for (R_xlen_t k = 0; k < n_time; ++k) {
    const double t = times[k];
    const double alive_weight = 1 / g_times[k];
    const double* p = &cif[static_cast<size_t>(k) * static_cast<size_t>(n)];
    for (R_xlen_t i = 0; i < n; ++i) {
      const bool ended = time[i] <= t && status[i] > 0;
      const double w = ended ? event_weight[i] : (time[i] > t ? alive_weight : 0.0);
      const double d = ((ended && status[i] == cause) ? 1.0 : 0.0) - p[i];
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
  return score;
}

//' Harrell's C's pair counts of a risk score, as survival::concordance()
//' counts them with `reverse = TRUE`: over pairs of an event row i and a row
//' j that outlived it (a later time, or the same time censored), whether
//' i's risk is larger (concordant), smaller (discordant) or equal (tied).
//' Every pair is visited: for the small sets where concordance()'s set-up
//' costs more than the count.
//' @noRd
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector ccf_concordance_counts_cpp(Rcpp::NumericVector risk, Rcpp::IntegerVector time,
                                               Rcpp::LogicalVector event) {
  const R_xlen_t n = risk.size();
  if (time.size() != n || event.size() != n) Rcpp::stop("ccf_concordance_counts_cpp: inconsistent sizes");
  double concordant = 0.0, discordant = 0.0, tied = 0.0;
  for (R_xlen_t i = 0; i < n; ++i) {
    if (event[i] != TRUE) continue;
    for (R_xlen_t j = 0; j < n; ++j) {
      if (!(time[j] > time[i] || (time[j] == time[i] && event[j] != TRUE))) continue;
      if (risk[i] > risk[j]) {
        concordant += 1.0;
      } else if (risk[i] < risk[j]) {
        discordant += 1.0;
      } else {
        tied += 1.0;
      }
    }
  }
  return Rcpp::NumericVector::create(concordant, discordant, tied);
}
