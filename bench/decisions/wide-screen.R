#!/usr/bin/env Rscript
# Issue 38, wide data: what beyond feature_weights = "screen" brings the
# microarrays' error down? Each variant next to the screen as it is and to
# ranger, on the same folds and seeds as bench/comparisons/wide.R's
# microarrays (prostate and lymphoma from spls, khan2001 from sda, colon from
# HiDimDA; stratified 5-fold cross-validation, repeated):
#   screen     feature_weights = "screen" (R^2 with the outputs, squared)
#   (R^2)^k    weights R^2 to the power k (1, 3, 4; the screen is k = 2) given
#              as feature_weights: how sharply the sampling concentrates on
#              the top features
#   top m      R^2 squared on the m features of highest R^2, 0 elsewhere
#   mtry m     the screen with mtry = m (default: ceiling(log2(p) + 1), 12-14 here)
#   axis random / axis search   the screen with axis_candidates
#   bagging    the screen with sampling = "bagging"
#   (R^2)^4 + axis random   the sharper weights with axis_candidates = "random"
#   default    ccforest's defaults (uniform sampling)
# The weights of R^k and top m are computed in R from the training fold alone
# (the one-way analysis of variance's R^2 of each feature on the classes, the
# statistic of core/Screening.h), so no held-out row informs them.
#
#   make install
#   Rscript bench/decisions/wide-screen.R                  # 3 repeats x 5 folds, 200 trees (about 15 min at load 5)
#   Rscript bench/decisions/wide-screen.R --repeats 6 --learners "(R^2)^4,axis random,(R^2)^4 + axis random" --name wide-screen-6
#   (--name: the results' file name, bench/results/<name>.md and .csv)
#
# Then (unless --no-sims) the sharper powers on wide.R's simulated designs
# (sparse signals among 500-5,000 Gaussian features, and the dense one in 20
# correlated blocks; wide.R's data, seeds and held-out rows, 4 repeats), where
# what helps the microarrays may cost: exact McNemar test over the held-out
# rows against the screen.
#
# Summary per variant: the geometric mean over the four data sets of the
# ratio of its error to ranger's (each error plus half a test row's share, as
# in wide.R), over all repeats and per repeat (the spread of the per-repeat
# values is the noise of one repeat); the change in held-out errors against
# the screen summed over every fold, and a paired two-sided Wilcoxon test of
# the folds' errors against the screen's.
# Output: bench/results/wide-screen.md and .csv.

script_path <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])
source(file.path(dirname(script_path), "..", "common.R"))
BENCH_OPT <- bench_start(flags = "no-sims", values = c("trees", "repeats", "learners", "name"))
out_name <- bench_value(BENCH_OPT, "name", "wide-screen")
n_tree <- bench_integer(BENCH_OPT, "trees", 200L)
repeats <- bench_integer(BENCH_OPT, "repeats", 3L)

use_competitors(c("ranger", "spls", "sda", "HiDimDA"))
suppressPackageStartupMessages({
  library(ccforest)
  library(ranger)
})
started_at <- Sys.time()

# Each feature's share of variance the class indicators explain (one-way
# analysis of variance's R^2), over the training fold.
class_r2 <- function(x, y) {
  indicators <- scale(stats::model.matrix(~ y - 1), scale = FALSE)
  q <- qr(indicators, tol = 1e-9)
  basis <- qr.Q(q)[, seq_len(q$rank), drop = FALSE]
  centred <- scale(x, scale = FALSE)
  r2 <- colSums(crossprod(basis, centred)^2) / colSums(centred^2)
  r2[!is.finite(r2)] <- 0
  pmin(r2, 1)
}

