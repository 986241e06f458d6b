#!/usr/bin/env Rscript
# Serving latency (issue 35): what one predict() call costs when a model
# answers one row at a time, as a web service or a Shiny app calls it, next
# to ranger (CRAN's current version, bench/lib) in the same process.
#
#   Rscript bench/comparisons/serving.R [--calls 300] [--soak 10000] [--quick]
#   Rscript bench/run.R serving --lib /tmp/lib-before --name serving-0.3.0 --calls 40 --soak 0
#     # another build, its own report (CCFOREST_LIB and CCFOREST_BENCH_NAME work too)
#
# Four models, each predicting on one thread (n_thread = 1, num.threads = 1):
#   letter      500 trees on 15,000 LetterRecognition rows, type = "prob"
#   binary      100 trees on 100,000 rows x 20 (a linear score plus noise),
#               type = "prob"
#   quantiles   500 trees on 5,000 rows of Friedman 1, three quantiles
#   survival    500 trees on pbc, survival curves at 10 times
# For each: the median and 0.95 quantile of one-row calls from the second
# call on (rows taken in turn from held-out data), the same over calls made
# right after gc(), the first call after readRDS(), the decoded trees kept
# for the fit (ccforest) and the fit's object.size(). ranger gets fewer calls
# where one call takes long (at least 5, about 20 s in all). Then: 20,000
# rows at once on the binary model, and the process's resident memory before
# and after 10,000 one-row predictions with the letter model.
# Writes results/serving.md (results/serving.md.tmp with --quick).

source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "..", "common.R"))
BENCH_OPT <- bench_start(values = c("calls", "soak", "name"), env = c(name = "CCFOREST_BENCH_NAME"),
                         quick = TRUE)
use_competitors("ranger")
suppressPackageStartupMessages({
  library(ccforest)
  library(ranger)
  library(survival)
})

quick <- bench_flag(BENCH_OPT, "quick")
calls <- bench_integer(BENCH_OPT, "calls", if (quick) 40L else 300L)
started_at <- Sys.time()
machine <- machine_info()
commit <- tryCatch(system("git rev-parse --short HEAD", intern = TRUE, ignore.stderr = TRUE),
                   error = function(e) "unknown")
scale <- if (quick) 0.1 else 1

