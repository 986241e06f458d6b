#!/usr/bin/env Rscript
# Survival forests: ccforest next to aorsf, ranger and randomForestSRC on
# right-censored data, and competing risks on mgus2 (issue 24, point 8).
#
#   Rscript bench/comparisons/survival.R               # full run: 20 splits, 500 trees
#   Rscript bench/comparisons/survival.R --quick       # 2 splits, 50 trees (writes *.tmp files)
#   Rscript bench/comparisons/survival.R --splits 10 --trees 200 --datasets veteran,pbc
#
# Written before ccforest's survival forests exist: the script first tries a
# tiny ccforest(Surv(time, status) ~ ., ...) fit and predict(type =
# "survival") in a child process (and type = "cif" for competing risks); if
# that fails, ccforest's rows are left out and the report says why. The
# competitors run today.
#
# Learners (each fit in a fresh R process through callr, 2 threads, the same
# number of trees, 500 by default; every other setting each package's
# default, except as noted):
#   ccforest  ccforest(Surv(time, status) ~ ., data, n_tree, n_thread, seed)
#   aorsf     orsf(data, Surv(time, status) ~ ., n_tree, n_thread) with
#             oobag_pred_type = "none", importance = "none" and attach_data =
#             FALSE: out-of-bag predictions and ANOVA importance are work
#             ccforest does not do by default, and the attached copy of the
#             data would count in the model's size (as in bench/comparisons/speed.R)
#   ranger    ranger(Surv(time, status) ~ ., data, num.trees, num.threads,
#             seed): log-rank splits, min.node.size 3, out-of-bag C computed
#             (its defaults)
#   randomForestSRC  rfsrc(Surv(time, status) ~ ., data, ntree, seed), with
#             options(rf.cores = 2); only where CRAN's current version
#             installs (it needs R >= 4.3.0, so not on R 4.2). Its code here
#             follows its documentation and has not run yet: its curves are
#             at its own time grid (ntime = 150 by default), read as step
#             functions at the times needed.
# ranger, aorsf and randomForestSRC are CRAN's current versions, installed by
# bench/common.R into the git-ignored bench/lib/ on the first run; the report
# names every version and library.
#
# Data (survival package; complete cases of the predictors named):
#   veteran  137 rows: trt, celltype, karno, diagtime, age, prior
#   pbc      276 rows: the 17 usual predictors (trt, age, sex, ascites,
#            hepato, spiders, edema, bili, chol, albumin, copper, alk.phos,
#            ast, trig, platelet, protime, stage); event = death (status 2),
#            transplant (status 1) censored
#   lung     168 rows: age, sex, ph.ecog, ph.karno, pat.karno, meal.cal,
#            wt.loss (inst, an institution code, left out); event = status 2
#   colon    888 rows: the death records (etype 2): rx, sex, age, obstruct,
#            perfor, adhere, nodes, differ, extent, surg, node4
#   gbsg     686 rows: age, meno, size, grade, nodes, pgr, er, hormon;
#            recurrence-free survival (rfstime, status)
# Splits: `splits` repeated random 2/3 - 1/3 train/test splits per data set,
# stratified by the event indicator, drawn from a seed that depends only on
# the data set and the split: every learner gets the same splits.
#
# Metrics, on the held-out third:
#   C        Harrell's C (survival::concordance, ties in the risk count 1/2)
#            of a risk score computed the same way for every learner: the
#            ensemble cumulative hazard summed over the training split's
#            distinct event times, sum_j H(t_j | x) (randomForestSRC's
#            "mortality"), from each learner's predicted cumulative hazard at
#            those times (ranger: its chf, whose columns are exactly those
#            times; aorsf: pred_type = "chf"; ccforest: type = "chf", or
#            type = "risk", its own definition of the same sum, if "chf" is
#            refused). Larger = higher risk.
#   IBS, IPA the integrated Brier score over 50 equally spaced times from the
#            10th to the 75th percentile of the held-out observed times
#            (trapezoid rule, divided by the interval's length), each Brier
#            score weighted by the inverse probability of censoring (Graf et
#            al. 1999): (1/n) sum_i [ S_i(t)^2 1{T_i <= t, d_i = 1} / G(T_i-)
#            + (1 - S_i(t))^2 1{T_i > t} / G(t) ], G the reverse Kaplan-Meier
#            estimate of the censoring distribution on the training split
#            (events before censorings at tied times).
#            IPA = 1 - IBS / IBS of the training split's Kaplan-Meier curve
#            (the null model; larger is better, 0 = no better than KM).
#            bench/comparisons/survival-check.R checks these against riskRegression.
#   train s, predict s   wall-clock seconds of the fit, and of predicting the
#            held-out survival curves at the 50 times (2 threads)
#   model MB length(serialize(fit, NULL)) / 2^20
# Competing risks, mgus2 (1,338 rows with complete age, sex, hgb, creat,
# mspike; time to progression to plasma cell malignancy "pcm" or death
# without it "death", months; survival's multi-state Surv with a factor event
# whose first level is censoring):
#   learners ccforest (type = "cif"), randomForestSRC (where it installs),
#            and two references that always run: the Aalen-Johansen estimator
#            of the training split (no covariates: every row gets the same
#            CIF, AUC 1/2) and cause-specific Cox models (survival::coxph on
#            the multi-state Surv, linear in the five predictors, CIFs from
#            survfit()).
#   AUC(tau) per cause k at tau = 120 months: the inverse-probability-of-
#            censoring weighted time-dependent AUC of the predicted CIF_k(tau)
#            (Blanche, Dartigues and Jacqmin-Gadda 2013, their definition 2):
#            cases are rows with an observed cause-k event by tau (weight
#            1/G(T_i-)), controls all others known to be free of cause k by
#            tau: event-free at tau (weight 1/G(tau)) or with the other cause
#            by tau (weight 1/G(T_j-)); rows censored before tau get weight 0;
#            AUC = weighted share of case-control pairs ranked correctly (ties
#            1/2). G: reverse Kaplan-Meier on the training split.
# Summary: mean and sd over splits for every learner; ratios of means to
# aorsf (survival) or to the cause-specific Cox model (competing risks); for
# C and IPA the paired difference to aorsf with the Nadeau-Bengio corrected
# standard error, sqrt((1/J + 1/2) var(d)), which allows for the overlap of
# repeated random splits (n_test / n_train = 1/2).
#
# Output: bench/results/survival.md and survival.csv (one row per data set x
# split x learner); --quick or a partial run (--datasets, --splits, --trees)
# writes *.tmp files.
#
# Give --lib PATH (or set CCFOREST_LIB) to a library path to benchmark a ccforest installed there.

