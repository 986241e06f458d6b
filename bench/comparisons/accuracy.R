#!/usr/bin/env Rscript
# Accuracy of ccforest next to ranger, measured side by side by repeated
# k-fold cross-validation (the paper's classification and regression tables,
# Rainforth & Wood 2017, sections 4 and 5).
#
#   make install
#   Rscript bench/comparisons/accuracy.R                  # full run (see bench/README.md for its run time)
#   Rscript bench/comparisons/accuracy.R --quick          # smoke run: 4 small datasets, 1 x 3-fold, 50 trees
#   Rscript bench/comparisons/accuracy.R --trees 100      # every learner grows 100 trees (default 500)
#   Rscript bench/comparisons/accuracy.R --datasets iris,vehicle   # only these datasets
#   Rscript bench/comparisons/accuracy.R --repeats 1      # cap the number of CV repeats of every dataset
#   Rscript bench/comparisons/accuracy.R --resume         # reuse the fits already in the output CSV (same
#                                             # data set, repeat, fold, learner and trees) and
#                                             # run only the missing ones
#
# Learners (all on the same folds, 2 threads, N trees each):
#   CCF       ccforest defaults (CCA projections, projection bootstrapping)
#   CCF-Bag   ccforest(sampling = "bagging")
#   RRF       ccforest(projection = "rotation")      (random rotation forest)
#   CCF-axis  ccforest(projection = "axis")          (a random forest inside ccforest:
#             the paper's lambda = ceil(log2(D) + 1), entropy, projection bootstrap)
#   ranger    ranger defaults (mtry = floor(sqrt(D)), Gini / variance, bagging,
#             min.node.size 1 for classification and 5 for regression)
# Error measures (the paper's): classification = % of test rows misclassified;
# regression = test MSE as % of the variance of the response over the whole
# data set. Mean and sd are over all folds of all repeats (as in the paper,
# whose sd is over its 15 x 10 = 150 test folds).
#
# ranger is CRAN's current version, installed by bench/common.R into
# bench/lib/ on the first run (results up to 2026-11-26 used Debian's ranger
# 0.14.1); the report names the versions and libraries.
#
# Data handling: ccforest gets factors and missing values as they are, and so
# does ranger from version 0.16.0 on (its default na.action = "na.learn").
# Older ranger refuses missing values, so for it each fold's missing feature
# values are imputed with the training fold's median (numeric) or most
# frequent level (factor); no rows are dropped. Rows with a missing response
# (Ozone) are dropped for every learner.
#
# Folds are stratified by class for classification and plain random for
# regression; they depend only on the data set and the repeat index, so every
# learner sees the same folds. Learner seeds depend only on (data set, repeat,
# fold).
#
# Output: bench/results/accuracy.md (table) and bench/results/accuracy.csv
# (one row per data set x repeat x fold x learner). With --quick, or with
# --datasets / --repeats (a partial run), the files get a .tmp suffix so the
# full results are not overwritten.
#
# Give --lib PATH (or set CCFOREST_LIB) to a library path to benchmark a ccforest installed there.

source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "..", "common.R"))
# Run as a script, it parses its arguments; bench/decisions/variants.R, which
# sources it for its definitions, has parsed its own.
if (sys.nframe() == 0L) {
  BENCH_OPT <- bench_start(flags = "resume", values = c("trees", "datasets", "repeats"),
                           threads = TRUE, quick = TRUE)
}

use_competitors("ranger")
suppressPackageStartupMessages({
  library(ccforest)
  library(ranger)
  library(mlbench)
})

N_THREAD <- bench_threads(2L)

# ---------------------------------------------------------------------------
# Command line

# The options of bench_start() as this script (and variants.R) reads them.
accuracy_options <- function(opt) {
  list(trees = bench_integer(opt, "trees", 500L), trees_given = !is.null(opt$trees),
       quick = bench_flag(opt, "quick"), datasets = bench_list(opt, "datasets"),
       repeats = bench_integer(opt, "repeats"), resume = bench_flag(opt, "resume"))
}

