#!/usr/bin/env Rscript
# Speed and size of ccforest next to ranger and aorsf, measured in the same run.
#
#   make install
#   Rscript bench/comparisons/speed.R            # full run: 12-18 min on 2 idle cores, more on a busy machine
#   Rscript bench/comparisons/speed.R --quick    # smaller data, one repetition, about 2 min
#   Rscript bench/comparisons/speed.R --reps=5   # more repetitions of every fit
#
# Competitors: ranger and aorsf at their current CRAN versions, installed by
# bench/common.R into bench/lib/ on the first run (results up to 2026-11-26
# used Debian's ranger 0.14.1; the report names every version and library).
# Every method grows 100 trees on 2 threads; everything else is each
# package's default (ranger: mtry = floor(sqrt(p)), unlimited depth,
# min.node.size = 1, out-of-bag error computed during training; ccforest: the
# paper's defaults, projection bootstrap, no out-of-bag work), except three
# options of aorsf that do work ccforest does not do and that no prediction
# needs: aorsf (orsf(), n_tree = 100, n_thread = 2) gets oobag_pred_type =
# "none" (its default computes out-of-bag probabilities and their accuracy),
# importance = "none" (default: ANOVA importance during growth) and
# attach_data = FALSE (default: a copy of the training data kept in the
# model, which would count in its size). Its times are thus the least aorsf
# can take, a conservative reference for ccforest; ranger keeps its default
# out-of-bag error, as in the results before aorsf was added. ccforest and
# ranger are called through their x/y interfaces so neither pays for a
# formula; aorsf has only the formula interface (orsf(data, y ~ .)). Tasks:
#   letter     mlbench::LetterRecognition, 20,000 x 16, 26 classes;
#              random 75% / 25% split (15,000 train, 5,000 held out).
#   simulated  binary task, 100,000 x 20 correlated numeric features (plus
#              20,000 held out); the label depends on three dense linear
#              combinations of the features, one of them non-linearly, plus
#              noise (Bayes error about 8%).
#   million    the same kind of task with 1,000,000 x 10 features (plus
#              100,000 held out), fitted once per method: the big-data case
#              (peak memory, model size, prediction time). Not aorsf: its
#              peak memory grows by about 0.3 MB per 1,000 rows and tree
#              (2.9 GB at 100,000 rows x 100 trees), so this task would need
#              about 29 GB.
# Measures, per task and method:
#   train s    wall-clock seconds of the fit
#   train CPU s  CPU seconds of the fit, all threads (user + system): the
#              work done, less disturbed than wall-clock time when other
#              processes compete for the cores
#   predict s  wall-clock seconds to predict the held-out rows (classes)
#   peak MB    memory the fit needed above what the process already held
#              (see child_main() for how)
#   model MB   length(serialize(fit, NULL)), the same as an uncompressed
#              saveRDS() file
#   rds MB     size of saveRDS(fit) with its default gzip compression
#   error %    held-out misclassification rate
# Every fit runs in a fresh child R process (so that the memory peaks do not
# see each other; a competitor's process has bench/lib on its library path,
# ccforest's does not), repeated `reps` times with the methods interleaved; times
# and peaks are the best (smallest) of the repetitions, which is the least
# disturbed by other work on the machine. Results are printed and written to
# bench/results/speed.md (bench/results/speed-quick.md.tmp with --quick).
#
# Give --lib PATH (or set CCFOREST_LIB) to a library path to benchmark a ccforest installed there
# (e.g. a private library) instead of the one on the default library path.

source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "..", "common.R"))
# Each fit runs in a child process of this script (`--child SPEC OUT`).
IS_CHILD <- identical(commandArgs(trailingOnly = TRUE)[1L], "--child")
if (IS_CHILD) {
  use_private_library()
} else {
  BENCH_OPT <- bench_start(values = "reps", threads = TRUE, quick = TRUE)
}

N_TREE <- 100L
N_THREAD <- bench_threads(2L)
COMPETITORS <- c("ranger", "aorsf")

