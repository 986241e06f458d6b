#!/usr/bin/env Rscript
# Quantile prediction time (type = "quantiles", quantile regression forests)
# against ranger's (quantreg = TRUE), measured in the same run.
#
#   Rscript bench/comparisons/quantiles.R            # full run: a few minutes on 2 idle cores
#   Rscript bench/comparisons/quantiles.R --quick    # small sizes, seconds
#
# Tasks: y = x1 + N(0, 1) with three standard normal features, n training
# rows, 1,000 new rows to predict (100 with --quick), quantiles 0.1, 0.5 and
# 0.9, one thread each:
#   shallow  n = 50,000, 30 trees, max_depth = 3: leaves of about 6,000 rows
#            (issue 28's example, 0.06 s per row before 0.3.0)
#   default  n = 100,000, 100 trees, the default leaves (min_leaf = 3)
# Times are the best of two repetitions (CPU seconds of this process).
# Correctness is the tests' business (test-quantiles.R checks the quantiles
# against the weighted distribution written out in R); here the quantiles
# are only checked to be ordered. What it prints goes to
# bench/results/quantiles.md (.md.tmp with --quick).

source_common <- function() {
  file <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  dir <- if (length(file)) dirname(file) else "bench"
  source(file.path(dir, "..", "common.R"))
  dir
}
invisible(source_common())
BENCH_OPT <- bench_start(quick = TRUE)
bench_record("quantiles", "Quantile prediction time: ccforest next to ranger")
suppressPackageStartupMessages(library(ccforest))
has_ranger <- requireNamespace("ranger", quietly = TRUE)
quick <- bench_flag(BENCH_OPT, "quick")

best_cpu <- function(expr_fn, reps = 2L) {
  min(vapply(seq_len(reps), function(i) {
    t <- system.time(expr_fn())
    t[["user.self"]] + t[["sys.self"]]
  }, numeric(1)))
}

settings <- list(
  shallow = list(n = if (quick) 5000 else 50000, n_tree = 30, max_depth = 3),
  default = list(n = if (quick) 10000 else 100000, n_tree = if (quick) 20 else 100,
                 max_depth = NULL)
)
n_new <- if (quick) 100 else 1000
probs <- c(0.1, 0.5, 0.9)
cat(sprintf("load average at start: %s\n", paste(machine_info()$load, collapse = " ")))
for (name in names(settings)) {
  s <- settings[[name]]
  set.seed(1)
  x <- data.frame(a = rnorm(s$n), b = rnorm(s$n), c = rnorm(s$n))
  y <- x$a + rnorm(s$n)
  new <- data.frame(a = rnorm(n_new), b = rnorm(n_new), c = rnorm(n_new))
  fit <- ccforest(x, y, n_tree = s$n_tree, quantiles = TRUE, seed = 1, max_depth = s$max_depth,
                  n_thread = 1, verbose = FALSE)
  q <- NULL
  ccf <- best_cpu(function() q <<- predict(fit, new, type = "quantiles", quantiles = probs,
                                           n_thread = 1))
  stopifnot(all(q[, 1] <= q[, 2] & q[, 2] <= q[, 3]))
  line <- sprintf("%-8s n = %7d, %3d trees: ccforest %.3f s CPU for %d rows (%.2f ms a row)",
                  name, s$n, s$n_tree, ccf, n_new, 1000 * ccf / n_new)
  if (has_ranger) {
    rf <- ranger::ranger(x = x, y = y, num.trees = s$n_tree, quantreg = TRUE, num.threads = 1,
                         seed = 1, max.depth = s$max_depth %||% 0, verbose = FALSE)
    rgr <- best_cpu(function() predict(rf, new, type = "quantiles", quantiles = probs,
                                       num.threads = 1))
    line <- sprintf("%s; ranger %.3f s (ccforest / ranger = %.2f)", line, rgr, ccf / rgr)
  }
  cat(line, "\n")
}
cat(sprintf("load average at end: %s\n", paste(machine_info()$load, collapse = " ")))
bench_finish()
