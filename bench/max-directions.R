#!/usr/bin/env Rscript
# Does searching only the two strongest canonical directions (the default
# max_directions = 2) cost accuracy against the paper's all of them
# (variant = "paper")? bench/variants.R answers on accuracy.R's folds; this
# script asks again on new folds, and more of them, for the data sets with
# four classes or more, where the two differ (with three classes or fewer
# there are at most two directions anyway).
#
#   make install
#   Rscript bench/max-directions.R               # 10 x 5-fold (letter 2 x 5), 500 trees, ~4 min
#   Rscript bench/max-directions.R --repeats 4 --trees 200
#
# Learners, same folds and seeds: CCF (defaults), paper (variant = "paper"),
# CCF+dir1 (max_directions = 1). Error: % misclassified. p: paired two-sided
# Wilcoxon signed-rank test against CCF over the folds (win/loss: p < 0.05).
# Output: bench/results/max-directions.md and .csv.

script_path <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])
source(file.path(dirname(script_path), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
n_tree <- integer_option(args, "--trees", 500L)
repeats <- integer_option(args, "--repeats", 10L)
n_thread <- 2L

use_private_library()
suppressPackageStartupMessages(library(ccforest))
started_at <- Sys.time()
machine <- machine_info()

class_task <- function(name, response) {
  d <- mlb(name)
  list(x = d[names(d) != response], y = droplevels(d[[response]]))
}
tasks <- list(vehicle = class_task("Vehicle", "Class"), glass = class_task("Glass", "Type"),
              vowel = class_task("Vowel", "Class"), letter = class_task("LetterRecognition", "lettr"))
# 16,000-row fits: fewer repeats keep the run short.
task_repeats <- c(vehicle = repeats, glass = repeats, vowel = repeats,
                  letter = max(1L, repeats %/% 5L))
learners <- list(CCF = list(), paper = list(variant = "paper"), `CCF+dir1` = list(max_directions = 1L))

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

table_rows <- do.call(rbind, lapply(names(tasks), function(name) {
  d <- results[results$dataset == name, ]
  base <- d$error[d$learner == "CCF"]
  do.call(rbind, lapply(setdiff(names(learners), "CCF"), function(learner) {
    e <- d$error[d$learner == learner]
    p <- if (any(e != base)) {
      suppressWarnings(stats::wilcox.test(e, base, paired = TRUE, exact = FALSE)$p.value)
    } else 1
    data.frame(dataset = name, classes = nlevels(tasks[[name]]$y), folds = length(e),
               learner = learner, CCF = mean(base), error = mean(e), p = p,
               verdict = if (p >= 0.05) "tie" else if (mean(e) < mean(base)) "win" else "loss",
               time_ratio = sum(d$train_time[d$learner == learner]) /
                 sum(d$train_time[d$learner == "CCF"]))
  }))
}))

csv_file <- file.path(dirname(script_path), "results", "max-directions.csv")
md_file <- sub("\\.csv$", ".md", csv_file)
utils::write.csv(results, csv_file, row.names = FALSE)
report <- c(
  report_header("max_directions = 2 (the default) against the paper's all directions",
                "max-directions.R", args, started_at, csv_file, machine,
                packages = c("ccforest", "mlbench")),
  sprintf("| trees, folds | %d trees; 5-fold cross-validation, repeated (see folds); %d threads |",
          n_tree, n_thread),
  sprintf("| load at end | %s |", machine_info()$load),
  "",
  "Errors: % misclassified, mean over the folds. CCF: ccforest's defaults (max_directions = 2);",
  "paper: `variant = \"paper\"` (every direction); CCF+dir1: max_directions = 1. p: paired",
  "two-sided Wilcoxon signed-rank test against CCF; a win or loss needs p < 0.05.",
  "",
  "| data set | classes | folds | learner | CCF | learner's error | p | verdict | train time / CCF's |",
  "|---|---:|---:|---|---:|---:|---:|---|---:|",
  sprintf("| %s | %d | %d | %s | %.2f | %.2f | %.3g | %s | %.2f |", table_rows$dataset,
          table_rows$classes, table_rows$folds, table_rows$learner, table_rows$CCF,
          table_rows$error, table_rows$p, table_rows$verdict, table_rows$time_ratio)
)
writeLines(report, md_file)
cat(report[-(1:12)], sep = "\n")
cat("\nWritten to", md_file, "\n")
