#!/usr/bin/env Rscript
# The regression options beyond the paper (issue 14), on more regression
# tasks than bench/comparisons/accuracy.R's three, in three sets:
#   development  the tasks the options were first looked at on: accuracy.R's
#                three (BostonHousing, Servo, Ozone) and the six added when
#                searched axes looked like a default (Friedman 1-3 with
#                mlbench's noise, MASS::cpus, airquality, quakes)
#   holdout      twelve tasks chosen before any option was run on them and
#                never used to choose or tune one: they show whether what
#                the development set suggests carries over
#   confirmation fourteen tasks chosen after random axes had been tried on
#                the other two sets (whose folds and seeds had been seen), to
#                test whether they should become the default: they did not
# Everything comes with R, MASS and mlbench.
#
#   make install
#   Rscript bench/decisions/regression-options.R                 # 4 x 5-fold CV, 200 trees (~4 min)
#   Rscript bench/decisions/regression-options.R --trees 500 --repeats 6
#
# Learners, same folds and seeds: CCF (ccforest's defaults: the paper's
# regression forest), CCF+random axes (axis_candidates = "random"),
# CCF+searched axes (axis_candidates = "search"), CCF+bins (output_bins = 4)
# and ranger (CRAN's current version from bench/lib, defaults; it gets
# missing feature values as they are from 0.16.0 on, its default na.action =
# "na.learn"; older ranger refuses them and gets them imputed with the
# training fold's median or most frequent level, as accuracy.R does; results
# up to 2026-11-26 used ranger 0.14.1, imputed). Error: test MSE as % of the test
# fold's variance. p: paired two-sided Wilcoxon signed-rank test of the
# option against CCF over the folds (a win or loss needs p < 0.05). Summary
# per set: wins, losses and ties, the geometric mean over tasks of each
# learner's error ratio to ranger (the paper's summary measure) and of the
# option's training time over CCF's.
#
# Output: bench/results/regression-options.md and .csv.

script_path <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])
source(file.path(dirname(script_path), "..", "common.R"))
BENCH_OPT <- bench_start(values = c("trees", "repeats"), threads = TRUE)
n_tree <- bench_integer(BENCH_OPT, "trees", 200L)
repeats <- bench_integer(BENCH_OPT, "repeats", 4L)
n_thread <- bench_threads(2L)

use_competitors("ranger")  # CRAN's current ranger, from bench/lib
suppressPackageStartupMessages(library(ccforest))
started_at <- Sys.time()
machine <- machine_info()