# ---------------------------------------------------------------------------
# Data sets. Each loader returns list(x = data.frame, y = factor or numeric).



load_dataset <- function(name) {
  switch(name,
    iris = list(x = iris[, 1:4], y = iris$Species),
    vehicle = { d <- mlb("Vehicle"); list(x = d[, names(d) != "Class"], y = d$Class) },
    ionosphere = { d <- mlb("Ionosphere"); list(x = d[, names(d) != "Class"], y = d$Class) },
    sonar = { d <- mlb("Sonar"); list(x = d[, names(d) != "Class"], y = d$Class) },
    glass = { d <- mlb("Glass"); list(x = d[, names(d) != "Type"], y = droplevels(d$Type)) },
    breastcancer = {
      d <- mlb("BreastCancer")
      list(x = d[, setdiff(names(d), c("Id", "Class"))], y = d$Class)
    },
    vowel = { d <- mlb("Vowel"); list(x = d[, names(d) != "Class"], y = d$Class) },
    satellite = { d <- mlb("Satellite"); list(x = d[, names(d) != "classes"], y = droplevels(d$classes)) },
    waveform = {
      set.seed(5000L)
      w <- mlbench::mlbench.waveform(5000)
      list(x = as.data.frame(w$x), y = w$classes)
    },
    spirals = gen_spirals(10000L),
    spirals_small = gen_spirals(2000L),
    letter = { d <- mlb("LetterRecognition"); list(x = d[, names(d) != "lettr"], y = d$lettr) },
    bostonhousing = { d <- mlb("BostonHousing"); list(x = d[, names(d) != "medv"], y = d$medv) },
    servo = { d <- mlb("Servo"); list(x = d[, names(d) != "Class"], y = d$Class) },
    ozone = {
      d <- mlb("Ozone")
      d <- d[!is.na(d$V4), ]
      list(x = d[, names(d) != "V4"], y = d$V4)
    },
    stop("unknown data set: ", name, call. = FALSE)
  )
}

