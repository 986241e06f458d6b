#!/usr/bin/env Rscript
# Wide data (many more features than the signal uses, or than rows): does the
# forest find a sparse signal among thousands of features without losing what
# the CCA gives on dense correlated ones? ccforest next to ranger, on the same
# splits (issue 38).
#
#   make install
#   Rscript bench/comparisons/wide.R                 # full run: 4 repeats, 200 trees (about 13 minutes)
#   Rscript bench/comparisons/wide.R --quick         # smoke run: 1 repeat, 50 trees, small p
#   Rscript bench/comparisons/wide.R --trees 200 --repeats 4 --sim-only | --arrays-only
#
# Data:
#   simulated, sparse: n = 1,000 rows of p independent N(0, 1) features, a
#     binary class from a linear score of the first k,
#     y = factor(X[, 1:k] %*% rnorm(k) + rnorm(n) > 0) (issue 38's design),
#     800 rows to train on and 200 held out; (p, k) in (500, 5), (2000, 10),
#     (5000, 5), (5000, 10), (5000, 20);
#   simulated, dense and correlated: n = 1,000, p = 2,000 features in 20 blocks
#     of 100, each block one latent N(0, 1) factor plus N(0, 1) noise
#     (correlation 0.5 within a block), the class from a linear score of
#     the 20 factors: every feature carries a little of the signal;
#   public microarrays shipped by CRAN packages (datamicroarray is not on
#     CRAN): prostate (spls; Singh et al. 2002, 102 x 6,033, 2 classes; sda's
#     singh2002 is the same data), lymphoma (spls; 62 x 4,026, 3 classes),
#     khan2001 (sda; small round blue cell tumours, 88 x 2,308, 5 classes
#     counting the non-SRBCT samples), colon (HiDimDA's AlonDS; Alon et al.
#     1999, 62 x 2,000, 2 classes), with stratified 5-fold cross-validation
#     repeated (--repeats) times.
# Learners, every one with 1 thread and the same seed per split:
#   ccforest: defaults (from 0.4.0 feature_weights = "auto": when the core's
#     rule finds a sparse signal or p >= 10 n, sampling weighted by each
#     feature's R^2 with the outputs in the training rows, to the 4th power,
#     with axis_candidates = "random"; it acts on every design here but the
#     dense one, where the forest is 0.3.0's);
#   ccforest uniform: feature_weights = NULL, uniform sampling (the defaults
#     before 0.4.0);
#   ccforest axis: projection = "axis", sampling = "bagging" (its random
#     forest mode), as a reference for what the CCA adds;
#   ranger: defaults (CRAN's current version, in bench/lib; see common.R).
# Error: held-out misclassification rate; per simulated design, mean over the
# repeats (each a new data set); per microarray, mean over repeats x folds.
# p against ranger: for a simulated design, an exact McNemar test over the
# held-out rows of all its repeats (the same rows for every learner); for a
# microarray, a paired two-sided Wilcoxon test over the folds. The
# microarray summary is the geometric mean over the data sets of the ratio of
# mean errors to ranger's (each error plus half a test row's share, so that a
# perfect fold does not make the ratio 0 or infinite).
#
# Output: bench/results/wide.md and bench/results/wide.csv (one row per
# design x repeat x fold x learner). --quick writes .tmp files. Set
# CCFOREST_LIB to benchmark a ccforest installed in another library.

source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "..", "common.R"))
BENCH_OPT <- bench_start(flags = c("sim-only", "arrays-only"), values = c("trees", "repeats"),
                         threads = TRUE, quick = TRUE)

use_competitors(c("ranger", "spls", "sda", "HiDimDA"))
suppressPackageStartupMessages({
  library(ccforest)
  library(ranger)
})

N_THREAD <- bench_threads(1L)

LEARNERS <- list(
  ccforest = function(xtr, ytr, xte, n_tree, seed) {
    fit <- ccforest(xtr, ytr, n_tree = n_tree, n_thread = N_THREAD, seed = seed, verbose = FALSE)
    predict(fit, xte, n_thread = N_THREAD)
  },
  `ccforest uniform` = function(xtr, ytr, xte, n_tree, seed) {
    fit <- ccforest(xtr, ytr, n_tree = n_tree, n_thread = N_THREAD, seed = seed, verbose = FALSE,
                    feature_weights = NULL)
    predict(fit, xte, n_thread = N_THREAD)
  },
  `ccforest axis` = function(xtr, ytr, xte, n_tree, seed) {
    fit <- ccforest(xtr, ytr, n_tree = n_tree, n_thread = N_THREAD, seed = seed, verbose = FALSE,
                    projection = "axis", sampling = "bagging")
    predict(fit, xte, n_thread = N_THREAD)
  },
  ranger = function(xtr, ytr, xte, n_tree, seed) {
    fit <- ranger(x = xtr, y = ytr, num.trees = n_tree, num.threads = N_THREAD, seed = seed)
    predict(fit, xte, num.threads = N_THREAD)$predictions
  }
)