# Each task: a data.frame whose column y is the response.
with_y <- function(x, y) data.frame(x, y = y, check.names = TRUE)
development <- local({
  set.seed(42)
  f1 <- mlbench::mlbench.friedman1(600, sd = 1)
  f2 <- mlbench::mlbench.friedman2(600, sd = 125)
  f3 <- mlbench::mlbench.friedman3(600, sd = 0.1)
  cp <- MASS::cpus
  aq <- stats::na.omit(datasets::airquality)
  q <- datasets::quakes
  bh <- mlb("BostonHousing")
  sv <- mlb("Servo")
  oz <- mlb("Ozone")
  oz <- oz[!is.na(oz$V4), ]
  list(
    friedman1 = with_y(f1$x, f1$y),
    friedman2 = with_y(f2$x, f2$y),
    friedman3 = with_y(f3$x, f3$y),
    cpus = with_y(cp[c("syct", "mmin", "mmax", "cach", "chmin", "chmax")], log(cp$perf)),
    airquality = with_y(aq[c("Solar.R", "Wind", "Temp", "Month", "Day")], aq$Ozone),
    quakes = with_y(q[c("lat", "long", "depth", "stations")], q$mag),
    bostonhousing = with_y(bh[names(bh) != "medv"], bh$medv),
    servo = with_y(sv[names(sv) != "Class"], sv$Class),
    ozone = with_y(oz[names(oz) != "V4"], oz$V4)
  )
})
holdout <- local({
  set.seed(43)
  bw <- MASS::birthwt
  c93 <- MASS::Cars93
  uc <- MASS::UScereal
  pk <- mlbench::mlbench.peak(600, d = 20)
  cw <- datasets::ChickWeight
  at <- datasets::attenu
  ct <- MASS::cats
  su <- MASS::survey
  su <- su[!is.na(su$Height), ]
  list(
    birthwt = with_y(data.frame(bw[c("age", "lwt")], race = factor(bw$race),
                                bw[c("smoke", "ptl", "ht", "ui", "ftv")]), bw$bwt),
    cars93 = with_y(c93[c("Type", "MPG.city", "MPG.highway", "AirBags", "DriveTrain", "EngineSize",
                          "Horsepower", "RPM", "Rev.per.mile", "Fuel.tank.capacity", "Passengers",
                          "Length", "Wheelbase", "Width", "Turn.circle", "Rear.seat.room",
                          "Luggage.room", "Weight", "Origin")], c93$Price),
    uscereal = with_y(uc[c("mfr", "protein", "fat", "sodium", "fibre", "carbo", "sugars", "shelf",
                           "potassium", "vitamins")], uc$calories),
    peak = with_y(pk$x, pk$y),
    chickweight = with_y(data.frame(Time = cw$Time, Diet = cw$Diet), cw$weight),
    attenu = with_y(at[c("event", "mag", "dist")], at$accel),
    swiss = with_y(datasets::swiss[-1L], datasets::swiss$Fertility),
    lifecyclesavings = with_y(datasets::LifeCycleSavings[-1L], datasets::LifeCycleSavings$sr),
    cats = with_y(data.frame(Sex = ct$Sex, Bwt = ct$Bwt), ct$Hwt),
    mtcars = with_y(datasets::mtcars[-1L], datasets::mtcars$mpg),
    survey = with_y(su[c("Sex", "Wr.Hnd", "NW.Hnd", "W.Hnd", "Fold", "Pulse", "Clap", "Exer",
                         "Smoke", "Age")], su$Height),
    usjudge = with_y(datasets::USJudgeRatings[-12L], datasets::USJudgeRatings$RTEN)
  )
})
confirmation <- local({
  set.seed(44)
  nl <- MASS::nlschools
  nl <- nl[sample(nrow(nl), 800L), ]
  cr <- MASS::crabs
  gg <- MASS::gilgais
  st <- MASS::Sitka
  tr <- MASS::Traffic
  qu <- MASS::quine
  co <- MASS::coop
  tp <- MASS::topo
  ep <- MASS::epil
  cb <- MASS::cabbages
  an <- MASS::anorexia
  list(
    crabs = with_y(cr[c("sp", "sex", "FL", "RW", "CL", "BD")], cr$CW),
    gilgais = with_y(gg[names(gg) != "e80"], gg$e80),
    nlschools = with_y(nl[c("IQ", "GS", "SES", "COMB")], nl$lang),
    sitka = with_y(st[c("Time", "treat")], st$size),
    traffic = with_y(data.frame(year = factor(tr$year), tr[c("day", "limit")]), tr$y),
    quine = with_y(qu[c("Eth", "Sex", "Age", "Lrn")], qu$Days),
    coop = with_y(co[c("Lab", "Spc", "Bat")], co$Conc),
    topo = with_y(tp[c("x", "y")], tp$z),
    rock = with_y(datasets::rock[c("area", "peri", "shape")], datasets::rock$perm),
    co2 = with_y(data.frame(Type = factor(datasets::CO2$Type, ordered = FALSE),
                            Treatment = factor(datasets::CO2$Treatment, ordered = FALSE),
                            conc = datasets::CO2$conc), datasets::CO2$uptake),
    uscrime = with_y(MASS::UScrime[names(MASS::UScrime) != "y"], MASS::UScrime$y),
    epil = with_y(ep[c("trt", "base", "age", "period")], ep$y),
    cabbages = with_y(cb[c("Cult", "Date", "HeadWt")], cb$VitC),
    anorexia = with_y(an[c("Treat", "Prewt")], an$Postwt)
  )
})
tasks <- c(development, holdout, confirmation)
task_set <- rep(c("development", "holdout", "confirmation"),
                c(length(development), length(holdout), length(confirmation)))
names(task_set) <- names(tasks)

options_tried <- list(`CCF+random axes` = list(axis_candidates = "random"),
                      `CCF+searched axes` = list(axis_candidates = "search"),
                      `CCF+bins` = list(output_bins = 4L))

# ranger before 0.16 refuses missing values: the training fold's median / most frequent level.
impute_like <- function(frame, train) {
  if (ranger_learns_na()) return(frame)
  for (j in names(frame)) {
    miss <- is.na(frame[[j]])
    if (!any(miss)) next
    frame[[j]][miss] <- if (is.numeric(train[[j]])) {
      stats::median(train[[j]], na.rm = TRUE)
    } else {
      names(which.max(table(train[[j]])))
    }
  }
  frame
}

