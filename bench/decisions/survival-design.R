#!/usr/bin/env Rscript
# Design measurements of ccforest's survival forests (issue 24): settings of
# ccforest against aorsf on the splits bench/comparisons/survival.R uses (the same split
# and learner seeds), in one process, for choosing the defaults.
#
#   Rscript bench/run.R survival-design configs.R 6 200 out.rds [sets] [--lib /tmp/lib]
#
# configs.R returns a named list of configurations: list(learner = "aorsf"),
# or list(args = <ccforest() arguments, or a function of the training split
# returning them>, options = <options() set during the fit>). The option
# ccforest.survival_intervals (periods of the CCA's martingale residuals) is
# read by the package for such measurements; the least events in a leaf,
# measured as the option ccforest.survival_min_events, is now the argument
# min_events (give it in `args`); the estimator alternatives of
# bench/results/survival-design.md (ccforest.survival_average) were measured
# at commit e10361f and removed after. Data sets: bench/comparisons/survival.R's five,
# and rotterdam and flchain (survival package) as larger ones. Each split's
# C-index and IPA (as in bench/comparisons/survival.R) per configuration go to out.rds;
# means are printed per data set. Timings are not comparable (one process,
# shared machine).
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L]))
source(file.path(here, "..", "comparisons", "survival.R"))
BENCH_OPT <- bench_start(positional = TRUE)
args <- BENCH_OPT$positional
if (!length(args) %in% 4:5) {
  stop("usage: survival-design.R configs.R SPLITS TREES out.rds [sets]", call. = FALSE)
}
n_split <- as_count(args[2], "SPLITS"); n_tree <- as_count(args[3], "TREES"); out <- args[4]
if (!grepl("[.]rds$", out)) stop(sprintf("the results file must end in .rds, not '%s'", out), call. = FALSE)
.libPaths(c(ccforest_libraries(), competitor_library(), .libPaths()))
suppressPackageStartupMessages({library(survival); library(ccforest)})
configs <- source(args[1])$value
sets <- if (length(args) >= 5) strsplit(args[5], ",")[[1]] else SURV_SETS
extra_data <- function(name) {
  d <- switch(name,
    flchain = {
      f <- survival::flchain
      f <- f[f$futime > 0, ]
      data.frame(time = f$futime, status = f$death,
                 f[c("age", "sex", "sample.yr", "kappa", "lambda", "flc.grp", "mgus")])
    },
    rotterdam = {
      r <- survival::rotterdam
      data.frame(time = r$rtime, status = r$recur,
                 r[c("year", "age", "meno", "size", "grade", "nodes", "pgr", "er", "hormon",
                     "chemo")])
    })
  d <- d[stats::complete.cases(d), ]
  rownames(d) <- NULL
  d
}
res <- list()
for (name in sets) {
  d <- if (name %in% SURV_SETS) survival_data(name) else extra_data(name)
  set_no <- match(name, c(SURV_SETS, "flchain", "rotterdam"))
  for (s in seq_len(n_split)) {
    tr <- split_rows(d$status, seed = 24000L + 100L * set_no + s)
    train <- d[tr, ]
    test <- d[-tr, ]
    times <- brier_times(test$time)
    event_times <- sort(unique(train$time[train$status == 1]))
    G <- censoring_survival(train$time, train$status)
    km <- survfit(Surv(time, status) ~ 1, data = train)
    km_surv <- matrix(step_at(matrix(km$surv, 1L), km$time, times), nrow(test), length(times),
                      byrow = TRUE)
    ibs_km <- integrate_mean(ipcw_brier(km_surv, test$time, test$status, times, G), times)
    seed <- 1000L * set_no + s
    for (cn in names(configs)) {
      cfg <- configs[[cn]]
      if (identical(cfg$learner, "aorsf")) {
        set.seed(seed)
        fit <- aorsf::orsf(train, Surv(time, status) ~ ., n_tree = n_tree, n_thread = 2,
                           oobag_pred_type = "none", importance = "none", attach_data = FALSE)
        surv <- predict(fit, new_data = test, pred_type = "surv", pred_horizon = times,
                        boundary_checks = FALSE)
        chf <- predict(fit, new_data = test, pred_type = "chf", pred_horizon = event_times,
                       boundary_checks = FALSE)
        risk <- rowSums(chf)
      } else {
        old <- options(cfg$options)
        a <- if (is.function(cfg$args)) cfg$args(train) else cfg$args
        fit <- do.call(ccforest, c(list(Surv(time, status) ~ ., data = train, n_tree = n_tree,
                                        n_thread = 2, seed = seed, verbose = FALSE), a))
        surv <- predict(fit, test, type = "survival", times = times)
        risk <- predict(fit, test, type = "risk")
        options(old)
      }
      ibs <- integrate_mean(ipcw_brier(surv, test$time, test$status, times, G), times)
      res[[length(res) + 1L]] <- data.frame(
        dataset = name, split = s, config = cn, c_index = harrell_c(risk, test$time, test$status),
        ipa = 1 - ibs / ibs_km, ibs = ibs)
    }
  }
  r <- do.call(rbind, res)
  cat(name, "\n")
  print(aggregate(cbind(c_index, ipa) ~ config, r[r$dataset == name, ], mean), digits = 3)
}
bench_write(do.call(rbind, res), out)