# (bench/comparisons/survival-check.R sources this file for its metric functions.)
source(file.path(local({
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(f[1L]) else "bench"
}), "..", "common.R"))
# Run as a script, it parses its arguments; the scripts that source it for
# its functions have parsed their own.
if (sys.nframe() == 0L) {
  BENCH_OPT <- bench_start(values = c("splits", "trees", "datasets"), threads = TRUE, quick = TRUE)
}

N_THREAD <- bench_threads(2L)
N_GRID <- 50L
CR_HORIZON <- 120
SURV_SETS <- c("veteran", "pbc", "lung", "colon", "gbsg")
SURV_COMPETITORS <- c("aorsf", "ranger", "randomForestSRC")

# ---------------------------------------------------------------------------
# Data

survival_data <- function(name) {
  get_data <- function(x) eval(call("::", as.name("survival"), as.name(x)))
  d <- switch(name,
    veteran = {
      v <- get_data("veteran")
      data.frame(time = v$time, status = as.integer(v$status), v[c("trt", "celltype", "karno",
                                                                    "diagtime", "age", "prior")])
    },
    pbc = {
      p <- get_data("pbc")
      vars <- c("trt", "age", "sex", "ascites", "hepato", "spiders", "edema", "bili", "chol",
                "albumin", "copper", "alk.phos", "ast", "trig", "platelet", "protime", "stage")
      data.frame(time = p$time, status = as.integer(p$status == 2), p[vars])
    },
    lung = {
      l <- get_data("lung")
      data.frame(time = l$time, status = as.integer(l$status == 2),
                 l[c("age", "sex", "ph.ecog", "ph.karno", "pat.karno", "meal.cal", "wt.loss")])
    },
    colon = {
      k <- get_data("colon")
      k <- k[k$etype == 2, ]
      data.frame(time = k$time, status = as.integer(k$status),
                 k[c("rx", "sex", "age", "obstruct", "perfor", "adhere", "nodes", "differ",
                     "extent", "surg", "node4")])
    },
    gbsg = {
      g <- get_data("gbsg")
      data.frame(time = g$rfstime, status = as.integer(g$status),
                 g[c("age", "meno", "size", "grade", "nodes", "pgr", "er", "hormon")])
    },
    stop("unknown data set: ", name, call. = FALSE)
  )
  d <- d[stats::complete.cases(d), ]
  rownames(d) <- NULL
  d
}

mgus2_data <- function() {
  m <- survival::mgus2
  pcm <- m$pstat == 1
  d <- data.frame(
    time = ifelse(pcm, m$ptime, m$futime),
    event = factor(ifelse(pcm, 1L, 2L * m$death), 0:2, c("censor", "pcm", "death")),
    m[c("age", "sex", "hgb", "creat", "mspike")]
  )
  d <- d[stats::complete.cases(d), ]
  rownames(d) <- NULL
  d
}

# Row indices of the training part of split `s`: 2/3 of each stratum.
split_rows <- function(strata, seed) {
  set.seed(seed)
  sort(unlist(lapply(split(seq_along(strata), strata), function(rows) {
    rows[sample.int(length(rows), round(2 * length(rows) / 3))]
  }), use.names = FALSE))
}

