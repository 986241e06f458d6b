#!/usr/bin/env Rscript
# Sparse features without densifying (issue 38): a dgCMatrix given to
# ccforest() (at its defaults, and with feature_weights = "screen": learner
# "ccforest screened") and to ranger (which reads dgCMatrix itself), time,
# memory and held-out error.
#
#   Rscript bench/run.R sparse            # 20,000 x 10,000 at 0.5% non-zero, 100 trees
#   Rscript bench/run.R sparse --quick    # 4,000 x 2,000, writes *.tmp files
#   Rscript bench/run.R sparse --learners ccforest --append
#       # fits only the learners named, and adds their rows to the results
#       # already there (each row names the build: CCFOREST_LIB and commit)
#
# The data: a dgCMatrix of standard normal non-zeros, and a binary class from
# a sparse linear signal (20 of the columns, by their values and a little
# noise); held-out rows give each learner's error. Every fit runs in a fresh
# child R process: the goal of the issue is a peak at most 3 times the
# sparse matrix plus the model, and a training time at most ranger's.
#
# Columns of the report:
#   train s      wall-clock seconds of the fit (2 threads; the machine is
#                shared, see the load average in the header and per row)
#   cpu s        CPU seconds of the fit, all threads
#   peak MB      how far the fit pushed the process's high-water mark of
#                resident memory above what it held before (data loaded,
#                garbage collected; see child_main())
#   model MB     the fitted object, serialised
#   peak / (sparse + model)   the issue's ratio
#   error        held-out misclassification rate

source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "..", "common.R"))

N_TREE <- 100L
N_THREAD <- 2L

memory_kb <- function() {
  status <- readLines("/proc/self/status")
  field <- function(name) as.numeric(gsub("[^0-9]", "", grep(paste0("^", name, ":"), status,
                                                              value = TRUE)))
  c(hwm = field("VmHWM"), rss = field("VmRSS"))
}

load_average <- function() paste(strsplit(readLines("/proc/loadavg"), " ")[[1L]][1:3], collapse = " ")

child_main <- function(spec_file, out_file) {
  spec <- readRDS(spec_file)
  .libPaths(spec$lib_paths)
  suppressPackageStartupMessages({
    library(Matrix)
    library(if (startsWith(spec$method, "ccforest")) "ccforest" else spec$method,
            character.only = TRUE)
  })
  data <- readRDS(spec$data_file)
  x <- data$x
  y <- data$y
  x_test <- data$x_test
  y_test <- data$y_test
  rm(data)
  # The mark is reset to the current resident size (Linux >= 4.0), so the
  # difference is the fit's own peak: its copies, buffers and the model.
  invisible(gc(full = TRUE))
  reset <- tryCatch({
    writeLines("5", "/proc/self/clear_refs")
    TRUE
  }, error = function(e) FALSE, warning = function(w) FALSE)
  before <- memory_kb()
  load_at_start <- load_average()
  if (startsWith(spec$method, "ccforest")) {
    # "ccforest screened": features sampled in proportion to their screening
    # statistic (feature_weights = "screen"), for a signal in few columns;
    # "ccforest": the defaults (from 0.4.0 feature_weights = "auto", which
    # screens here when its rule finds the sparse signal).
    weights <- if (spec$method == "ccforest screened") list(feature_weights = "screen")
    time <- system.time(fit <- do.call(ccforest::ccforest, c(list(x, y, n_tree = spec$n_tree,
                                                  n_thread = spec$n_thread, seed = 1,
                                                  verbose = FALSE), weights)), gcFirst = FALSE)
    after <- memory_kb()
    pred <- predict(fit, x_test, n_thread = spec$n_thread)
  } else {
    time <- system.time(fit <- ranger::ranger(x = x, y = y, num.trees = spec$n_tree,
                                              num.threads = spec$n_thread, seed = 1,
                                              verbose = FALSE), gcFirst = FALSE)
    after <- memory_kb()
    pred <- predict(fit, data = x_test, num.threads = spec$n_thread)$predictions
  }
  saveRDS(list(
    train_s = time[["elapsed"]],
    cpu_s = time[["user.self"]] + time[["sys.self"]] + time[["user.child"]] + time[["sys.child"]],
    peak_mb = (after[["hwm"]] - before[["hwm"]]) / 1024,
    peak_reset = reset,
    model_mb = length(serialize(fit, NULL)) / 2^20,
    error = mean(as.character(pred) != as.character(y_test)),
    load = load_at_start
  ), out_file)
}