# Protocol per data set (repeats x folds) and the paper's figures (Table
# "ResultsTable", % misclassified, and Table "RegressionTable", MSE as % of
# variance; mean +- sd over 15 x 10-fold CV, 500 trees). RF in the paper is
# MATLAB TreeBagger with lambda = ceil(log2(D) + 1) and entropy, not ranger.
DATASETS <- list(
  iris          = list(label = "iris", repeats = 5L, folds = 10L,
                       paper = c(CCF = "2.76 ± 3.95", RF = "5.07 ± 5.22", `CCF-Bag` = "2.13 ± 3.65", RRF = "4.53 ± 5.31"),
                       paper_name = "Iris"),
  vehicle       = list(label = "vehicle", repeats = 3L, folds = 10L,
                       paper = c(CCF = "17.34 ± 4.13", RF = "25.22 ± 4.57", `CCF-Bag` = "17.36 ± 4.06", RRF = "22.63 ± 4.19"),
                       paper_name = "Vehicle"),
  ionosphere    = list(label = "ionosphere", repeats = 3L, folds = 10L,
                       paper = c(CCF = "4.82 ± 3.44", RF = "6.53 ± 3.95", `CCF-Bag` = "5.50 ± 3.66", RRF = "4.69 ± 3.43"),
                       paper_name = "Ionosphere"),
  sonar         = list(label = "sonar", repeats = 2L, folds = 10L, paper = NULL),
  glass         = list(label = "glass", repeats = 2L, folds = 10L, paper = NULL),
  breastcancer  = list(label = "breastcancer", repeats = 3L, folds = 10L,
                       paper = c(CCF = "3.23 ± 2.02", RF = "3.54 ± 2.17", `CCF-Bag` = "3.02 ± 1.90", RRF = "3.03 ± 1.97"),
                       paper_name = "Wisconsin cancer"),
  vowel         = list(label = "vowel", repeats = 2L, folds = 10L,
                       paper = c(CCF = "0.85 ± 0.89", RF = "2.56 ± 1.66", `CCF-Bag` = "1.21 ± 1.03", RRF = "0.69 ± 0.90"),
                       paper_name = "Vowel-c (vowel-n: CCF 1.84 ± 1.30, RF 3.93 ± 1.98)"),
  waveform      = list(label = "waveform", repeats = 1L, folds = 5L,
                       paper = c(CCF = "13.52 ± 1.56", RF = "15.06 ± 1.69", `CCF-Bag` = "13.46 ± 1.58", RRF = "13.56 ± 1.56"),
                       paper_name = "Waveform (1)"),
  spirals       = list(label = "spirals", repeats = 1L, folds = 5L,
                       paper = c(CCF = "0.27 ± 0.16", RF = "1.21 ± 0.33", `CCF-Bag` = "0.27 ± 0.16", RRF = "0.26 ± 0.16"),
                       paper_name = "Spirals"),
  letter        = list(label = "letter", repeats = 1L, folds = 5L,
                       paper = c(CCF = "2.10 ± 0.33", RF = "3.36 ± 0.39", `CCF-Bag` = "2.43 ± 0.35", RRF = "2.82 ± 0.37"),
                       paper_name = "Letter"),
  satellite     = list(label = "satellite", repeats = 1L, folds = 5L,
                       paper = c(CCF = "8.18 ± 1.06", RF = "8.03 ± 1.00", `CCF-Bag` = "8.59 ± 1.05", RRF = "8.17 ± 1.02"),
                       paper_name = "Landsat satellite (paper lists K = 2)"),
  bostonhousing = list(label = "bostonhousing", repeats = 3L, folds = 10L,
                       paper = c(CCF = "12.89 ± 8.47", RF = "13.51 ± 9.04", `CCF-Bag` = "13.49 ± 8.68", RRF = "13.85 ± 8.93"),
                       paper_name = "Housing"),
  servo         = list(label = "servo", repeats = 3L, folds = 10L,
                       paper = c(CCF = "10.93 ± 14.87", RF = "13.85 ± 18.54", `CCF-Bag` = "12.34 ± 14.96", RRF = "18.54 ± 19.51"),
                       paper_name = "Servo"),
  ozone         = list(label = "ozone", repeats = 2L, folds = 10L, paper = NULL),
  spirals_small = list(label = "spirals (2000 rows)", repeats = 1L, folds = 3L, paper = NULL)
)
DEFAULT_SETS <- c("iris", "vehicle", "ionosphere", "sonar", "glass", "breastcancer", "vowel",
                  "waveform", "spirals", "letter", "bostonhousing", "servo", "ozone")
QUICK_SETS <- c("iris", "vehicle", "spirals_small", "bostonhousing")

# ---------------------------------------------------------------------------
# Folds, learners, errors

make_folds <- function(y, k, seed) {
  set.seed(seed)
  n <- length(y)
  fold <- integer(n)
  if (is.factor(y)) {
    # Stratified: deal each class's shuffled rows round the folds, starting
    # where the previous class stopped so fold sizes stay balanced.
    start <- 0L
    for (lev in levels(y)) {
      rows <- which(y == lev)
      rows <- rows[sample.int(length(rows))]
      fold[rows] <- ((seq_along(rows) - 1L + start) %% k) + 1L
      start <- (start + length(rows)) %% k
    }
  } else {
    fold[sample.int(n)] <- rep_len(seq_len(k), n)
  }
  fold
}

# Impute for ranger before 0.16: training-fold median / most frequent level.
impute_for_ranger <- function(train, test) {
  if (ranger_learns_na()) return(list(train = train, test = test))
  for (j in seq_along(train)) {
    if (!anyNA(train[[j]]) && !anyNA(test[[j]])) next
    col <- train[[j]]
    fill <- if (is.factor(col)) {
      tab <- table(col)
      factor(names(tab)[which.max(tab)], levels = levels(col))
    } else {
      stats::median(col, na.rm = TRUE)
    }
    train[[j]][is.na(train[[j]])] <- fill
    test[[j]][is.na(test[[j]])] <- fill
  }
  list(train = train, test = test)
}