# ---------------------------------------------------------------------------
# Metrics

# The censoring distribution's survival function G, by the reverse
# Kaplan-Meier estimator (censorings are the events), as a step function.
# Where an event and a censoring share a time the event comes first, so the
# rows with an event at t are no longer at risk of censoring at t:
# G(t) = prod_{s <= t} (1 - c(s) / (r(s) - e(s))), r = rows with time >= s,
# c and e the censorings and events at s (prodlim's reverse = TRUE does the
# same; survfit(Surv(time, 1 - status)) would keep the events at risk).
censoring_survival <- function(time, status) {
  u <- sort(unique(time))
  censored <- tabulate(match(time[status == 0], u), length(u))
  events <- tabulate(match(time[status == 1], u), length(u))
  at_risk <- rev(cumsum(rev(tabulate(match(time, u), length(u)))))
  free <- at_risk - events
  factor <- ifelse(free > 0, 1 - censored / pmax(free, 1), 1)
  list(time = u, surv = cumprod(factor))
}

# G(t), or its left limit G(t-) (no jump at t itself).
eval_G <- function(G, t, left = FALSE) {
  c(1, G$surv)[findInterval(t, G$time, left.open = left) + 1L]
}

# IPCW Brier score at each of `times` (Graf et al. 1999) of survival
# probabilities `surv` (rows x times) for held-out rows (time, status).
ipcw_brier <- function(surv, time, status, times, G) {
  stopifnot(nrow(surv) == length(time), ncol(surv) == length(times))
  g_event <- eval_G(G, time, left = TRUE)
  g_times <- eval_G(G, times)
  # Only events up to the last time are weighted by G(T-): a held-out event
  # after the training split's last (censored) time has G(T-) = 0 and no term.
  if (any(g_times <= 0) || any(g_event[status == 1 & time <= max(times)] <= 0)) {
    stop("the censoring survival reaches 0 inside the Brier score's times")
  }
  vapply(seq_along(times), function(k) {
    t <- times[k]
    died <- time <= t & status == 1
    alive <- time > t
    mean(ifelse(died, surv[, k]^2 / g_event, 0) + ifelse(alive, (1 - surv[, k])^2 / g_times[k], 0))
  }, numeric(1))
}

# Mean of f over [min(times), max(times)] by the trapezoid rule.
integrate_mean <- function(f, times) {
  sum(diff(times) * (f[-1L] + f[-length(f)]) / 2) / (max(times) - min(times))
}

# IBS grid: N_GRID equally spaced times from the 10th to the 75th percentile
# of the held-out observed times.
brier_times <- function(test_time) {
  q <- stats::quantile(test_time, c(0.10, 0.75), names = FALSE, type = 7)
  seq(q[1L], q[2L], length.out = N_GRID)
}

# Step function S(t) of a curve known at `curve_times`, at `times` (1 before
# the first time): for ranger's and randomForestSRC's curves.
step_at <- function(values, curve_times, times, before = 1) {
  idx <- findInterval(times, curve_times)
  cbind(before, values)[, idx + 1L, drop = FALSE]
}

harrell_c <- function(risk, time, status) {
  survival::concordance(survival::Surv(time, status) ~ risk, reverse = TRUE)$concordance
}

# IPCW time-dependent AUC at `tau` of `marker` for cause `cause` (Blanche et
# al. 2013, definition 2: other-cause events are controls). `event`: 0 =
# censored, otherwise the cause's code.
ipcw_auc_cr <- function(marker, time, event, cause, tau, G) {
  case <- time <= tau & event == cause
  control_late <- time > tau
  control_other <- time <= tau & event != 0 & event != cause
  w <- numeric(length(time))
  w[case | control_other] <- 1 / eval_G(G, time[case | control_other], left = TRUE)
  w[control_late] <- 1 / eval_G(G, tau)
  control <- control_late | control_other
  if (!any(case) || !any(control)) return(NA_real_)
  mc <- marker[case]
  mk <- marker[control]
  wk <- w[control]
  above <- outer(mc, mk, ">") + 0.5 * outer(mc, mk, "==")
  sum(w[case] * (above %*% wk)) / (sum(w[case]) * sum(wk))
}

# ---------------------------------------------------------------------------
# Learners, each in a fresh R process (callr::r). The function runs in the
# child: it is self-contained (callr sends it without its environment).

