#!/usr/bin/env Rscript
# Issue 38: can ccforest's survival defaults lead aorsf 0.1.6 and ranger?
# Settings of ccforest against aorsf and ranger on development data sets
# and, once the settings are fixed, on held-out ones (both lists were fixed
# before the first run: bench/results/survival-defaults.md).
#
#   Rscript bench/run.R survival-defaults configs.R 6 200 out.rds [sets] [--lib /work/lib/x]
#
# configs.R returns a named list of configurations: list(learner = "aorsf")
# or list(learner = "ranger") (each package's defaults; aorsf without
# out-of-bag predictions, importance or the attached data, as in
# bench/comparisons/survival.R, unless `defaults = TRUE` is given too), or list(args = <ccforest() arguments, or a function of
# the training split returning them>, options = <options() set during the
# fit>); the options ccforest.survival_min_statistic and
# ccforest.survival_cut_samples of rounds 1 and 2
# (bench/decisions/survival-defaults/round*.R) are read by the package at commit
# f8fee39 only, and ccforest.survival_newton of round 5 at 2edb35f only:
# they lost and were removed (bench/results/survival-defaults.md).
# Results go to an .rds file (out.rds, stamped: attr(, "bench_stamp"));
# bench/results/survival-defaults.csv
# holds every round's, and report.R reads either, e.g.
#   Rscript bench/decisions/survival-defaults/report.R out.rds default
#   Rscript bench/decisions/survival-defaults/report.R bench/results/survival-defaults.csv aorsf holdout
# `sets`: comma-separated names, "dev" (the ten development sets),
# "holdout" (the five held-out ones), "holdout2" (five more, fixed once
# the first five had been seen), "small" (five small weak-signal development
# sets), "holdout3" (KMsurv's five, fixed with "small"), "holdout4" (five
# of KMsurv and asaur, fixed in the fourth session) or "holdout5" (five of
# smoothHR, timereg, JM and mstate, fixed in the sixth); default "dev".
#
# Everything runs in this one process, one thread per fit, so that the
# machine's two cores stay shared: C-index and IPA are computed as
# bench/comparisons/survival.R computes them (its functions are sourced; Harrell's C of
# the summed cumulative hazard at the training split's event times, IPA over
# 50 times from the 10th to the 75th percentile of the held-out times), on
# repeated random 2/3 - 1/3 splits stratified by event whose seeds depend
# only on the data set and the split, so every configuration sees the same
# splits. Data sets larger than 1,500 rows are subsampled once (fixed seed).
# The printed summary gives, per data set, each configuration's mean and
# its paired difference to aorsf with the Nadeau-Bengio corrected standard
# error (sqrt((1/J + 1/2) var(d)), as bench/comparisons/survival.R). Training times are
# CPU seconds of one thread in this process: read them as ratios within a
# run, with the load average printed at the start and end.
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L]))
suppressPackageStartupMessages(library(survival))
source(file.path(here, "..", "comparisons", "survival.R"))
BENCH_OPT <- bench_start(values = "first-split", positional = TRUE,
                         env = c("first-split" = "CCFOREST_FIRST_SPLIT"))
args <- BENCH_OPT$positional
if (!length(args) %in% 4:5) {
  stop("usage: survival-defaults.R configs.R SPLITS TREES out.rds [sets] [--first-split K]", call. = FALSE)
}
# The command line is checked before anything is installed or fitted.
n_split <- as_count(args[2], "SPLITS"); n_tree <- as_count(args[3], "TREES"); out <- args[4]
if (!grepl("[.]rds$", out)) stop(sprintf("the results file must end in .rds, not '%s'", out), call. = FALSE)
if (!file.exists(args[1])) stop(sprintf("no configuration file '%s'", args[1]), call. = FALSE)
# KMsurv (data only) holds the third held-out sets (holdout3) and three of
# the fourth (holdout4); asaur and TH.data (data only) the other two.
# smoothHR, timereg, JM and mstate hold the fifth (holdout5).
invisible(use_competitors(c("aorsf", "ranger",
                            if (any(grepl("holdout[34]", commandArgs(TRUE)))) "KMsurv",
                            if (any(grepl("holdout4", commandArgs(TRUE)))) c("asaur", "TH.data"),
                            if (any(grepl("holdout5", commandArgs(TRUE)))) c("smoothHR", "timereg", "JM", "mstate")),
                          install = bench_update()))
