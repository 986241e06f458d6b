#!/usr/bin/env Rscript
# Issue 38, sixth session: the share of a default survival fit that its
# out-of-bag work takes, as the training CPU time of ccforest's defaults
# against the same call with oob_error = FALSE (the same forest, checked).
#
#   Rscript bench/run.R no-oob --lib LIB [--reps 21] [--trees 300]
#       [--sets prostateSurvival,stagec,bmt,transplant] [--no-update]
#
# The data of bench/decisions/survival-defaults.R (its defaults_data(), read
# from that file), split 1's training rows as that script draws them, one
# thread, one process. Per data set, `reps` pairs of fits with the same
# seed, the two calls alternating which goes first, so that the machine's
# drift falls on both; reported: the median CPU seconds of each, their
# ratio and the share saved, with the load average at the start and end.
# KMsurv and asaur (bmt, prostateSurvival) are installed into bench/lib.
# About 2 minutes for the four sets on an idle machine.
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L]))
suppressPackageStartupMessages(library(survival))
source(file.path(here, "..", "comparisons", "survival.R"))
BENCH_OPT <- bench_start(values = c("reps", "trees", "sets"))
reps <- bench_integer(BENCH_OPT, "reps", 21L)
n_tree <- bench_integer(BENCH_OPT, "trees", 300L)
sets <- strsplit(bench_value(BENCH_OPT, "sets", "prostateSurvival,stagec,bmt,transplant"), ",")[[1L]]
invisible(use_competitors(c("KMsurv", "asaur", "TH.data"), install = bench_update()))
suppressPackageStartupMessages(library(ccforest))

# defaults_data() and the lists of sets it numbers the sets by, evaluated
# from survival-defaults.R without running it.
defaults_file <- file.path(here, "..", "decisions", "survival-defaults.R")
wanted <- c("kmsurv", "defaults_data", "MAX_ROWS", "DEV_SETS", "HOLDOUT_SETS", "HOLDOUT2_SETS",
            "SMALL_SETS", "HOLDOUT3_SETS", "HOLDOUT4_SETS")
for (e in parse(defaults_file)) {
  if (is.call(e) && identical(e[[1L]], as.name("<-")) && as.character(e[[2L]])[1L] %in% wanted) {
    eval(e, globalenv())
  }
}
all_sets <- c(DEV_SETS, HOLDOUT_SETS, HOLDOUT2_SETS, SMALL_SETS, HOLDOUT3_SETS, HOLDOUT4_SETS)

cpu <- function() sum(proc.time()[c("user.self", "sys.self")])
timed_fit <- function(train, seed, ...) {
  t0 <- cpu()
  fit <- ccforest(Surv(time, status) ~ ., data = train, n_tree = n_tree, n_thread = 1,
                  seed = seed, verbose = FALSE, ...)
  list(fit = fit, s = cpu() - t0)
}

cat(sprintf("ccforest %s (%s), %d trees, %d pairs per set, one thread\n",
            packageVersion("ccforest"), dirname(find.package("ccforest")), n_tree, reps))
cat("load average at start:", machine_info()$load, "\n")
rows <- list()
for (name in sets) {
  d <- defaults_data(name)
  set_no <- match(name, all_sets)
  seed <- 38000L + 100L * set_no + 1L
  train <- d[split_rows(d$status, seed = seed), ]
  with <- timed_fit(train, seed)
  without <- timed_fit(train, seed, oob_error = FALSE)
  if (!identical(with$fit$forest, without$fit$forest)) {
    stop(sprintf("%s: oob_error = FALSE grew another forest", name), call. = FALSE)
  }
  s <- matrix(NA_real_, reps, 2L, dimnames = list(NULL, c("default", "no_oob")))
  for (r in seq_len(reps)) {
    order <- if (r %% 2L == 1L) c("default", "no_oob") else c("no_oob", "default")
    for (cfg in order) {
      s[r, cfg] <- if (cfg == "default") timed_fit(train, seed)$s else
        timed_fit(train, seed, oob_error = FALSE)$s
    }
  }
  m <- apply(s, 2L, stats::median)
  rows[[name]] <- data.frame(dataset = name, rows = nrow(train), events = sum(train$status),
                             default_s = m[["default"]], no_oob_s = m[["no_oob"]],
                             ratio = m[["no_oob"]] / m[["default"]],
                             saved = 1 - m[["no_oob"]] / m[["default"]])
  cat(sprintf("%-17s %5d rows: default %.3f s, oob_error = FALSE %.3f s (median of %d), ratio %.3f (load %s)\n",
              name, nrow(train), m[["default"]], m[["no_oob"]], reps, m[["no_oob"]] / m[["default"]],
              machine_info()$load))
}
print(do.call(rbind, rows), digits = 3, row.names = FALSE)
cat("load average at end:", machine_info()$load, "\n")