child_fit <- function(spec) {
  suppressPackageStartupMessages(library(survival))
  train <- spec$train
  test <- spec$test
  n_tree <- spec$n_tree
  n_thread <- spec$n_thread
  timed <- function(expr) {
    t <- system.time(value <- expr, gcFirst = FALSE)[["elapsed"]]
    list(value = value, s = t)
  }
  step_at <- function(values, curve_times, times, before) {
    idx <- findInterval(times, curve_times)
    cbind(before, values)[, idx + 1L, drop = FALSE]
  }
  out <- list(note = "")
  if (spec$task == "survival") {
    if (spec$learner == "ccforest") {
      fit <- timed(ccforest::ccforest(Surv(time, status) ~ ., data = train, n_tree = n_tree,
                                      n_thread = n_thread, seed = spec$seed, verbose = FALSE))
      pred <- timed(predict(fit$value, test, type = "survival", times = spec$times,
                            n_thread = n_thread))
      surv <- pred$value
      chf <- tryCatch(predict(fit$value, test, type = "chf", times = spec$event_times,
                              n_thread = n_thread), error = function(e) NULL)
      if (is.null(chf)) {
        out$risk <- as.numeric(predict(fit$value, test, type = "risk", n_thread = n_thread))
        out$note <- "ccforest: risk from predict(type = \"risk\")"
      } else {
        out$risk <- rowSums(chf)
      }
    } else if (spec$learner == "aorsf") {
      set.seed(spec$seed)  # orsf() draws its tree seeds from R's generator
      fit <- timed(aorsf::orsf(train, Surv(time, status) ~ ., n_tree = n_tree, n_thread = n_thread,
                               oobag_pred_type = "none", importance = "none",
                               attach_data = FALSE))
      pred <- timed(predict(fit$value, new_data = test, pred_type = "surv",
                            pred_horizon = spec$times, boundary_checks = FALSE,
                            n_thread = n_thread))
      surv <- pred$value
      chf <- predict(fit$value, new_data = test, pred_type = "chf",
                     pred_horizon = spec$event_times, boundary_checks = FALSE, n_thread = n_thread)
      out$risk <- rowSums(chf)
    } else if (spec$learner == "ranger") {
      fit <- timed(ranger::ranger(Surv(time, status) ~ ., data = train, num.trees = n_tree,
                                  num.threads = n_thread, seed = spec$seed))
      pred <- timed({
        p <- predict(fit$value, data = test, num.threads = n_thread)
        list(surv = step_at(p$survival, fit$value$unique.death.times, spec$times, before = 1),
             chf = p$chf)
      })
      surv <- pred$value$surv
      # ranger's curves are at the training split's distinct event times
      stopifnot(isTRUE(all.equal(fit$value$unique.death.times, spec$event_times)))
      out$risk <- rowSums(pred$value$chf)
    } else if (spec$learner == "randomForestSRC") {
      options(rf.cores = n_thread, mc.cores = 1L)
      fit <- timed(randomForestSRC::rfsrc(Surv(time, status) ~ ., data = train, ntree = n_tree,
                                          seed = -spec$seed))
      pred <- timed({
        p <- predict(fit$value, newdata = test)
        list(surv = step_at(p$survival, fit$value$time.interest, spec$times, before = 1),
             chf = step_at(p$chf, fit$value$time.interest, spec$event_times, before = 0))
      })
      surv <- pred$value$surv
      out$risk <- rowSums(pred$value$chf)
    } else {
      stop("unknown learner ", spec$learner)
    }
    out$surv <- unname(as.matrix(surv))
  } else {
    causes <- levels(train$event)[-1L]
    if (spec$learner == "ccforest") {
      fit <- timed(ccforest::ccforest(Surv(time, event) ~ ., data = train, n_tree = n_tree,
                                      n_thread = n_thread, seed = spec$seed, verbose = FALSE))
      pred <- timed(predict(fit$value, test, type = "cif", times = spec$horizon,
                            n_thread = n_thread))
      cif <- matrix(pred$value[, 1L, causes], nrow(test), length(causes))
    } else if (spec$learner == "randomForestSRC") {
      options(rf.cores = n_thread, mc.cores = 1L)
      train$event <- as.integer(train$event) - 1L
      test$event <- as.integer(test$event) - 1L
      fit <- timed(randomForestSRC::rfsrc(Surv(time, event) ~ ., data = train, ntree = n_tree,
                                          seed = -spec$seed))
      pred <- timed(predict(fit$value, newdata = test))
      idx <- findInterval(spec$horizon, fit$value$time.interest)
      cif <- if (idx == 0L) matrix(0, nrow(test), length(causes)) else
        matrix(pred$value$cif[, idx, ], nrow(test), length(causes))
    } else if (spec$learner %in% c("Aalen-Johansen", "cause-specific Cox")) {
      train$id <- seq_len(nrow(train))
      if (spec$learner == "Aalen-Johansen") {
        fit <- timed(survfit(Surv(time, event) ~ 1, data = train))
        pred <- timed(summary(fit$value, times = spec$horizon, extend = TRUE)$pstate)
        cif <- matrix(pred$value[1L, match(causes, fit$value$states)], nrow(test), length(causes),
                      byrow = TRUE)
      } else {
        fit <- timed(coxph(Surv(time, event) ~ age + sex + hgb + creat + mspike, data = train,
                           id = id))
        pred <- timed({
          sf <- survfit(fit$value, newdata = test)
          summary(sf, times = spec$horizon, extend = TRUE)$pstate
        })
        states <- fit$value$states
        cif <- matrix(pred$value[1L, , match(causes, states)], nrow(test), length(causes))
      }
    } else {
      stop("unknown learner ", spec$learner)
    }
    colnames(cif) <- causes
    out$cif <- cif
  }
  out$train_s <- fit$s
  out$predict_s <- pred$s
  out$model_mb <- length(serialize(fit$value, NULL)) / 2^20
  out
}