suppressPackageStartupMessages(library(ccforest))
# Round 7's rule, shared by the configuration files that try it
# (survival-defaults/round7.R, holdout2.R): aorsf's mtry, ceiling(sqrt(D)),
# where more than half of the D features of the training split are
# "coarse" (at most 5 distinct values), else ccforest's default.
coarse_sqrt <- function(train) {
  x <- train[setdiff(names(train), c("time", "status"))]
  d <- ncol(x)
  coarse <- vapply(x, function(v) length(unique(v[!is.na(v)])) <= 5L, logical(1))
  if (sum(coarse) > d / 2) list(mtry = as.integer(ceiling(sqrt(d)))) else list()
}
configs <- source(args[1])$value

DEV_SETS <- c(SURV_SETS, "rotterdam", "flchain", "nwtco", "retinopathy", "cgd0")
HOLDOUT_SETS <- c("mgus2", "myeloid", "nafld1", "Aids2", "Melanoma")
# Fixed on 2026-11-28 before any new candidate ran, once the five above had
# been seen (bench/results/survival-defaults.md, "Second held-out sets").
# rats cannot be scored (every rat alive at 104 weeks is censored there, so
# the censoring survival reaches 0 inside the Brier score's times): jasa
# took its place, before any held-out number of the others was read but
# transplant's.
HOLDOUT2_SETS <- c("transplant", "jasa", "stagec", "stanford2", "mgus")
# Small weak-signal development sets, fixed on 2026-11-28 at 08:35 UTC before
# any candidate of round 8 ran (bench/results/survival-defaults.md, "Third
# session"): "small".
SMALL_SETS <- c("udca1", "kidney", "veteran_weak", "rhDNase", "gbsg150")
# Third held-out sets, fixed at the same time (KMsurv), run only once a
# candidate had won on the development sets.
HOLDOUT3_SETS <- c("larynx", "burn", "kidtran", "bmt", "tongue")
# Fourth held-out sets, fixed on 2026-11-28 at 11:55 UTC before any
# candidate of the fourth session ran on them (KMsurv's and asaur's).
# pneumon cannot be scored (the censoring survival reaches 0 inside the
# Brier score's times: children are followed to 12 months at most):
# prostateSurvival took its place before any candidate ran; pharmacoSmoking
# neither (everyone is censored at 182 days): TH.data's wpbc took its.
HOLDOUT4_SETS <- c("bfeed", "std", "prostateSurvival", "wpbc", "hepatoCellular")
# Fifth held-out sets, fixed on 2026-11-29 at 03:25 UTC, before any of them
# was fitted, from CRAN packages no earlier round used: smoothHR's whas500
# (Worcester heart attack study), timereg's TRACE (myocardial infarction),
# JM's aids.id (ddC against ddI), mstate's ebmt3 (relapse-free survival
# after transplant; factors only) and ebmt1 (survival after transplant for
# CML). A set that cannot be scored is replaced by KMsurv's channing before
# any result is read.
HOLDOUT5_SETS <- c("whas500", "TRACE", "aids", "ebmt3", "ebmt1")
# Every set's number (its subsample's and its splits' seeds); channing is
# the fifth's reserve.
ALL_SETS <- c(DEV_SETS, HOLDOUT_SETS, HOLDOUT2_SETS, SMALL_SETS, HOLDOUT3_SETS, HOLDOUT4_SETS,
              HOLDOUT5_SETS, "channing")
MAX_ROWS <- 1500L
# --first-split k (or CCFOREST_FIRST_SPLIT=k) runs splits k, k + 1, ... (fresh
# splits for a confirmation round); default 1.
FIRST_SPLIT <- bench_integer(BENCH_OPT, "first-split", 1L)
sets <- if (length(args) >= 5) strsplit(args[5], ",")[[1]] else "dev"
sets <- unlist(lapply(sets, function(s) switch(s, dev = DEV_SETS, holdout = HOLDOUT_SETS,
                                                holdout2 = HOLDOUT2_SETS, small = SMALL_SETS, holdout3 = HOLDOUT3_SETS,
                                                holdout4 = HOLDOUT4_SETS, holdout5 = HOLDOUT5_SETS, s)))

kmsurv <- function(x, package = "KMsurv") {
  e <- new.env()
  utils::data(list = x, package = package, envir = e)
  e[[x]]
}

