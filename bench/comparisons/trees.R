#!/usr/bin/env Rscript
# Error versus number of trees: ccforest next to ranger (the paper's section
# "number of trees", Rainforth & Wood 2017: "on average it only takes around
# 15 CCTs to match the accuracy of 500 RF trees").
#
#   make install
#   Rscript bench/comparisons/trees.R                    # full run (see bench/README.md for its run time)
#   Rscript bench/comparisons/trees.R --quick            # smoke run: 2 small data sets, 1 x 3-fold, 100 trees
#   Rscript bench/comparisons/trees.R --trees 200        # largest forest (default 500); the k grid stops there
#   Rscript bench/comparisons/trees.R --datasets vehicle,letter
#
# For every fold, one ccforest (defaults) and one ranger (defaults) of N trees
# are grown once on the training part; the test part is then predicted with
# the first k trees, k in 1, 2, 3, 5, 10, 15, 20, 30, 50, 100, 200, 500
# (ccforest: predict(fit, new_data, n_tree = k); ranger: predict(fit, data,
# num.trees = k)). Both use 2 threads. Folds are stratified by class and
# shared by the two learners; seeds depend only on (data set, repeat, fold).
#
# Reported per data set: the mean test error (% misclassified) over folds at
# every k for both learners, and the smallest k at which ccforest's mean error
# is at most ranger-with-N-trees' mean error ("k match"), plus the smallest k
# from which on it stays there for every larger k ("k stays").
#
# Output: bench/results/trees.md and bench/results/trees.csv (one row per data
# set x repeat x fold x learner x k). --quick or --datasets write .tmp files.
#
# ranger is CRAN's current version, installed by bench/common.R into the
# git-ignored bench/lib/ on the first run (results up to 2026-11-26 used
# Debian's ranger 0.14.1; the report names the versions and libraries).
#
# Give --lib PATH (or set CCFOREST_LIB) to a library path to benchmark a ccforest installed there.

source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "..", "common.R"))
BENCH_OPT <- bench_start(values = c("trees", "datasets"), threads = TRUE, quick = TRUE)

use_competitors("ranger")  # CRAN's current ranger, from bench/lib
suppressPackageStartupMessages({
  library(ccforest)
  library(ranger)
  library(mlbench)
})

N_THREAD <- bench_threads(2L)
K_GRID <- c(1L, 2L, 3L, 5L, 10L, 15L, 20L, 30L, 50L, 100L, 200L, 500L)





DATASETS <- list(
  vehicle = list(repeats = 2L, folds = 10L, load = function() {
    d <- mlb("Vehicle"); list(x = d[, names(d) != "Class"], y = d$Class) }),
  ionosphere = list(repeats = 1L, folds = 10L, load = function() {
    d <- mlb("Ionosphere"); list(x = d[, names(d) != "Class"], y = d$Class) }),
  waveform = list(repeats = 1L, folds = 5L, eval_folds = 3L, load = function() {
    set.seed(5000L); w <- mlbench::mlbench.waveform(5000); list(x = as.data.frame(w$x), y = w$classes) }),
  spirals = list(repeats = 1L, folds = 5L, eval_folds = 3L, load = function() gen_spirals(10000L)),
  letter = list(repeats = 1L, folds = 5L, eval_folds = 2L, load = function() {
    d <- mlb("LetterRecognition"); list(x = d[, names(d) != "lettr"], y = d$lettr) }),
  iris = list(repeats = 5L, folds = 10L, load = function() list(x = iris[, 1:4], y = iris$Species))
)
DEFAULT_SETS <- c("vehicle", "ionosphere", "waveform", "spirals")
QUICK_SETS <- c("iris", "vehicle")

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

cv_label <- function(inf) {
  cv <- sprintf("%dx%d", inf$repeats, inf$folds)
  if (inf$eval_folds < inf$folds) cv <- sprintf("%s (%d of %d folds)", cv, inf$eval_folds, inf$folds)
  cv
}

err_pct <- function(pred, truth) 100 * mean(as.character(pred) != as.character(truth))