run_learner <- function(learner, spec) {
  spec$learner <- learner
  callr::r(child_fit, args = list(spec), libpath = learner_lib_paths(learner),
           show = FALSE, spinner = FALSE)
}

# Does this ccforest grow survival (or competing-risk) forests? A tiny fit and
# prediction in a child process; returns "" when it does, else the reason.
ccforest_feature <- function(task) {
  probe <- function(task) {
    suppressPackageStartupMessages(library(survival))
    if (task == "survival") {
      d <- survival::veteran[1:80, c("time", "status", "karno", "age")]
      fit <- ccforest::ccforest(Surv(time, status) ~ ., data = d, n_tree = 3L, n_thread = 1L,
                                seed = 1L, verbose = FALSE)
      p <- predict(fit, d[1:5, ], type = "survival", times = c(20, 100))
      ok <- is.matrix(p) && all(dim(p) == c(5L, 2L)) && all(p >= 0 & p <= 1) &&
        all(p[, 2L] <= p[, 1L])
      if (!ok) stop("predict(type = \"survival\") did not return a 5 x 2 matrix of survival probabilities")
    } else {
      m <- survival::mgus2[1:300, ]
      d <- data.frame(time = ifelse(m$pstat == 1, m$ptime, m$futime),
                      event = factor(ifelse(m$pstat == 1, 1L, 2L * m$death), 0:2,
                                     c("censor", "pcm", "death")),
                      age = m$age, hgb = m$hgb)
      d <- d[stats::complete.cases(d), ]
      fit <- ccforest::ccforest(Surv(time, event) ~ ., data = d, n_tree = 3L, n_thread = 1L,
                                seed = 1L, verbose = FALSE)
      p <- predict(fit, d[1:5, ], type = "cif", times = c(20, 100))
      ok <- length(dim(p)) == 3L && all(dim(p) == c(5L, 2L, 2L)) &&
        all(c("pcm", "death") %in% dimnames(p)[[3L]]) && all(p >= 0 & p <= 1)
      if (!ok) stop("predict(type = \"cif\") did not return a 5 x 2 x 2 array of incidences")
    }
    ""
  }
  tryCatch(callr::r(probe, args = list(task), libpath = learner_lib_paths("ccforest"),
                    show = FALSE, spinner = FALSE),
           error = function(e) {
             msg <- conditionMessage(if (!is.null(e$parent)) e$parent else e)
             gsub("\\s+", " ", trimws(msg))
           })
}

# ---------------------------------------------------------------------------
# Command line

survival_options <- function(o) {
  opt <- list(quick = bench_flag(o, "quick"), splits = bench_integer(o, "splits"),
              trees = bench_integer(o, "trees"), datasets = bench_list(o, "datasets"), cr = TRUE)
  if (!is.null(opt$datasets)) {
    opt$cr <- "mgus2" %in% opt$datasets
    opt$datasets <- setdiff(opt$datasets, "mgus2")
  }
  bad <- setdiff(opt$datasets, SURV_SETS)
  if (length(bad)) stop("unknown data set: ", paste(bad, collapse = ", "), call. = FALSE)
  opt
}

# ---------------------------------------------------------------------------
# Report helpers

fmt <- function(x, digits) {
  x <- x[!is.na(x)]
  if (!length(x)) return("–")
  if (length(x) == 1L) return(formatC(x, format = "f", digits = digits))
  sprintf("%s ± %s", formatC(mean(x), format = "f", digits = digits),
          formatC(stats::sd(x), format = "f", digits = digits))
}

# Paired difference a - b over splits with the Nadeau-Bengio corrected
# standard error (repeated random splits overlap; n_test / n_train = 1/2).
paired_diff <- function(a, b, digits = 3) {
  d <- a - b
  d <- d[!is.na(d)]
  if (length(d) < 2L) return("–")
  se <- sqrt((1 / length(d) + 0.5) * stats::var(d))
  sprintf("%+.*f ± %.*f", digits, mean(d), digits, se)
}