QUICK_SIMULATIONS <- list(
  `sparse p=500 k=5` = function(seed) gen_sparse(500L, 5L, seed, n = 400L),
  `dense p=400 4 blocks` = function(seed) gen_dense(seed, n = 400L, n_block = 4L, block = 100L)
)

named_columns <- function(x) {
  colnames(x) <- paste0("g", seq_len(ncol(x)))
  x
}

run_split <- function(x, y, test, n_tree, seed, design, rep, fold) {
  do.call(rbind, lapply(names(LEARNERS), function(learner) {
    time <- system.time(
      pred <- LEARNERS[[learner]](x[!test, , drop = FALSE], y[!test], x[test, , drop = FALSE],
                                  n_tree, seed)
    )[["elapsed"]]
    wrong <- as.character(pred) != as.character(y[test])
    data.frame(design = design, rep = rep, fold = fold, learner = learner, n_test = sum(test),
               error = mean(wrong), train_time = time,
               wrong = paste(as.integer(wrong), collapse = ""), stringsAsFactors = FALSE)
  }))
}

main <- function() {
  quick <- bench_flag(BENCH_OPT, "quick")
  n_tree <- bench_integer(BENCH_OPT, "trees", if (quick) 50L else 200L)
  repeats <- bench_integer(BENCH_OPT, "repeats", if (quick) 1L else 4L)
  run_sim <- !bench_flag(BENCH_OPT, "arrays-only")
  run_arrays <- !bench_flag(BENCH_OPT, "sim-only")
  n_fold <- 5L

  out_dir <- results_dir()
  dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
  suffix <- if (quick) ".tmp" else ""
  md_file <- file.path(out_dir, paste0("wide.md", suffix))
  csv_file <- file.path(out_dir, paste0("wide.csv", suffix))
  started_at <- Sys.time()
  machine <- machine_info()
  say <- function(...) cat(sprintf("[%s] %s\n", format(Sys.time(), "%H:%M:%S"), sprintf(...)))

  rows <- list()
  sims <- if (quick) QUICK_SIMULATIONS else WIDE_SIMULATIONS
  if (run_sim) {
    for (si in seq_along(sims)) {
      name <- names(sims)[si]
      for (r in seq_len(repeats)) {
        seed <- 1000L * si + r
        d <- sims[[si]](seed)
        set.seed(seed)
        test <- seq_len(nrow(d$x)) %in% sample(nrow(d$x), nrow(d$x) / 5)
        rows[[length(rows) + 1L]] <- run_split(d$x, d$y, test, n_tree, seed, name, r, 1L)
        say("%s rep %d: %s", name, r, paste(sprintf("%s %.3f", rows[[length(rows)]]$learner,
                                                     rows[[length(rows)]]$error), collapse = ", "))
      }
    }
  }
  array_info <- list()
  if (run_arrays) {
    arrays <- if (quick) WIDE_ARRAYS["colon"] else WIDE_ARRAYS
    for (ai in seq_along(arrays)) {
      name <- names(arrays)[ai]
      d <- arrays[[ai]]()
      x <- named_columns(d$x)
      array_info[[name]] <- sprintf("%s (%s; n = %d, p = %s, %d classes)", name, d$source, nrow(x),
                                    format(ncol(x), big.mark = ","), nlevels(d$y))
      for (r in seq_len(repeats)) {
        fold <- stratified_folds(d$y, n_fold, seed = 100L * ai + r)
        for (f in seq_len(n_fold)) {
          rows[[length(rows) + 1L]] <- run_split(x, d$y, fold == f, n_tree,
                                                 seed = 10000L + 1000L * ai + 10L * r + f,
                                                 design = paste("array", name), rep = r, fold = f)
        }
        say("%s rep %d done", name, r)
      }
    }
  }
  results <- do.call(rbind, rows)
  bench_write(results, csv_file)
  total_min <- as.numeric(difftime(Sys.time(), started_at, units = "mins"))

  learners <- names(LEARNERS)
  verdicts <- paired_verdicts(transform(results, dataset = design), reference = "ranger")
  # A simulated design has one split per repeat, too few for a test over
  # splits: its rows are paired instead (the same held-out rows for every
  # learner; rows of different repeats are independent data sets), with an
  # exact McNemar test, the binomial test of the rows one learner gets wrong
  # and the other right.
  for (design in grep("^array ", unique(results$design), value = TRUE, invert = TRUE)) {
    wrong_of <- function(learner) {
      as.integer(unlist(strsplit(results$wrong[results$design == design &
                                                 results$learner == learner], "")))
    }
    base <- wrong_of("ranger")
    for (learner in setdiff(learners, "ranger")) {
      e <- wrong_of(learner)
      only_learner <- sum(e == 1L & base == 0L)
      only_base <- sum(e == 0L & base == 1L)
      p <- if (only_learner + only_base > 0L) {
        stats::binom.test(only_learner, only_learner + only_base)$p.value
      } else 1
      at <- verdicts$dataset == design & verdicts$learner == learner
      verdicts$p[at] <- p
      verdicts$verdict[at] <- if (p >= 0.05) "tie" else if (mean(e) < mean(base)) "win" else "loss"
    }
  }
  cell <- function(design, learner) {
    e <- results$error[results$design == design & results$learner == learner]
    sprintf("%.3f \u00b1 %.3f", mean(e), stats::sd(e))
  }
  p_cell <- function(design, learner) {
    v <- verdicts[verdicts$dataset == design & verdicts$learner == learner, ]
    sprintf("%.2g (%s)", v$p, v$verdict)
  }
  lines <- c(
    report_header("Wide data: sparse and dense signals among thousands of features", 
                  csv_file = csv_file, packages = c("ccforest", "ranger", "spls", "sda", "HiDimDA")),
    sprintf("| trees / threads | %d trees per forest, %d thread |", n_tree, N_THREAD),
    sprintf("| splits | simulations: %d repeats of a new data set, 800 rows to train, 200 held out; microarrays: %d x %d-fold stratified cross-validation |",
            repeats, repeats, n_fold),
    sprintf("| total run time | %.1f min |", total_min),
    "",
    "Held-out misclassification rate, mean \u00b1 sd over the splits; p against ranger (win / loss",
    "at p < 0.05, else tie): simulations, an exact McNemar test over the held-out rows of all",
    "repeats (paired rows); microarrays, a paired Wilcoxon test over the folds. ccforest: defaults",
    "(`feature_weights = \"auto\"`); ccforest uniform: `feature_weights = NULL` (0.3.0's defaults); ccforest axis: `projection = \"axis\", sampling = \"bagging\"`.",
    if (length(array_info)) paste0("Microarrays: ", paste(unlist(array_info), collapse = "; "), "."),
    "",
    paste0("| design | ", paste(learners, collapse = " | "), " | p ccforest | p uniform |"),
    paste0("|---|", paste(rep("---:|", length(learners) + 2L), collapse = ""))
  )
  for (design in unique(results$design)) {
    lines <- c(lines, sprintf("| %s | %s | %s | %s |", design,
                              paste(vapply(learners, cell, "", design = design), collapse = " | "),
                              p_cell(design, "ccforest"), p_cell(design, "ccforest uniform")))
  }
  array_designs <- grep("^array ", unique(results$design), value = TRUE)
  if (length(array_designs)) {
    ratio <- function(learner) {
      r <- vapply(array_designs, function(design) {
        d <- results[results$design == design, ]
        shift <- 0.5 / mean(d$n_test)
        (mean(d$error[d$learner == learner]) + shift) / (mean(d$error[d$learner == "ranger"]) + shift)
      }, numeric(1))
      exp(mean(log(r)))
    }
    lines <- c(lines, "", sprintf(
      "Microarrays, geometric mean over the %d data sets of the error ratio to ranger: %s.",
      length(array_designs),
      paste(vapply(setdiff(learners, "ranger"), function(l) sprintf("%s %.3f", l, ratio(l)), ""),
            collapse = ", ")))
  }
  times <- aggregate(train_time ~ learner, data = results, FUN = sum)
  lines <- c(lines, "",
             sprintf("Total fit + predict time over all splits (s): %s.",
                     paste(sprintf("%s %.1f", times$learner, times$train_time), collapse = ", ")))
  bench_write(lines, md_file)
  cat(lines, sep = "\n")
}

main()