defaults_data <- function(name) {
  if (name %in% SURV_SETS) return(survival_data(name))
  s <- function(x) eval(call("::", as.name("survival"), as.name(x)))
  d <- switch(name,
    rotterdam = {
      r <- s("rotterdam")
      data.frame(time = r$rtime, status = r$recur,
                 r[c("year", "age", "meno", "size", "grade", "nodes", "pgr", "er", "hormon",
                     "chemo")])
    },
    flchain = {
      f <- s("flchain")
      f <- f[f$futime > 0, ]
      data.frame(time = f$futime, status = f$death,
                 f[c("age", "sex", "sample.yr", "kappa", "lambda", "flc.grp", "creatinine",
                     "mgus")])
    },
    nwtco = {
      w <- s("nwtco")
      data.frame(time = w$edrel, status = w$rel,
                 w[c("instit", "histol", "stage", "study", "age")])
    },
    retinopathy = {
      r <- s("retinopathy")
      data.frame(time = r$futime, status = r$status,
                 r[c("laser", "eye", "age", "type", "trt", "risk")])
    },
    cgd0 = {
      g <- s("cgd0")
      infected <- !is.na(g$etime1)
      data.frame(time = ifelse(infected, g$etime1, g$futime), status = as.integer(infected),
                 g[c("treat", "sex", "age", "height", "weight", "inherit",
                     "propylac", "hos.cat")])
    },
    mgus2 = {
      m <- s("mgus2")
      data.frame(time = m$futime, status = m$death, m[c("age", "sex", "hgb", "creat", "mspike")])
    },
    myeloid = {
      m <- s("myeloid")
      data.frame(time = m$futime, status = m$death, trt = factor(m$trt), m[c("sex", "flt3")])
    },
    nafld1 = {
      m <- s("nafld1")
      data.frame(time = m$futime, status = m$status,
                 m[c("age", "male", "weight", "height", "bmi")])
    },
    Aids2 = {
      a <- MASS::Aids2
      data.frame(time = a$death - a$diag, status = as.integer(a$status == "D"),
                 a[c("state", "sex", "age", "T.categ")], diag = a$diag)
    },
    Melanoma = {
      m <- MASS::Melanoma
      data.frame(time = m$time, status = as.integer(m$status == 1),
                 m[c("sex", "age", "year", "thickness", "ulcer")])
    },
    transplant = {
      t <- s("transplant")
      data.frame(time = t$futime, status = as.integer(t$event == "death"),
                 t[c("age", "sex", "abo", "year")])
    },
    rats = {
      r <- s("rats")
      data.frame(time = r$time, status = as.integer(r$status), rx = r$rx, sex = factor(r$sex))
    },
    jasa = {
      j <- s("jasa")
      data.frame(time = j$futime, status = j$fustat, j[c("age", "surgery", "transplant")])
    },
    stagec = {
      g <- rpart::stagec
      data.frame(time = g$pgtime, status = g$pgstat,
                 g[c("age", "eet", "g2", "grade", "gleason", "ploidy")])
    },
    stanford2 = {
      g <- s("stanford2")
      data.frame(time = g$time, status = g$status, g[c("age", "t5")])
    },
    mgus = {
      m <- s("mgus")
      data.frame(time = m$futime, status = m$death,
                 m[c("age", "sex", "alb", "creat", "hgb", "mspike")])
    },
    udca1 = {
      u <- s("udca1")
      data.frame(time = as.numeric(u$futime), status = as.integer(u$status),
                 u[c("trt", "stage", "bili", "riskscore")])
    },
    kidney = {
      k <- s("kidney")
      data.frame(time = k$time, status = k$status, k[c("age", "sex", "disease")])
    },
    veteran_weak = {
      v <- s("veteran")
      data.frame(time = v$time, status = v$status, v[c("trt", "celltype", "diagtime", "age", "prior")])
    },
    rhDNase = {
      r <- s("rhDNase")
      first <- !duplicated(r$id)
      ends <- as.numeric(r$end.dt - r$entry.dt)
      start <- tapply(r$ivstart, r$id, function(v) if (all(is.na(v))) NA_real_ else min(v, na.rm = TRUE))
      one <- r[first, ]
      infected <- !is.na(start[as.character(one$id)])
      data.frame(time = ifelse(infected, start[as.character(one$id)], ends[first]),
                 status = as.integer(infected), one[c("inst", "trt", "fev")])
    },
    gbsg150 = {
      g <- survival_data("gbsg")
      set.seed(3899L)
      g[sort(sample.int(nrow(g), 150L)), ]
    },
    larynx = {
      k <- kmsurv("larynx")
      data.frame(time = k$time, status = k$delta, stage = factor(k$stage), k[c("age", "diagyr")])
    },
    burn = {
      k <- kmsurv("burn")
      data.frame(time = k$T3, status = k$D3, k[paste0("Z", 1:11)])
    },
    kidtran = {
      k <- kmsurv("kidtran")
      data.frame(time = k$time, status = k$delta, k[c("gender", "race", "age")])
    },
    bmt = {
      k <- kmsurv("bmt")
      data.frame(time = k$t2, status = k$d3, group = factor(k$group), k[paste0("z", 1:10)])
    },
    tongue = {
      k <- kmsurv("tongue")
      data.frame(time = k$time, status = k$delta, type = factor(k$type))
    },
    bfeed = {
      k <- kmsurv("bfeed")
      data.frame(time = k$duration, status = k$delta, race = factor(k$race),
                 k[c("poverty", "smoke", "alcohol", "agemth", "ybirth", "yschool", "pc3mth")])
    },
    std = {
      k <- kmsurv("std")
      data.frame(time = k$time, status = k$rinfct, race = factor(k$race), marital = factor(k$marital),
                 k[c("age", "yschool", "iinfct", "npartner", "os12m", "os30d", "rs12m", "rs30d",
                     "abdpain", "discharge", "dysuria", "condom", "itch", "lesion", "rash", "lymph",
                     "vagina", "dchexam", "abnode")])
    },
    pneumon = {
      # agepn (the age at pneumonia, the outcome's time itself) is left out.
      k <- kmsurv("pneumon")
      data.frame(time = k$chldage, status = k$hospital,
                 k[c("mthage", "urban", "alcohol", "smoke", "region", "poverty", "bweight", "race",
                     "education", "nsibs", "wmonth", "sfmonth")])
    },
    prostateSurvival = {
      # Death from prostate cancer (status 1); deaths of other causes censored.
      a <- kmsurv("prostateSurvival", "asaur")
      data.frame(time = a$survTime, status = as.integer(a$status == 1L),
                 a[c("grade", "stage", "ageGroup")])
    },
    wpbc = {
      w <- kmsurv("wpbc", "TH.data")
      data.frame(time = w$time, status = as.integer(w$status == "R"), w[setdiff(names(w), c("time", "status"))])
    },
    hepatoCellular = {
      # The clinical variables; the immune markers (CD*, CXCL17*) have gaps.
      a <- kmsurv("hepatoCellular", "asaur")
      data.frame(time = a$OS, status = a$Death,
                 a[c("Age", "Gender", "HBsAg", "Cirrhosis", "ALT", "AST", "AFP", "Tumorsize",
                     "Tumordifferentiation", "Vascularinvasion", "Tumormultiplicity", "Capsulation",
                     "TNM", "BCLC")])
    },
    whas500 = {
      # Length of stay and discharge status are left out: a death in hospital
      # ends the follow-up at the length of stay.
      w <- kmsurv("whas500", "smoothHR")
      data.frame(time = w$lenfol, status = w$fstat,
                 w[c("age", "gender", "hr", "sysbp", "diasbp", "bmi", "cvd", "afb", "sho", "chf",
                     "av3", "miord", "mitype", "year")])
    },
    TRACE = {
      # Death of any cause (status 7, 8 or 9).
      t <- kmsurv("TRACE", "timereg")
      data.frame(time = t$time, status = as.integer(t$status != 0L),
                 t[c("wmi", "chf", "age", "sex", "diabetes", "vf")])
    },
    aids = {
      a <- kmsurv("aids.id", "JM")
      data.frame(time = a$Time, status = a$death, a[c("CD4", "drug", "gender", "prevOI", "AZT")])
    },
    ebmt3 = {
      # prtime (platelet recovery, after transplant) is left out.
      e <- kmsurv("ebmt3", "mstate")
      data.frame(time = e$rfstime, status = e$rfsstat, e[c("dissub", "age", "drmatch", "tcd")])
    },
    ebmt1 = {
      # yrel (the year of relapse) is known only for those who relapsed.
      e <- kmsurv("ebmt1", "mstate")
      data.frame(time = e$srv, status = e$srvstat, e[c("age", "score")])
    },
    channing = {
      k <- kmsurv("channing")
      data.frame(time = k$time, status = k$death, gender = factor(k$gender), ageentry = k$ageentry)
    },
    stop("unknown data set: ", name, call. = FALSE)
  )
  d <- d[stats::complete.cases(d) & d$time > 0, ]
  if (nrow(d) > MAX_ROWS) {
    set.seed(3800L + match(name, ALL_SETS))
    d <- d[sort(sample.int(nrow(d), MAX_ROWS)), ]
  }
  rownames(d) <- NULL
  d
}

