#!/usr/bin/env Rscript
# Are out-of-bag estimates honest with many-level factors (issue 28)? A
# factor with more than onehot_max_levels levels is valued by the outputs
# (R/data-levels.R); how each *training* row is valued decides whether its value
# carries its own output, which the trees and the out-of-bag estimates then
# see through. This script compares the out-of-bag error of bagged forests
# with their error on held-out rows, for several ways of valuing the training
# rows (prediction always uses each level's value from all training rows):
#   folds3   the package's: a level's rows dealt into 3 folds (shuffled by
#            the seed), each row valued from the other two
#   folds2, folds5, folds10   the same with 2, 5 or 10 folds
#   loo      the row alone left out of its level's mean (0.2.0)
#   full     the level's mean over all its rows, the row's own included
#   onehot   no valuing: onehot_max_levels = Inf
# The alternatives replace level_scores() in the loaded namespace.
#
#   Rscript bench/decisions/factor-oob.R               # 8 repeats of every task, ~25 min
#   Rscript bench/decisions/factor-oob.R --quick       # 1 repeat, two tasks, ~1 min
#   Rscript bench/decisions/factor-oob.R --repeats 24 --variants folds3,folds5
#
# Tasks (bagging, 100 trees, 2 threads; train / test rows):
#   noise      two noise classes, a factor of 40 levels with probabilities
#              1:40 (2 to 100 rows each): issue 28's case; 2,000 / 5,000
#   noise3     three noise classes, 100 levels, a noise numeric; 2,000 / 5,000
#   noise_reg  a noise output, 200 levels, a noise numeric; 2,000 / 5,000
#   signal     two classes from a level effect and a numeric, 100 levels
#   math, math_class  nlme's MathAchieve (7,185 students in 160 schools):
#              score, or score above the median, from school, minority, sex
#              and SES; 70% / 30% of the rows
#   chick      ChickWeight (50 chicks): weight from time, chick and diet
# Error: misclassification rate, or mean squared error. Gap = out-of-bag
# minus test error, mean over repeats, with its standard error.
# What it prints goes to bench/results/factor-oob.md, every fit's errors to
# factor-oob.csv (.tmp files with --quick).

source_common <- function() {
  file <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  dir <- if (length(file)) dirname(file) else "bench"
  source(file.path(dir, "..", "common.R"))
  dir
}
invisible(source_common())
BENCH_OPT <- bench_start(values = c("repeats", "variants"), threads = TRUE, quick = TRUE)
bench_record("factor-oob", "Out-of-bag estimates with many-level factors: ways of valuing training rows")
suppressPackageStartupMessages(library(ccforest))
quick <- bench_flag(BENCH_OPT, "quick")
repeats <- bench_integer(BENCH_OPT, "repeats", if (quick) 1L else 8L)
variants <- bench_list(BENCH_OPT, "variants",
                       c("folds3", "folds2", "folds5", "folds10", "loo", "full", "onehot"))
n_thread <- bench_threads(2L)
tasks <- if (quick) c("noise", "chick") else
  c("noise", "noise3", "noise_reg", "signal", "math", "math_class", "chick")

# level_scores() with another way of valuing the training rows.
package_scores <- utils::getFromNamespace("level_scores", "ccforest")
variant_scores <- function(rule, k = 3L) {
  function(codes, n_level, response, weights, rows, seed) {
    scores <- package_scores(codes, n_level, response, weights, rows, seed)
    if (rule == "folds" && k == 3L) return(scores)
    targets <- if (response$task == "regression") {
      response$values
    } else {
      do.call(cbind, lapply(seq_len(response$n_output), function(m) {
        outer(response$codes[, m], seq_len(response$n_class[[m]]) - 1L, `==`) + 0
      }))
    }
    w <- weights %||% rep(1, length(codes))
    keep <- !is.na(codes) & w > 0
    if (!is.null(rows)) keep <- keep & rows
    index <- which(keep)
    codes <- codes[keep]
    w <- w[keep]
    targets <- targets[keep, , drop = FALSE]
    overall <- colSums(targets * w) / sum(w)
    prior <- matrix(overall, length(codes), ncol(targets), byrow = TRUE)
    sums <- rowsum(targets * w, codes)[as.character(codes), , drop = FALSE]
    level_weight <- rowsum(w, codes)[as.character(codes), 1L]
    raw <- switch(rule,
      loo = (sums - targets * w + prior) / (level_weight - w + 1),
      full = (sums + prior) / (level_weight + 1),
      folds = {
        keys <- ccforest:::ccf_row_keys_cpp(seed, max(index))[index]
        o <- order(codes, keys)
        fold <- integer(length(codes))
        fold[o] <- (seq_along(o) - match(codes[o], codes[o])) %% k
        cell <- paste(codes, fold)
        cell_sums <- rowsum(targets * w, cell)[cell, , drop = FALSE]
        cell_weight <- rowsum(w, cell)[cell, 1L]
        (sums - cell_sums + prior) / (level_weight - cell_weight + 1)
      })
    # The package's axes, as level_scores() finds them.
    present_weight <- rowsum(w, codes)[, 1L]
    means <- (rowsum(targets * w, codes) + matrix(overall, length(present_weight),
                                                  ncol(targets), byrow = TRUE)) /
      (present_weight + 1)
    axes <- ccforest:::level_axes(sweep(means, 2L, overall), present_weight,
                                  length(present_weight))
    own <- matrix(NA_real_, length(keep), ncol(scores))
    own[index, ] <- sweep(raw, 2L, overall) %*% axes
    attr(scores, "own") <- own
    scores
  }
}
use_variant <- function(name) {
  f <- switch(name,
    folds3 = package_scores, folds2 = variant_scores("folds", 2L),
    folds5 = variant_scores("folds", 5L), folds10 = variant_scores("folds", 10L),
    loo = variant_scores("loo"), full = variant_scores("full"), onehot = package_scores)
  utils::assignInNamespace("level_scores", f, "ccforest")
}

