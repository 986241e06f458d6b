#!/usr/bin/env Rscript
# How many canonical directions should a node search? The defaults search
# the strongest two (max_directions = 2), the second only when its canonical
# correlation is at least 0.9 times the first's (direction_ratio = 0.9).
# Against them, on data sets where a node has two directions or more (three
# classes or more), with the same folds and seeds:
#   ratio 0  direction_ratio = 0: both of the two strongest (the forests of before the option)
#   dir1     max_directions = 1: the strongest only
#   paper    variant = "paper": every direction (and the paper's other rules)
#
#   make install
#   Rscript bench/decisions/max-directions.R                      # 500 trees, 10 x 5-fold (letter 2 x 5)
#   Rscript bench/decisions/max-directions.R --trees 100 --letter-repeats 6
#
# Error: % misclassified. p: paired two-sided Wilcoxon signed-rank test
# against CCF over the folds (win/loss: p < 0.05). Time: each learner's total
# training time over the folds relative to CCF's (fit$train_time, 2 threads).
# Output: bench/results/max-directions.md and .csv (500 trees), or
# max-directions-<trees>trees.md and .csv.

script_path <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])
source(file.path(dirname(script_path), "..", "common.R"))
BENCH_OPT <- bench_start(values = c("trees", "repeats", "letter-repeats"), threads = TRUE)
n_tree <- bench_integer(BENCH_OPT, "trees", 500L)
repeats <- bench_integer(BENCH_OPT, "repeats", 10L)
letter_repeats <- bench_integer(BENCH_OPT, "letter-repeats", max(1L, repeats %/% 5L))
n_thread <- bench_threads(2L)

suppressPackageStartupMessages(library(ccforest))
started_at <- Sys.time()
machine <- machine_info()

class_task <- function(name, response) {
  d <- mlb(name)
  list(x = d[names(d) != response], y = droplevels(d[[response]]))
}
tasks <- list(vehicle = class_task("Vehicle", "Class"), glass = class_task("Glass", "Type"),
              vowel = class_task("Vowel", "Class"), satellite = class_task("Satellite", "classes"),
              waveform = local({
                set.seed(5000L)
                w <- mlbench::mlbench.waveform(5000)
                list(x = as.data.frame(w$x), y = w$classes)
              }),
              letter = class_task("LetterRecognition", "lettr"))
# Fits of 4,000 rows and more: fewer repeats keep the run short.
task_repeats <- c(vehicle = repeats, glass = repeats, vowel = repeats,
                  satellite = max(1L, repeats %/% 2L), waveform = max(1L, repeats %/% 2L),
                  letter = letter_repeats)
learners <- list(CCF = list(), `ratio 0` = list(direction_ratio = 0), dir1 = list(max_directions = 1L),
                 paper = list(variant = "paper"))

rows <- list()
for (name in names(tasks)) {
  x <- tasks[[name]]$x
  y <- tasks[[name]]$y
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
          error = 100 * mean(predict(fit, x[!train, ]) != y[!train]), train_time = fit$train_time)
      }
    }
  }
  cat(sprintf("[%s] %s done\n", format(Sys.time(), "%H:%M:%S"), name))
}
results <- do.call(rbind, rows)

table_rows <- paired_verdicts(results, "CCF")
n_classes <- vapply(table_rows$dataset, function(name) nlevels(tasks[[name]]$y), integer(1))

base <- if (n_tree == 500L) "max-directions" else sprintf("max-directions-%dtrees", n_tree)
csv_file <- file.path(results_dir(), paste0(base, ".csv"))
md_file <- sub("\\.csv$", ".md", csv_file)
bench_write(results, csv_file)
report <- c(
  report_header("Canonical directions searched per node: the defaults against fewer and more",
                csv_file = csv_file, packages = c("ccforest", "mlbench")),
  sprintf("| trees, folds | %d trees; 5-fold cross-validation, repeated (see folds); %d threads |",
          n_tree, n_thread),
  sprintf("| load at end | %s |", machine_info()$load),
  "",
  paste("Errors: % misclassified, mean over the folds. CCF: ccforest's defaults (max_directions = 2,",
        "direction_ratio = 0.9); ratio 0: direction_ratio = 0 (both directions, as before the option);",
        "dir1: max_directions = 1; paper: `variant = \"paper\"` (every direction). p: paired",
        "two-sided Wilcoxon signed-rank test against CCF; a win or loss needs p < 0.05."),
  "",
  "| data set | classes | folds | learner | CCF | learner's error | p | verdict | train time / CCF's |",
  "|---|---:|---:|---|---:|---:|---:|---|---:|",
  sprintf("| %s | %d | %d | %s | %.2f | %.2f | %.3g | %s | %.2f |", table_rows$dataset,
          n_classes, table_rows$folds, table_rows$learner, table_rows$reference,
          table_rows$error, table_rows$p, table_rows$verdict, table_rows$time_ratio)
)
bench_write(report, md_file)
cat(after_stamp(report), sep = "\n")
cat("\nWritten to", md_file, "\n")
