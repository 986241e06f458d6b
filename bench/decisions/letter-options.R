#!/usr/bin/env Rscript
# What issue 26's letter goal (training at most 0.9 times ranger's time at
# equal trees) would cost in accuracy: LetterRecognition's training time and
# test error under option settings that do less work per node, next to the
# default and to CRAN's ranger, in one run.
#
#   Rscript bench/decisions/letter-options.R [--seeds 6] [--trees 100]
#
# Design: one split of the data (15,000 training rows, 5,000 test rows); for
# each seed every setting and ranger are fitted once, on one thread, in
# turn, so that a drift of the machine's speed falls on all of them alike.
# Reported: the best and mean CPU seconds over the seeds, their ratio to
# ranger's best, and the mean test error with its standard error over the
# seeds (of one split: it shows the trade-off's size, bench/comparisons/accuracy.R is
# the test of a default). The settings: the default; searching only the
# strongest direction (max_directions = 1); also capping the projection
# bootstrap at 256 rows; and fewer features per node (mtry 4, 3 and 2: the
# paper's lambda = ceiling(log2(16) + 1) is 5, ranger's floor(sqrt(16)) 4).
# What it prints goes to bench/results/letter-options.md, every fit's time
# and error to letter-options.csv.

source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "..", "common.R"))
options(width = 200)
BENCH_OPT <- bench_start(values = c("seeds", "trees"))
bench_record("letter-options", "What issue 26's letter goal would cost: settings that do less work per node")
use_competitors("ranger")
suppressPackageStartupMessages(library(ccforest))

seeds <- bench_integer(BENCH_OPT, "seeds", 6L)
trees <- bench_integer(BENCH_OPT, "trees", 100L)

d <- mlb("LetterRecognition")
set.seed(1)
order <- sample(nrow(d))
train <- d[order[1:15000], ]
test <- d[order[15001:20000], ]
x <- train[setdiff(names(train), "lettr")]

settings <- list(
  "default" = list(),
  "max_directions = 1" = list(max_directions = 1),
  "max_directions = 1, bootstrap_max_rows = 256" = list(max_directions = 1, bootstrap_max_rows = 256),
  "mtry = 4" = list(mtry = 4),
  "mtry = 4, max_directions = 1, bootstrap_max_rows = 256" =
    list(mtry = 4, max_directions = 1, bootstrap_max_rows = 256),
  "mtry = 3" = list(mtry = 3),
  "mtry = 3, max_directions = 1, bootstrap_max_rows = 256" =
    list(mtry = 3, max_directions = 1, bootstrap_max_rows = 256),
  "mtry = 2" = list(mtry = 2)
)

info <- machine_info()
cat(sprintf("letter, 15,000 training rows, %d trees, 1 thread, %d seeds; %s cores, %s; load at start: %s\n",
            trees, seeds, info$nproc, info$cpu, info$load))
cat(versions_text(c("ccforest", "ranger")), "\n")
rows <- list()
for (s in seq_len(seeds)) {
  for (name in names(settings)) {
    seconds <- system.time(fit <- do.call(ccforest, c(list(x, train$lettr, n_tree = trees, n_thread = 1L,
                                                            seed = s), settings[[name]])))[["user.self"]]
    rows[[length(rows) + 1L]] <- data.frame(setting = name, seed = s, seconds = seconds,
                                            error = mean(predict(fit, test) != test$lettr))
  }
  seconds <- system.time(fit <- ranger::ranger(lettr ~ ., train, num.trees = trees, num.threads = 1L,
                                               seed = s))[["user.self"]]
  rows[[length(rows) + 1L]] <- data.frame(setting = "ranger", seed = s, seconds = seconds,
                                          error = mean(predict(fit, test)$predictions != test$lettr))
}
results <- do.call(rbind, rows)
summary_of <- function(r) {
  data.frame(best_s = min(r$seconds), mean_s = round(mean(r$seconds), 3),
             error_pct = round(100 * mean(r$error), 2),
             se = round(100 * stats::sd(r$error) / sqrt(nrow(r)), 2))
}
table <- do.call(rbind, lapply(split(results, factor(results$setting, unique(results$setting))), summary_of))
table$to_ranger <- round(table$best_s / table["ranger", "best_s"], 2)
print(table)
cat(sprintf("load at end: %s\n", machine_info()$load))
bench_write(results, file.path(results_dir(), "letter-options.csv"))
bench_finish(quick = FALSE)