make_task <- function(task, rep) {
  set.seed(1000 + rep)
  switch(task,
    noise = {
      gen <- function(n) {
        data.frame(f = factor(sample(sprintf("G%02d", 1:40), n, TRUE, prob = 1:40)),
                   y = factor(sample(c("a", "b"), n, TRUE)))
      }
      list(train = gen(2000), test = gen(5000))
    },
    noise3 = {
      gen <- function(n) {
        data.frame(f = factor(sample(sprintf("G%03d", 1:100), n, TRUE)), x = rnorm(n),
                   y = factor(sample(c("a", "b", "c"), n, TRUE)))
      }
      list(train = gen(2000), test = gen(5000))
    },
    noise_reg = {
      gen <- function(n) {
        data.frame(f = factor(sample(sprintf("G%03d", 1:200), n, TRUE)), x = rnorm(n),
                   y = rnorm(n))
      }
      list(train = gen(2000), test = gen(5000))
    },
    signal = {
      effect <- rnorm(100)
      gen <- function(n) {
        f <- sample(100, n, TRUE)
        x <- rnorm(n)
        data.frame(f = factor(f, levels = 1:100), x = x,
                   y = factor(ifelse(effect[f] + x + rnorm(n) > 0, "a", "b")))
      }
      list(train = gen(2000), test = gen(5000))
    },
    math = , math_class = {
      m <- as.data.frame(nlme::MathAchieve)
      y <- if (task == "math") m$MathAch else factor(m$MathAch > stats::median(m$MathAch))
      d <- data.frame(School = factor(as.character(m$School)), Minority = m$Minority,
                      Sex = m$Sex, SES = m$SES, y = y)
      i <- sample(nrow(d), round(0.7 * nrow(d)))
      list(train = d[i, ], test = d[-i, ])
    },
    chick = {
      d <- as.data.frame(ChickWeight)
      d <- data.frame(Time = d$Time, Chick = factor(as.character(d$Chick)), Diet = d$Diet,
                      y = d$weight)
      i <- sample(nrow(d), round(0.7 * nrow(d)))
      list(train = d[i, ], test = d[-i, ])
    })
}

cat(sprintf("load average at start: %s\n", paste(machine_info()$load, collapse = " ")))
rows <- list()
for (task in tasks) {
  for (rep in seq_len(repeats)) {
    tk <- make_task(task, rep)
    for (v in variants) {
      use_variant(v)
      fit <- ccforest(y ~ ., tk$train, n_tree = 100, sampling = "bagging", seed = rep,
                      onehot_max_levels = if (v == "onehot") Inf else 32, n_thread = n_thread,
                      verbose = FALSE)
      p <- predict(fit, tk$test, n_thread = n_thread)
      test <- if (is.factor(tk$test$y)) mean(p != tk$test$y) else mean((p - tk$test$y)^2)
      rows[[length(rows) + 1L]] <- data.frame(task = task, rep = rep, variant = v,
                                              oob = fit$oob_error, test = test)
    }
  }
}
use_variant("folds3")
r <- do.call(rbind, rows)
r$gap <- r$oob - r$test
summary <- do.call(rbind, lapply(split(r, list(r$task, r$variant), drop = TRUE), function(g) {
  data.frame(task = g$task[1], variant = g$variant[1], oob = mean(g$oob), test = mean(g$test),
             gap = mean(g$gap), se = if (nrow(g) > 1) stats::sd(g$gap) / sqrt(nrow(g)) else NA)
}))
summary <- summary[order(match(summary$task, tasks), match(summary$variant, variants)), ]
print(summary, digits = 3, row.names = FALSE)
cat(sprintf("load average at end: %s\n", paste(machine_info()$load, collapse = " ")))
bench_write(r, file.path(results_dir(), paste0("factor-oob.csv", if (quick) ".tmp" else "")))
bench_finish()
