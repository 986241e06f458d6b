#!/usr/bin/env Rscript
# Did a change of ccforest move its accuracy? Compares two raw result files of
# bench/comparisons/accuracy.R fold by fold: the folds and learner seeds depend only on
# the data set, the repeat and the fold, so the same row of both files is the
# same training and test split grown from the same seed, and the difference
# of the two errors is a paired sample.
#
#   cp bench/results/accuracy.csv /tmp/before.csv     # the run before the change
#   Rscript bench/comparisons/accuracy.R                          # the run after it
#   Rscript bench/instruments/accuracy-change.R /tmp/before.csv bench/results/accuracy.csv
#       [--learners CCF,CCF-Bag,RRF,CCF-axis] [--out bench/results/accuracy-change.md]
#
# Prints, for each data set and ccforest learner, the mean error before and
# after, the mean paired difference with its standard error over the folds,
# and the two-sided Wilcoxon signed-rank p-value (NA when every fold gives
# the same error). A change "beyond noise" is a p-value below 0.05 together
# with a difference larger than its standard error; the script says which
# rows those are and in which direction.

source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "..", "common.R"))
BENCH_OPT <- bench_start(values = c("learners", "out"), positional = TRUE)
files <- BENCH_OPT$positional
if (length(files) != 2L) {
  stop("usage: accuracy-change.R BEFORE.csv AFTER.csv [--learners ...] [--out FILE.md]", call. = FALSE)
}
learners <- bench_list(BENCH_OPT, "learners", c("CCF", "CCF-Bag", "RRF", "CCF-axis"))
out <- bench_value(BENCH_OPT, "out", "")

before <- bench_read_csv(files[1L])
after <- bench_read_csv(files[2L])
key <- c("dataset", "rep", "fold", "learner", "n_tree", "seed")
both <- merge(before[c(key, "error")], after[c(key, "error")], by = key,
              suffixes = c(".before", ".after"))
both <- both[both$learner %in% learners, ]
if (nrow(both) == 0L) stop("the two files share no fold of these learners", call. = FALSE)

rows <- lapply(split(both, list(both$dataset, both$learner), drop = TRUE), function(d) {
  diff <- d$error.after - d$error.before
  p <- if (all(diff == 0)) NA_real_ else {
    suppressWarnings(stats::wilcox.test(d$error.after, d$error.before, paired = TRUE)$p.value)
  }
  data.frame(dataset = d$dataset[1L], learner = d$learner[1L], folds = nrow(d),
             before = mean(d$error.before), after = mean(d$error.after),
             difference = mean(diff), se = stats::sd(diff) / sqrt(nrow(d)), p = p)
})
table <- do.call(rbind, rows)
table <- table[order(match(table$dataset, unique(before$dataset)),
                     match(table$learner, learners)), ]
table$verdict <- ifelse(!is.na(table$p) & table$p < 0.05 & abs(table$difference) > table$se,
                        ifelse(table$difference > 0, "worse", "better"), "")

fmt <- function(x, digits = 2) formatC(x, format = "f", digits = digits)
lines <- c(
  sprintf("Before: `%s` (%d rows); after: `%s` (%d rows).", files[1L], nrow(before),
          files[2L], nrow(after)),
  "",
  "| data set | learner | folds | before | after | after - before | p | |",
  "|---|---|---:|---:|---:|---:|---:|---|",
  sprintf("| %s | %s | %d | %s | %s | %s ± %s | %s | %s |", table$dataset, table$learner,
          table$folds, fmt(table$before), fmt(table$after), fmt(table$difference, 3),
          fmt(table$se, 3), ifelse(is.na(table$p), "-", formatC(table$p, digits = 2)),
          table$verdict)
)
n_beyond <- sum(table$verdict != "")
lines <- c(lines, "", if (n_beyond == 0L) {
  "No data set and learner moved beyond noise (p < 0.05 and |difference| > its standard error)."
} else {
  sprintf("Beyond noise (p < 0.05 and |difference| > its standard error): %s.",
          paste(sprintf("%s %s %s", table$dataset[table$verdict != ""],
                        table$learner[table$verdict != ""], table$verdict[table$verdict != ""]),
                collapse = "; "))
})
writeLines(lines)
if (nzchar(out)) bench_write(lines, out)
