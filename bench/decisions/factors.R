#!/usr/bin/env Rscript
# Factors with many levels (issue 14): ccforest's default treatment (levels
# valued by the outputs when a factor has more than onehot_max_levels = 32
# levels: one column per principal axis of the levels' mean outputs or class
# shares, each training row valued without its own output) against the
# paper's one-hot encoding (onehot_max_levels = Inf), against leaving the
# factor out, and against ranger with respect.unordered.factors = "order"
# (Wright and Koenig's ordering, ranger's treatment for such factors); ranger
# is CRAN's current version from bench/lib/ (bench/common.R; results up to
# 2026-11-26 used Debian's 0.14.1).
#
#   make install
#   Rscript bench/decisions/factors.R                  # 3 repeats, 200 trees (~5 min)
#   Rscript bench/decisions/factors.R --repeats 5 --output factors-5
#   Rscript bench/run.R factors --lib /tmp/old --output factors-old   # another build
#
# Tasks, all simulated so that the factor's role is known:
#   classes   K = 2, 3 or 5 classes, four numeric features whose class means
#             differ a little, and one factor of L = 40 or 100 levels that is
#             either informative (each class has its own random profile over
#             the levels) or noise (levels drawn uniformly)
#   friedman1 mlbench's Friedman 1 (sd 1) with one factor of 50 levels that
#             is noise, or shifts the output by a random amount per level
# n training rows (300 or 1,000), 2,000 test rows. Error: % misclassified, or
# test MSE as % of the test output's variance; mean over the repeats.
#
# Then twelve real regression tasks (nlme and MASS) whose factors have 6 to
# 27 levels, mostly subjects measured repeatedly: fewer than 32 levels, so
# one-hot by default. They test whether valuing such factors too would pay:
# with every factor of more than two levels valued (onehot_max_levels = 2),
# and with the rule "one-hot only while the levels are at most the square
# root of the training rows" (onehot_max_levels = floor(sqrt(n))). Repeated
# 5-fold cross-validation (--repeats times), test MSE as % of the test
# fold's variance, paired Wilcoxon test against the default.
#
# Output: bench/results/<output>.md, .csv and -real.csv (default output: factors).

script_path <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])
source(file.path(dirname(script_path), "..", "common.R"))
BENCH_OPT <- bench_start(values = c("trees", "repeats", "output"), threads = TRUE)
n_tree <- bench_integer(BENCH_OPT, "trees", 200L)
repeats <- bench_integer(BENCH_OPT, "repeats", 3L)
output <- bench_value(BENCH_OPT, "output", "factors")
n_thread <- bench_threads(2L)

use_competitors("ranger")  # CRAN's current ranger, from bench/lib
suppressPackageStartupMessages(library(ccforest))
started_at <- Sys.time()
machine <- machine_info()

# A generator of rows for one task: the same class profiles and means for
# training and test rows.
class_task <- function(K, L, informative, seed) {
  set.seed(seed)
  profile <- matrix(stats::rexp(L * K), K)
  mu <- matrix(stats::rnorm(K * 4, sd = 0.5), K)
  function(m) {
    cl <- sample(K, m, TRUE)
    x <- as.data.frame(mu[cl, ] + matrix(stats::rnorm(m * 4), m))
    level <- if (informative) {
      vapply(cl, function(k) sample(L, 1L, prob = profile[k, ]), 1L)
    } else {
      sample(L, m, TRUE)
    }
    x$f <- factor(level, levels = seq_len(L))
    x$y <- factor(cl)
    x
  }
}
friedman_task <- function(L, informative, seed) {
  set.seed(seed)
  shift <- stats::rnorm(L, sd = 2)
  function(m) {
    s <- mlbench::mlbench.friedman1(m, sd = 1)
    level <- sample(L, m, TRUE)
    x <- as.data.frame(s$x)
    x$f <- factor(level, levels = seq_len(L))
    x$y <- s$y + if (informative) shift[level] else 0
    x
  }
}

cells <- rbind(
  expand.grid(task = "classes", K = c(2L, 3L, 5L), L = c(40L, 100L), n = c(300L, 1000L),
              factor = c("informative", "noise"), stringsAsFactors = FALSE),
  expand.grid(task = "friedman1", K = NA_integer_, L = 50L, n = c(300L, 1000L),
              factor = c("informative", "noise"), stringsAsFactors = FALSE)
)

