#!/usr/bin/env Rscript
# Training CPU time of two or more builds of ccforest against each other and
# against ranger, interleaved, on LetterRecognition (the task of issue 12).
#
#   R CMD INSTALL -l /tmp/libA .      # one build per library
#   Rscript bench/instruments/train-ab.R /tmp/libA /tmp/libB [--rounds 7] [--trees 50]
#
# Design: the machines we run on change speed by up to half between runs
# minutes apart, so builds measured in separate runs cannot be compared.
# Each round fits every build once, each in a fresh R process (so that two
# builds of the same package never meet in one session), and ranger once in
# this process, all on one thread on the same 15,000 training rows; the
# report is each one's best user CPU time over the rounds and its ratio to
# ranger's (CRAN's current ranger, from bench/lib/: see bench/common.R;
# before 2026-11-27 the ratios were to Debian's 0.14.1). Nothing is written to bench/results: this is a tool for
# comparing changes, and bench/comparisons/speed.R is the record.

source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "..", "common.R"))
BENCH_OPT <- bench_start(values = c("rounds", "trees", "out"), positional = TRUE)
if (!is.null(BENCH_OPT$out)) bench_record(BENCH_OPT$out, "Training CPU time of builds, interleaved (train-ab)")

rounds <- bench_integer(BENCH_OPT, "rounds", 7L)
trees <- bench_integer(BENCH_OPT, "trees", 50L)
libs <- bench_libs(BENCH_OPT)

use_competitors("ranger")  # CRAN's current ranger, from bench/lib (the ratios are to it)

d <- mlb("LetterRecognition")
names(d)[names(d) == "lettr"] <- "y"
set.seed(1507)
train <- d[sample(nrow(d), 15000L), ]
data_file <- tempfile(fileext = ".rds")
saveRDS(train, data_file)

fit_in_child <- function(lib) {
  code <- sprintf(paste0(
    'suppressMessages(library(ccforest, lib.loc = "%s")); d <- readRDS("%s"); ',
    'x <- d[setdiff(names(d), "y")]; ',
    'cat(system.time(ccforest(x, d$y, n_tree = %d, n_thread = 1, seed = 1))[["user.self"]])'),
    lib, data_file, trees)
  as.numeric(system2(file.path(R.home("bin"), "Rscript"), c("-e", shQuote(code)), stdout = TRUE))
}

info <- machine_info()
cat(sprintf("letter, %d trees, 1 thread, %d rounds; %s cores, %s; load at start: %s\n",
            trees, rounds, info$nproc, info$cpu, info$load))
times <- matrix(NA_real_, rounds, length(libs) + 1L, dimnames = list(NULL, c(libs, "ranger")))
for (r in seq_len(rounds)) {
  for (k in seq_along(libs)) times[r, k] <- fit_in_child(libs[[k]])
  times[r, "ranger"] <- system.time(
    ranger::ranger(y ~ ., train, num.trees = trees, num.threads = 1L, seed = r)
  )[["user.self"]]
}
best <- apply(times, 2L, min)
print(data.frame(best_cpu_s = best, ratio_to_ranger = round(best / best[["ranger"]], 2)))
cat(sprintf("load at end: %s\n", machine_info()$load))
if (!is.null(BENCH_OPT$out)) bench_finish(quick = FALSE)
