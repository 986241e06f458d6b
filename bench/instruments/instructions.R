#!/usr/bin/env Rscript
# Instructions spent growing trees, counted by valgrind's callgrind, for one
# or more builds of ccforest (private libraries) on the same fixed fits.
#
#   R CMD INSTALL -l /tmp/libA .      # one build per library
#   Rscript bench/instruments/instructions.R /tmp/libA /tmp/libB [--rows 15000] [--trees 3]
#       [--tasks letter,binary,regression] [--options "list(max_directions = 1)"] [--keep DIR]
#
# Design: wall-clock and CPU times on a shared machine move by a tenth or more
# between runs, which hides the changes of a few percent that speed work is
# made of. An instruction count is the same for the same binary and input
# whatever else the machine does, so two builds can be compared in one
# short run; it does not see cache misses or branch mispredictions, so a
# change that pays in instructions must still be timed (bench/instruments/train-ab.R,
# bench/comparisons/speed.R). Each fit runs in a fresh R process under callgrind with
# collection on only inside TreeTrainer::grow() (the growing of trees: no R,
# no encoding, no start-up), one thread, seed 1:
#
# - letter: `mlbench::LetterRecognition`, `--rows` random rows (26 classes,
#   16 features), `--trees` trees;
# - binary: a simulated two-class task like bench/comparisons/speed.R's (20 correlated
#   features, the label the sign of a non-linear function of three
#   combinations plus noise), `--rows` rows;
# - regression: the same features, a numeric output.
#
# `--options` adds arguments to every ccforest() call (an R expression giving
# a list). Prints the instructions per build and task, and each build's
# ratio to the first. `--keep DIR` keeps callgrind's output files there (read them with
# callgrind_annotate). `--out NAME` also writes what it prints to
# bench/results/NAME.md, stamped.

source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "..", "common.R"))
options(width = 200)
BENCH_OPT <- bench_start(values = c("rows", "trees", "tasks", "keep", "options", "out"),
                         positional = TRUE)
if (!is.null(BENCH_OPT$out)) bench_record(BENCH_OPT$out, "Instructions spent growing trees (callgrind)")
rows <- bench_integer(BENCH_OPT, "rows", 15000L)
trees <- bench_integer(BENCH_OPT, "trees", 3L)
tasks <- bench_list(BENCH_OPT, "tasks", c("letter", "binary", "regression"))
keep <- bench_value(BENCH_OPT, "keep", "")
options_text <- bench_value(BENCH_OPT, "options", "list()")
libs <- BENCH_OPT$positional
if (length(libs) == 0L) stop("give one or more library paths holding a ccforest build", call. = FALSE)
if (!nzchar(Sys.which("valgrind"))) stop("valgrind is not installed", call. = FALSE)
unknown <- setdiff(tasks, c("letter", "binary", "regression"))
if (length(unknown) > 0L) stop("unknown task: ", paste(unknown, collapse = ", "), call. = FALSE)

fit_code <- '
suppressPackageStartupMessages(library(ccforest))
a <- commandArgs(TRUE); n <- as.integer(a[1]); trees <- as.integer(a[2]); task <- a[3]
if (task == "letter") {
  e <- new.env(); utils::data("LetterRecognition", package = "mlbench", envir = e)
  d <- e$LetterRecognition
  set.seed(1507); d <- d[sample(nrow(d), n), ]
  x <- d[-1]; y <- d$lettr
} else {
  set.seed(3); x <- matrix(rnorm(n * 20), n); z <- x %*% matrix(rnorm(60), 20)
  signal <- 1.5 * z[, 1] - z[, 2] + sin(2 * z[, 3]) + rnorm(n)
  y <- if (task == "binary") factor(signal > 0) else signal
}
extra <- eval(parse(text = a[4]))
invisible(do.call(ccforest, c(list(x, y, n_tree = trees, n_thread = 1, seed = 1), extra)))
'
script <- tempfile(fileext = ".R")
writeLines(fit_code, script)

count <- function(lib, task) {
  dir <- tempfile("cg")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  out <- system2("valgrind", shQuote(c("--tool=callgrind", "--trace-children=yes",
                                       paste0("--callgrind-out-file=", file.path(dir, "cg.%p")),
                                       "--collect-atstart=no",
                                       "--toggle-collect=ccforest::TreeTrainer::grow()",
                                       file.path(R.home("bin"), "Rscript"), script, rows, trees, task,
                                       options_text)),
                 stdout = TRUE, stderr = TRUE, env = paste0("R_LIBS=", shQuote(lib)))
  collected <- suppressWarnings(as.numeric(sub(".*Collected : ", "", grep("Collected : ", out, value = TRUE))))
  if (!length(collected) || all(is.na(collected))) {
    stop("callgrind gave no count for ", lib, ", ", task, ":\n", paste(tail(out, 20), collapse = "\n"))
  }
  if (nzchar(keep)) {
    files <- list.files(dir, full.names = TRUE)
    biggest <- files[which.max(file.size(files))]
    file.copy(biggest, file.path(keep, sprintf("%s-%s.cg", basename(lib), task)), overwrite = TRUE)
  }
  max(collected, na.rm = TRUE)
}

if (nzchar(keep)) dir.create(keep, showWarnings = FALSE, recursive = TRUE)
cat(sprintf("callgrind, instructions in TreeTrainer::grow(): %d rows, %d trees, 1 thread, options %s\n",
            rows, trees, options_text))
result <- sapply(tasks, function(task) vapply(libs, count, numeric(1), task = task))
result <- matrix(result, nrow = length(libs), dimnames = list(libs, tasks))
table <- data.frame(build = libs, check.names = FALSE)
for (task in tasks) {
  table[[paste(task, "Minstr")]] <- round(result[, task] / 1e6, 1)
  table[[paste(task, "ratio")]] <- round(result[, task] / result[1L, task], 3)
}
print(table, row.names = FALSE)
if (!is.null(BENCH_OPT$out)) bench_finish(quick = FALSE)
