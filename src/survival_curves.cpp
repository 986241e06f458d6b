// The training rows' own curves that the out-of-bag scores of a survival
// forest need (R/task-survival-oob.R): the censoring distribution's survival
// (reverse Kaplan-Meier) and the null model's incidences (Kaplan-Meier, or
// Aalen-Johansen for several causes). Each repeats the arithmetic of the R
// code it replaced, operation for operation (a long double product where R
// took cumprod()), so the scores are bitwise as before; in R their sorting,
// matching and tabulating were a few per cent of a small fit.
#include <Rcpp.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

/** The distinct values of `values` that `keep` selects, sorted; NaN left out (R's sort(unique())). */
template <typename Keep>
std::vector<double> sorted_distinct(const Rcpp::NumericVector& values, Keep keep) {
  std::vector<double> out;
  out.reserve(static_cast<size_t>(values.size()));
  for (R_xlen_t i = 0; i < values.size(); ++i) {
    if (keep(i) && !std::isnan(values[i])) out.push_back(values[i]);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/** Position of `value` among the sorted distinct `u` (it is one of them). */
size_t position(const std::vector<double>& u, double value) {
  return static_cast<size_t>(std::lower_bound(u.begin(), u.end(), value) - u.begin());
}

}  // namespace

//' The censoring distribution's survival function G by the reverse
//' Kaplan-Meier estimator, at the distinct times: list(time, surv). At a
//' time shared by events and censorings the events come first (they are no
//' longer at risk of censoring there). Rows with a missing time take no
//' part; a missing status counts the row at risk only.
//' @noRd
// [[Rcpp::export(rng = false)]]
Rcpp::List ccf_censoring_survival_cpp(const Rcpp::NumericVector& time,
                                      const Rcpp::IntegerVector& status) {
  const R_xlen_t n = time.size();
  if (status.size() != n) Rcpp::stop("ccf_censoring_survival_cpp: inconsistent sizes");
  const std::vector<double> u = sorted_distinct(time, [](R_xlen_t) { return true; });
  const size_t m = u.size();
  std::vector<int> censored(m, 0), events(m, 0), rows(m, 0);
  for (R_xlen_t i = 0; i < n; ++i) {
    if (std::isnan(time[i])) continue;
    const size_t j = position(u, time[i]);
    ++rows[j];
    if (status[i] == NA_INTEGER) continue;
    if (status[i] == 0) ++censored[j];
    if (status[i] > 0) ++events[j];
  }
  Rcpp::NumericVector out_time(u.begin(), u.end());
  Rcpp::NumericVector surv(static_cast<R_xlen_t>(m));
  int at_risk = 0;
  for (size_t j = m; j-- > 0;) {
    at_risk += rows[j];
    rows[j] = at_risk;
  }
  long double product = 1.0;
  for (size_t j = 0; j < m; ++j) {
    const int free = rows[j] - events[j];
    const double factor =
        free > 0 ? 1 - static_cast<double>(censored[j]) / static_cast<double>(std::max(free, 1)) : 1.0;
    product *= factor;
    surv[static_cast<R_xlen_t>(j)] = static_cast<double>(product);
  }
  return Rcpp::List::create(Rcpp::Named("time") = out_time, Rcpp::Named("surv") = surv);
}

//' The Aalen-Johansen estimate of the rows' cumulative incidences
//' (Kaplan-Meier for one cause) at each of `times`: a times x causes matrix.
//' Rows at risk at an event time are those not ended before it; an event
//' of cause k (status k in 1..n_cause) adds S(t-) d_k / at risk.
//' @noRd
// [[Rcpp::export(rng = false)]]
Rcpp::NumericMatrix ccf_null_incidence_cpp(const Rcpp::NumericVector& time,
                                           const Rcpp::IntegerVector& status, int n_cause,
                                           const Rcpp::NumericVector& times) {
  const R_xlen_t n = time.size();
  if (status.size() != n || n_cause < 1) Rcpp::stop("ccf_null_incidence_cpp: inconsistent sizes");
  auto ended = [&](R_xlen_t i) { return status[i] != NA_INTEGER && status[i] > 0; };
  const std::vector<double> u = sorted_distinct(time, ended);
  const size_t m = u.size(), causes = static_cast<size_t>(n_cause);
  std::vector<double> sorted;
  sorted.reserve(static_cast<size_t>(n));
  for (R_xlen_t i = 0; i < n; ++i) {
    if (!std::isnan(time[i])) sorted.push_back(time[i]);
  }
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> events(m * causes, 0);
  for (R_xlen_t i = 0; i < n; ++i) {
    if (!ended(i) || std::isnan(time[i]) || status[i] > n_cause) continue;
    events[position(u, time[i]) * causes + static_cast<size_t>(status[i] - 1)] += 1;
  }
  // cif[k * causes + c]: the incidence of cause c just after u[k].
  std::vector<double> cif(m * causes), running(causes, 0.0);
  double s = 1;
  for (size_t k = 0; k < m; ++k) {
    // Rows not ended before u[k] (a missing time counts as at risk).
    const int at_risk = static_cast<int>(n) -
        static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), u[k]) - sorted.begin());
    int ended_here = 0;
    for (size_t c = 0; c < causes; ++c) {
      const int d = events[k * causes + c];
      ended_here += d;
      running[c] = running[c] + s * d / at_risk;
      cif[k * causes + c] = running[c];
    }
    s = s * (1 - static_cast<double>(ended_here) / at_risk);
  }
  const R_xlen_t n_time = times.size();
  Rcpp::NumericMatrix out(n_time, n_cause);
  for (R_xlen_t t = 0; t < n_time; ++t) {
    if (std::isnan(times[t])) {
      for (size_t c = 0; c < causes; ++c) out(t, static_cast<R_xlen_t>(c)) = NA_REAL;
      continue;
    }
    const size_t reached = static_cast<size_t>(std::upper_bound(u.begin(), u.end(), times[t]) - u.begin());
    for (size_t c = 0; c < causes; ++c) {
      out(t, static_cast<R_xlen_t>(c)) = reached == 0 ? 0.0 : cif[(reached - 1) * causes + c];
    }
  }
  return out;
}
