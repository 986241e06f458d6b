#!/usr/bin/env Rscript
# Scaling out with backend = "future": wall time against the number of
# workers, and the cost of the future path itself.
#
#   make install
#   Rscript bench/instruments/scale.R            # full run: ~10 min on 2 idle cores
#   Rscript bench/instruments/scale.R --quick    # small data, one repetition, < 1 min
#   Rscript bench/instruments/scale.R --reps=3   # best of 3 instead of best of 2
#
# Task: a binary problem with 40,000 rows and 20 correlated numeric features
# (the label is the sign of a non-linear function of three of them, plus
# noise), a forest of 600 trees with the paper's defaults. Every fit uses one
# thread per process (n_thread = 1), so that the only parallelism compared is
# the number of worker processes:
#   threads, 1 thread     backend = "threads", n_thread = 1: the reference
#   future, sequential    plan(sequential): the future path in this process
#                         (no transfer: the cost of the batches and merging)
#   future, 1 worker      plan(multisession, workers = I(1)), one R worker
#                         process on this machine: the future path's whole
#                         cost (sending the data, the batches, the trees
#                         coming back)
#   future, 2 workers     plan(multisession, workers = 2), one batch each
#   future, 2 workers, 8 batches  the same with n_batch = 8 (the data still
#                         travel once per worker)
#   threads, 2 threads    backend = "threads", n_thread = 2, for comparison
# and prediction of 40,000 new rows: in this session (1 thread), and in
# chunks on 2 workers. Workers are started, and have loaded ccforest, before
# the timings (start-up is reported apart). Times are the best of `reps`
# repetitions with the configurations interleaved, the least disturbed by
# other work on the machine (the load average at start and end is in the
# report). Every configuration must grow the identical forest and the same
# predictions: the script stops otherwise.
#
# Results are printed and written to bench/results/scale.md
# (bench/results/scale-quick.md.tmp with --quick). Give --lib (or CCFOREST_LIB) a
# library path to benchmark a ccforest installed there; workers inherit the
# library path.

source_common <- function() {
  file <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  dir <- if (length(file)) dirname(file) else "bench"
  source(file.path(dir, "..", "common.R"))
  dir
}
invisible(source_common())
BENCH_OPT <- bench_start(values = "reps", quick = TRUE)

suppressPackageStartupMessages({
  library(ccforest)
  library(future)
})

make_task <- function(n, p, seed = 42L) {
  set.seed(seed)
  z <- matrix(stats::rnorm(n * p), n)
  mix <- matrix(stats::rnorm(p * p, sd = 0.3), p)
  diag(mix) <- 1
  x <- z %*% mix
  colnames(x) <- sprintf("x%02d", seq_len(p))
  signal <- x[, 1] * x[, 2] + sin(2 * x[, 3]) + 0.5 * x[, 4]
  y <- factor(ifelse(signal + stats::rnorm(n, sd = 0.5) > 0, "yes", "no"))
  list(x = x, y = y)
}

elapsed <- function(expr) {
  gc(verbose = FALSE)
  t0 <- proc.time()[["elapsed"]]
  value <- force(expr)
  list(seconds = proc.time()[["elapsed"]] - t0, value = value)
}

# Start a plan of `workers` local R processes (0: sequential) and make sure
# they have loaded ccforest.
start_plan <- function(workers) {
  started <- elapsed({
    if (workers == 0L) {
      plan(sequential)
    } else {
      # I(1): one worker process (multisession would otherwise run one
      # worker's futures in this process).
      plan(multisession, workers = if (workers == 1L) I(1L) else workers,
           rscript_libs = .libPaths())
      value(lapply(seq_len(workers), function(i) {
        future(requireNamespace("ccforest", quietly = TRUE))
      }))
    }
  })
  started$seconds
}

