#!/usr/bin/env Rscript
# The first prediction of a fit read back, against the calls after it, for
# two or more builds of ccforest, interleaved (issue 35: "the first
# prediction after readRDS() no slower than 0.3.0's per-call time", which
# decoded every tree on every call).
#
#   R CMD INSTALL -l /tmp/lib030 <checkout of 0.3.0>   # one build per library
#   Rscript bench/instruments/first-call.R /tmp/lib030 /tmp/libnew [--rounds 3] [--reps 8]
#
# The models of bench/comparisons/serving.R, one row at a time, one thread:
# letter (500 trees, type = "prob"), binary (100 trees on 100,000 rows x 20),
# quantiles (500 trees, three quantiles) and survival (500 trees on pbc,
# curves at 10 times). Each build fits its own models (a fit is read only by
# the version that sealed it), in a fresh R process. Then, in each round,
# each build in a fresh process per model: the fit is serialized once, and
# `reps` times unserialized, gc()ed and predicted on one row (the first
# call: verification and decoding included), then once more (a later call).
# Reported per build and model: the median of the first calls and of the
# later calls, each the median over rounds of the rounds' medians. One
# round of both builds takes about a minute; builds are compared within a
# round, since the machine's speed moves between runs. Nothing is written to
# bench/results: bench/comparisons/serving.R is the record.

source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "..", "common.R"))
BENCH_OPT <- bench_start(values = c("rounds", "reps"), positional = TRUE)
rounds <- bench_integer(BENCH_OPT, "rounds", 3L)
reps <- bench_integer(BENCH_OPT, "reps", 8L)
libs <- bench_libs(BENCH_OPT)

work <- tempfile("first-call-")
dir.create(work)
in_child <- function(lib, code) {
  script <- tempfile(tmpdir = work, fileext = ".R")
  writeLines(c(sprintf('suppressMessages({library(ccforest, lib.loc = "%s"); library(survival)})', lib),
               code), script)
  out <- system2(file.path(R.home("bin"), "Rscript"), script, stdout = TRUE, stderr = TRUE)
  status <- attr(out, "status")
  if (!is.null(status) && status != 0L) {
    stop("a child process failed (", lib, "):\n", paste(out, collapse = "\n"), call. = FALSE)
  }
  out
}

# The data, once, for every build: serving.R's.
set.seed(35)
letter <- mlb("LetterRecognition")
idx <- sample(nrow(letter), 15000L)
x_bin <- as.data.frame(matrix(rnorm(101000 * 20), ncol = 20))
x_bin$y <- factor(ifelse(as.matrix(x_bin[, 1:5]) %*% c(1, -1, 0.5, 0.5, -0.25) +
                           rnorm(nrow(x_bin)) > 0, "yes", "no"))
f1 <- mlbench::mlbench.friedman1(6000, sd = 1)
fr <- data.frame(f1$x, y = f1$y)
pbc_d <- na.omit(survival::pbc[, c("time", "status", "age", "sex", "bili", "albumin", "protime",
                                   "edema", "platelet", "ast", "stage")])
pbc_d$status <- as.integer(pbc_d$status == 2)
times <- unname(stats::quantile(pbc_d$time[pbc_d$status == 1], seq(0.1, 0.9, length.out = 10)))
data_file <- file.path(work, "data.rds")
saveRDS(list(
  letter = list(train = letter[idx, ], new = letter[-idx, ][1:100, ]),
  binary = list(train = x_bin[1:100000, ], new = x_bin[100000 + 1:100, ]),
  quantiles = list(train = fr[1:5000, ], new = fr[5001:5100, ]),
  survival = list(train = pbc_d, new = pbc_d[1:100, ]),
  times = times), data_file)