metric_table <- function(res, metric, learners, digits, reference, sets) {
  others <- setdiff(learners, reference)
  header <- c(paste0("| data set | ", paste(learners, collapse = " | "),
                     if (length(others) && reference %in% learners)
                       paste0(" | ", paste(paste0(others, " / ", reference), collapse = " | ")), " |"),
              paste0("|---|", paste(rep("---:", length(learners) + if (reference %in% learners)
                length(others) else 0L), collapse = "|"), "|"))
  rows <- vapply(sets, function(s) {
    r <- res[res$dataset == s, ]
    vals <- lapply(learners, function(l) r[[metric]][r$learner == l])
    cells <- vapply(vals, fmt, "", digits = digits)
    if (reference %in% learners) {
      ref <- mean(vals[[match(reference, learners)]], na.rm = TRUE)
      ratios <- vapply(others, function(l) {
        v <- vals[[match(l, learners)]]
        if (!length(v) || all(is.na(v)) || is.na(ref) || ref == 0) "–" else
          sprintf("%.2f", mean(v, na.rm = TRUE) / ref)
      }, "")
      cells <- c(cells, ratios)
    }
    paste0("| ", s, " | ", paste(cells, collapse = " | "), " |")
  }, "")
  c(header, rows)
}

# ---------------------------------------------------------------------------
# Main