error_of <- function(pred, y) {
  if (is.factor(y)) 100 * mean(pred != y) else 100 * mean((pred - y)^2) / mean((y - mean(y))^2)
}
rows <- list()
for (i in seq_len(nrow(cells))) {
  cell <- cells[i, ]
  for (r in seq_len(repeats)) {
    seed <- 1000L * i + r
    gen <- if (cell$task == "classes") {
      class_task(cell$K, cell$L, cell$factor == "informative", seed)
    } else {
      friedman_task(cell$L, cell$factor == "informative", seed)
    }
    train <- gen(cell$n)
    test <- gen(2000L)
    fit_ccf <- function(formula, onehot) {
      t <- system.time(fit <- ccforest(formula, train, n_tree = n_tree, seed = seed,
                                       n_thread = n_thread, onehot_max_levels = onehot))[["elapsed"]]
      c(error_of(predict(fit, test), test$y), t)
    }
    t <- system.time(rf <- ranger::ranger(y ~ ., train, num.trees = n_tree, seed = seed,
                                          num.threads = n_thread,
                                          respect.unordered.factors = "order"))[["elapsed"]]
    result <- rbind(valued = fit_ccf(y ~ ., 32), onehot = fit_ccf(y ~ ., Inf),
                    without = fit_ccf(y ~ . - f, 32),
                    ranger = c(error_of(predict(rf, test)$predictions, test$y), t))
    rows[[length(rows) + 1L]] <- data.frame(cell[rep(1L, 4L), ], rep = r, learner = rownames(result),
                                            error = result[, 1L], train_s = result[, 2L],
                                            row.names = NULL)
  }
  cat(sprintf("[%s] %s K=%s L=%d n=%d %s\n", format(Sys.time(), "%H:%M:%S"), cell$task, cell$K,
              cell$L, cell$n, cell$factor))
}
results <- do.call(rbind, rows)
geo <- function(a, b) exp(mean(log(a / b)))

# Real tasks with grouping factors (see the header).
unordered <- function(f) factor(as.character(f))
nlme_data <- function(name) {
  e <- new.env()
  utils::data(list = name, package = "nlme", envir = e)
  as.data.frame(get(name, envir = e))
}
real <- list(
  orthodont = with(nlme_data("Orthodont"),
                   data.frame(age, Sex = unordered(Sex), Subject = unordered(Subject), y = distance)),
  bodyweight = with(nlme_data("BodyWeight"),
                    data.frame(Time, Diet = unordered(Diet), Rat = unordered(Rat), y = weight)),
  oxboys = with(nlme_data("Oxboys"), data.frame(age, Subject = unordered(Subject), y = height)),
  dialyzer = with(nlme_data("Dialyzer"),
                  data.frame(pressure, QB = unordered(QB), Subject = unordered(Subject), y = rate)),
  earthquake = with(nlme_data("Earthquake"),
                    data.frame(Richter, distance, soil, Quake = unordered(Quake), y = accel)),
  pixel = with(nlme_data("Pixel"), data.frame(day, Side = unordered(Side), Dog = unordered(Dog), y = pixel)),
  ovary = with(nlme_data("Ovary"), data.frame(Time, Mare = unordered(Mare), y = follicles)),
  igf = with(nlme_data("IGF"), data.frame(age, Lot = unordered(Lot), y = conc)),
  machines = with(nlme_data("Machines"),
                  data.frame(Worker = unordered(Worker), Machine = unordered(Machine), y = score)),
  rail = with(nlme_data("Rail"), data.frame(Rail = unordered(Rail), y = travel)),
  petrol = with(MASS::petrol, data.frame(No = unordered(No), SG, VP, V10, EP, y = Y)),
  immer = with(MASS::immer, data.frame(Loc = unordered(Loc), Var = unordered(Var), y = Y1))
)
real_rows <- list()
for (name in names(real)) {
  d <- real[[name]]
  set.seed(7)
  for (r in seq_len(repeats)) {
    folds <- sample(rep(1:5, length.out = nrow(d)))
    for (k in 1:5) {
      train <- d[folds != k, ]
      test <- d[folds == k, ]
      seed <- 100L * r + k
      mse <- function(pred) 100 * mean((pred - test$y)^2) / stats::var(test$y)
      ccf <- function(onehot) {
        mse(predict(ccforest(y ~ ., train, n_tree = n_tree, seed = seed, n_thread = n_thread,
                             onehot_max_levels = onehot), test))
      }
      rf <- ranger::ranger(y ~ ., train, num.trees = n_tree, seed = seed, num.threads = n_thread,
                           respect.unordered.factors = "order")
      real_rows[[length(real_rows) + 1L]] <- data.frame(
        dataset = name, rep = r, fold = k,
        learner = c("default", "valued", "sqrt rule", "ranger"),
        error = c(ccf(32), ccf(2), ccf(max(1, floor(sqrt(nrow(train))))),
                  mse(predict(rf, test)$predictions)))
    }
  }
  cat(sprintf("[%s] %s\n", format(Sys.time(), "%H:%M:%S"), name))
}
real_results <- do.call(rbind, real_rows)
real_table <- do.call(rbind, lapply(names(real), function(name) {
  d <- real_results[real_results$dataset == name, ]
  base <- d$error[d$learner == "default"]
  do.call(rbind, lapply(c("valued", "sqrt rule", "ranger"), function(l) {
    e <- d$error[d$learner == l]
    p <- if (any(abs(e - base) > 1e-9)) {
      suppressWarnings(stats::wilcox.test(e, base, paired = TRUE, exact = FALSE)$p.value)
    } else 1
    data.frame(dataset = name, n = nrow(real[[name]]),
               levels = paste(vapply(Filter(is.factor, real[[name]]), nlevels, 1L), collapse = ", "),
               learner = l, default = mean(base), error = mean(e), p = p,
               verdict = if (p >= 0.05) "tie" else if (mean(e) < mean(base)) "win" else "loss")
  }))
}))
real_summary <- vapply(c("valued", "sqrt rule", "ranger"), function(l) {
  t <- real_table[real_table$learner == l, ]
  sprintf("| %s | %d | %d | %d | %.3f |", l, sum(t$verdict == "win"), sum(t$verdict == "loss"),
          sum(t$verdict == "tie"), geo(t$error, t$default))
}, character(1))