# A child process fits one learner (see the loop below); it takes no options.
child_args <- commandArgs(TRUE)
if (length(child_args) >= 1L && child_args[[1L]] == "--child") {
  child_main(child_args[[2L]], child_args[[3L]])
  quit(save = "no")
}

BENCH_OPT <- bench_start(flags = "append", values = "learners", quick = TRUE)
quick <- bench_flag(BENCH_OPT, "quick")
append <- bench_flag(BENCH_OPT, "append")
learners <- c("ccforest", "ccforest screened", "ranger")
chosen <- bench_value(BENCH_OPT, "learners")
if (!is.null(chosen)) learners <- intersect(strsplit(chosen, ",", fixed = TRUE)[[1L]], learners)
started_at <- Sys.time()
machine <- machine_info()
use_competitors("ranger")
suppressPackageStartupMessages(library(Matrix))

sizes <- if (quick) list(c(n = 4000, p = 2000)) else list(c(n = 20000, p = 10000))
density <- 0.005
dir <- tempfile("sparse-bench")
dir.create(dir)
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L]))

rows <- list()
for (size in sizes) {
  n <- size[["n"]]
  p <- size[["p"]]
  set.seed(38)
  n_test <- 2000
  n_all <- n + n_test
  # Built from its triplets in one go (assigning columns of a dgCMatrix
  # copies it each time). The signal: 20 columns at 20% non-zero, so that
  # most rows carry some of it; the others at `density`.
  informative <- 20L
  n_sparse <- round(density * n_all * (p - informative))
  n_dense <- round(0.2 * n_all * informative)
  cell <- c(sample.int(n_all * informative, n_dense),
            n_all * informative + sample.int(n_all * (p - informative), n_sparse))
  all <- Matrix::sparseMatrix(i = (cell - 1) %% n_all + 1, j = (cell - 1) %/% n_all + 1,
                              x = stats::rnorm(length(cell)), dims = c(n_all, p),
                              dimnames = list(NULL, paste0("w", seq_len(p))))
  score <- as.vector(all[, seq_len(informative)] %*% rep(c(1, -1), informative / 2)) +
    stats::rnorm(n_all, sd = 0.3)
  y_all <- factor(score > stats::median(score), labels = c("low", "high"))
  data <- list(x = all[seq_len(n), ], y = y_all[seq_len(n)],
               x_test = all[n + seq_len(n_test), ], y_test = y_all[n + seq_len(n_test)])
  stopifnot(methods::is(data$x, "dgCMatrix"))
  sparse_mb <- as.numeric(utils::object.size(data$x)) / 2^20
  dense_mb <- 8 * n * p / 2^20
  data_file <- file.path(dir, "data.rds")
  saveRDS(data, data_file)
  rm(all, data)
  for (method in learners) {
    spec_file <- tempfile("spec", dir, ".rds")
    out_file <- tempfile("out", dir, ".rds")
    saveRDS(list(method = method, data_file = data_file, n_tree = N_TREE, n_thread = N_THREAD,
                 lib_paths = learner_lib_paths(method)), spec_file)
    status <- system2("Rscript", c("--vanilla", shQuote(script), "--child", shQuote(spec_file),
                                   shQuote(out_file)))
    if (status != 0L || !file.exists(out_file)) stop(sprintf("the %s fit failed", method))
    r <- readRDS(out_file)
    cat(sprintf("%d x %d %s: %.1f s, peak %.1f MB, model %.1f MB, error %.3f (load %s)\n",
                n, p, method, r$train_s, r$peak_mb, r$model_mb, r$error, r$load))
    rows[[length(rows) + 1L]] <- data.frame(
      n = n, p = p, density = density, method = method, train_s = r$train_s, cpu_s = r$cpu_s,
      peak_mb = r$peak_mb, model_mb = r$model_mb, sparse_mb = sparse_mb, dense_mb = dense_mb,
      ratio = r$peak_mb / (sparse_mb + r$model_mb), error = r$error, load = r$load,
      peak_reset = r$peak_reset, commit = bench_commit(),
      lib = if (startsWith(method, "ccforest")) Sys.getenv("CCFOREST_LIB") else "bench/lib",
      at = format(Sys.time(), "%Y-%m-%d %H:%M %Z")
    )
  }
}
results <- do.call(rbind, rows)
csv_file <- file.path(bench_dir(), "results", if (quick) "sparse.csv.tmp" else "sparse.csv")
md_file <- file.path(bench_dir(), "results", if (quick) "sparse.md.tmp" else "sparse.md")
if (append && file.exists(csv_file)) {
  earlier <- bench_read_csv(csv_file)
  for (name in setdiff(names(results), names(earlier))) earlier[[name]] <- NA
  results <- rbind(earlier[names(results)], results)
}
bench_write(results, csv_file)