fit_predict <- function(cfg, train, test, times, event_times, seed) {
  cpu <- function() sum(proc.time()[c("user.self", "sys.self")])
  if (identical(cfg$learner, "aorsf")) {
    set.seed(seed)
    t0 <- cpu()
    # `defaults = TRUE`: orsf()'s own defaults, which score the out-of-bag
    # predictions (Harrell's C) and compute anova importance as ccforest's
    # defaults score theirs; otherwise without them, as
    # bench/comparisons/survival.R (the stricter comparison).
    fit <- if (isTRUE(cfg$defaults)) {
      aorsf::orsf(train, Surv(time, status) ~ ., n_tree = n_tree, n_thread = 1)
    } else {
      aorsf::orsf(train, Surv(time, status) ~ ., n_tree = n_tree, n_thread = 1,
                  oobag_pred_type = "none", importance = "none", attach_data = FALSE)
    }
    t1 <- cpu()
    surv <- predict(fit, new_data = test, pred_type = "surv", pred_horizon = times,
                    boundary_checks = FALSE, n_thread = 1)
    chf <- predict(fit, new_data = test, pred_type = "chf", pred_horizon = event_times,
                   boundary_checks = FALSE, n_thread = 1)
  } else if (identical(cfg$learner, "ranger")) {
    t0 <- cpu()
    fit <- ranger::ranger(Surv(time, status) ~ ., data = train, num.trees = n_tree,
                          num.threads = 1, seed = seed)
    t1 <- cpu()
    p <- predict(fit, data = test, num.threads = 1)
    surv <- step_at(p$survival, fit$unique.death.times, times, before = 1)
    chf <- p$chf
  } else {
    old <- options(cfg$options)
    on.exit(options(old))
    # Round 8's measurement switches (environment variables read by the
    # build of the measurement commit only).
    if (length(cfg$env)) {
      do.call(Sys.setenv, as.list(cfg$env))
      on.exit(Sys.unsetenv(names(cfg$env)), add = TRUE)
    }
    a <- if (is.function(cfg$args)) cfg$args(train) else cfg$args
    t0 <- cpu()
    fit <- do.call(ccforest, c(list(Surv(time, status) ~ ., data = train, n_tree = n_tree,
                                    n_thread = 1, seed = seed, verbose = FALSE), a))
    t1 <- cpu()
    surv <- predict(fit, test, type = "survival", times = times, n_thread = 1)
    chf <- predict(fit, test, type = "chf", times = event_times, n_thread = 1)
  }
  list(surv = surv, risk = rowSums(chf), train_s = t1 - t0)
}

