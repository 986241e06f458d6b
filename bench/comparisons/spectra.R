#!/usr/bin/env Rscript
# Where oblique forests win: near-infrared spectra, whose features (the
# absorbances at neighbouring wavelengths) are strongly correlated, so that
# what predicts the output lies along directions no single feature follows.
# ccforest next to ranger and PLS regression (the chemometrician's standard
# tool), on the same folds.
#
#   make install
#   Rscript bench/comparisons/spectra.R             # full run: 2 x 5-fold, 300 trees (about 2 minutes)
#   Rscript bench/comparisons/spectra.R --quick     # smoke run: 1 x 5-fold, 50 trees
#   Rscript bench/comparisons/spectra.R --trees 500
#
# Data:
#   tecator (caret): 215 meat samples, 100 absorbances (850-1050 nm), and
#     three outputs, the percentages of water, fat and protein;
#   gasoline (pls): 60 gasoline samples, 401 NIR absorbances (900-1700 nm),
#     octane number.
# Learners, every one with its defaults and 2 threads:
#   ccforest: one output at a time; "ccforest (3 outputs)" is one forest for
#     tecator's three outputs at once (cbind(water, fat, protein) ~ .);
#   ranger: one forest per output;
#   PLS: pls::plsr() with the number of components (1 to 20) chosen by
#     10-fold cross-validation inside each training fold (lowest CV MSEP).
# Error: test mean squared error as a share of the output's variance over the
# whole data set (0 is perfect, 1 is no better than predicting the mean),
# mean ± sd over the folds; p: paired two-sided Wilcoxon test of ccforest
# against ranger over the folds.
#
# Output: bench/results/spectra.md and bench/results/spectra.csv (one row
# per data set x output x repeat x fold x learner). --quick writes .tmp files.
# ranger and pls are CRAN's current versions, installed into the git-ignored
# bench/lib/ on the first run (see common.R). Set CCFOREST_LIB to benchmark a
# ccforest installed in another library.

source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "..", "common.R"))
BENCH_OPT <- bench_start(values = "trees", threads = TRUE, quick = TRUE)

use_competitors(c("ranger", "pls"))
suppressPackageStartupMessages({
  library(ccforest)
  library(ranger)
  library(pls)
})

N_THREAD <- bench_threads(2L)
MAX_COMPONENTS <- 20L

load_tecator <- function() {
  e <- new.env()
  utils::data("tecator", package = "caret", envir = e)
  x <- as.data.frame(e$absorp)
  names(x) <- sprintf("nm%d", seq(850, 1048, by = 2))
  y <- as.data.frame(e$endpoints)
  names(y) <- c("water", "fat", "protein")
  list(x = x, y = y)
}

load_gasoline <- function() {
  e <- new.env()
  utils::data("gasoline", package = "pls", envir = e)
  x <- as.data.frame(unclass(e$gasoline$NIR))
  names(x) <- sprintf("nm%d", seq(900, 1700, by = 2))
  list(x = x, y = data.frame(octane = e$gasoline$octane))
}

DATASETS <- list(tecator = load_tecator, gasoline = load_gasoline)

make_folds <- function(n, k, seed) {
  set.seed(seed)
  sample(rep_len(seq_len(k), n))
}

pls_predict <- function(xtr, ytr, xte, seed) {
  set.seed(seed)
  train <- data.frame(y = ytr)
  train$x <- as.matrix(xtr)
  max_comp <- min(MAX_COMPONENTS, nrow(xtr) - 2L)
  fit <- pls::plsr(y ~ x, data = train, ncomp = max_comp, validation = "CV", segments = 10)
  msep <- pls::MSEP(fit, estimate = "CV", intercept = FALSE)$val[1L, 1L, ]
  ncomp <- which.min(msep)
  test <- data.frame(row = seq_len(nrow(xte)))
  test$x <- as.matrix(xte)
  list(pred = as.numeric(predict(fit, newdata = test, ncomp = ncomp)), ncomp = ncomp)
}

# One fold: a named list of predictions (matrices, one column per output).
fit_fold <- function(d, test, seed, n_tree) {
  xtr <- d$x[!test, , drop = FALSE]
  xte <- d$x[test, , drop = FALSE]
  out <- list()
  times <- list()
  outputs <- names(d$y)
  per_output <- function(f) {
    vapply(outputs, function(o) f(d$y[[o]][!test]), numeric(sum(test)))
  }
  times$ccforest <- system.time(out$ccforest <- per_output(function(y) {
    fit <- ccforest(xtr, y, n_tree = n_tree, n_thread = N_THREAD, seed = seed, verbose = FALSE)
    predict(fit, xte, n_thread = N_THREAD)
  }))[["elapsed"]]
  if (length(outputs) > 1L) {
    times[["ccforest (3 outputs)"]] <- system.time({
      fit <- ccforest(xtr, d$y[!test, , drop = FALSE], n_tree = n_tree, n_thread = N_THREAD,
                      seed = seed, verbose = FALSE)
      out[["ccforest (3 outputs)"]] <- as.matrix(predict(fit, xte, n_thread = N_THREAD))
    })[["elapsed"]]
  }
  times$ranger <- system.time(out$ranger <- per_output(function(y) {
    fit <- ranger(x = xtr, y = y, num.trees = n_tree, num.threads = N_THREAD, seed = seed)
    predict(fit, xte, num.threads = N_THREAD)$predictions
  }))[["elapsed"]]
  ncomp <- integer()
  times$PLS <- system.time(out$PLS <- per_output(function(y) {
    res <- pls_predict(xtr, y, xte, seed)
    ncomp <<- c(ncomp, res$ncomp)
    res$pred
  }))[["elapsed"]]
  list(pred = out, time = times, ncomp = ncomp)
}