# Per size, the latest row of each learner.
ratio_lines <- unlist(lapply(split(results, paste(results$n, results$p)), function(r) {
  cc <- utils::tail(r[r$method == "ccforest", ], 1L)
  rg <- utils::tail(r[r$method == "ranger", ], 1L)
  sc <- utils::tail(r[r$method == "ccforest screened", ], 1L)
  if (nrow(cc) == 0L || nrow(rg) == 0L) return(character(0))
  screened <- if (nrow(sc) == 0L) character(0) else
    sprintf(paste0("  With `feature_weights = \"screen\"`: training time %.2f of ranger's, peak %.2f, ",
                   "held-out error %.3f."), sc$train_s / rg$train_s, sc$peak_mb / rg$peak_mb, sc$error)
  c(sprintf(paste0("- %d x %d at %.1f%% non-zero (sparse matrix %.1f MB; dense it would be %.0f MB): ",
                 "ccforest/ranger training time %.2f, CPU %.2f, peak %.2f; ccforest's peak is %.2f times ",
                 "the sparse matrix plus its model (goal: at most 3), ranger's %.2f; held-out ",
                 "error ccforest %.3f, ranger %.3f."),
          cc$n, cc$p, 100 * cc$density, cc$sparse_mb, cc$dense_mb, cc$train_s / rg$train_s,
          cc$cpu_s / rg$cpu_s, cc$peak_mb / rg$peak_mb, cc$ratio, rg$ratio, cc$error, rg$error),
    screened)
}))
fmt <- function(v, d = 2) formatC(v, format = "f", digits = d)
table <- c(
  "| n | p | learner | train s | cpu s | peak MB | model MB | peak / (sparse + model) | error | load (1, 5, 15 min) | run at, commit, library |",
  "|---|---|---|---|---|---|---|---|---|---|---|",
  sprintf("| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s, %s, `%s` |", results$n, results$p,
          results$method, fmt(results$train_s), fmt(results$cpu_s), fmt(results$peak_mb, 1),
          fmt(results$model_mb, 1), fmt(results$ratio), fmt(results$error, 3), results$load,
          results$at, results$commit, results$lib)
)
report <- c(
  report_header("Sparse features: a dgCMatrix against ranger", csv_file = csv_file,
                packages = c("ccforest", "ranger", "Matrix")),
  sprintf("| trees, threads | %d, %d |", N_TREE, N_THREAD),
  "",
  paste0("A dgCMatrix of standard normal non-zeros at 0.5% (the first 20 columns, which carry ",
         "the signal, at 20%), a binary class split at the median of a linear score of those ",
         "20 columns plus noise, 2,000 held-out rows. Every learner gets the dgCMatrix as `x`; ",
         "each fit runs in a fresh R process, and its peak is how far it pushed the process's ",
         "high-water mark of resident memory above what the process held before the fit ",
         "(data loaded, garbage collected). The machine is shared: the load average at the ",
         "start of each fit is in its row, and times are of one run each."),
  "",
  ratio_lines,
  "",
  table
)
bench_write(report, md_file, packages = c("ccforest", "ranger", "Matrix"))
cat(report, sep = "\n")