main <- function() {
  opt <- list(trees = bench_integer(BENCH_OPT, "trees"), quick = bench_flag(BENCH_OPT, "quick"),
              datasets = bench_list(BENCH_OPT, "datasets"))
  sets <- opt$datasets %||% (if (opt$quick) QUICK_SETS else DEFAULT_SETS)
  bad <- setdiff(sets, names(DATASETS))
  if (length(bad)) stop("unknown data set(s): ", paste(bad, collapse = ", "), call. = FALSE)
  n_tree <- opt$trees %||% (if (opt$quick) 100L else 500L)
  ks <- sort(unique(c(K_GRID[K_GRID <= n_tree], n_tree)))
  partial <- opt$quick || !is.null(opt$datasets)

  out_dir <- results_dir()
  dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
  base <- if (opt$quick) "trees-quick" else "trees"
  suffix <- if (partial) ".tmp" else ""
  md_file <- file.path(out_dir, paste0(base, ".md", suffix))
  csv_file <- file.path(out_dir, paste0(base, ".csv", suffix))

  started_at <- Sys.time()
  machine <- machine_info()
  cat(sprintf("trees.R: %d trees, k = %s, data sets: %s\n", n_tree, paste(ks, collapse = ","),
              paste(sets, collapse = ", ")))

  rows <- list(); info <- list()
  for (di in seq_along(sets)) {
    name <- sets[di]; spec <- DATASETS[[name]]
    d <- spec$load(); x <- d$x; y <- d$y
    repeats <- if (opt$quick) 1L else spec$repeats
    folds_k <- if (opt$quick) 3L else spec$folds
    # eval_folds < folds: split k-fold but fit and test only the first
    # eval_folds folds (each fit still trains on (k-1)/k of the rows).
    eval_folds <- if (opt$quick) folds_k else (spec$eval_folds %||% folds_k)
    info[[name]] <- list(n = nrow(x), D = ncol(x), K = nlevels(y), repeats = repeats, folds = folds_k,
                         eval_folds = eval_folds)
    t0 <- proc.time()[["elapsed"]]
    tt <- c(ccf = 0, ranger = 0)
    for (r in seq_len(repeats)) {
      fold <- make_folds(y, folds_k, seed = 1000L * di + r)
      for (f in seq_len(eval_folds)) {
        test <- fold == f
        seed <- 100000L * di + 1000L * r + f
        xtr <- x[!test, , drop = FALSE]; xte <- x[test, , drop = FALSE]
        tt["ccf"] <- tt["ccf"] + system.time(
          fit <- ccforest(xtr, y[!test], n_tree = n_tree, n_thread = N_THREAD, seed = seed, verbose = FALSE),
          gcFirst = FALSE)[["elapsed"]]
        tt["ranger"] <- tt["ranger"] + system.time(
          rf <- ranger(x = xtr, y = y[!test], num.trees = n_tree, num.threads = N_THREAD, seed = seed),
          gcFirst = FALSE)[["elapsed"]]
        for (k in ks) {
          e_ccf <- err_pct(predict(fit, xte, n_tree = k, n_thread = N_THREAD), y[test])
          e_rf <- err_pct(predict(rf, xte, num.trees = k, num.threads = N_THREAD)$predictions, y[test])
          rows[[length(rows) + 1L]] <- data.frame(
            dataset = name, rep = r, fold = f, learner = c("ccforest", "ranger"), k = k,
            error = c(e_ccf, e_rf), stringsAsFactors = FALSE)
        }
      }
    }
    info[[name]]$fit_s <- tt / (repeats * eval_folds)
    info[[name]]$elapsed <- proc.time()[["elapsed"]] - t0
    dd <- do.call(rbind, rows); dd <- dd[dd$dataset == name, ]
    cat(sprintf("[%s] %s: ccforest k=1 %.2f, k=%d %.2f; ranger k=%d %.2f [%.0f s]\n",
                format(Sys.time(), "%H:%M:%S"), name,
                mean(dd$error[dd$learner == "ccforest" & dd$k == 1]), n_tree,
                mean(dd$error[dd$learner == "ccforest" & dd$k == n_tree]), n_tree,
                mean(dd$error[dd$learner == "ranger" & dd$k == n_tree]), info[[name]]$elapsed))
    bench_write(do.call(rbind, rows), csv_file)
  }
  results <- do.call(rbind, rows)
  bench_write(results, csv_file)
  total_min <- as.numeric(difftime(Sys.time(), started_at, units = "mins"))

  # Summaries: mean over folds, per data set x learner x k.
  mean_err <- function(name, learner, k) mean(results$error[results$dataset == name &
                                                           results$learner == learner & results$k == k])
  summary_rows <- list()
  lines <- c(
    report_header("Error versus number of trees: ccforest next to ranger",
                  csv_file = csv_file),
    sprintf("| total run time | %.1f min |", total_min),
    "",
    sprintf("One forest of %d trees per fold and learner (defaults of each package, %d threads),", n_tree, N_THREAD),
    "predicted with its first k trees. Error = % of test rows misclassified, mean over folds",
    "(same stratified folds for both learners). Data sets as in `bench/comparisons/accuracy.R`.",
    "CV \"1x5 (3 of 5 folds)\": the rows are split 5-fold but only the first 3 folds are fitted",
    "and tested (to fit the run-time budget on a shared 2-core machine).",
    "",
    "## Smallest k at which ccforest matches ranger",
    "",
    sprintf("| data set | n | D | K | CV | ranger-%d error | ccforest-%d error | k match | k stays | ccforest-k error at k match |", n_tree, n_tree),
    "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|"
  )
  for (name in sets) {
    inf <- info[[name]]
    ref <- mean_err(name, "ranger", n_tree)
    ccf_k <- vapply(ks, function(k) mean_err(name, "ccforest", k), numeric(1))
    ok <- ccf_k <= ref + 1e-9
    k_match <- if (any(ok)) ks[which(ok)[1L]] else NA_integer_
    k_stays <- if (ok[length(ok)]) {
      last_bad <- if (all(ok)) 0L else max(which(!ok))
      ks[last_bad + 1L]
    } else NA_integer_
    lines <- c(lines, sprintf("| %s | %d | %d | %d | %s | %.2f | %.2f | %s | %s | %s |",
      name, inf$n, inf$D, inf$K, cv_label(inf), ref, ccf_k[length(ccf_k)],
      if (is.na(k_match)) sprintf("> %d", n_tree) else k_match,
      if (is.na(k_stays)) sprintf("> %d", n_tree) else k_stays,
      if (is.na(k_match)) "–" else sprintf("%.2f", ccf_k[which(ok)[1L]])))
  }
  lines <- c(lines, "",
    "k match: smallest k in the grid with mean ccforest-k error <= mean ranger error at the",
    "full forest size; k stays: smallest k from which every larger k in the grid also matches.",
    "The paper reports about 15 CCTs to match 500 RF (TreeBagger) trees on average over 37",
    "data sets (its Figure \"varyNoTrees\"; the per-data-set numbers are not given).",
    "", "## Mean error (%) by number of trees", "")
  for (name in sets) {
    inf <- info[[name]]
    lines <- c(lines, sprintf("### %s (n = %d, D = %d, K = %d, CV %s; mean fit time %.2f s ccforest, %.2f s ranger)",
                              name, inf$n, inf$D, inf$K, cv_label(inf), inf$fit_s[["ccf"]], inf$fit_s[["ranger"]]),
               "", "| k | ccforest | ranger | ccforest - ranger |", "|---:|---:|---:|---:|")
    for (k in ks) {
      a <- mean_err(name, "ccforest", k); b <- mean_err(name, "ranger", k)
      lines <- c(lines, sprintf("| %d | %.2f | %.2f | %+.2f |", k, a, b, a - b))
    }
    lines <- c(lines, "")
  }
  bench_write(lines, md_file)
  cat(sprintf("wrote %s and %s (%.1f min)\n", md_file, csv_file, total_min))
}

main()