error_pct <- function(pred, y) 100 * mean((pred - y)^2) / stats::var(y)
rows <- list()
for (name in names(tasks)) {
  d <- tasks[[name]]
  set.seed(7)
  for (rep in seq_len(repeats)) {
    folds <- sample(rep(1:5, length.out = nrow(d)))
    for (k in 1:5) {
      train <- d[folds != k, ]
      test <- d[folds == k, ]
      seed <- 100L * rep + k
      fit_ccf <- function(extra) {
        do.call(ccforest, c(list(y ~ ., train, n_tree = n_tree, seed = seed, n_thread = n_thread),
                            extra))
      }
      fits <- c(list(CCF = fit_ccf(list())), lapply(options_tried, fit_ccf))
      r_time <- system.time(rf <- ranger::ranger(y ~ ., impute_like(train, train), num.trees = n_tree,
                                                 seed = seed, num.threads = n_thread))[["elapsed"]]
      r_pred <- predict(rf, impute_like(test, train))$predictions
      rows[[length(rows) + 1L]] <- data.frame(
        set = task_set[[name]], dataset = name, rep = rep, fold = k,
        learner = c(names(fits), "ranger"),
        error = c(vapply(fits, function(f) error_pct(predict(f, test), test$y), numeric(1)),
                  error_pct(r_pred, test$y)),
        train_time = c(vapply(fits, function(f) f$train_time, numeric(1)), r_time)
      )
    }
  }
  cat(sprintf("[%s] %s done\n", format(Sys.time(), "%H:%M:%S"), name))
}
results <- do.call(rbind, rows)

errors <- function(d, learner) d$error[d$learner == learner]
mean_error <- function(d, learner) mean(errors(d, learner))
per_task <- do.call(rbind, lapply(names(tasks), function(name) {
  d <- results[results$dataset == name, ]
  do.call(rbind, lapply(names(options_tried), function(option) {
    p <- suppressWarnings(stats::wilcox.test(errors(d, option), errors(d, "CCF"), paired = TRUE,
                                             exact = FALSE)$p.value)
    better <- mean_error(d, option) < mean_error(d, "CCF")
    data.frame(set = task_set[[name]], dataset = name, n = nrow(tasks[[name]]), option = option,
               CCF = mean_error(d, "CCF"), error = mean_error(d, option),
               ranger = mean_error(d, "ranger"), p = p,
               verdict = if (is.na(p) || p >= 0.05) "tie" else if (better) "win" else "loss",
               time_ratio = sum(d$train_time[d$learner == option]) /
                 sum(d$train_time[d$learner == "CCF"]))
  }))
}))

geo_mean <- function(x) exp(mean(log(x)))
summary_lines <- unlist(lapply(c("development", "holdout", "confirmation"), function(s) {
  t <- per_task[per_task$set == s, ]
  first <- t[!duplicated(t$dataset), ]
  c(sprintf("| %s | CCF | | | | %.3f | 1 |", s, geo_mean(first$CCF / first$ranger)),
    vapply(names(options_tried), function(option) {
      o <- t[t$option == option, ]
      sprintf("| %s | %s | %d | %d | %d | %.3f | %.2f |", s, option, sum(o$verdict == "win"),
              sum(o$verdict == "loss"), sum(o$verdict == "tie"), geo_mean(o$error / o$ranger),
              geo_mean(o$time_ratio))
    }, character(1)))
}))

csv_file <- file.path(results_dir(), "regression-options.csv")
md_file <- sub("\\.csv$", ".md", csv_file)
bench_write(results, csv_file)
report <- c(
  report_header(paste("Regression options beyond the paper, on development, holdout and",
                      "confirmation sets"),
                csv_file = csv_file),
  sprintf("| trees, folds | %d trees; %d x 5-fold cross-validation; %d threads |", n_tree, repeats,
          n_thread),
  sprintf("| load at end | %s |", machine_info()$load),
  "",
  "Errors: test MSE as % of the test fold's variance, mean over the folds. CCF is ccforest's",
  "default (the paper's regression forest); the options add `axis_candidates = \"random\"`,",
  "`axis_candidates = \"search\"` or `output_bins = 4`. p: paired",
  "two-sided Wilcoxon signed-rank test of the option against CCF; a win or loss needs p < 0.05.",
  "The holdout tasks were chosen before any option was run on them; the confirmation tasks",
  "after random axes had been tried on the other two sets, to test them as a default.",
  "",
  "## Summary",
  "",
  "| set | learner | wins | losses | ties | geometric mean error ratio to ranger | train time / CCF's |",
  "|---|---|---:|---:|---:|---:|---:|",
  summary_lines,
  "",
  "## Per task",
  "",
  "| set | data set | n | option | CCF | option's error | ranger | p | verdict | train time / CCF's |",
  "|---|---|---:|---|---:|---:|---:|---:|---|---:|",
  sprintf("| %s | %s | %d | %s | %.2f | %.2f | %.2f | %.3g | %s | %.2f |", per_task$set,
          per_task$dataset, per_task$n, per_task$option, per_task$CCF, per_task$error,
          per_task$ranger, per_task$p, per_task$verdict, per_task$time_ratio)
)
bench_write(report, md_file)
cat(after_stamp(report), sep = "\n")
cat("\nWritten to", md_file, "\n")