fit_predict <- function(xtr, ytr, xte, seed, ...) {
  fit <- ccforest(xtr, ytr, n_tree = n_tree, n_thread = 1L, seed = seed, verbose = FALSE, ...)
  predict(fit, xte, n_thread = 1L)
}
power_of <- function(k, ...) function(xtr, ytr, xte, seed) {
  fit_predict(xtr, ytr, xte, seed, feature_weights = class_r2(xtr, ytr)^k, ...)
}
top_of <- function(m) function(xtr, ytr, xte, seed) {
  r2 <- class_r2(xtr, ytr)
  w <- r2^2
  w[rank(-r2, ties.method = "first") > m] <- 0
  fit_predict(xtr, ytr, xte, seed, feature_weights = w)
}
screen_with <- function(...) {
  args <- list(...)
  function(xtr, ytr, xte, seed) {
    do.call(fit_predict, c(list(xtr, ytr, xte, seed, feature_weights = "screen"), args))
  }
}
LEARNERS <- list(
  ranger = function(xtr, ytr, xte, seed) {
    fit <- ranger(x = xtr, y = ytr, num.trees = n_tree, num.threads = 1L, seed = seed)
    predict(fit, xte, num.threads = 1L)$predictions
  },
  default = function(xtr, ytr, xte, seed) fit_predict(xtr, ytr, xte, seed),
  screen = screen_with(),
  `(R^2)^1` = power_of(1), `(R^2)^3` = power_of(3), `(R^2)^4` = power_of(4),
  `top 300` = top_of(300L), `top 1000` = top_of(1000L),
  `mtry 6` = screen_with(mtry = 6L), `mtry 30` = screen_with(mtry = 30L),
  `axis random` = screen_with(axis_candidates = "random"),
  `axis search` = screen_with(axis_candidates = "search"),
  bagging = screen_with(sampling = "bagging"),
  `(R^2)^4 + axis random` = power_of(4, axis_candidates = "random")
)
chosen <- bench_list(BENCH_OPT, "learners", names(LEARNERS))
unknown <- setdiff(chosen, names(LEARNERS))
if (length(unknown)) stop(sprintf("--learners: no learner '%s'", unknown[1L]), call. = FALSE)
chosen <- union(c("ranger", "screen"), chosen)

rows <- list()
for (ai in seq_along(WIDE_ARRAYS)) {
  d <- WIDE_ARRAYS[[ai]]()
  x <- d$x
  colnames(x) <- paste0("g", seq_len(ncol(x)))
  for (r in seq_len(repeats)) {
    fold <- stratified_folds(d$y, 5L, 100L * ai + r)
    for (f in 1:5) {
      test <- fold == f
      seed <- 10000L + 1000L * ai + 10L * r + f
      for (learner in chosen) {
        time <- system.time(pred <- LEARNERS[[learner]](x[!test, , drop = FALSE], d$y[!test],
                                                        x[test, , drop = FALSE], seed))[["elapsed"]]
        rows[[length(rows) + 1L]] <- data.frame(
          learner = learner, dataset = names(WIDE_ARRAYS)[ai], rep = r, fold = f, n_test = sum(test),
          errors = sum(as.character(pred) != as.character(d$y[test])), time = time)
      }
    }
    cat(sprintf("[%s] %s repeat %d done\n", format(Sys.time(), "%H:%M:%S"), names(WIDE_ARRAYS)[ai], r))
  }
}
results <- do.call(rbind, rows)
bench_write(results, file.path(results_dir(), paste0(out_name, ".csv")))

geo_ratio <- function(d, learner) {
  r <- vapply(unique(d$dataset), function(name) {
    s <- d[d$dataset == name, ]
    shift <- 0.5 / mean(s$n_test)
    rate <- function(l) sum(s$errors[s$learner == l]) / sum(s$n_test[s$learner == l])
    (rate(learner) + shift) / (rate("ranger") + shift)
  }, numeric(1))
  exp(mean(log(r)))
}
base <- results[results$learner == "screen", ]
lines <- c(report_header("Wide data: variants of the screen on four microarrays", csv_file = paste0(out_name, ".csv"),
                         packages = c("ccforest", "ranger", "spls", "sda", "HiDimDA")),
           "",
           sprintf("%d trees, 1 thread; %d repeats of stratified 5-fold cross-validation (wide.R's folds and seeds); run time %.1f min.",
                   n_tree, repeats, as.numeric(difftime(Sys.time(), started_at, units = "mins"))),
           "Error: held-out misclassification rate over all folds. Ratio: geometric mean over the four data sets of",
           "the error ratio to ranger (wide.R's). vs screen: held-out errors summed over the folds minus the screen's",
           "(folds worse / better), p a paired two-sided Wilcoxon test over the folds.",
           "",
           "| learner | ratio to ranger | per repeat | prostate | lymphoma | khan2001 | colon | vs screen | p |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|")