main <- function() {
  opt <- survival_options(BENCH_OPT)
  n_split <- opt$splits %||% (if (opt$quick) 2L else 20L)
  n_tree <- opt$trees %||% (if (opt$quick) 50L else 500L)
  sets <- opt$datasets %||% SURV_SETS
  partial <- opt$quick || !is.null(opt$splits) || !is.null(opt$trees) || !is.null(opt$datasets)
  if (!requireNamespace("callr", quietly = TRUE)) stop("bench/comparisons/survival.R needs callr")

  out_dir <- results_dir()
  dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
  base <- if (opt$quick) "survival-quick" else "survival"
  suffix <- if (partial) ".tmp" else ""
  md_file <- file.path(out_dir, paste0(base, ".md", suffix))
  csv_file <- file.path(out_dir, paste0(base, ".csv", suffix))

  started_at <- Sys.time()
  machine <- machine_info()
  competitors <- use_competitors(SURV_COMPETITORS)
  cc_note <- ccforest_feature("survival")
  cc_cr_note <- if (opt$cr) ccforest_feature("competing") else "not run"
  learners <- c(if (!nzchar(cc_note)) "ccforest", competitors)
  if (!nzchar(cc_note)) cat("ccforest grows survival forests: included\n") else
    cat("ccforest left out: its survival forest is not available here (", cc_note, ")\n", sep = "")
  cat(sprintf("survival.R: %d splits, %d trees, %d threads; data sets: %s%s\n", n_split, n_tree,
              N_THREAD, paste(sets, collapse = ", "), if (opt$cr) ", mgus2 (competing risks)" else ""))
  cat(sprintf("load average at start: %s\n", machine$load))

  rows <- list()
  set_info <- list()
  for (di in seq_along(sets)) {
    name <- sets[di]
    d <- survival_data(name)
    set_info[[name]] <- list(n = nrow(d), p = ncol(d) - 2L, events = sum(d$status))
    t_set <- proc.time()[["elapsed"]]
    for (s in seq_len(n_split)) {
      tr <- split_rows(d$status, seed = 24000L + 100L * match(name, SURV_SETS) + s)
      train <- d[tr, ]
      test <- d[-tr, ]
      times <- brier_times(test$time)
      event_times <- sort(unique(train$time[train$status == 1]))
      G <- censoring_survival(train$time, train$status)
      km <- survival::survfit(survival::Surv(time, status) ~ 1, data = train)
      km_surv <- matrix(step_at(matrix(km$surv, 1L), km$time, times), nrow(test), length(times),
                        byrow = TRUE)
      ibs_km <- integrate_mean(ipcw_brier(km_surv, test$time, test$status, times, G), times)
      spec <- list(task = "survival", train = train, test = test, times = times,
                   event_times = event_times, n_tree = n_tree, n_thread = N_THREAD,
                   seed = 1000L * match(name, SURV_SETS) + s)
      for (learner in learners) {
        res <- tryCatch(run_learner(learner, spec), error = function(e) {
          cat(sprintf("  %s split %d %s failed: %s\n", name, s, learner,
                      conditionMessage(if (!is.null(e$parent)) e$parent else e)))
          NULL
        })
        if (is.null(res)) next
        ibs <- integrate_mean(ipcw_brier(res$surv, test$time, test$status, times, G), times)
        rows[[length(rows) + 1L]] <- data.frame(
          dataset = name, split = s, learner = learner, n_train = nrow(train),
          n_test = nrow(test), events_test = sum(test$status), n_tree = n_tree,
          c_index = harrell_c(res$risk, test$time, test$status), ibs = ibs, ibs_km = ibs_km,
          ipa = 1 - ibs / ibs_km, train_s = res$train_s, predict_s = res$predict_s,
          model_mb = res$model_mb, auc_1 = NA_real_, auc_2 = NA_real_, note = res$note,
          stringsAsFactors = FALSE)
      }
    }
    r <- do.call(rbind, rows)
    r <- r[r$dataset == name, ]
    cat(sprintf("[%s] %s (n = %d): %s [%.0f s]\n", format(Sys.time(), "%H:%M:%S"), name, nrow(d),
                paste(vapply(learners, function(l) sprintf("%s C %.3f IPA %.3f", l,
                  mean(r$c_index[r$learner == l]), mean(r$ipa[r$learner == l])), ""),
                  collapse = "; "), proc.time()[["elapsed"]] - t_set))
  }

  cr_learners <- character(0)
  if (opt$cr) {
    d <- mgus2_data()
    causes <- levels(d$event)[-1L]
    cr_learners <- c(if (!nzchar(cc_cr_note)) "ccforest",
                     intersect("randomForestSRC", competitors), "cause-specific Cox",
                     "Aalen-Johansen")
    set_info$mgus2 <- list(n = nrow(d), p = ncol(d) - 2L, events = table(d$event)[causes])
    t_set <- proc.time()[["elapsed"]]
    for (s in seq_len(n_split)) {
      tr <- split_rows(d$event, seed = 24900L + s)
      train <- d[tr, ]
      test <- d[-tr, ]
      code <- as.integer(test$event) - 1L
      G <- censoring_survival(train$time, as.integer(train$event != "censor"))
      spec <- list(task = "competing", train = train, test = test, horizon = CR_HORIZON,
                   n_tree = n_tree, n_thread = N_THREAD, seed = 9000L + s)
      for (learner in cr_learners) {
        res <- tryCatch(run_learner(learner, spec), error = function(e) {
          cat(sprintf("  mgus2 split %d %s failed: %s\n", s, learner,
                      conditionMessage(if (!is.null(e$parent)) e$parent else e)))
          NULL
        })
        if (is.null(res)) next
        auc <- vapply(seq_along(causes), function(k) {
          ipcw_auc_cr(res$cif[, causes[k]], test$time, code, k, CR_HORIZON, G)
        }, numeric(1))
        rows[[length(rows) + 1L]] <- data.frame(
          dataset = "mgus2", split = s, learner = learner, n_train = nrow(train),
          n_test = nrow(test), events_test = sum(code > 0), n_tree = n_tree,
          c_index = NA_real_, ibs = NA_real_, ibs_km = NA_real_, ipa = NA_real_,
          train_s = res$train_s, predict_s = res$predict_s, model_mb = res$model_mb,
          auc_1 = auc[1L], auc_2 = auc[2L], note = res$note, stringsAsFactors = FALSE)
      }
    }
    r <- do.call(rbind, rows)
    r <- r[r$dataset == "mgus2", ]
    cat(sprintf("[%s] mgus2 (n = %d): %s [%.0f s]\n", format(Sys.time(), "%H:%M:%S"), nrow(d),
                paste(vapply(cr_learners, function(l) sprintf("%s AUC %s %.3f, %s %.3f", l,
                  causes[1L], mean(r$auc_1[r$learner == l]), causes[2L],
                  mean(r$auc_2[r$learner == l])), ""), collapse = "; "),
                proc.time()[["elapsed"]] - t_set))
  }
  results <- do.call(rbind, rows)
  bench_write(results, csv_file)
  total_min <- as.numeric(difftime(Sys.time(), started_at, units = "mins"))

  # ---- report
  surv <- results[results$dataset %in% sets, ]
  ref <- "aorsf"
  lines <- c(
    report_header("Survival forests: ccforest next to aorsf, ranger and randomForestSRC",
                  csv_file = csv_file, packages = c("ccforest", SURV_COMPETITORS, "survival", "callr")),
    sprintf("| protocol | %d repeated random 2/3 - 1/3 splits per data set (stratified by event), the same for every learner; %d trees, %d threads; every fit in a fresh R process |",
            n_split, n_tree, N_THREAD),
    sprintf("| total run time | %.1f min; load average at end: %s |", total_min, machine_info()$load),
    "",
    if (nzchar(cc_note)) c(
      sprintf("**ccforest is not in these tables**: its survival forest is not available in this build (%s).", cc_note),
      ""),
    if (!"randomForestSRC" %in% competitors) c(
      sprintf("**randomForestSRC is not in these tables**: %s.",
              get("randomForestSRC", envir = BENCH_COMPETITORS)$note %||% "it did not install"), ""),
    "Data (complete cases): ",
    "",
    vapply(sets, function(s) sprintf("- %s: %d rows, %d predictors, %d events", s,
                                     set_info[[s]]$n, set_info[[s]]$p, set_info[[s]]$events), ""),
    "",
    "Mean ± sd over splits; the ratio columns are ratios of the means to aorsf's. The sd is the",
    "spread of single splits; the noise of a mean difference is the corrected standard error",
    "in the paired tables (Nadeau-Bengio, which allows for the overlap of the splits).",
    "",
    "## Harrell's C (larger is better)",
    "",
    "Risk score for every learner: the predicted ensemble cumulative hazard summed over the",
    "training split's distinct event times.",
    "",
    metric_table(surv, "c_index", learners, 3L, ref, sets),
    "",
    "## Index of prediction accuracy, IPA = 1 - IBS / IBS(Kaplan-Meier) (larger is better)",
    "",
    "IBS: IPCW integrated Brier score over 50 times from the 10th to the 75th percentile of the",
    "held-out times; censoring by reverse Kaplan-Meier on the training split; Kaplan-Meier of",
    "the training split as the null model.",
    "",
    metric_table(surv, "ipa", learners, 3L, ref, sets),
    "",
    "## Integrated Brier score (smaller is better)",
    "",
    metric_table(surv, "ibs", learners, 4L, ref, sets),
    "",
    "Kaplan-Meier's IBS (the IPA's denominator): ",
    "",
    vapply(sets, function(s) sprintf("- %s: %s", s,
      fmt(unique(surv[surv$dataset == s, c("split", "ibs_km")])$ibs_km, 4L)), ""),
    ""
  )
  if (ref %in% learners && length(setdiff(learners, ref))) {
    lines <- c(lines, "## Paired differences to aorsf (mean ± corrected standard error)", "",
               paste0("| data set | ", paste(sprintf("%s C - aorsf C | %s IPA - aorsf IPA",
                                                     setdiff(learners, ref), setdiff(learners, ref)),
                                             collapse = " | "), " |"),
               paste0("|---|", paste(rep("---:", 2L * length(setdiff(learners, ref))), collapse = "|"), "|"))
    for (s in sets) {
      r <- surv[surv$dataset == s, ]
      pick <- function(l, m) { x <- r[r$learner == l, ]; x[[m]][order(x$split)] }
      cells <- unlist(lapply(setdiff(learners, ref), function(l) c(
        paired_diff(pick(l, "c_index"), pick(ref, "c_index")),
        paired_diff(pick(l, "ipa"), pick(ref, "ipa")))))
      lines <- c(lines, paste0("| ", s, " | ", paste(cells, collapse = " | "), " |"))
    }
    lines <- c(lines, "")
  }
  lines <- c(lines,
    "## Training time, seconds (wall clock, 2 threads)", "",
    metric_table(surv, "train_s", learners, 2L, ref, sets), "",
    "## Prediction time, seconds: the held-out survival curves at the 50 times", "",
    metric_table(surv, "predict_s", learners, 3L, ref, sets), "",
    "## Model size, MB (`length(serialize(fit, NULL))`)", "",
    metric_table(surv, "model_mb", learners, 2L, ref, sets), "")
  notes <- unique(surv$note[nzchar(surv$note)])
  if (length(notes)) lines <- c(lines, paste("-", notes), "")
  if (opt$cr) {
    cr <- results[results$dataset == "mgus2", ]
    causes <- levels(mgus2_data()$event)[-1L]
    cr_ref <- if ("randomForestSRC" %in% cr_learners) "randomForestSRC" else "cause-specific Cox"
    ev <- set_info$mgus2$events
    lines <- c(lines,
      "## Competing risks: mgus2, time-dependent AUC per cause at 120 months (larger is better)",
      "",
      sprintf("%d rows, %d predictors (age, sex, hgb, creat, mspike); %d progressions (pcm), %d deaths without progression.",
              set_info$mgus2$n, set_info$mgus2$p, ev[[1L]], ev[[2L]]),
      if (nzchar(cc_cr_note)) sprintf("ccforest left out: its competing-risk forest is not available (%s).", cc_cr_note),
      "IPCW AUC of the predicted CIF at 120 months (Blanche et al. 2013, definition 2: rows with",
      "the other cause by then are controls; censoring by reverse Kaplan-Meier on the training",
      sprintf("split). Ratio columns: ratio of means to %s. Aalen-Johansen gives every row the", cr_ref),
      "same CIF (AUC 1/2 by construction): it shows the floor.",
      "")
    for (k in seq_along(causes)) {
      lines <- c(lines, sprintf("### cause %s", causes[k]), "",
                 metric_table(cr, paste0("auc_", k), cr_learners, 3L, cr_ref, "mgus2"), "")
    }
    lines <- c(lines, "### training time, seconds", "",
               metric_table(cr, "train_s", cr_learners, 2L, cr_ref, "mgus2"), "",
               "### model size, MB", "",
               metric_table(cr, "model_mb", cr_learners, 2L, cr_ref, "mgus2"), "")
  }
  bench_write(lines, md_file)
  cat(sprintf("wrote %s and %s (%.1f min)\n", md_file, csv_file, total_min))
}

if (sys.nframe() == 0L) main()