LEARNERS <- c("CCF", "CCF-Bag", "RRF", "CCF-axis", "ranger")

fit_predict <- function(learner, xtr, ytr, xte, n_tree, seed) {
  if (learner == "ranger") {
    imp <- impute_for_ranger(xtr, xte)
    t <- system.time(fit <- ranger::ranger(x = imp$train, y = ytr, num.trees = n_tree,
                                           num.threads = N_THREAD, seed = seed),
                     gcFirst = FALSE)[["elapsed"]]
    tp <- system.time(pred <- predict(fit, imp$test, num.threads = N_THREAD)$predictions,
                      gcFirst = FALSE)[["elapsed"]]
  } else {
    extra <- switch(learner,
      "CCF" = list(),
      "CCF-Bag" = list(sampling = "bagging"),
      "RRF" = list(projection = "rotation"),
      "CCF-axis" = list(projection = "axis")
    )
    t <- system.time(fit <- do.call(ccforest::ccforest, c(
      list(x = xtr, y = ytr, n_tree = n_tree, n_thread = N_THREAD, seed = seed, verbose = FALSE),
      extra)), gcFirst = FALSE)[["elapsed"]]
    tp <- system.time(pred <- predict(fit, xte, n_thread = N_THREAD), gcFirst = FALSE)[["elapsed"]]
  }
  list(pred = pred, train_s = t, predict_s = tp)
}

fold_error <- function(pred, truth, var_y) {
  if (is.factor(truth)) {
    100 * mean(as.character(pred) != as.character(truth))
  } else {
    100 * mean((pred - truth)^2) / var_y
  }
}

# ---------------------------------------------------------------------------
# Formatting

fmt_ms <- function(x, digits = 2) {
  if (length(x) < 2L) return(sprintf("%.*f", digits, mean(x)))
  sprintf("%.*f ± %.*f", digits, mean(x), digits, stats::sd(x))
}
fmt_s <- function(x) if (mean(x) >= 10) sprintf("%.1f", mean(x)) else sprintf("%.2f", mean(x))
paper_mean_sd <- function(s) {
  if (is.null(s) || is.na(s)) return(c(NA_real_, NA_real_))
  as.numeric(strsplit(s, " ± ", fixed = TRUE)[[1L]])
}

# ---------------------------------------------------------------------------
# Main

