#!/usr/bin/env Rscript
# More regression evidence for axis_candidates (issue 14): bench/variants.R
# found it better than the paper's CCF on all three regression sets of
# bench/accuracy.R (BostonHousing, servo, ozone), too few to change a
# default on. This script asks the same question on six other regression
# tasks, with nothing but R, MASS and mlbench:
#   friedman1/2/3  mlbench's simulated benchmarks (600 rows each; noise sd 1,
#                  125 and 0.1 as in Friedman 1991 / Breiman 1996)
#   cpus           MASS::cpus, log(perf) from the six machine features
#   airquality     datasets::airquality complete rows, Ozone from the rest
#   quakes         datasets::quakes, magnitude from location, depth, stations
#
#   make install
#   Rscript bench/regression-axes.R              # 2 x 5-fold CV, 200 trees
#   Rscript bench/regression-axes.R --trees 500 --repeats 3
#
# Learners: CCF (ccforest defaults), CCF+axes (axis_candidates = TRUE) and
# ranger (defaults), same folds and seeds. Error: test MSE as % of the test
# fold's variance. p: paired two-sided Wilcoxon signed-rank test of CCF+axes
# against CCF over the folds (a win or loss needs p < 0.05). Also the ratio
# of training times, and the geometric mean over data sets of each
# learner's error ratio to ranger (the paper's summary measure).
#
# Output: bench/results/regression-axes.md and .csv.

script_path <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])
source(file.path(dirname(script_path), "common.R"))

args <- commandArgs(trailingOnly = TRUE)
n_tree <- integer_option(args, "--trees", 200L)
repeats <- integer_option(args, "--repeats", 2L)
n_thread <- 2L

suppressPackageStartupMessages(library(ccforest))
started_at <- Sys.time()
machine <- machine_info()

tasks <- local({
  set.seed(42)
  out <- list()
  f1 <- mlbench::mlbench.friedman1(600, sd = 1)
  out$friedman1 <- data.frame(f1$x, y = f1$y)
  f2 <- mlbench::mlbench.friedman2(600, sd = 125)
  out$friedman2 <- data.frame(f2$x, y = f2$y)
  f3 <- mlbench::mlbench.friedman3(600, sd = 0.1)
  out$friedman3 <- data.frame(f3$x, y = f3$y)
  cp <- MASS::cpus
  out$cpus <- data.frame(cp[c("syct", "mmin", "mmax", "cach", "chmin", "chmax")], y = log(cp$perf))
  aq <- stats::na.omit(datasets::airquality)
  out$airquality <- data.frame(aq[c("Solar.R", "Wind", "Temp", "Month", "Day")], y = aq$Ozone)
  q <- datasets::quakes
  out$quakes <- data.frame(q[c("lat", "long", "depth", "stations")], y = q$mag)
  out
})

error_pct <- function(pred, y) 100 * mean((pred - y)^2) / stats::var(y)
rows <- list()
for (name in names(tasks)) {
  d <- tasks[[name]]
  set.seed(7)
  for (rep in seq_len(repeats)) {
    folds <- sample(rep(1:5, length.out = nrow(d)))
    for (k in 1:5) {
      train <- d[folds != k, ]
      test <- d[folds == k, ]
      seed <- 100L * rep + k
      ccf <- ccforest(y ~ ., train, n_tree = n_tree, seed = seed, n_thread = n_thread)
      axes <- ccforest(y ~ ., train, n_tree = n_tree, seed = seed, n_thread = n_thread,
                       axis_candidates = TRUE)
      r_time <- system.time(
        rf <- ranger::ranger(y ~ ., train, num.trees = n_tree, seed = seed, num.threads = n_thread)
      )[["elapsed"]]
      rows[[length(rows) + 1L]] <- data.frame(
        dataset = name, rep = rep, fold = k,
        CCF = error_pct(predict(ccf, test), test$y),
        `CCF+axes` = error_pct(predict(axes, test), test$y),
        ranger = error_pct(predict(rf, test)$predictions, test$y),
        train_CCF = ccf$train_time, `train_CCF+axes` = axes$train_time, train_ranger = r_time,
        check.names = FALSE
      )
    }
  }
  cat(sprintf("[%s] %s done\n", format(Sys.time(), "%H:%M:%S"), name))
}
results <- do.call(rbind, rows)

summary_rows <- do.call(rbind, lapply(split(results, results$dataset), function(s) {
  p <- suppressWarnings(stats::wilcox.test(s$CCF, s[["CCF+axes"]], paired = TRUE,
                                           exact = FALSE)$p.value)
  verdict <- if (is.na(p) || p >= 0.05) "tie" else if (mean(s[["CCF+axes"]]) < mean(s$CCF)) "win" else "loss"
  data.frame(dataset = s$dataset[1L], n = nrow(tasks[[s$dataset[1L]]]), CCF = mean(s$CCF),
             axes = mean(s[["CCF+axes"]]), ranger = mean(s$ranger), p = p, verdict = verdict,
             time_ratio = sum(s[["train_CCF+axes"]]) / sum(s$train_CCF))
}))
summary_rows <- summary_rows[match(names(tasks), summary_rows$dataset), ]
geo <- function(x) exp(mean(log(x / summary_rows$ranger)))

csv_file <- file.path(dirname(script_path), "results", "regression-axes.csv")
md_file <- sub("\\.csv$", ".md", csv_file)
utils::write.csv(results, csv_file, row.names = FALSE)
table_lines <- c(
  "| data set | n | CCF | CCF+axes | ranger | p | verdict | train time, axes / CCF |",
  "|---|---:|---:|---:|---:|---:|---|---:|",
  sprintf("| %s | %d | %.2f | %.2f | %.2f | %.3g | %s | %.2f |", summary_rows$dataset, summary_rows$n,
          summary_rows$CCF, summary_rows$axes, summary_rows$ranger, summary_rows$p,
          summary_rows$verdict, summary_rows$time_ratio)
)
verdicts <- table(factor(summary_rows$verdict, levels = c("win", "loss", "tie")))
report <- c(
  report_header("axis_candidates on more regression tasks", "regression-axes.R", args, started_at,
                csv_file, machine),
  sprintf("| trees, folds | %d trees; %d x 5-fold cross-validation; %d threads |", n_tree, repeats,
          n_thread),
  sprintf("| load at end | %s |", machine_info()$load),
  "",
  "Errors: test MSE as % of the test fold's variance, mean over the folds.",
  "p: paired two-sided Wilcoxon signed-rank test of CCF+axes against CCF; a win or loss needs p < 0.05.",
  "",
  table_lines,
  "",
  sprintf("CCF+axes against CCF: %d wins, %d losses, %d ties.", verdicts[["win"]],
          verdicts[["loss"]], verdicts[["tie"]]),
  sprintf("Geometric mean of the error ratio to ranger: CCF %.3f, CCF+axes %.3f.",
          geo(summary_rows$CCF), geo(summary_rows$axes))
)
writeLines(report, md_file)
cat(report[-(1:12)], sep = "\n")
cat("\nWritten to", md_file, "\n")