main <- function(opt) {
  quick <- bench_flag(opt, "quick")
  reps <- bench_integer(opt, "reps", if (quick) 1L else 2L)
  n <- if (quick) 4000L else 40000L
  p <- 20L
  n_tree <- if (quick) 60L else 600L
  started_at <- Sys.time()
  machine <- machine_info()
  train <- make_task(n, p, seed = 1L)
  test <- make_task(n, p, seed = 2L)
  cat(sprintf("scale: %d rows x %d features, %d trees, best of %d\n", n, p, n_tree, reps))

  fit_with <- function(config) {
    switch(config,
      threads_1 = ccforest(train$x, train$y, n_tree = n_tree, n_thread = 1, seed = 7),
      threads_2 = ccforest(train$x, train$y, n_tree = n_tree, n_thread = 2, seed = 7),
      future_0 = ccforest(train$x, train$y, n_tree = n_tree, n_thread = 1, seed = 7,
                          backend = "future"),
      future_1 = ccforest(train$x, train$y, n_tree = n_tree, n_thread = 1, seed = 7,
                          backend = "future"),
      future_2 = ccforest(train$x, train$y, n_tree = n_tree, n_thread = 1, seed = 7,
                          backend = "future"),
      future_2_b8 = ccforest(train$x, train$y, n_tree = n_tree, n_thread = 1, seed = 7,
                             backend = "future", n_batch = 8)
    )
  }
  workers_of <- c(threads_1 = NA, threads_2 = NA, future_0 = 0L, future_1 = 1L,
                  future_2 = 2L, future_2_b8 = 2L)
  fit_seconds <- list()
  startup <- c()
  reference <- NULL
  current_workers <- -1L
  on.exit(plan(sequential), add = TRUE)
  for (rep in seq_len(reps)) {
    for (config in names(workers_of)) {
      w <- workers_of[[config]]
      if (!is.na(w) && w != current_workers) {
        startup[[as.character(w)]] <- start_plan(w)
        current_workers <- w
      }
      run <- elapsed(fit_with(config))
      fit_seconds[[config]] <- c(fit_seconds[[config]], run$seconds)
      if (is.null(reference)) {
        reference <- run$value
      } else if (!identical(run$value$forest, reference$forest)) {
        stop("configuration ", config, " grew a different forest")
      }
      cat(sprintf("  rep %d  %-12s %7.2f s\n", rep, config, run$seconds))
    }
  }

  # Prediction: this session, then chunks on two workers.
  start_plan(2L)
  predict_seconds <- list()
  expected <- NULL
  for (rep in seq_len(reps)) {
    for (config in c("threads_1", "future_2")) {
      run <- elapsed(if (config == "threads_1") {
        predict(reference, test$x, type = "prob", n_thread = 1)
      } else {
        predict(reference, test$x, type = "prob", n_thread = 1, backend = "future")
      })
      predict_seconds[[config]] <- c(predict_seconds[[config]], run$seconds)
      if (is.null(expected)) expected <- run$value
      if (!identical(run$value, expected)) stop("predictions differ for ", config)
      cat(sprintf("  rep %d  predict %-10s %7.2f s\n", rep, config, run$seconds))
    }
  }
  plan(sequential)

  best <- vapply(fit_seconds, min, numeric(1))
  best_predict <- vapply(predict_seconds, min, numeric(1))
  training_bytes <- as.double(object.size(train$x)) + as.double(object.size(train$y))
  forest_bytes <- as.double(object.size(reference$forest$trees))
  error <- mean(predict(reference, test$x) != test$y)
  load_end <- readLines("/proc/loadavg")

  rows <- c(
    sprintf("| threads, 1 thread | %.2f | 1.00 | |", best[["threads_1"]]),
    sprintf("| future, sequential plan | %.2f | %.2f | overhead of batches and merging: %+.1f%% |",
            best[["future_0"]], best[["future_0"]] / best[["threads_1"]],
            100 * (best[["future_0"]] / best[["threads_1"]] - 1)),
    sprintf("| future, 1 worker process | %.2f | %.2f | overhead of the future path: %+.1f%% |",
            best[["future_1"]], best[["future_1"]] / best[["threads_1"]],
            100 * (best[["future_1"]] / best[["threads_1"]] - 1)),
    sprintf("| future, 2 workers | %.2f | %.2f | speed-up over 1 worker: %.2f x |",
            best[["future_2"]], best[["future_2"]] / best[["threads_1"]],
            best[["future_1"]] / best[["future_2"]]),
    sprintf("| future, 2 workers, 8 batches | %.2f | %.2f | |",
            best[["future_2_b8"]], best[["future_2_b8"]] / best[["threads_1"]]),
    sprintf("| threads, 2 threads | %.2f | %.2f | future 2 workers / threads 2 threads: %.2f |",
            best[["threads_2"]], best[["threads_2"]] / best[["threads_1"]],
            best[["future_2"]] / best[["threads_2"]])
  )
  lines <- c(
    report_header("Scaling out with backend = \"future\""),
    sprintf("| versions | ccforest %s, future %s, parallelly %s |",
            utils::packageVersion("ccforest"), utils::packageVersion("future"),
            utils::packageVersion("parallelly")),
    sprintf(paste0("| task | %s rows x %d features, binary; %d trees, paper's defaults, ",
                   "n_thread = 1 per process |"), format(n, big.mark = ","), p, n_tree),
    sprintf("| repetitions | best of %d, configurations interleaved |", reps),
    "",
    "## Training",
    "",
    "Every configuration grew the identical forest (checked with `identical()` on `fit$forest`).",
    "",
    "| configuration | wall s | ratio to threads, 1 thread | |",
    "|---|---|---|---|",
    rows,
    "",
    sprintf(paste0("Starting the plan and loading ccforest on the workers (not in the times ",
                   "above): %s."),
            paste(sprintf("%.2f s for %s worker(s)", unlist(startup[names(startup) != "0"]),
                          names(startup)[names(startup) != "0"]), collapse = ", ")),
    "",
    "## Prediction",
    "",
    sprintf("%s new rows, class probabilities from all %d trees; identical results.",
            format(n, big.mark = ","), n_tree),
    "",
    "| configuration | wall s | ratio |",
    "|---|---|---|",
    sprintf("| this session, 1 thread | %.2f | 1.00 |", best_predict[["threads_1"]]),
    sprintf("| chunks on 2 workers (1 thread each) | %.2f | %.2f |", best_predict[["future_2"]],
            best_predict[["future_2"]] / best_predict[["threads_1"]]),
    "",
    "## What travels",
    "",
    sprintf(paste0("Each worker receives the encoded training set once (%s here: the features as ",
                   "doubles and the outputs), plus a few KB per batch; each batch returns its ",
                   "trees. The whole forest holds %s of trees (%s per tree); held-out error ",
                   "%.1f%%."),
            format_size(training_bytes), format_size(forest_bytes),
            format_size(forest_bytes / n_tree), 100 * error)
  )
  out <- file.path(results_dir(), if (quick) "scale-quick.md.tmp" else "scale.md")
  bench_write(lines, out)
  cat("\n", paste(lines, collapse = "\n"), "\n", sep = "")
  cat("\nwritten to", out, "\n")
}

format_size <- function(bytes) {
  units <- c("bytes", "KB", "MB", "GB")
  power <- min(3, max(0, floor(log(max(bytes, 1), 1024))))
  sprintf("%.1f %s", bytes / 1024^power, units[[power + 1L]])
}

main(BENCH_OPT)
