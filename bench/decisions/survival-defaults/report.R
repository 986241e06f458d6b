# Markdown tables of a bench/decisions/survival-defaults.R result file: per data set
# (columns) and configuration (rows), the mean C-index or IPA over the
# splits and, in brackets, the paired difference to `reference` with the
# Nadeau-Bengio corrected standard error; then the CPU seconds of training
# summed over the splits, as a ratio to aorsf's.
#
#   Rscript bench/decisions/survival-defaults/report.R results.rds[,more.rds] [reference]
#   Rscript bench/decisions/survival-defaults/report.R survival-defaults.csv [reference] [round,round]
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "..", "..", "common.R"))
args <- bench_start(positional = TRUE)$positional
if (!length(args) %in% 1:3) stop("usage: report.R results.rds[,more.rds] [reference] [round,round]", call. = FALSE)
read_one <- function(f) if (grepl("[.]csv$", f)) bench_read_csv(f) else readRDS(f)
r <- do.call(rbind, lapply(strsplit(args[1], ",")[[1]], function(f) {
  x <- read_one(f)
  x[setdiff(names(x), "round")]
}))
if (length(args) >= 3) {
  rounds <- strsplit(args[3], ",")[[1]]
  all <- read_one(args[1])
  r <- all[all$round %in% rounds, setdiff(names(all), "round")]
}
reference <- if (length(args) >= 2) args[2] else "aorsf"
sets <- unique(r$dataset)
configs <- unique(r$config)
nb <- function(a, b) {
  d <- a - b
  sprintf("%+.3f ± %.3f", mean(d), sqrt((1 / length(d) + 0.5) * stats::var(d)))
}
table_of <- function(metric) {
  cat(sprintf("\n%s, mean over %d splits; in brackets the paired difference to %s ± its corrected standard error\n\n",
              metric, length(unique(r$split)), reference))
  cat("| config |", paste(sets, collapse = " | "), "|\n")
  cat("|---|", paste(rep("---:", length(sets)), collapse = " | "), "|\n")
  for (cn in configs) {
    cells <- vapply(sets, function(s) {
      x <- r[r$dataset == s & r$config == cn, ]
      y <- r[r$dataset == s & r$config == reference, ]
      x <- x[order(x$split), ]; y <- y[order(y$split), ]
      if (cn == reference) sprintf("%.3f", mean(x[[metric]])) else
        sprintf("%.3f (%s)", mean(x[[metric]]), nb(x[[metric]], y[[metric]]))
    }, "")
    cat("|", cn, "|", paste(cells, collapse = " | "), "|\n")
  }
}
table_of("c_index")
table_of("ipa")
cat("\ntraining CPU seconds (one thread), summed over the splits, as a ratio to aorsf's\n\n")
cat("| config |", paste(sets, collapse = " | "), "|\n")
cat("|---|", paste(rep("---:", length(sets)), collapse = " | "), "|\n")
for (cn in configs) {
  cells <- vapply(sets, function(s) {
    sprintf("%.2f", sum(r$train_s[r$dataset == s & r$config == cn]) /
              sum(r$train_s[r$dataset == s & r$config == "aorsf"]))
  }, "")
  cat("|", cn, "|", paste(cells, collapse = " | "), "|\n")
}
