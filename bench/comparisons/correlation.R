#!/usr/bin/env Rscript
# Effect of correlation between input features (the paper's section 6.1,
# "Effect of Correlation between Input Features", Rainforth & Wood 2017):
# error of ccforest and ranger as artificial correlation grows.
#
#   make install
#   Rscript bench/comparisons/correlation.R               # full run (see bench/README.md for its run time)
#   Rscript bench/comparisons/correlation.R --quick       # smoke run: iris only, 1 x 5-fold, 50 trees, 4 kappas
#   Rscript bench/comparisons/correlation.R --trees 200   # trees per forest (default 500)
#
# The paper's transformation, applied to the whole data set after z-scoring
# every feature (the paper's preprocessing):
#   1. add a new feature X[, D + 1] ~ N(0, kappa) (kappa is a variance);
#   2. to each original feature add or subtract it:
#      X[, d] <- X[, d] + zeta_d * X[, D + 1], zeta_d uniform on {-1, +1}.
# The transformed data (D + 1 features) is then cross-validated. As kappa
# grows every original feature is dominated by the same noise; the class
# information survives only in differences / sums of pairs of features, which
# an oblique split (CCA) recovers and an axis-aligned split cannot.
#
# Learners (same folds, same transformed data, 2 threads): CCF (ccforest
# defaults), RRF (ccforest projection = "rotation"), CCF-axis (ccforest
# projection = "axis") and ranger (defaults). The noise draw depends on
# (data set, repeat, kappa index) only; the folds on (data set, repeat) only,
# so every kappa and learner uses the same folds.
#
# Data: iris (as the paper; 2 x 10-fold) and mlbench Vehicle (1 x 5-fold).
# The paper used iris and banknote with 5 x 10-fold and shows the result only
# as a figure (not in the LaTeX source), so no numbers are compared.
#
# Output: bench/results/correlation.md and bench/results/correlation.csv
# (one row per data set x kappa x repeat x fold x learner). --quick writes
# .tmp files.
#
# ranger is CRAN's current version, installed by bench/common.R into the
# git-ignored bench/lib/ on the first run (results up to 2026-11-26 used
# Debian's ranger 0.14.1; the report names the versions and libraries).
#
# Give --lib PATH (or set CCFOREST_LIB) to a library path to benchmark a ccforest installed there.

source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "..", "common.R"))
BENCH_OPT <- bench_start(values = "trees", threads = TRUE, quick = TRUE)

use_competitors("ranger")  # CRAN's current ranger, from bench/lib
suppressPackageStartupMessages({
  library(ccforest)
  library(ranger)
  library(mlbench)
})

N_THREAD <- bench_threads(2L)
KAPPAS <- c(0, 0.01, 0.1, 1, 10, 100, 1000, 10000)
LEARNERS <- c("CCF", "RRF", "CCF-axis", "ranger")




DATASETS <- list(
  iris = list(repeats = 2L, folds = 10L, load = function() list(x = iris[, 1:4], y = iris$Species)),
  vehicle = list(repeats = 1L, folds = 5L, load = function() {
    d <- mlb("Vehicle"); list(x = d[, names(d) != "Class"], y = d$Class) })
)

# z-score, then the paper's correlating transformation.
correlate <- function(x, kappa, seed) {
  z <- scale(as.matrix(x))
  set.seed(seed)
  extra <- stats::rnorm(nrow(z), 0, sqrt(kappa))
  zeta <- sample(c(-1, 1), ncol(z), replace = TRUE)
  z <- z + outer(extra, zeta)
  out <- as.data.frame(z)
  names(out) <- colnames(x)
  out$corr_noise <- extra
  out
}

make_folds <- function(y, k, seed) {
  set.seed(seed)
  fold <- integer(length(y)); start <- 0L
  for (lev in levels(y)) {
    rows <- which(y == lev); rows <- rows[sample.int(length(rows))]
    fold[rows] <- ((seq_along(rows) - 1L + start) %% k) + 1L
    start <- (start + length(rows)) %% k
  }
  fold
}

fit_predict <- function(learner, xtr, ytr, xte, n_tree, seed) {
  if (learner == "ranger") {
    fit <- ranger(x = xtr, y = ytr, num.trees = n_tree, num.threads = N_THREAD, seed = seed)
    return(predict(fit, xte, num.threads = N_THREAD)$predictions)
  }
  projection <- switch(learner, CCF = "cca", RRF = "rotation", `CCF-axis` = "axis")
  fit <- ccforest(xtr, ytr, n_tree = n_tree, projection = projection, n_thread = N_THREAD,
                  seed = seed, verbose = FALSE)
  predict(fit, xte, n_thread = N_THREAD)
}

