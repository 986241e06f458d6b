#!/usr/bin/env Rscript
# Do the defaults that save work at nodes of more than 1,024 rows cost
# accuracy? bootstrap_max_rows = 1024 (the CCA on a bootstrap sample of at
# most 1,024 rows) and exact_split_max_rows = 1024 (cuts searched among 256
# bins of each projection first, then exhaustively near the best boundary),
# against both off (the paper's rules, the forests of ccforest 0.2.0) and
# each alone, on data sets whose nodes exceed 1,024 rows.
#
#   make install
#   Rscript bench/decisions/large-nodes.R                 # 500 trees (see below for the folds)
#   Rscript bench/decisions/large-nodes.R --trees 100 --repeats 1
#
# Data sets: letter (LetterRecognition, 20,000 x 16, 26 classes), satellite
# (6,435 x 36, 6 classes), waveform (mlbench.waveform(5000), 3 classes),
# spirals (10,000 x 2, 3 classes, the generator of accuracy.R), binary (the
# simulated task of speed.R at 20,000 rows: 20 correlated features, the sign
# of a non-linear function of three combinations plus noise) and friedman1
# (mlbench.friedman1(5000), regression). 5-fold cross-validation, repeated
# --repeats times (default 2; letter and binary once), the same folds and
# seeds for every learner.
#
# Learners: CCF (defaults), exact (bootstrap_max_rows = Inf,
# exact_split_max_rows = Inf: every node as the paper grows it), +bootstrap
# (bootstrap_max_rows = 1024 only) and +binned (exact_split_max_rows = 1024
# only). Error: % misclassified, or test MSE as % of the output's variance.
# p: paired two-sided Wilcoxon signed-rank test against exact over the folds
# (a win or loss needs p < 0.05). Time: each learner's total training time
# over the folds relative to exact's (wall clock, 2 threads: on a busy
# machine read it with the load in mind).
#
# Output: bench/results/large-nodes.md and .csv (.tmp suffix when --trees or
# --repeats is given).

script_path <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])
source(file.path(dirname(script_path), "..", "common.R"))
BENCH_OPT <- bench_start(values = c("trees", "repeats"), threads = TRUE)
n_tree <- bench_integer(BENCH_OPT, "trees", 500L)
repeats <- bench_integer(BENCH_OPT, "repeats", 2L)
partial <- !is.null(BENCH_OPT$trees) || !is.null(BENCH_OPT$repeats)
n_thread <- bench_threads(2L)

suppressPackageStartupMessages(library(ccforest))
started_at <- Sys.time()
machine <- machine_info()

simulated_binary <- function(n, seed = 3L) {
  set.seed(seed)
  p <- 20L
  x <- matrix(stats::rnorm(n * p), n) %*% chol(0.5 ^ abs(outer(1:p, 1:p, "-")))
  z <- x %*% matrix(stats::rnorm(p * 3L), p)
  signal <- 1.5 * z[, 1] - z[, 2] + sin(2 * z[, 3])
  y <- factor(ifelse(signal + stats::rnorm(n, sd = stats::sd(signal) / 3) > 0, "yes", "no"))
  list(x = as.data.frame(x), y = y)
}

tasks <- list(
  letter = { d <- mlb("LetterRecognition"); list(x = d[names(d) != "lettr"], y = d$lettr) },
  satellite = { d <- mlb("Satellite"); list(x = d[names(d) != "classes"], y = droplevels(d$classes)) },
  waveform = { set.seed(5000L); w <- mlbench::mlbench.waveform(5000); list(x = as.data.frame(w$x), y = w$classes) },
  spirals = gen_spirals(10000L),
  binary = simulated_binary(20000L),
  friedman1 = { set.seed(1L); f <- mlbench::mlbench.friedman1(5000, sd = 1); list(x = as.data.frame(f$x), y = f$y) }
)
task_repeats <- c(letter = 1L, satellite = repeats, waveform = repeats, spirals = repeats,
                  binary = 1L, friedman1 = repeats)
learners <- list(CCF = list(),
                 exact = list(bootstrap_max_rows = Inf, exact_split_max_rows = Inf),
                 `+bootstrap` = list(exact_split_max_rows = Inf),
                 `+binned` = list(bootstrap_max_rows = Inf))

error_of <- function(pred, truth, var_y) {
  if (is.factor(truth)) 100 * mean(pred != truth) else 100 * mean((pred - truth)^2) / var_y
}

rows <- list()
for (name in names(tasks)) {
  x <- tasks[[name]]$x
  y <- tasks[[name]]$y
  var_y <- if (is.factor(y)) NA_real_ else stats::var(y)
  set.seed(2026)
  for (rep in seq_len(task_repeats[[name]])) {
    folds <- sample(rep(1:5, length.out = length(y)))
    for (k in 1:5) {
      train <- folds != k
      seed <- 1000L * rep + k
      for (learner in names(learners)) {
        fit <- do.call(ccforest, c(list(x[train, ], y[train], n_tree = n_tree, seed = seed,
                                        n_thread = n_thread, verbose = FALSE), learners[[learner]]))
        rows[[length(rows) + 1L]] <- data.frame(
          dataset = name, rep = rep, fold = k, learner = learner,
          error = error_of(predict(fit, x[!train, ]), y[!train], var_y),
          train_time = fit$train_time)
      }
    }
  }
  cat(sprintf("[%s] %s done\n", format(Sys.time(), "%H:%M:%S"), name))
}
results <- do.call(rbind, rows)

table_rows <- paired_verdicts(results, "exact")
n_rows <- vapply(table_rows$dataset, function(name) length(tasks[[name]]$y), integer(1))

suffix <- if (partial) ".tmp" else ""
csv_file <- file.path(results_dir(), paste0("large-nodes.csv", suffix))
md_file <- file.path(results_dir(), paste0("large-nodes.md", suffix))
bench_write(results, csv_file)
report <- c(
  report_header("bootstrap_max_rows and exact_split_max_rows (1,024 rows, the defaults) against exact nodes",
                csv_file = csv_file, packages = c("ccforest", "mlbench")),
  sprintf("| trees, folds | %d trees; 5-fold cross-validation, repeated (see folds); %d threads |",
          n_tree, n_thread),
  sprintf("| load at end | %s |", machine_info()$load),
  "",
  "Errors: % misclassified (friedman1: test MSE as % of the output's variance), mean over the",
  "folds. exact: `bootstrap_max_rows = Inf, exact_split_max_rows = Inf` (every node as the",
  "paper grows it); CCF: the defaults (both 1024); +bootstrap and +binned: one of the two.",
  "p: paired two-sided Wilcoxon signed-rank test against exact; a win or loss needs p < 0.05.",
  "Time: total training time over the folds relative to exact's.",
  "",
  "| data set | rows | folds | learner | exact | learner's error | p | verdict | train time / exact's |",
  "|---|---:|---:|---|---:|---:|---:|---|---:|",
  sprintf("| %s | %d | %d | %s | %.2f | %.2f | %.3g | %s | %.2f |", table_rows$dataset,
          n_rows, table_rows$folds, table_rows$learner, table_rows$reference,
          table_rows$error, table_rows$p, table_rows$verdict, table_rows$time_ratio)
)
bench_write(report, md_file)
cat(after_stamp(report), sep = "\n")
cat("\nWritten to", md_file, "\n")