main <- function() {
  opt <- accuracy_options(BENCH_OPT)
  sets <- opt$datasets %||% (if (opt$quick) QUICK_SETS else DEFAULT_SETS)
  n_tree <- if (opt$quick && !opt$trees_given) 50L else opt$trees
  partial <- opt$quick || !is.null(opt$datasets) || !is.null(opt$repeats)
  bad <- setdiff(sets, names(DATASETS))
  if (length(bad)) stop("unknown data set(s): ", paste(bad, collapse = ", "), call. = FALSE)

  out_dir <- results_dir()
  dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
  suffix <- if (partial) ".tmp" else ""
  base <- if (opt$quick) "accuracy-quick" else "accuracy"
  md_file <- file.path(out_dir, paste0(base, ".md", suffix))
  csv_file <- file.path(out_dir, paste0(base, ".csv", suffix))

  started_at <- Sys.time()
  machine <- machine_info()
  cat(sprintf("accuracy.R: %d trees, data sets: %s\n", n_tree, paste(sets, collapse = ", ")))
  cat(sprintf("load average at start: %s\n", machine$load))

  rows <- list()
  info <- list()
  done <- NULL
  n_reused <- 0L
  if (opt$resume && file.exists(csv_file)) {
    done <- bench_read_csv(csv_file)
    done <- done[done$n_tree == n_tree & done$dataset %in% sets, , drop = FALSE]
    cat(sprintf("resuming: %d fits reused from %s\n", nrow(done), csv_file))
  }
  for (di in seq_along(sets)) {
    name <- sets[di]
    spec <- DATASETS[[name]]
    d <- load_dataset(name)
    x <- d$x; y <- d$y
    task <- if (is.factor(y)) "classification" else "regression"
    n <- nrow(x); D <- ncol(x); K <- if (is.factor(y)) nlevels(y) else NA_integer_
    var_y <- if (task == "regression") mean((y - mean(y))^2) else NA_real_
    repeats <- spec$repeats
    folds_k <- spec$folds
    if (opt$quick) { repeats <- 1L; folds_k <- 3L }
    if (!is.null(opt$repeats)) repeats <- min(repeats, opt$repeats)
    # eval_folds < folds: split k-fold (so each fit trains on (k-1)/k of the
    # rows) but fit and test only the first eval_folds folds, to save time.
    eval_folds <- if (opt$quick) folds_k else min(spec$eval_folds %||% folds_k, folds_k)
    info[[name]] <- list(n = n, D = D, K = K, task = task, repeats = repeats, folds = folds_k,
                         eval_folds = eval_folds,
                         n_na = sum(is.na(x)), n_factor = sum(vapply(x, is.factor, logical(1))))
    t_set <- proc.time()[["elapsed"]]
    for (r in seq_len(repeats)) {
      fold <- make_folds(y, folds_k, seed = 1000L * di + r)
      for (f in seq_len(eval_folds)) {
        test <- fold == f
        seed <- 100000L * di + 1000L * r + f
        for (learner in LEARNERS) {
          if (!is.null(done)) {
            hit <- done[done$dataset == name & done$rep == r & done$fold == f &
                          done$learner == learner & done$seed == seed, , drop = FALSE]
            if (nrow(hit) == 1L) {
              rows[[length(rows) + 1L]] <- hit
              n_reused <- n_reused + 1L
              next
            }
          }
          res <- fit_predict(learner, x[!test, , drop = FALSE], y[!test],
                             x[test, , drop = FALSE], n_tree, seed)
          rows[[length(rows) + 1L]] <- data.frame(
            dataset = name, task = task, n = n, D = D, K = K, rep = r, fold = f,
            n_train = sum(!test), n_test = sum(test), learner = learner, n_tree = n_tree,
            seed = seed, error = fold_error(res$pred, y[test], var_y),
            train_s = res$train_s, predict_s = res$predict_s, stringsAsFactors = FALSE)
        }
      }
    }
    dd <- do.call(rbind, rows)
    dd <- dd[dd$dataset == name, ]
    summ <- vapply(LEARNERS, function(l) sprintf("%s=%.2f", l, mean(dd$error[dd$learner == l])), "")
    cat(sprintf("[%s] %s (n=%d, D=%d, %dx%d-fold): %s  [%.0f s]\n",
                format(Sys.time(), "%H:%M:%S"), name, n, D, repeats, folds_k,
                paste(summ, collapse = " "), proc.time()[["elapsed"]] - t_set))
    bench_write(do.call(rbind, rows), csv_file)  # keep partial results
  }
  results <- do.call(rbind, rows)
  bench_write(results, csv_file)
  total_min <- as.numeric(difftime(Sys.time(), started_at, units = "mins"))

  # ---- markdown report
  lines <- c(
    report_header("Accuracy: ccforest next to ranger (repeated k-fold cross-validation)",
                  csv_file = csv_file),
    sprintf("| trees / threads | %d trees for every learner, %d threads |", n_tree, N_THREAD),
    sprintf("| total run time | %.1f min%s |", total_min,
            if (n_reused > 0L) " (this invocation only)" else ""),
    if (n_reused > 0L) sprintf(
      "| resumed | %d of %d fits reused from the CSV of an earlier invocation (their times are from that run); sum of train + predict times of all fits %.1f min |",
      n_reused, nrow(results), sum(results$train_s + results$predict_s) / 60),
    "",
    "Error: classification = % of test rows misclassified; regression (marked *) = test MSE",
    "as % of the variance of the response over the whole data set. Mean ± sd over all test",
    "folds of all repeats (the paper's sd is over its 15 x 10 = 150 folds). Learners: CCF =",
    "ccforest defaults; CCF-Bag = `sampling = \"bagging\"`; RRF = `projection = \"rotation\"`;",
    "CCF-axis = `projection = \"axis\"` (axis-aligned, i.e. a random forest grown by ccforest with",
    "the paper's lambda, entropy and projection bootstrapping); ranger = ranger defaults.",
    "Paper columns: Rainforth & Wood (2017), Table \"ResultsTable\" (% misclassified) or",
    "Table \"RegressionTable\" (MSE as % of variance), 15 x 10-fold CV, 500 trees; the paper's",
    "RF is MATLAB TreeBagger with lambda = ceil(log2(D) + 1) and entropy, not ranger.",
    "`p` = two-sided Wilcoxon signed-rank p-value of CCF vs ranger over the paired folds.",
    "",
    "| data set | n | D | K | CV | CCF | CCF-Bag | RRF | CCF-axis | ranger | p | paper CCF | paper RF |",
    "|---|---:|---:|---:|---|---|---|---|---|---|---:|---|---|"
  )
  flags <- character(0)
  for (name in sets) {
    spec <- DATASETS[[name]]; inf <- info[[name]]
    dd <- results[results$dataset == name, ]
    err <- lapply(LEARNERS, function(l) dd$error[dd$learner == l]); names(err) <- LEARNERS
    p <- suppressWarnings(tryCatch(
      # Rounded: errors read back from the CSV by --resume carry round-off,
      # which would turn tied folds (dropped by the test) into tiny differences.
      stats::wilcox.test(round(err$CCF, 8), round(err$ranger, 8), paired = TRUE,
                         exact = FALSE)$p.value,
      error = function(e) NA_real_))
    pc <- if (is.null(spec$paper)) "–" else spec$paper[["CCF"]]
    pr <- if (is.null(spec$paper)) "–" else spec$paper[["RF"]]
    lab <- paste0(spec$label, if (inf$task == "regression") " *" else "")
    cv <- sprintf("%dx%d", inf$repeats, inf$folds)
    if (inf$eval_folds < inf$folds) cv <- sprintf("%s (%d of %d folds)", cv, inf$eval_folds, inf$folds)
    lines <- c(lines, sprintf("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |",
      lab, inf$n, inf$D, if (is.na(inf$K)) "–" else inf$K, cv,
      fmt_ms(err$CCF), fmt_ms(err$`CCF-Bag`), fmt_ms(err$RRF), fmt_ms(err$`CCF-axis`),
      fmt_ms(err$ranger), if (is.na(p)) "–" else trimws(formatC(p, format = "g", digits = 2)), pc, pr))
    # flags for the discussion
    pm <- paper_mean_sd(if (is.null(spec$paper)) NULL else spec$paper[["CCF"]])
    if (!is.na(pm[1L]) && abs(mean(err$CCF) - pm[1L]) > pm[2L]) {
      flags <- c(flags, sprintf("- %s: CCF %.2f is more than one paper sd (%.2f) from the paper's %.2f.",
                                spec$label, mean(err$CCF), pm[2L], pm[1L]))
    }
    if (mean(err$CCF) >= mean(err$ranger)) {
      flags <- c(flags, sprintf("- %s: CCF (%.2f) is not better than ranger (%.2f).",
                                spec$label, mean(err$CCF), mean(err$ranger)))
    }
  }
  lines <- c(lines, "", sprintf("Mean train time per fit (seconds, wall clock, %d threads; other jobs may have shared the machine):", N_THREAD), "",
             "| data set | n train | CCF | CCF-Bag | RRF | CCF-axis | ranger |", "|---|---:|---:|---:|---:|---:|---:|")
  for (name in sets) {
    dd <- results[results$dataset == name, ]
    tt <- vapply(LEARNERS, function(l) fmt_s(dd$train_s[dd$learner == l]), "")
    lines <- c(lines, sprintf("| %s | %d | %s |", DATASETS[[name]]$label,
                              round(mean(dd$n_train)), paste(tt, collapse = " | ")))
  }
  paper_rows <- Filter(function(nm) !is.null(DATASETS[[nm]]$paper), sets)
  if (length(paper_rows)) {
    lines <- c(lines, "", "The paper's figures for all four variants measured here (same tables):", "",
               "| data set | paper's data set | CCF | CCF-Bag | RRF | RF (TreeBagger) |", "|---|---|---|---|---|---|")
    for (nm in paper_rows) {
      pp <- DATASETS[[nm]]$paper
      lines <- c(lines, sprintf("| %s | %s | %s | %s | %s | %s |", DATASETS[[nm]]$label,
                                DATASETS[[nm]]$paper_name, pp[["CCF"]], pp[["CCF-Bag"]], pp[["RRF"]], pp[["RF"]]))
    }
  }
  lines <- c(lines, "", "Automatic flags (CCF more than one paper sd from the paper's CCF figure, or not better than ranger):", "",
             if (length(flags)) flags else "- none")
  lines <- c(lines, "", "Data notes:", "",
    "- vehicle, ionosphere, sonar, glass, breastcancer, vowel, letter, bostonhousing, servo, ozone,",
    "  satellite: mlbench 2.1 versions. ionosphere keeps mlbench's constant column V2 (ccforest and",
    "  ranger both accept it), so D = 34 where the paper has 33 (same lambda = 7).",
    "- breastcancer = the paper's 'Wisconsin cancer' (699 rows, 16 missing values in Bare.nuclei);",
    "  the Id column is dropped; mlbench codes the 9 features as (ordered and unordered) factors,",
    "  passed as they are (ccforest treats the 4 unordered ones as 1-of-K groups, ranger orders",
    "  levels), where the paper treats all 9 as ordinal.",
    "- vowel: mlbench's Vowel has the speaker id (factor, 15 levels) and 9 of the 10 acoustic",
    "  features (it lacks the 2nd), so it is neither the paper's vowel-c (speaker, sex, 10",
    "  features) nor vowel-n (10 features); both paper figures are given.",
    "- waveform: `mlbench.waveform(5000)` drawn with `set.seed(5000)` (21 features, the paper's",
    "  'Waveform (1)' is a different sample of the same generator; Bayes error about 14%).",
    "- spirals: 10,000 rows generated by `gen_spirals()` in the script, following the design of",
    "  the authors' generator (3 arms, radius noise sd 1/3); D = 2 so ccforest uses bagging.",
    "- ozone (regression, not in the paper): 5 rows with missing response dropped; 203 missing",
    "  feature values go to ccforest as they are.",
    if (ranger_learns_na()) {
      c("- ranger gets missing feature values as they are (breastcancer and ozone; its default",
        "  `na.action = \"na.learn\"`); results up to 2026-11-26, with ranger 0.14.1, imputed them.")
    } else {
      c("- ranger gets missing feature values imputed per fold (training median / most frequent",
        "  level): breastcancer and ozone only.")
    })
  if (any(sets %in% c("letter", "waveform", "spirals", "satellite", "vowel"))) {
    lines <- c(lines, "",
      "Run-time budget: the data sets use fewer repeats than the paper's 15 x 10-fold (see",
      "the CV column) so that the whole run takes about ten minutes on 2 cores: iris 5 x 10;",
      "vehicle, ionosphere, breastcancer, bostonhousing and servo 3 x 10; vowel, sonar, glass",
      "and ozone 2 x 10; waveform, spirals and letter 1 x 5 (letter: 16,000 training rows per",
      "fit). The sd of the 5-fold ones is over five large test folds, so it is smaller than,",
      "and not comparable to, the paper's 10-fold sd.")
  }
  bench_write(lines, md_file)
  cat(sprintf("wrote %s and %s (%.1f min)\n", md_file, csv_file, total_min))
}


# Run as a script; bench/decisions/variants.R sources the definitions above without it.
if (sys.nframe() == 0L) main()