for (learner in chosen) {
  d <- results[results$learner == learner, ]
  rate <- tapply(d$errors, d$dataset, sum) / tapply(d$n_test, d$dataset, sum)
  per_rep <- vapply(seq_len(repeats), function(r) geo_ratio(results[results$rep == r, ], learner), 0)
  paired <- merge(d, base, by = c("dataset", "rep", "fold"))
  diff <- paired$errors.x - paired$errors.y
  p <- if (any(diff != 0)) {
    suppressWarnings(stats::wilcox.test(paired$errors.x, paired$errors.y, paired = TRUE, exact = FALSE)$p.value)
  } else 1
  lines <- c(lines, sprintf("| %s | %.3f | %s | %.3f | %.3f | %.3f | %.3f | %+d (%d / %d) | %.2g |", learner,
                            geo_ratio(results, learner), paste(sprintf("%.2f", per_rep), collapse = ", "),
                            rate[["prostate"]], rate[["lymphoma"]], rate[["khan2001"]], rate[["colon"]],
                            sum(diff), sum(diff > 0), sum(diff < 0), p))
}

# The simulations of bench/comparisons/wide.R (WIDE_SIMULATIONS in
# common.R: the same generators, seeds and held-out rows), for the screen
# against its sharper powers.
if (!bench_flag(BENCH_OPT, "no-sims")) {
  powers <- c(screen = 2, `(R^2)^3` = 3, `(R^2)^4` = 4, `screen + axis random` = 2,
              `(R^2)^4 + axis random` = 4)
  wrong <- list()
  for (si in seq_along(WIDE_SIMULATIONS)) {
    for (r in 1:4) {
      seed <- 1000L * si + r
      d <- WIDE_SIMULATIONS[[si]](seed)
      set.seed(seed)
      test <- seq_len(nrow(d$x)) %in% sample(nrow(d$x), nrow(d$x) / 5)
      r2 <- class_r2(d$x[!test, ], d$y[!test])
      for (name in names(powers)) {
        fit <- ccforest(d$x[!test, ], d$y[!test], n_tree = n_tree, n_thread = 1L, seed = seed,
                        verbose = FALSE, feature_weights = r2^powers[[name]],
                        axis_candidates = if (grepl("axis random", name)) "random" else "none")
        key <- paste(names(WIDE_SIMULATIONS)[si], name)
        wrong[[key]] <- c(wrong[[key]], as.integer(predict(fit, d$x[test, ], n_thread = 1L) != d$y[test]))
      }
    }
    cat(sprintf("[%s] %s done\n", format(Sys.time(), "%H:%M:%S"), names(WIDE_SIMULATIONS)[si]))
  }
  lines <- c(lines, "",
             "Simulations (wide.R's designs, seeds and held-out rows; 4 repeats of 800 rows to train, 200 held out):",
             "held-out error; p: exact McNemar test over the held-out rows against the screen ((R^2)^2,",
             "which reproduces feature_weights = \"screen\").", "",
             paste0("| design | screen | ", paste(sprintf("%s | p", names(powers)[-1L]), collapse = " | "), " |"),
             paste0("|---|---:|", strrep("---:|---:|", length(powers) - 1L)))
  for (design in names(WIDE_SIMULATIONS)) {
    base_wrong <- wrong[[paste(design, "screen")]]
    cells <- vapply(names(powers)[-1L], function(name) {
      e <- wrong[[paste(design, name)]]
      only_base <- sum(base_wrong == 1L & e == 0L)
      only_e <- sum(base_wrong == 0L & e == 1L)
      p <- if (only_base + only_e > 0L) stats::binom.test(only_e, only_base + only_e)$p.value else 1
      sprintf("%.3f | %.2g", mean(e), p)
    }, "")
    lines <- c(lines, sprintf("| %s | %.3f | %s |", design, mean(base_wrong), paste(cells, collapse = " | ")))
  }
}
bench_write(lines, file.path(results_dir(), paste0(out_name, ".md")))
cat(after_stamp(lines), sep = "\n")