# ---------------------------------------------------------------------------
# Child: one fit of one method on one task, in a fresh R process.

# Peak resident memory (VmHWM, kB) and current resident memory (VmRSS, kB)
# of this process, from Linux's /proc/self/status.
memory_kb <- function() {
  status <- readLines("/proc/self/status")
  field <- function(name) {
    line <- grep(paste0("^", name, ":"), status, value = TRUE)
    as.numeric(gsub("[^0-9]", "", line))
  }
  c(hwm = field("VmHWM"), rss = field("VmRSS"))
}

child_main <- function(spec_file, out_file) {
  spec <- readRDS(spec_file)
  .libPaths(spec$lib_paths)
  suppressPackageStartupMessages(library(spec$method, character.only = TRUE))
  data <- readRDS(spec$data_file)
  x_train <- data$train[setdiff(names(data$train), "y")]
  y_train <- data$train$y
  x_test <- data$test[setdiff(names(data$test), "y")]
  y_test <- data$test$y
  rm(data)

  # Peak memory of the fit. VmHWM is the process's high-water mark of
  # resident memory. The package and the data are loaded first and the
  # garbage collected, then the mark is read before and after the fit: their
  # difference is how far the fit pushed the peak above everything held
  # before it, i.e. the fit's working memory (copies of the data, sort keys,
  # node buffers, the growing trees, garbage not yet collected) including
  # the model it returns. Loading the data may itself have set a mark above
  # the current resident size, which would hide part of the fit's peak, so
  # the mark is first reset to the current resident size by writing "5" to
  # /proc/self/clear_refs (Linux >= 4.0); where that is refused, the plain
  # difference of the marks is reported, a lower bound.
  invisible(gc(full = TRUE))
  reset <- tryCatch({
    writeLines("5", "/proc/self/clear_refs")
    TRUE
  }, error = function(e) FALSE, warning = function(w) FALSE)
  before <- memory_kb()

  elapsed <- function(expr) system.time(expr, gcFirst = FALSE)[["elapsed"]]
  if (spec$method == "ccforest") {
    train_time <- system.time(fit <- ccforest::ccforest(x_train, y_train, n_tree = spec$n_tree,
                                                        n_thread = spec$n_thread, seed = spec$seed,
                                                        verbose = FALSE), gcFirst = FALSE)
    after <- memory_kb()
    predict_s <- elapsed(pred <- predict(fit, x_test, n_thread = spec$n_thread))
  } else if (spec$method == "aorsf") {
    train <- cbind(x_train, y = y_train)
    set.seed(spec$seed)  # orsf() draws its tree seeds from R's generator
    train_time <- system.time(fit <- aorsf::orsf(train, y ~ ., n_tree = spec$n_tree,
                                                 n_thread = spec$n_thread,
                                                 oobag_pred_type = "none", importance = "none",
                                                 attach_data = FALSE), gcFirst = FALSE)
    after <- memory_kb()
    predict_s <- elapsed(pred <- predict(fit, new_data = x_test, pred_type = "class",
                                         pred_simplify = TRUE, n_thread = spec$n_thread))
  } else {
    train_time <- system.time(fit <- ranger::ranger(x = x_train, y = y_train,
                                                    num.trees = spec$n_tree,
                                                    num.threads = spec$n_thread, seed = spec$seed,
                                                    verbose = FALSE), gcFirst = FALSE)
    after <- memory_kb()
    predict_s <- elapsed(pred <- predict(fit, data = x_test,
                                         num.threads = spec$n_thread)$predictions)
  }

  result <- list(
    train_s = train_time[["elapsed"]],
    # CPU seconds of all threads: the work done, less sensitive than the
    # wall-clock time to other processes competing for the cores
    train_cpu_s = train_time[["user.self"]] + train_time[["sys.self"]],
    predict_s = predict_s,
    peak_mb = (after[["hwm"]] - before[["hwm"]]) / 1024,
    hwm_reset = reset,
    error_pct = 100 * mean(as.character(pred) != as.character(y_test))
  )
  if (spec$sizes) {
    rds <- tempfile(fileext = ".rds")
    saveRDS(fit, rds)
    result$model_mb <- length(serialize(fit, NULL)) / 2^20
    result$rds_mb <- file.size(rds) / 2^20
    unlink(rds)
  }
  saveRDS(result, out_file)
}