means <- stats::aggregate(error ~ task + K + L + n + factor + learner,
                          transform(results, K = ifelse(is.na(K), 0L, K)), mean)
wide <- stats::reshape(means, idvar = c("task", "K", "L", "n", "factor"), timevar = "learner",
                       direction = "wide")
names(wide) <- sub("^error\\.", "", names(wide))
wide <- wide[order(wide$task, wide$factor, wide$K, wide$L, wide$n), ]
summary_rows <- unlist(lapply(split(wide, paste(wide$task, wide$factor)), function(w) {
  sprintf("| %s | %s | %d | %.3f | %.3f | %.3f |", w$task[1L], w$factor[1L], nrow(w),
          geo(w$valued, w$onehot), geo(w$valued, w$without), geo(w$valued, w$ranger))
}))

csv_file <- file.path(results_dir(), paste0(output, ".csv"))
md_file <- sub("\\.csv$", ".md", csv_file)
bench_write(results, csv_file)
bench_write(real_results, sub("\\.csv$", "-real.csv", csv_file))
report <- c(
  report_header("Factors with many levels: valued by the outputs, one-hot, left out, and ranger",
                csv_file = csv_file),
  sprintf("| trees, repeats | %d trees; %d repeats per task; %d threads |", n_tree, repeats,
          n_thread),
  sprintf("| load at end | %s |", machine_info()$load),
  "",
  "valued: ccforest's default (a factor with more than 32 levels valued by the outputs);",
  "one-hot: `onehot_max_levels = Inf` (the paper's encoding); without: the factor left out;",
  "ranger: `respect.unordered.factors = \"order\"`. Errors: % misclassified (classes) or test",
  "MSE as % of the test output's variance (friedman1), mean over the repeats.",
  "",
  "## Summary: geometric mean error ratios of valued to each other learner",
  "",
  "| task | factor | cells | valued / one-hot | valued / without | valued / ranger |",
  "|---|---|---:|---:|---:|---:|",
  summary_rows,
  "",
  "## Per task",
  "",
  "| task | factor | classes | levels | n | valued | one-hot | without | ranger |",
  "|---|---|---:|---:|---:|---:|---:|---:|---:|",
  sprintf("| %s | %s | %s | %d | %d | %.2f | %.2f | %.2f | %.2f |", wide$task, wide$factor,
          ifelse(wide$K == 0L, "–", wide$K), wide$L, wide$n, wide$valued, wide$onehot,
          wide$without, wide$ranger),
  "",
  "## Real tasks with grouping factors of fewer than 32 levels (one-hot by default)",
  "",
  paste("Against the default: every factor of more than two levels valued",
        "(`onehot_max_levels = 2`), the square-root rule (`onehot_max_levels = floor(sqrt(n))`),",
        "and ranger (`respect.unordered.factors = \"order\"`). Test MSE as % of the test fold's",
        sprintf("variance, %d x 5-fold; p: paired Wilcoxon test against the default.", repeats)),
  "",
  "| learner | wins | losses | ties | geometric mean error ratio to the default |",
  "|---|---:|---:|---:|---:|",
  real_summary,
  "",
  "| data set | n | factor levels | learner | default | learner's error | p | verdict |",
  "|---|---:|---|---|---:|---:|---:|---|",
  sprintf("| %s | %d | %s | %s | %.2f | %.2f | %.3g | %s |", real_table$dataset, real_table$n,
          real_table$levels, real_table$learner, real_table$default, real_table$error, real_table$p,
          real_table$verdict),
  "",
  sprintf("Run time: %.1f min.", as.numeric(difftime(Sys.time(), started_at, units = "mins")))
)
bench_write(report, md_file)
cat(after_stamp(report), sep = "\n")
cat("\nWritten to", md_file, "\n")