main <- function() {
  opt <- list(trees = bench_integer(BENCH_OPT, "trees"), quick = bench_flag(BENCH_OPT, "quick"))
  n_tree <- opt$trees %||% (if (opt$quick) 50L else 500L)
  kappas <- if (opt$quick) c(0, 1, 100, 10000) else KAPPAS
  sets <- if (opt$quick) "iris" else names(DATASETS)

  out_dir <- results_dir()
  dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
  base <- if (opt$quick) "correlation-quick" else "correlation"
  suffix <- if (opt$quick) ".tmp" else ""
  md_file <- file.path(out_dir, paste0(base, ".md", suffix))
  csv_file <- file.path(out_dir, paste0(base, ".csv", suffix))

  started_at <- Sys.time()
  machine <- machine_info()
  cat(sprintf("correlation.R: %d trees, kappa = %s\n", n_tree, paste(kappas, collapse = ", ")))

  rows <- list(); info <- list()
  for (di in seq_along(sets)) {
    name <- sets[di]; spec <- DATASETS[[name]]
    d <- spec$load(); y <- d$y
    repeats <- if (opt$quick) 1L else spec$repeats
    folds_k <- if (opt$quick) 5L else spec$folds
    info[[name]] <- list(n = nrow(d$x), D = ncol(d$x), K = nlevels(y), repeats = repeats, folds = folds_k)
    for (r in seq_len(repeats)) {
      fold <- make_folds(y, folds_k, seed = 1000L * di + r)
      for (ki in seq_along(kappas)) {
        x <- correlate(d$x, kappas[ki], seed = 10000L * di + 100L * r + ki)
        t0 <- proc.time()[["elapsed"]]
        for (f in seq_len(folds_k)) {
          test <- fold == f
          seed <- 100000L * di + 1000L * r + f
          for (learner in LEARNERS) {
            pred <- fit_predict(learner, x[!test, , drop = FALSE], y[test == FALSE],
                                x[test, , drop = FALSE], n_tree, seed)
            rows[[length(rows) + 1L]] <- data.frame(
              dataset = name, kappa = kappas[ki], rep = r, fold = f, learner = learner,
              error = 100 * mean(as.character(pred) != as.character(y[test])),
              stringsAsFactors = FALSE)
          }
        }
        dd <- do.call(rbind, rows)
        dd <- dd[dd$dataset == name & dd$kappa == kappas[ki] & dd$rep == r, ]
        cat(sprintf("[%s] %s rep %d kappa %g: %s [%.0f s]\n", format(Sys.time(), "%H:%M:%S"), name, r,
                    kappas[ki], paste(vapply(LEARNERS, function(l) sprintf("%s=%.2f", l,
                    mean(dd$error[dd$learner == l])), ""), collapse = " "),
                    proc.time()[["elapsed"]] - t0))
      }
    }
    bench_write(do.call(rbind, rows), csv_file)
  }
  results <- do.call(rbind, rows)
  bench_write(results, csv_file)
  total_min <- as.numeric(difftime(Sys.time(), started_at, units = "mins"))

  lines <- c(
    report_header("Effect of correlated features: ccforest next to ranger",
                  csv_file = csv_file),
    sprintf("| trees / threads | %d trees per forest, %d threads |", n_tree, N_THREAD),
    sprintf("| total run time | %.1f min |", total_min),
    "",
    "The paper's section 6.1 transformation: after z-scoring, a feature X[, D+1] ~ N(0, kappa)",
    "is appended and added to or subtracted from every original feature (random sign per",
    "feature). Error = % of test rows misclassified, mean ± sd over the folds of all repeats;",
    "every kappa and learner uses the same folds. CCF = ccforest defaults, RRF = `projection =",
    "\"rotation\"`, CCF-axis = `projection = \"axis\"`, ranger = ranger defaults.",
    "The paper (Figure \"corrAccsup\", iris and banknote, 5 x 10-fold) reports that CCF is",
    "unaffected while RF degrades to random guessing and RRF fares only marginally better.",
    ""
  )
  for (name in sets) {
    inf <- info[[name]]
    chance <- 100 * (1 - max(table(DATASETS[[name]]$load()$y)) / inf$n)
    lines <- c(lines, sprintf("## %s (n = %d, D = %d + 1, K = %d, %d x %d-fold; majority-class error %.1f%%)",
                              name, inf$n, inf$D, inf$K, inf$repeats, inf$folds, chance), "",
               paste0("| kappa | ", paste(LEARNERS, collapse = " | "), " |"),
               paste0("|---:|", paste(rep("---|", length(LEARNERS)), collapse = "")))
    for (kp in kappas) {
      cells <- vapply(LEARNERS, function(l) {
        e <- results$error[results$dataset == name & results$kappa == kp & results$learner == l]
        sprintf("%.2f ± %.2f", mean(e), stats::sd(e))
      }, "")
      lines <- c(lines, sprintf("| %g | %s |", kp, paste(cells, collapse = " | ")))
    }
    base_ccf <- mean(results$error[results$dataset == name & results$kappa == kappas[1L] & results$learner == "CCF"])
    top_ccf <- mean(results$error[results$dataset == name & results$kappa == max(kappas) & results$learner == "CCF"])
    base_rf <- mean(results$error[results$dataset == name & results$kappa == kappas[1L] & results$learner == "ranger"])
    top_rf <- mean(results$error[results$dataset == name & results$kappa == max(kappas) & results$learner == "ranger"])
    lines <- c(lines, "", sprintf(
      "From kappa = %g to %g: CCF %.2f -> %.2f (%+.2f points), ranger %.2f -> %.2f (%+.2f points).",
      kappas[1L], max(kappas), base_ccf, top_ccf, top_ccf - base_ccf, base_rf, top_rf, top_rf - base_rf), "")
  }
  bench_write(lines, md_file)
  cat(sprintf("wrote %s and %s (%.1f min)\n", md_file, csv_file, total_min))
}

main()