# ---------------------------------------------------------------------------
# Parent: data, the runs, the tables.

# Binary task on correlated features: Z = three standardised dense linear
# combinations of X; the label is the sign of 1.5 Z1 - Z2 + sin(2 Z3) plus
# Gaussian noise. The oblique, partly curved boundary is the kind of problem
# canonical correlation forests were designed for.
simulate_binary <- function(n, p = 20L, seed = 20170507L) {
  set.seed(seed)
  mixing <- matrix(rnorm(p * p), p, p) / sqrt(p)       # correlated features
  weights <- matrix(rnorm(p * 3L), p, 3L)
  x <- matrix(rnorm(n * p), n, p) %*% mixing
  z <- scale(x %*% weights)
  signal <- 1.5 * z[, 1L] - z[, 2L] + sin(2 * z[, 3L])
  y <- factor(ifelse(signal + rnorm(n, sd = 0.5) > 0, "pos", "neg"))
  colnames(x) <- sprintf("x%02d", seq_len(p))
  data.frame(x, y = y)
}

make_tasks <- function(quick, dir) {
  env <- new.env()
  utils::data("LetterRecognition", package = "mlbench", envir = env)
  letter <- env$LetterRecognition
  names(letter)[names(letter) == "lettr"] <- "y"
  letter <- letter[c(setdiff(names(letter), "y"), "y")]
  set.seed(1507L)
  if (quick) {
    idx <- sample(nrow(letter), 6000L)
    letter_train <- letter[idx[1:4000], ]
    letter_test <- letter[idx[4001:6000], ]
    n_sim <- 10000L
    n_sim_test <- 5000L
  } else {
    idx <- sample(nrow(letter))
    letter_train <- letter[idx[1:15000], ]
    letter_test <- letter[idx[15001:20000], ]
    n_sim <- 100000L
    n_sim_test <- 20000L
  }
  sim <- simulate_binary(n_sim + n_sim_test)
  n_big <- if (quick) 100000L else 1000000L
  n_big_test <- if (quick) 20000L else 100000L
  big <- simulate_binary(n_big + n_big_test, p = 10L, seed = 20170508L)
  tasks <- list(
    letter = list(train = letter_train, test = letter_test),
    simulated = list(train = sim[seq_len(n_sim), ], test = sim[n_sim + seq_len(n_sim_test), ]),
    million = list(train = big[seq_len(n_big), ], test = big[n_big + seq_len(n_big_test), ],
                   reps = 1L, skip = "aorsf")
  )
  lapply(names(tasks), function(name) {
    file <- file.path(dir, paste0(name, ".rds"))
    saveRDS(tasks[[name]][c("train", "test")], file, compress = FALSE)
    list(name = name, file = file, n_train = nrow(tasks[[name]]$train),
         n_test = nrow(tasks[[name]]$test), p = ncol(tasks[[name]]$train) - 1L,
         n_class = nlevels(tasks[[name]]$train$y), reps = tasks[[name]]$reps,
         skip = tasks[[name]]$skip)
  })
}

run_child <- function(script, dir, task, method, rep) {
  spec_file <- tempfile("spec", dir, ".rds")
  out_file <- tempfile("out", dir, ".rds")
  saveRDS(list(method = method, data_file = task$file, n_tree = N_TREE, n_thread = N_THREAD,
               seed = rep, sizes = rep == 1L, lib_paths = learner_lib_paths(method)), spec_file)
  status <- system2("Rscript", c("--vanilla", shQuote(script), "--child", shQuote(spec_file),
                                 shQuote(out_file)))
  if (status != 0L || !file.exists(out_file)) {
    stop(sprintf("the %s fit on %s (repetition %d) failed", method, task$name, rep))
  }
  readRDS(out_file)
}