cat("load average at start:", readLines("/proc/loadavg"), "\n")
res <- list()
for (name in sets) {
  d <- defaults_data(name)
  set_no <- match(name, ALL_SETS)
  cat(sprintf("%s: %d rows, %d predictors, %d events\n", name, nrow(d), ncol(d) - 2L,
              sum(d$status)))
  for (s in FIRST_SPLIT - 1L + seq_len(n_split)) {
    tr <- split_rows(d$status, seed = 38000L + 100L * set_no + s)
    train <- d[tr, ]
    test <- d[-tr, ]
    times <- brier_times(test$time)
    event_times <- sort(unique(train$time[train$status == 1]))
    G <- censoring_survival(train$time, train$status)
    km <- survfit(Surv(time, status) ~ 1, data = train)
    km_surv <- matrix(step_at(matrix(km$surv, 1L), km$time, times), nrow(test), length(times),
                      byrow = TRUE)
    ibs_km <- integrate_mean(ipcw_brier(km_surv, test$time, test$status, times, G), times)
    for (cn in names(configs)) {
      r <- fit_predict(configs[[cn]], train, test, times, event_times, 38000L + 100L * set_no + s)
      ibs <- integrate_mean(ipcw_brier(r$surv, test$time, test$status, times, G), times)
      res[[length(res) + 1L]] <- data.frame(
        dataset = name, split = s, config = cn, c_index = harrell_c(r$risk, test$time, test$status),
        ipa = 1 - ibs / ibs_km, ibs = ibs, train_s = r$train_s)
    }
  }
  all <- do.call(rbind, res)
  bench_write(all, out)
  r <- all[all$dataset == name, ]
  ref <- r[r$config == "aorsf", ]
  summary <- do.call(rbind, lapply(names(configs), function(cn) {
    x <- r[r$config == cn, ]
    data.frame(config = cn, c_index = mean(x$c_index), ipa = mean(x$ipa),
               d_c = if (nrow(ref)) paired_diff(x$c_index, ref$c_index) else "",
               d_ipa = if (nrow(ref)) paired_diff(x$ipa, ref$ipa) else "",
               train_s = sum(x$train_s))
  }))
  print(summary, digits = 3, row.names = FALSE)
}
cat("load average at end:", readLines("/proc/loadavg"), "\n")