models <- c("letter", "binary", "quantiles", "survival")
fit_code <- c(
  letter = 'ccforest(lettr ~ ., d$letter$train, n_tree = 500, seed = 1, n_thread = 2)',
  binary = 'ccforest(y ~ ., d$binary$train, n_tree = 100, seed = 1, n_thread = 2)',
  quantiles = 'ccforest(y ~ ., d$quantiles$train, n_tree = 500, quantiles = TRUE, seed = 1, n_thread = 2)',
  survival = 'ccforest(Surv(time, status) ~ ., d$survival$train, n_tree = 500, seed = 1, n_thread = 2)')
predict_code <- c(
  letter = 'predict(f, new[i, ], type = "prob", n_thread = 1)',
  binary = 'predict(f, new[i, ], type = "prob", n_thread = 1)',
  quantiles = 'predict(f, new[i, ], type = "quantiles", quantiles = c(0.1, 0.5, 0.9), n_thread = 1)',
  survival = 'predict(f, new[i, ], type = "survival", times = d$times, n_thread = 1)')

info <- machine_info()
cat(sprintf("first call after unserialize(), %d rounds of %d; %s cores, %s; load at start: %s\n",
            rounds, reps, info$nproc, info$cpu, info$load))
fit_file <- function(k, model) file.path(work, sprintf("fit-%d-%s.rds", k, model))
for (k in seq_along(libs)) {
  in_child(libs[[k]], c(sprintf('d <- readRDS("%s")', data_file),
                        sprintf('saveRDS(%s, "%s")', fit_code, fit_file(k, models))))
}

measure <- function(k, model) {
  out <- in_child(libs[[k]], c(
    sprintf('d <- readRDS("%s"); new <- d$%s$new', data_file, model),
    sprintf('raw <- serialize(readRDS("%s"), NULL)', fit_file(k, model)),
    'ms <- function(expr) { s <- Sys.time(); force(expr); 1000 * as.double(Sys.time() - s) }',
    sprintf('f <- unserialize(raw); i <- 1L; invisible(%s); rm(f)', predict_code[[model]]),
    sprintf('first <- later <- numeric(%d)', reps),
    sprintf('for (r in seq_len(%d)) {', reps),
    '  f <- unserialize(raw); invisible(gc()); i <- r + 1L',
    sprintf('  first[r] <- ms(%s); i <- r + 2L', predict_code[[model]]),
    sprintf('  later[r] <- ms(%s); rm(f)', predict_code[[model]]),
    '}',
    'cat(median(first), median(later))'))
  as.numeric(strsplit(utils::tail(out, 1L), " ")[[1]])
}

results <- array(NA_real_, c(rounds, length(libs), length(models), 2L),
                 dimnames = list(NULL, libs, models, c("first", "later")))
for (r in seq_len(rounds)) {
  for (model in models) {
    for (k in seq_along(libs)) results[r, k, model, ] <- measure(k, model)
  }
  cat(sprintf("round %d done (load %s)\n", r, machine_info()$load))
}

cat("\nMilliseconds, median over rounds of each round's median: first call | later calls\n")
cat(sprintf("%-10s %s\n", "model", paste(sprintf("%-32s", basename(libs)), collapse = "")))
for (model in models) {
  cells <- vapply(seq_along(libs), function(k) {
    sprintf("%9.2f | %8.3f", median(results[, k, model, "first"]), median(results[, k, model, "later"]))
  }, "")
  cat(sprintf("%-10s %s\n", model, paste(sprintf("%-32s", cells), collapse = "")))
}
if (length(libs) >= 2L) {
  cat(sprintf("\nFirst call of %s / per call of %s (later calls; 0.3.0 decodes on every call):\n",
              basename(libs[[2]]), basename(libs[[1]])))
  for (model in models) {
    cat(sprintf("%-10s %.3f\n", model,
                median(results[, 2, model, "first"]) / median(results[, 1, model, "later"])))
  }
}
cat(sprintf("\nLoad at the end: %s\n", machine_info()$load))
unlink(work, recursive = TRUE)