machine_info <- function() {
  cpu <- tryCatch({
    line <- grep("^model name", readLines("/proc/cpuinfo"), value = TRUE)[1L]
    trimws(sub("^[^:]*:", "", line))
  }, error = function(e) NA_character_, warning = function(w) NA_character_)
  load <- tryCatch(paste(strsplit(readLines("/proc/loadavg"), " ")[[1L]][1:3], collapse = " "),
                   error = function(e) NA_character_, warning = function(w) NA_character_)
  list(
    date = format(Sys.time(), "%Y-%m-%d %H:%M %Z"),
    nproc = parallel::detectCores(),
    cpu = cpu,
    load = load,
    r = paste(R.version$major, R.version$minor, sep = ".")
  )
}

# A markdown table: the first `n_text` columns left-aligned, the rest (numbers)
# right-aligned.
markdown_table <- function(df, n_text) {
  cells <- lapply(df, as.character)
  header <- paste0("| ", paste(names(df), collapse = " | "), " |")
  align <- paste0("|", paste(ifelse(seq_along(df) <= n_text, ":---", "---:"), collapse = "|"), "|")
  body <- do.call(paste, c(cells, sep = " | "))
  c(header, align, paste0("| ", body, " |"))
}

# Time to accuracy on letter: ranger grows 500 trees; ccforest grows 500 too,
# and its error with its first k trees (predict(n_tree = k)) gives the
# smallest k that matches ranger-500's held-out error. Trees are grown
# independently, so a k-tree forest takes k / 500 of the 500-tree time.
# Both fits run in this process, one after the other, on 2 threads.
time_to_accuracy <- function(task_file, n_thread, seed = 1L) {
  data <- readRDS(task_file)
  x <- data$train[setdiff(names(data$train), "y")]
  y <- data$train$y
  xt <- data$test[setdiff(names(data$test), "y")]
  yt <- data$test$y
  rf_s <- system.time(rf <- ranger::ranger(x = x, y = y, num.trees = 500L, num.threads = n_thread,
                                           seed = seed))[["elapsed"]]
  rf_error <- mean(predict(rf, xt, num.threads = n_thread)$predictions != yt)
  cc_s <- system.time(cc <- ccforest::ccforest(x, y, n_tree = 500L, n_thread = n_thread,
                                               seed = seed, verbose = FALSE))[["elapsed"]]
  grid <- c(1:10, seq(12, 30, 2), seq(35, 100, 5), seq(120, 500, 20))
  errors <- vapply(grid, function(k) mean(predict(cc, xt, n_tree = k, n_thread = n_thread) != yt),
                   numeric(1))
  k <- grid[which(errors <= rf_error)[1L]]
  list(ranger_s = rf_s, ranger_error = rf_error, ccforest_500_s = cc_s,
       ccforest_500_error = errors[length(errors)], k = k,
       ccforest_k_s = cc_s * k / 500, ratio = cc_s * k / 500 / rf_s)
}