now <- function() as.double(Sys.time())
elapsed_ms <- function(expr) {
  t0 <- now()
  force(expr)
  1000 * (now() - t0)
}
rss_mb <- function() {
  line <- grep("^VmRSS:", readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", line)) / 1024
}
prepared_mb <- function(fit) {
  bytes <- tryCatch(ccforest:::ccf_cache_bytes_cpp(fit$cache), error = function(e) NA_real_)
  bytes / 2^20
}

# Per-call milliseconds of `predict_row(i)` over rows 1..n_calls (cycling):
# the first call apart, every 10th call made right after gc().
time_calls <- function(predict_row, n_calls, n_rows) {
  first <- elapsed_ms(predict_row(1L))
  plain <- numeric(0)
  after_gc <- numeric(0)
  for (k in seq_len(n_calls)) {
    i <- 1L + (k %% n_rows)
    if (k %% 10L == 0L) {
      invisible(gc())
      after_gc <- c(after_gc, elapsed_ms(predict_row(i)))
    } else {
      plain <- c(plain, elapsed_ms(predict_row(i)))
    }
  }
  list(first = first, plain = plain, after_gc = after_gc)
}

# Calls for a competitor whose single call takes `first_ms`: about 20 s.
calls_for <- function(first_ms) as.integer(max(5L, min(calls, floor(20000 / max(first_ms, 1e-3)))))

after_readrds_ms <- function(fit, predict_row) {
  path <- tempfile(fileext = ".rds")
  saveRDS(fit, path)
  back <- readRDS(path)
  unlink(path)
  invisible(gc())
  elapsed_ms(predict_row(back, 1L))
}

rows <- list()
record <- function(model, learner, timing, readrds_ms, prepared, size_mb) {
  q <- function(x, p) if (length(x)) unname(stats::quantile(x, p)) else NA_real_
  rows[[length(rows) + 1L]] <<- data.frame(
    model = model, learner = learner, calls = length(timing$plain) + length(timing$after_gc),
    first_ms = timing$first, median_ms = q(timing$plain, 0.5), q95_ms = q(timing$plain, 0.95),
    gc_median_ms = q(timing$after_gc, 0.5), gc_q95_ms = q(timing$after_gc, 0.95),
    readrds_ms = readrds_ms, prepared_mb = prepared, object_mb = size_mb,
    stringsAsFactors = FALSE)
  cat(sprintf("%-10s %-9s median %8.3f ms  q95 %8.3f ms  after gc %8.3f / %8.3f ms  first after readRDS %9.2f ms\n",
              model, learner, q(timing$plain, 0.5), q(timing$plain, 0.95), q(timing$after_gc, 0.5),
              q(timing$after_gc, 0.95), readrds_ms))
}
size_mb <- function(x) as.double(utils::object.size(x)) / 2^20

# ---- the models -----------------------------------------------------------
set.seed(35)
letter <- mlb("LetterRecognition")
idx <- sample(nrow(letter), 15000L)
letter_train <- letter[idx, ]
letter_test <- letter[-idx, ][seq_len(1000L), ]

n_bin <- round(100000 * scale)
x_bin <- as.data.frame(matrix(rnorm((n_bin + 1000) * 20), ncol = 20))
x_bin$y <- factor(ifelse(as.matrix(x_bin[, 1:5]) %*% c(1, -1, 0.5, 0.5, -0.25) +
                           rnorm(nrow(x_bin)) > 0, "yes", "no"))
bin_train <- x_bin[seq_len(n_bin), ]
bin_test <- x_bin[n_bin + seq_len(1000L), ]
batch_rows <- x_bin[rep(n_bin + seq_len(1000L), 20L), ]

f1 <- mlbench::mlbench.friedman1(5000 + 1000, sd = 1)
fr <- data.frame(f1$x, y = f1$y)
fr_train <- fr[1:5000, ]
fr_test <- fr[5001:6000, ]

pbc_d <- na.omit(survival::pbc[, c("time", "status", "age", "sex", "bili", "albumin", "protime",
                                   "edema", "platelet", "ast", "stage")])
pbc_d$status <- as.integer(pbc_d$status == 2)
times <- unname(stats::quantile(pbc_d$time[pbc_d$status == 1], seq(0.1, 0.9, length.out = 10)))

trees <- function(n) max(10L, round(n * if (quick) 0.2 else 1))
# The row a timed call predicts (set per model below).
row_of <- NULL
cat(sprintf("bench: fitting (commit %s, load %s)\n", commit, machine$load))
models <- list(
  letter = list(
    cc = ccforest(lettr ~ ., letter_train, n_tree = trees(500), seed = 1),
    rg = ranger(lettr ~ ., letter_train, num.trees = trees(500), probability = TRUE, seed = 1,
                num.threads = 2),
    test = letter_test,
    cc_row = function(fit, i) predict(fit, row_of(i), type = "prob", n_thread = 1),
    rg_row = function(fit, i) predict(fit, row_of(i), num.threads = 1)$predictions),
  binary = list(
    cc = ccforest(y ~ ., bin_train, n_tree = trees(100), seed = 1),
    rg = ranger(y ~ ., bin_train, num.trees = trees(100), probability = TRUE, seed = 1,
                num.threads = 2),
    test = bin_test,
    cc_row = function(fit, i) predict(fit, row_of(i), type = "prob", n_thread = 1),
    rg_row = function(fit, i) predict(fit, row_of(i), num.threads = 1)$predictions),
  quantiles = list(
    cc = ccforest(y ~ ., fr_train, n_tree = trees(500), quantiles = TRUE, seed = 1),
    rg = ranger(y ~ ., fr_train, num.trees = trees(500), quantreg = TRUE, seed = 1,
                num.threads = 2),
    test = fr_test,
    cc_row = function(fit, i) predict(fit, row_of(i), type = "quantiles",
                                      quantiles = c(0.1, 0.5, 0.9), n_thread = 1),
    rg_row = function(fit, i) predict(fit, row_of(i), type = "quantiles",
                                      quantiles = c(0.1, 0.5, 0.9), num.threads = 1)$predictions),
  survival = list(
    cc = ccforest(Surv(time, status) ~ ., pbc_d, n_tree = trees(500), seed = 1),
    rg = ranger(Surv(time, status) ~ ., pbc_d, num.trees = trees(500), seed = 1, num.threads = 2),
    test = pbc_d,
    cc_row = function(fit, i) predict(fit, row_of(i), type = "survival", times = times,
                                      n_thread = 1),
    rg_row = function(fit, i) predict(fit, row_of(i), num.threads = 1)$survival)
)

# ---- one row at a time ----------------------------------------------------
# Each request's row is a data.frame of its own, made before the clock
# starts (a server receives rows, it does not subset a table): row i of the
# test set is m$rows[[i]], given to both learners.
for (name in names(models)) {
  m <- models[[name]]
  n_rows <- nrow(m$test)
  rows_of <- lapply(seq_len(n_rows), function(i) m$test[i, , drop = FALSE])
  row_of <- function(i) rows_of[[i]]
  cc <- time_calls(function(i) m$cc_row(m$cc, i), calls, n_rows)
  record(name, "ccforest", cc, after_readrds_ms(m$cc, m$cc_row), prepared_mb(m$cc), size_mb(m$cc))
  first <- elapsed_ms(m$rg_row(m$rg, 1L))
  rg <- time_calls(function(i) m$rg_row(m$rg, i), calls_for(first), n_rows)
  record(name, "ranger", rg, after_readrds_ms(m$rg, m$rg_row), NA_real_, size_mb(m$rg))
}
results <- do.call(rbind, rows)

# ---- a batch, and memory over many calls ----------------------------------
batch <- data.frame(
  learner = c("ccforest", "ranger"),
  seconds = c(
    min(replicate(3, system.time(predict(models$binary$cc, batch_rows, type = "prob",
                                         n_thread = 1))[["elapsed"]])),
    min(replicate(3, system.time(predict(models$binary$rg, batch_rows,
                                         num.threads = 1))[["elapsed"]]))))
n_soak <- bench_integer(BENCH_OPT, "soak", if (quick) 1000L else 10000L, min = 0L)
letter_rows <- lapply(seq_len(nrow(letter_test)), function(i) letter_test[i, , drop = FALSE])
row_of <- function(i) letter_rows[[i]]
invisible(gc())
rss_before <- rss_mb()
for (k in seq_len(n_soak)) {
  invisible(models$letter$cc_row(models$letter$cc, 1L + (k %% nrow(letter_test))))
}
invisible(gc())
rss_after <- rss_mb()

# ---- report -----------------------------------------------------------------
ratio <- function(model, column) {
  r <- results[results$model == model, ]
  r[[column]][r$learner == "ccforest"] / r[[column]][r$learner == "ranger"]
}
fmt <- function(x, digits = 3) ifelse(is.na(x), "-", formatC(x, format = "f", digits = digits))
out_file <- file.path(results_dir(),
                      paste0(bench_value(BENCH_OPT, "name", "serving"), ".md",
                             if (quick) ".tmp" else ""))
csv_file <- sub("\\.md", ".csv", out_file)
bench_write(results, csv_file)
lines <- c(
  report_header("Serving: one row at a time", csv_file = csv_file,
                packages = c("ccforest", "ranger", "mlbench")),
  "",
  "One thread for prediction. Milliseconds per predict() call on one row, from the second call",
  "on (rows in turn from held-out data); \"after gc\": calls made right after gc(); \"readRDS\":",
  "the first call on a fit just read back from a file. \"prepared\": decoded trees kept with the",
  "fit (ccforest); \"object\": object.size() of the fit.",
  "",
  "| model | learner | calls | median | 0.95 q. | after gc median | after gc 0.95 q. | first after readRDS | prepared MB | object MB |",
  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  sprintf("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |", results$model, results$learner,
          results$calls, fmt(results$median_ms), fmt(results$q95_ms), fmt(results$gc_median_ms),
          fmt(results$gc_q95_ms), fmt(results$readrds_ms, 1), fmt(results$prepared_mb, 1),
          fmt(results$object_mb, 1)),
  "",
  "Median time per call, ccforest / ranger: ",
  paste(sprintf("%s %s", names(models), fmt(vapply(names(models), ratio, 1, "median_ms"), 4)),
        collapse = "; "),
  "",
  sprintf("20,000 rows at once on the binary model: ccforest %.3f s, ranger %.3f s (ratio %.3f; best of 3).",
          batch$seconds[1], batch$seconds[2], batch$seconds[1] / batch$seconds[2]),
  "",
  sprintf("Resident memory around %s one-row letter predictions: %.1f MB before, %.1f MB after (%+.1f MB).",
          format(n_soak, big.mark = ","), rss_before, rss_after, rss_after - rss_before),
  "",
  sprintf("Load average at the end: %s.", readLines("/proc/loadavg"))
)
bench_write(lines, out_file)
cat(lines, sep = "\n")