main <- function() {
  quick <- bench_flag(BENCH_OPT, "quick")
  n_tree <- bench_integer(BENCH_OPT, "trees", if (quick) 50L else 300L)
  repeats <- if (quick) 1L else 2L
  n_fold <- 5L

  out_dir <- results_dir()
  dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
  suffix <- if (quick) ".tmp" else ""
  md_file <- file.path(out_dir, paste0("spectra.md", suffix))
  csv_file <- file.path(out_dir, paste0("spectra.csv", suffix))
  started_at <- Sys.time()
  machine <- machine_info()

  rows <- list()
  info <- list()
  for (di in seq_along(DATASETS)) {
    name <- names(DATASETS)[di]
    d <- DATASETS[[di]]()
    info[[name]] <- list(n = nrow(d$x), D = ncol(d$x),
                         med_cor = median(abs(stats::cor(d$x)[upper.tri(diag(ncol(d$x)))])))
    variance <- vapply(d$y, function(y) mean((y - mean(y))^2), numeric(1))
    for (r in seq_len(repeats)) {
      fold <- make_folds(nrow(d$x), n_fold, seed = 100L * di + r)
      for (f in seq_len(n_fold)) {
        test <- fold == f
        res <- fit_fold(d, test, seed = 1000L * di + 10L * r + f, n_tree = n_tree)
        for (learner in names(res$pred)) {
          pred <- res$pred[[learner]]
          for (o in names(d$y)) {
            rows[[length(rows) + 1L]] <- data.frame(
              dataset = name, output = o, rep = r, fold = f, learner = learner,
              error = mean((d$y[[o]][test] - pred[, o])^2) / variance[[o]],
              train_time = res$time[[learner]], stringsAsFactors = FALSE)
          }
        }
        cat(sprintf("[%s] %s rep %d fold %d done (PLS components: %s)\n",
                    format(Sys.time(), "%H:%M:%S"), name, r, f,
                    paste(res$ncomp, collapse = ", ")))
      }
    }
  }
  results <- do.call(rbind, rows)
  bench_write(results, csv_file)
  total_min <- as.numeric(difftime(Sys.time(), started_at, units = "mins"))

  results$task <- paste(results$dataset, results$output)
  learners <- c("ccforest", "ccforest (3 outputs)", "ranger", "PLS")
  cell <- function(task, learner) {
    e <- results$error[results$task == task & results$learner == learner]
    if (!length(e)) return("\u2013")
    sprintf("%.3f \u00b1 %.3f", mean(e), stats::sd(e))
  }
  ccf_vs_ranger <- paired_verdicts(
    transform(results[results$learner %in% c("ccforest", "ranger"), ], dataset = task),
    reference = "ranger")
  lines <- c(
    report_header("Where oblique forests win: near-infrared spectra", csv_file = csv_file,
                  packages = c("ccforest", "ranger", "pls", "caret")),
    sprintf("| trees / threads | %d trees per forest, %d threads |", n_tree, N_THREAD),
    sprintf("| folds | %d x %d-fold cross-validation, the same folds for every learner |",
            repeats, n_fold),
    sprintf("| total run time | %.1f min |", total_min),
    "",
    "Test mean squared error as a share of the output's variance (0 is perfect, 1 is the",
    "mean's), mean ± sd over the folds. ccforest, ranger: defaults, one forest per output;",
    "ccforest (3 outputs): one forest for tecator's three outputs at once; PLS: `pls::plsr()`",
    sprintf("with 1 to %d components, chosen by 10-fold CV in each training fold. p: paired",
            MAX_COMPONENTS),
    "Wilcoxon test of ccforest against ranger over the folds.",
    "",
    sprintf("Data: tecator (caret; n = %d, D = %d absorbances, median |correlation| between them %.3f),",
            info$tecator$n, info$tecator$D, info$tecator$med_cor),
    sprintf("gasoline (pls; n = %d, D = %d, median |correlation| %.3f).",
            info$gasoline$n, info$gasoline$D, info$gasoline$med_cor),
    "",
    paste0("| data set | output | ", paste(learners, collapse = " | "),
           " | ccforest / ranger | p |"),
    paste0("|---|---|", paste(rep("---:|", length(learners) + 2L), collapse = ""))
  )
  for (task in unique(results$task)) {
    v <- ccf_vs_ranger[ccf_vs_ranger$dataset == task, ]
    parts <- strsplit(task, " ", fixed = TRUE)[[1L]]
    lines <- c(lines, sprintf("| %s | %s | %s | %.3f | %.2g |", parts[1L], parts[2L],
                              paste(vapply(learners, cell, "", task = task), collapse = " | "),
                              v$error / v$reference, v$p))
  }
  times <- aggregate(train_time ~ learner, data = unique(results[, c("dataset", "rep", "fold",
                                                                    "learner", "train_time")]),
                     FUN = sum)
  lines <- c(lines, "",
             sprintf("Total training time over all folds (s): %s.",
                     paste(sprintf("%s %.1f", times$learner, times$train_time), collapse = ", ")))
  bench_write(lines, md_file)
  cat(lines, sep = "\n")
}

main()
