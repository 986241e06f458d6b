#!/usr/bin/env Rscript
# Where does feature_weights = "auto" (the default from 0.4.0) act? The core's
# rule (src/core/ScreenRule.h) on every data set the benchmarks use, read
# from fit$options$screen_rule of a one-tree fit at the defaults:
#   the simulated designs of wide.R (first repeat's 800 training rows), the
#   four microarrays and the paper's data sets of accuracy.R (all rows), the
#   spectra of spectra.R (all rows, each output and tecator's three);
#   then every training fold of wide.R's microarrays (4 x 5-fold) and of
#   spectra.R (2 x 5-fold), with their folds and seeds.
# Prints one line per fit: whether the rule acts, the features standing out,
# mtry x that / D (the sparse branch acts below 0.5) and D / n (the wide
# branch acts from 10). Issue 38; about 2 minutes.
#
#   Rscript bench/run.R screen-rule [--lib PATH]

source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "..", "common.R"))
BENCH_OPT <- bench_start()
use_competitors(c("spls", "sda", "HiDimDA"))
suppressPackageStartupMessages(library(ccforest))

# The loaders of accuracy.R and spectra.R, taken from the scripts themselves.
script_part <- function(script, from, to) {
  src <- readLines(file.path(bench_dir(), "comparisons", script))
  eval(parse(text = src[grep(from, src):grep(to, src)]), envir = globalenv())
}
script_part("accuracy.R", "^load_dataset <- function", "^QUICK_SETS")
script_part("spectra.R", "^load_tecator", "^DATASETS <- list")
SPECTRA <- DATASETS
src <- readLines(file.path(bench_dir(), "comparisons", "spectra.R"))
at <- grep("^make_folds <- function", src)
spectra_folds <- eval(parse(text = src[at:(at + 3L)]))

show <- function(label, x, y) {
  fit <- ccforest(x, y, n_tree = 1, n_thread = 1, seed = 1, verbose = FALSE)
  rule <- fit$options$screen_rule
  p <- ncol(x)
  cat(sprintf("%-36s n = %5d  D = %5d  acts = %-5s  standing out = %4d  mtry x that / D = %5.2f  D / n = %5.1f\n",
              label, NROW(y), p, rule$acts, rule$standing_out,
              fit$options$mtry * rule$standing_out / p, p / NROW(y)))
}

for (nm in names(WIDE_SIMULATIONS)) {
  d <- WIDE_SIMULATIONS[[nm]](1L)
  show(nm, d$x[1:800, ], d$y[1:800])
}
for (nm in names(WIDE_ARRAYS)) {
  d <- WIDE_ARRAYS[[nm]]()
  show(nm, d$x, d$y)
}
for (nm in DEFAULT_SETS) {
  d <- load_dataset(nm)
  show(nm, d$x, d$y)
}
spectra_outputs <- function(d) c(as.list(d$y), if (ncol(d$y) > 1L) list(all = d$y))
for (nm in names(SPECTRA)) {
  d <- SPECTRA[[nm]]()
  for (o in names(spectra_outputs(d))) show(paste(nm, o), d$x, spectra_outputs(d)[[o]])
}
cat("\nTraining folds\n")
for (ai in seq_along(WIDE_ARRAYS)) {
  d <- WIDE_ARRAYS[[ai]]()
  for (r in 1:4) {
    fold <- stratified_folds(d$y, 5L, seed = 100L * ai + r)
    for (k in 1:5) {
      show(sprintf("%s rep %d fold %d", names(WIDE_ARRAYS)[ai], r, k), d$x[fold != k, ], d$y[fold != k])
    }
  }
}
for (di in seq_along(SPECTRA)) {
  d <- SPECTRA[[di]]()
  outputs <- spectra_outputs(d)
  for (r in 1:2) {
    fold <- spectra_folds(nrow(d$x), 5L, seed = 100L * di + r)
    for (k in 1:5) {
      for (o in names(outputs)) {
        y <- if (is.data.frame(outputs[[o]])) outputs[[o]][fold != k, ] else outputs[[o]][fold != k]
        show(sprintf("%s %s rep %d fold %d", names(SPECTRA)[di], o, r, k), d$x[fold != k, ], y)
      }
    }
  }
}