main <- function(opt) {
  quick <- bench_flag(opt, "quick")
  reps <- bench_integer(opt, "reps", if (quick) 1L else 3L)

  script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L]))
  if (is.na(script) || !file.exists(script)) stop("run this script with Rscript bench/comparisons/speed.R")
  for (pkg in c("ccforest", "mlbench")) {
    if (!requireNamespace(pkg, quietly = TRUE)) stop("package '", pkg, "' is not installed")
  }
  competitors <- use_competitors(COMPETITORS)
  if (!"ranger" %in% competitors) stop("ranger is needed (time to accuracy)")
  versions <- versions_text(c("ccforest", COMPETITORS))
  info <- machine_info()
  started <- proc.time()[["elapsed"]]

  dir <- tempfile("ccforest-bench")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  tasks <- make_tasks(quick, dir)

  cat(sprintf("%s: %d trees, %d threads, best of %d; %s\n",
              paste(versions, collapse = "; "), N_TREE, N_THREAD, reps,
              if (quick) "quick sizes" else "full sizes"))
  methods <- c("ccforest", competitors)
  rows <- list()
  for (task in tasks) {
    task_methods <- setdiff(methods, task$skip)
    runs <- setNames(vector("list", length(task_methods)), task_methods)
    for (rep in seq_len(min(reps, task$reps %||% reps))) {
      for (method in task_methods) {
        cat(sprintf("  %-9s %-8s repetition %d ... ", task$name, method, rep))
        res <- run_child(script, dir, task, method, rep)
        cat(sprintf("train %.2f s (CPU %.2f s), predict %.2f s, peak %.0f MB\n",
                    res$train_s, res$train_cpu_s, res$predict_s, res$peak_mb))
        runs[[method]][[rep]] <- res
      }
    }
    for (method in task_methods) {
      r <- runs[[method]]
      pick <- function(field) vapply(r, function(x) x[[field]], numeric(1))
      rows[[length(rows) + 1L]] <- data.frame(
        data = task$name, method = method,
        train_s = min(pick("train_s")), train_cpu_s = min(pick("train_cpu_s")),
        predict_s = min(pick("predict_s")),
        peak_mb = min(pick("peak_mb")), model_mb = r[[1L]]$model_mb, rds_mb = r[[1L]]$rds_mb,
        error_pct = median(pick("error_pct")),
        stringsAsFactors = FALSE
      )
    }
  }
  results <- do.call(rbind, rows)
  letter_task <- Filter(function(t) t$name == "letter", tasks)[[1L]]
  cat("  letter time to accuracy (ranger 500 trees, ccforest 500 trees) ...\n")
  tta <- time_to_accuracy(letter_task$file, N_THREAD)
  cat(sprintf("  ranger-500 %.2f s, error %.2f%%; ccforest matches it with %d trees (%.2f s): ratio %.2f\n",
              tta$ranger_s, 100 * tta$ranger_error, tta$k, tta$ccforest_k_s, tta$ratio))
  measures <- c("train_s", "train_cpu_s", "predict_s", "peak_mb", "model_mb", "rds_mb",
                "error_pct")
  labels <- c("train s", "train CPU s", "predict s", "peak MB", "model MB", "rds MB", "error %")

  ratios <- do.call(rbind, lapply(competitors, function(other) {
    do.call(rbind, lapply(split(results, results$data)[unique(results$data)], function(d) {
      if (!other %in% d$method) return(NULL)
      cc <- d[d$method == "ccforest", measures]
      rf <- d[d$method == other, measures]
      data.frame(data = d$data[1L], versus = other, as.list(unlist(cc) / unlist(rf)),
                 stringsAsFactors = FALSE)
    }))
  }))

  shown <- results
  shown[measures] <- lapply(measures, function(m) {
    sprintf(if (m %in% c("peak_mb", "model_mb", "rds_mb")) "%.1f" else "%.2f", results[[m]])
  })
  names(shown) <- c("data", "method", labels)
  shown_ratios <- ratios
  shown_ratios[measures] <- lapply(measures, function(m) sprintf("%.2f", ratios[[m]]))
  names(shown_ratios) <- c("data", "ccforest / competitor", labels)
  rownames(shown) <- rownames(shown_ratios) <- NULL

  task_lines <- vapply(tasks, function(t) {
    sprintf("- %s: %s training rows, %s held out, %d features, %d classes", t$name,
            format(t$n_train, big.mark = ","), format(t$n_test, big.mark = ","), t$p, t$n_class)
  }, character(1))
  total <- proc.time()[["elapsed"]] - started
  end_load <- machine_info()$load
  load_1min <- suppressWarnings(as.numeric(sub(" .*", "", c(info$load, end_load))))
  busy <- any(load_1min > info$nproc, na.rm = TRUE)

  options(width = max(getOption("width"), 120L))
  cat("\nResults (times and peaks: best of ", reps, "; sizes in MiB):\n", sep = "")
  print(shown, row.names = FALSE, right = TRUE)
  cat("\nRatios ccforest / competitor (below 1: ccforest is faster, smaller or more accurate):\n")
  print(shown_ratios, row.names = FALSE, right = TRUE)
  cat(sprintf("\nTotal run time %.0f s.\n", total))
  if (busy) {
    cat("The machine was busy (load average above", info$nproc, "at start or end):",
        "wall-clock times are inflated and noisy.\n")
  }

  out <- file.path(results_dir(), if (quick) "speed-quick.md.tmp" else "speed.md")
  md <- c(
    sprintf("# ccforest vs %s: speed, memory and size", paste(competitors, collapse = " and ")),
    "",
    sprintf("Generated by `%s` on %s.", bench_command(), info$date),
    "",
    sprintf("- Machine: %d cores (`nproc`), %s; load average (1, 5, 15 min) at start %s, at end %s",
            info$nproc, info$cpu, info$load, end_load),
    if (busy) {
      paste("- **The machine was busy** (load above its number of cores): wall-clock times",
            "are inflated and noisy, CPU times less so; memory, sizes and errors are unaffected.")
    },
    sprintf("- R %s; %s", info$r, paste(versions, collapse = "; ")),
    "- Results up to 2026-11-26 compared with ranger 0.14.1 (Debian's, the machine's library) and had no aorsf.",
    sprintf(paste("- %d trees, %d threads, otherwise each package's defaults; x/y interfaces",
                  "(aorsf: formula; `oobag_pred_type = \"none\"`, `importance = \"none\"`,",
                  "`attach_data = FALSE`, see the script's header)"),
            N_TREE, N_THREAD),
    sprintf("- Times and peak memory: best of %d fit%s (million: one), each in a fresh R process; error: median",
            reps, if (reps == 1L) "" else "s"),
    task_lines,
    if ("aorsf" %in% competitors) {
      paste("- aorsf does not run on million: its memory grows by about 0.3 MB per 1,000 training",
            "rows and tree (measured with 10 features, 2 threads: 365 MB for 100,000 rows x 10",
            "trees, 1,268 MB for 100,000 x 40, 684 MB for 200,000 x 10; 2.9 GB for 100,000 x 100),",
            "so 1,000,000 rows x 100 trees would need about 29 GB, more than the machine's 24 GiB")
    },
    "",
    "## Results",
    "",
    "Times in seconds: train = wall clock, train CPU = CPU time of all threads.",
    "Sizes in MiB: peak = rise of the process's peak resident memory (VmHWM) during the fit;",
    "model = `length(serialize(fit, NULL))`; rds = `saveRDS(fit)` file (gzip).",
    "",
    markdown_table(shown, n_text = 2L),
    "",
    "## Ratios ccforest / competitor",
    "",
    "Below 1: ccforest is faster, smaller or more accurate.",
    "",
    markdown_table(shown_ratios, n_text = 2L),
    "",
    "## Time to accuracy on letter",
    "",
    "ranger grows 500 trees; ccforest's error with its first k trees gives the fewest trees",
    "that match ranger-500's held-out error; a k-tree forest takes k / 500 of the 500-tree time.",
    "",
    "| ranger-500 s | ranger-500 error % | ccforest-500 s | ccforest-500 error % | k | ccforest-k s | ratio ccforest-k / ranger-500 |",
    "|---:|---:|---:|---:|---:|---:|---:|",
    sprintf("| %.2f | %.2f | %.2f | %.2f | %d | %.2f | %.2f |", tta$ranger_s, 100 * tta$ranger_error,
            tta$ccforest_500_s, 100 * tta$ccforest_500_error, tta$k, tta$ccforest_k_s, tta$ratio),
    "",
    sprintf("Total run time of the benchmark: %.0f s.", total)
  )
  bench_write(md, out)
  cat("Written to", out, "\n")
  invisible(results)
}

if (IS_CHILD) {
  args <- commandArgs(trailingOnly = TRUE)
  child_main(args[[2L]], args[[3L]])
} else {
  main(BENCH_OPT)
}
