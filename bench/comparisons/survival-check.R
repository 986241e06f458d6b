#!/usr/bin/env Rscript
# Checks bench/comparisons/survival.R's own metric code against riskRegression::Score on
# fixed examples: the IPCW Brier score (and its integral), and the IPCW
# time-dependent AUC of a competing-risk CIF.
#
#   RISKREGRESSION_LIB=/path/to/lib Rscript bench/comparisons/survival-check.R
#
# riskRegression is not on this machine, and CRAN's current version needs rms,
# which needs R >= 4.4.0. Debian bookworm has it built for this R
# (r-cran-riskregression 2022.11.28), so for the check it was unpacked into a
# private directory, leaving the machine's library alone:
#
#   mkdir -p /tmp/rr-debs && cd /tmp/rr-debs
#   apt-get download $(apt-get install -s r-cran-riskregression | awk '/^Inst/ {print $2}')
#   for f in *.deb; do dpkg-deb -x "$f" /tmp/rr-root; done
#   RISKREGRESSION_LIB=/tmp/rr-root/usr/lib/R/site-library Rscript bench/comparisons/survival-check.R
#
# riskRegression estimates the censoring distribution on the data it scores,
# so here survival.R's functions get the held-out rows' own reverse
# Kaplan-Meier estimate too (survival.R itself uses the training split's).
# Both compute the Brier score with weights 1/G(T_i-) for events by t and
# 1/G(t) for rows still at risk. What it prints goes to
# bench/results/survival-check.md (--riskregression-lib PATH or
# RISKREGRESSION_LIB: the library holding riskRegression).

source(file.path(local({
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(f[1L]) else "bench"
}), "survival.R"))
BENCH_OPT <- bench_start(values = "riskregression-lib",
                         env = c("riskregression-lib" = "RISKREGRESSION_LIB"))
rr_lib <- bench_value(BENCH_OPT, "riskregression-lib", "")
if (nzchar(rr_lib)) .libPaths(c(.libPaths(), rr_lib))  # last: it must not shadow anything
if (!requireNamespace("riskRegression", quietly = TRUE)) {
  stop("riskRegression is needed (see the header for RISKREGRESSION_LIB)", call. = FALSE)
}
bench_record("survival-check", "survival.R's metrics against riskRegression::Score")
suppressPackageStartupMessages({
  library(survival)
  library(prodlim)
})
cat(sprintf("riskRegression %s (%s), prodlim %s, survival %s\n",
            utils::packageVersion("riskRegression"), dirname(find.package("riskRegression")),
            utils::packageVersion("prodlim"), utils::packageVersion("survival")))

worst <- 0
report <- function(label, ours, theirs) {
  diff <- max(abs(ours - theirs))
  worst <<- max(worst, diff)
  cat(sprintf("%-58s max |ours - riskRegression| = %.2e  (values %.4f .. %.4f)\n", label, diff,
              min(ours), max(ours)))
}

# ---- Brier score and IBS: pbc, a Cox model fitted on a training split, scored on the rest
d <- survival_data("pbc")
tr <- split_rows(d$status, seed = 1L)
train <- d[tr, ]
test <- d[-tr, ]
times <- brier_times(test$time)
cox <- coxph(Surv(time, status) ~ ., data = train, x = TRUE)
surv_cox <- t(summary(survfit(cox, newdata = test), times = times, extend = TRUE)$surv)
km <- survfit(Surv(time, status) ~ 1, data = train)
surv_km <- matrix(step_at(matrix(km$surv, 1L), km$time, times), nrow(test), length(times),
                  byrow = TRUE)

G_test <- censoring_survival(test$time, test$status)
ours_cox <- ipcw_brier(surv_cox, test$time, test$status, times, G_test)
ours_km <- ipcw_brier(surv_km, test$time, test$status, times, G_test)

sc <- riskRegression::Score(list(cox = 1 - surv_cox, km = 1 - surv_km),
                            formula = Hist(time, status) ~ 1, data = test, times = times,
                            metrics = "brier", null.model = FALSE, cens.model = "km",
                            se.fit = FALSE, conservative = TRUE)
theirs <- as.data.frame(sc$Brier$score)
report("pbc Brier(t), Cox predictions, 50 times", ours_cox, theirs$Brier[theirs$model == "cox"])
report("pbc Brier(t), training Kaplan-Meier, 50 times", ours_km, theirs$Brier[theirs$model == "km"])
ibs_ours <- integrate_mean(ours_cox, times)
ibs_theirs <- integrate_mean(theirs$Brier[theirs$model == "cox"], times)
report("pbc IBS (trapezoid over their Brier(t))", ibs_ours, ibs_theirs)
ipa_ours <- 1 - ibs_ours / integrate_mean(ours_km, times)
ipa_theirs <- 1 - ibs_theirs / integrate_mean(theirs$Brier[theirs$model == "km"], times)
report("pbc IPA", ipa_ours, ipa_theirs)

# Ties between event and censoring times, and censoring before the first
# event: lung's times have both.
d <- survival_data("lung")
tr <- split_rows(d$status, seed = 2L)
train <- d[tr, ]
test <- d[-tr, ]
times <- brier_times(test$time)
cox <- coxph(Surv(time, status) ~ ., data = train)
surv_cox <- t(summary(survfit(cox, newdata = test), times = times, extend = TRUE)$surv)
G_test <- censoring_survival(test$time, test$status)
ours <- ipcw_brier(surv_cox, test$time, test$status, times, G_test)
sc <- riskRegression::Score(list(cox = 1 - surv_cox), formula = Hist(time, status) ~ 1,
                            data = test, times = times, metrics = "brier", null.model = FALSE,
                            cens.model = "km", se.fit = FALSE, conservative = TRUE)
theirs <- as.data.frame(sc$Brier$score)
report("lung Brier(t), Cox predictions, 50 times", ours, theirs$Brier)

# ---- Competing risks AUC: mgus2, cause-specific Cox CIFs at 60 and 120 months
d <- mgus2_data()
tr <- split_rows(d$event, seed = 3L)
train <- d[tr, ]
test <- d[-tr, ]
train$id <- seq_len(nrow(train))
fit <- coxph(Surv(time, event) ~ age + sex + hgb + creat + mspike, data = train, id = id)
taus <- c(60, 120)
ps <- summary(survfit(fit, newdata = test), times = taus, extend = TRUE)$pstate
code <- as.integer(test$event) - 1L
G_test <- censoring_survival(test$time, as.integer(code > 0))
test_rr <- data.frame(time = test$time, event = code)
for (k in 1:2) {
  cif <- ps[, , match(levels(d$event)[k + 1L], fit$states)]  # taus x rows
  cif <- t(matrix(cif, length(taus)))
  ours <- vapply(seq_along(taus), function(j) {
    ipcw_auc_cr(cif[, j], test$time, code, k, taus[j], G_test)
  }, numeric(1))
  sc <- riskRegression::Score(list(cox = cif), formula = Hist(time, event) ~ 1, data = test_rr,
                              times = taus, cause = k, metrics = "auc", null.model = FALSE,
                              cens.model = "km", se.fit = FALSE, conservative = TRUE)
  theirs <- as.data.frame(sc$AUC$score)$AUC
  report(sprintf("mgus2 AUC of CIF_%s at 60 and 120 months", levels(d$event)[k + 1L]), ours, theirs)
}

cat(sprintf("largest difference: %.2e (%s)\n", worst,
            if (worst < 1e-8) "agreement to rounding" else "DISAGREEMENT"))
bench_finish()
