# Survival forests through the interface: formula and x/y fits, the shapes
# and invariants of their predictions, reproducibility, weights, missing
# values, out-of-bag estimates and the fitted object's round trips.

skip_if_not_installed("survival")
library(survival)

lung_data <- function() {
  d <- survival::lung[, c("time", "status", "age", "sex", "ph.ecog", "ph.karno", "wt.loss")]
  d$status <- d$status - 1L
  d$sex <- factor(d$sex, 1:2, c("male", "female"))
  d
}

mgus_data <- function() {
  m <- survival::mgus2
  d <- data.frame(
    time = ifelse(m$pstat == 1, m$ptime, m$futime),
    event = factor(ifelse(m$pstat == 1, 1L, 2L * m$death), 0:2, c("censor", "pcm", "death")),
    age = m$age, sex = m$sex, hgb = m$hgb, creat = m$creat, mspike = m$mspike
  )
  d[stats::complete.cases(d), ][1:600, ]
}

test_that("the formula and x/y interfaces grow the same forest", {
  d <- stats::na.omit(lung_data())
  a <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 10, seed = 1)
  b <- ccforest(d[, -(1:2)], Surv(d$time, d$status), n_tree = 10, seed = 1)
  expect_identical(a$forest$trees, b$forest$trees)
  expect_identical(a$task, "survival")
  expect_identical(a$options$split_rule, "logrank")
  # survival's 1/2 status codes are its 0/1
  c12 <- ccforest(d[, -(1:2)], Surv(d$time, d$status + 1L), n_tree = 10, seed = 1)
  expect_identical(c12$forest$trees, a$forest$trees)
})

test_that("survival curves are non-increasing, in [0, 1], and match chf and risk", {
  d <- lung_data()
  fit <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 30, seed = 2)
  times <- c(0, 30, 100, 200, 365, 500, 800, 2000)
  s <- predict(fit, d[1:40, ], type = "survival", times = times)
  expect_equal(dim(s), c(40L, length(times)))
  expect_identical(colnames(s), format(times, trim = TRUE))
  expect_true(all(s >= 0 & s <= 1))
  expect_true(all(t(apply(s, 1, diff)) <= 0))
  expect_true(all(s[, 1] == 1))  # no event at time 0
  h <- predict(fit, d[1:40, ], type = "chf", times = times)
  expect_true(all(t(apply(h, 1, diff)) >= 0))
  # Risk is the ensemble cumulative hazard summed over the training event times.
  event_times <- sort(unique(d$time[d$status == 1]))
  all_h <- predict(fit, d[1:40, ], type = "chf", times = event_times)
  expect_equal(predict(fit, d[1:40, ], type = "risk"), unname(rowSums(all_h)), tolerance = 1e-10)
  # Default times: the training event times.
  expect_equal(unname(predict(fit, d[1:3, ], type = "chf")), unname(all_h[1:3, ]))
})

test_that("times beyond the data, unsorted or repeated are answered as documented", {
  d <- lung_data()
  fit <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 20, seed = 3)
  last <- max(d$time[d$status == 1])
  s <- predict(fit, d[1:5, ], type = "survival", times = c(500, 100, last, last + 1e4, 100))
  expect_equal(s[, 1:2], predict(fit, d[1:5, ], type = "survival", times = c(500, 100)))
  expect_equal(s[, 3], s[, 4])  # flat after the last event time
  expect_equal(s[, 2], s[, 5])
})

test_that("restricted mean survival time integrates the survival curve", {
  d <- lung_data()
  fit <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 20, seed = 4)
  event_times <- sort(unique(d$time[d$status == 1]))
  s <- predict(fit, d[1:6, ], type = "survival", times = event_times)
  area <- function(horizon) {
    knots <- c(0, event_times[event_times < horizon], horizon)
    heights <- cbind(1, s[, event_times < horizon, drop = FALSE])
    drop(heights %*% diff(knots))
  }
  expect_equal(predict(fit, d[1:6, ], type = "time", horizon = 365), area(365),
               tolerance = 1e-10)
  expect_equal(predict(fit, d[1:6, ], type = "time"), area(max(event_times)), tolerance = 1e-10)
})

test_that("competing risks give cumulative incidences per cause", {
  d <- mgus_data()
  fit <- ccforest(Surv(time, event) ~ ., data = d, n_tree = 20, seed = 5)
  times <- c(6, 60, 120, 240)
  cif <- predict(fit, d[1:30, ], type = "cif", times = times)
  expect_equal(dim(cif), c(30L, 4L, 2L))
  expect_identical(dimnames(cif)[[3]], c("pcm", "death"))
  expect_true(all(cif >= 0))
  expect_true(all(apply(cif, c(1, 3), diff) >= 0))
  total <- apply(cif, c(1, 2), sum)
  expect_true(all(total <= 1 + 1e-12))
  s <- predict(fit, d[1:30, ], type = "survival", times = times)
  expect_equal(unname(s), unname(1 - total), tolerance = 1e-12)
  h <- predict(fit, d[1:30, ], type = "chf", times = times)
  expect_equal(dim(h), c(30L, 4L, 2L))
  r <- predict(fit, d[1:30, ], type = "risk")
  expect_equal(dim(r), c(30L, 2L))
  expect_identical(colnames(r), c("pcm", "death"))
})

test_that("forests are identical for any number of threads and reproducible", {
  d <- lung_data()
  a <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 12, seed = 6, n_thread = 1)
  b <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 12, seed = 6, n_thread = 2)
  expect_identical(a$forest$trees, b$forest$trees)
  expect_identical(predict(a, d, type = "survival", times = c(100, 300), n_thread = 1),
                   predict(b, d, type = "survival", times = c(100, 300), n_thread = 2))
  expect_identical(predict(a, d, type = "risk", chunk_size = 50), predict(a, d, type = "risk"))
})

test_that("a row's prediction does not depend on its companions", {
  d <- lung_data()  # with missing values, imputed per tree
  fit <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 15, seed = 7)
  all <- predict(fit, d, type = "survival", times = c(100, 400))
  rows <- which(!stats::complete.cases(d))[1:3]
  expect_identical(predict(fit, d[rev(rows), ], type = "survival", times = c(100, 400)),
                   all[rev(rows), , drop = FALSE])
  # A few rows (up to four) add each leaf's increments as they are computed,
  # a block of more rows keeps each leaf's for the rows that reach it: the
  # same arithmetic, for hazards and incidences alike.
  expect_identical(predict(fit, d[rows, ], type = "chf", times = c(100, 400)),
                   predict(fit, d, type = "chf", times = c(100, 400))[rows, , drop = FALSE])
  expect_identical(predict(fit, d[rows, ], type = "risk"), predict(fit, d, type = "risk")[rows])
  m <- mgus_data()
  competing <- ccforest(Surv(time, event) ~ ., data = m, n_tree = 15, seed = 7)
  for (type in c("cif", "chf")) {
    many <- predict(competing, m, type = type, times = c(24, 120))
    for (i in c(2L, 300L)) {
      expect_identical(predict(competing, m[i, ], type = type, times = c(24, 120)),
                       many[i, , , drop = FALSE])
    }
  }
})

test_that("rows of weight 0 take no part", {
  d <- stats::na.omit(lung_data())
  w <- rep(1, nrow(d))
  w[c(3, 10, 50)] <- 0
  a <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 10, seed = 8, case_weights = w)
  b <- ccforest(Surv(time, status) ~ ., data = d[w > 0, ], n_tree = 10, seed = 8)
  expect_identical(a$forest$trees, b$forest$trees)
  weighted <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 10, seed = 8,
                       case_weights = rep(c(1, 3), length.out = nrow(d)))
  s <- predict(weighted, d, type = "survival", times = c(100, 300))
  expect_true(all(s >= 0 & s <= 1) && all(s[, 2] <= s[, 1]))
})

test_that("bagged forests give out-of-bag risk, C-index and Brier score", {
  d <- survival::veteran
  fit <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 60, seed = 9, sampling = "bagging")
  expect_length(fit$predictions, nrow(d))
  seen <- !is.na(fit$predictions)
  expect_gt(mean(seen), 0.95)
  expected_c <- concordance(Surv(time, status) ~ risk, reverse = TRUE,
                            data = data.frame(d[seen, ], risk = fit$predictions[seen]))$concordance
  expect_equal(unname(fit$oob_c_index), unname(expected_c), tolerance = 1e-12)
  expect_true(fit$oob_ibs < fit$oob_ibs_null)
  expect_equal(fit$oob_error, 1 - unname(fit$oob_c_index))
  expect_equal(dim(fit$oob_survival$survival), c(nrow(d), 50L))
  expect_output(print(fit), "C-index")
})

# Harrell's C by counting pairs: a pair is comparable when the earlier time
# is an event of `cause` (a row censored at that same time counts as later;
# two events at one time are not comparable), or when one row has the cause
# and the other had another cause (which never has it; Wolbers et al. 2009);
# ties in the risk count one half.
brute_force_c <- function(risk, time, status, cause = 1L) {
  num <- den <- 0
  for (i in which(status == cause)) {
    later <- time > time[i] | (time == time[i] & status != cause) |
      (status > 0 & status != cause)
    later[i] <- FALSE
    num <- num + sum(risk[i] > risk[later]) + 0.5 * sum(risk[i] == risk[later])
    den <- den + sum(later)
  }
  num / den
}

# The integrated Brier score as Graf et al. (1999) define it, written from
# survfit(): the censoring distribution G is the reverse Kaplan-Meier with
# events before censorings at tied times (an event at t leaves the
# censoring's risk set before t), the score at t weights rows with an event
# by t by 1 / G(T-) and rows alive after t by 1 / G(t); trapezoid rule over
# the times, divided by their range.
reference_ibs <- function(surv, time, status, times) {
  shifted <- ifelse(status > 0, time - 1e-7, time)
  censoring <- survfit(Surv(shifted, status == 0) ~ 1, timefix = FALSE)
  G <- function(t) vapply(t, function(u) summary(censoring, times = u, extend = TRUE)$surv, 1)
  g_event <- G(time - 1e-8)
  score <- vapply(seq_along(times), function(k) {
    ended <- time <= times[k] & status > 0
    alive <- time > times[k]
    mean(ended * surv[, k]^2 / g_event + alive * (1 - surv[, k])^2 / G(times[k]))
  }, numeric(1))
  sum(diff(times) * (score[-1] + score[-length(score)]) / 2) / diff(range(times))
}

test_that("out-of-bag C-index and Brier score are Harrell's and Graf's, from first principles", {
  d <- survival::veteran
  fit <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 60, seed = 9)
  seen <- !is.na(fit$predictions)
  expect_equal(unname(fit$oob_c_index),
               brute_force_c(fit$predictions[seen], d$time[seen], d$status[seen]),
               tolerance = 1e-12)
  times <- fit$oob_survival$times
  expect_equal(times, seq(quantile(d$time, 0.1), quantile(d$time, 0.75), length.out = 50))
  expect_equal(unname(fit$oob_ibs),
               reference_ibs(fit$oob_survival$survival[seen, ], d$time[seen], d$status[seen],
                             times),
               tolerance = 1e-10)
  km <- survfit(Surv(time, status) ~ 1, data = d)
  km_surv <- matrix(summary(km, times = times, extend = TRUE)$surv, sum(seen), length(times),
                    byrow = TRUE)
  expect_equal(unname(fit$oob_ibs_null),
               reference_ibs(km_surv, d$time[seen], d$status[seen], times), tolerance = 1e-10)
  # Competing risks: each cause's C, other causes never having it.
  m <- mgus_data()
  cr <- ccforest(Surv(time, event) ~ ., data = m, n_tree = 30, seed = 9)
  seen <- stats::complete.cases(cr$predictions)
  status <- as.integer(m$event) - 1L
  for (k in 1:2) {
    expect_equal(unname(cr$oob_c_index[[k]]),
                 brute_force_c(cr$predictions[seen, k], m$time[seen], status[seen], k),
                 tolerance = 1e-12)
  }
})

test_that("the C-index is the same in any time unit (issue 36)", {
  d <- survival::veteran
  fit <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 30, seed = 9)
  seen <- !is.na(fit$predictions)
  reference <- brute_force_c(fit$predictions[seen], d$time[seen], d$status[seen])
  # survival's timefix merged times closer than ~1.5e-8: in nanoseconds
  # most of veteran's days became ties (0.754 instead of 0.703).
  for (unit in c(1e-9, 1e-3, 1, 1e9, 1e20)) {
    expect_equal(ccforest:::harrell_c(fit$predictions[seen], d$time[seen] * unit, d$status[seen]),
                 reference, tolerance = 1e-12, label = paste("unit", unit))
    scaled <- d
    scaled$time <- d$time * unit
    refit <- ccforest(Surv(time, status) ~ ., data = scaled, n_tree = 30, seed = 9)
    expect_identical(refit$predictions, fit$predictions)
    expect_identical(refit$oob_c_index, fit$oob_c_index)
    # The Brier score's times are quantiles: their rounding moves it in the
    # last bits.
    expect_equal(refit$oob_ibs, fit$oob_ibs, tolerance = 1e-12)
    expect_equal(refit$oob_ibs_null, fit$oob_ibs_null, tolerance = 1e-12)
  }
  # Held-out importance goes through the same C.
  train <- seq(1, nrow(d), by = 2)
  held <- ccforest(Surv(time, status) ~ ., data = d[train, ], n_tree = 20, seed = 3)
  tiny <- d
  tiny$time <- d$time * 1e-9
  expect_equal(importance(held, new_data = tiny[-train, ], type = "negation"),
               importance(held, new_data = d[-train, ], type = "negation"), tolerance = 1e-12)
  # Competing risks: other causes rank after every time, even where
  # max(time) + 1 would equal max(time).
  m <- mgus_data()
  cr <- ccforest(Surv(time, event) ~ ., data = m, n_tree = 10, seed = 9)
  ok <- stats::complete.cases(cr$predictions)
  status <- as.integer(m$event) - 1L
  expect_equal(ccforest:::harrell_c(cr$predictions[ok, 2], m$time[ok] * 1e20, status[ok], 2L),
               brute_force_c(cr$predictions[ok, 2], m$time[ok], status[ok], 2L),
               tolerance = 1e-12)
})

test_that("a cause without events, or times that compare no pair, give a stated answer (issue 36)", {
  d <- withr::with_seed(1, data.frame(x1 = rnorm(200), x2 = rnorm(200), time = rexp(200)))
  d$event <- factor(withr::with_seed(2, sample(c("cens", "a"), 200, TRUE, prob = c(0.3, 0.7))),
                    levels = c("cens", "a", "b"))  # b: an unused level
  for (type in c("permutation", "negation")) {
    fit <- ccforest(Surv(time, event) ~ x1 + x2, data = d, n_tree = 20, seed = 1,
                    importance = type)
    expect_true(is.na(fit$oob_c_index[["b"]]))
    expect_false(is.na(fit$oob_c_index[["a"]]))
    # The error and the importance are those of the cause that has a C.
    expect_equal(fit$oob_error, 1 - fit$oob_c_index[["a"]])
    imp <- fit$variable.importance
    expect_setequal(names(imp), c("x1", "x2"))
    expect_true(all(is.finite(imp)))
    expect_output(print(fit), "C-index a 0\\.[0-9]+, b NA.*C undefined for `b`: no out-of-bag events")
  }
  # Every event at the same time as every other row: no pair is comparable.
  tied <- data.frame(x1 = rnorm(60), x2 = rnorm(60), time = 5, status = 1)
  expect_warning(
    fit <- ccforest(Surv(time, status) ~ x1 + x2, data = tied, n_tree = 10, seed = 1,
                    importance = "negation"),
    "Out-of-bag negation importance is NA for every variable: Harrell's C of the out-of-bag risk is undefined")
  expect_true(is.na(fit$oob_error))
  expect_identical(sort(names(fit$variable.importance)), c("x1", "x2"))
  expect_true(all(is.na(fit$variable.importance)))
  expect_output(print(fit), "C-index NA.*C undefined: no two out-of-bag rows with comparable times")
  expect_error(importance(fit, new_data = tied, type = "negation"),
               "negation importance needs held-out rows whose times can be compared")
})

test_that("out-of-bag risk averages the trees that left each row out", {
  d <- stats::na.omit(lung_data())
  fit <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 8, seed = 10, sampling = "bagging")
  per_tree <- vapply(seq_len(8), function(t) {
    one <- as_unsealed(fit)
    one$forest$trees <- fit$forest$trees[t]
    one$forest$first_tree <- fit$forest$first_tree + t - 1L
    predict(one, d, type = "risk")
  }, numeric(nrow(d)))
  bag <- ccforest:::in_bag_counts(fit)
  expected <- rowSums(per_tree * (bag == 0)) / rowSums(bag == 0)
  expected[rowSums(bag == 0) == 0] <- NA
  expect_equal(fit$predictions, expected, tolerance = 1e-10)
})

test_that("the fitted object is plain data: saveRDS, combine_forests, first_tree", {
  d <- lung_data()
  whole <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 10, seed = 11)
  path <- tempfile(fileext = ".rds")
  saveRDS(whole, path)
  back <- readRDS(path)
  expect_identical(predict(back, d, type = "risk"), predict(whole, d, type = "risk"))
  first <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 4, seed = 11)
  rest <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 6, seed = 11, first_tree = 5)
  expect_message(joined <- combine_forests(first, rest), "out-of-bag")
  expect_identical(joined$forest$trees, whole$forest$trees)
  expect_identical(predict(joined, d, type = "survival", times = 300),
                   predict(whole, d, type = "survival", times = 300))
})

test_that("print, summary and tree_info describe survival forests", {
  d <- mgus_data()
  fit <- ccforest(Surv(time, event) ~ ., data = d, n_tree = 5, seed = 12)
  expect_output(print(fit), "competing risks")
  expect_output(print(summary(fit)), "Split rule:\\s+logrank")
  info <- tree_info(fit, 1)
  leaves <- info[info$terminal, ]
  expect_true(all(lengths(leaves$time) == lengths(leaves$at_risk)))
  expect_true(all(vapply(leaves$events, nrow, 1L) == lengths(leaves$time)))
  # The leaves' rows at risk at their first event time are the training rows
  # that reach them with a time at or after it.
  expect_true(all(unlist(leaves$time) %in% d$time[d$event != "censor"]))
})

test_that("importance by Harrell's C: projection, out of bag and held out", {
  v <- survival::veteran
  fit <- ccforest(Surv(time, status) ~ ., data = v, n_tree = 40, seed = 13,
                  importance = "permutation")
  imp <- fit$variable.importance
  expect_identical(attr(imp, "type"), "permutation")
  expect_identical(names(imp)[1], "karno")
  expect_output(print(imp), "decrease in Harrell's C when permuted")
  expect_output(print(head(imp, 3)), "decrease in Harrell's C when permuted")
  negation <- ccforest(Surv(time, status) ~ ., data = v, n_tree = 40, seed = 13,
                       importance = "negation")$variable.importance
  expect_identical(names(negation)[1], "karno")
  expect_length(importance(fit, type = "projection"), 6L)
  # Held out: the decrease in C when karno's values are shuffled.
  train <- seq(1, nrow(v), by = 2)
  held <- ccforest(Surv(time, status) ~ ., data = v[train, ], n_tree = 40, seed = 13)
  perm <- importance(held, new_data = v[-train, ], seed = 1)
  expect_identical(names(perm)[1], "karno")
  base <- concordance(Surv(time, status) ~ risk, reverse = TRUE,
                      data = data.frame(v[-train, ], risk = predict(held, v[-train, ])))$concordance
  flipped <- importance(held, new_data = v[-train, ], type = "negation")
  expect_true(all(flipped <= base))
  # x/y fits take the held-out outcome in `y`
  xy <- ccforest(v[train, -c(3, 4)], Surv(v$time[train], v$status[train]), n_tree = 20, seed = 2)
  expect_length(importance(xy, new_data = v[-train, -c(3, 4)],
                           y = Surv(v$time[-train], v$status[-train]), seed = 1), 6L)
})

test_that("partial dependence of risk and of survival at given times", {
  v <- survival::veteran
  fit <- ccforest(Surv(time, status) ~ ., data = v, n_tree = 20, seed = 14)
  pd <- partial_dependence(fit, v, "karno", grid = list(karno = c(30, 70)))
  expect_named(pd, c("karno", "risk"))
  manual <- vapply(c(30, 70), function(k) {
    w <- v
    w$karno <- k
    mean(predict(fit, w, type = "risk"))
  }, numeric(1))
  expect_equal(pd$risk, manual, tolerance = 1e-12)
  expect_gt(pd$risk[1], pd$risk[2])  # low performance status, higher risk
  surv <- partial_dependence(fit, v, "karno", grid = list(karno = c(30, 70)),
                             type = "survival", times = c(30, 90))
  expect_named(surv, c("karno", "survival.30", "survival.90"))
  w <- v
  w$karno <- 70
  expect_equal(unname(unlist(surv[2, 2:3])),
               unname(colMeans(predict(fit, w, type = "survival", times = c(30, 90)))),
               tolerance = 1e-12)
  m <- survival::mgus2
  d <- data.frame(time = ifelse(m$pstat == 1, m$ptime, m$futime),
                  event = factor(ifelse(m$pstat == 1, 1L, 2L * m$death), 0:2,
                                 c("censor", "pcm", "death")), age = m$age, hgb = m$hgb)
  d <- d[stats::complete.cases(d), ][1:400, ]
  cr <- ccforest(Surv(time, event) ~ ., data = d, n_tree = 10, seed = 15)
  pd_cr <- partial_dependence(cr, d, "age", grid_size = 3, type = "cif", times = c(60, 120))
  expect_named(pd_cr, c("age", "cif.pcm.60", "cif.pcm.120", "cif.death.60", "cif.death.120"))
})

test_that("variant = \"paper\" and other projections grow survival forests", {
  v <- survival::veteran
  for (args in list(list(variant = "paper"), list(projection = "rotation"),
                    list(projection = "axis"), list(sampling = "projection"),
                    list(axis_candidates = "random"))) {
    fit <- do.call(ccforest, c(list(Surv(time, status) ~ ., data = v, n_tree = 5, seed = 16),
                               args))
    s <- predict(fit, v[1:5, ], type = "survival", times = c(30, 100))
    expect_true(all(s >= 0 & s <= 1 & s[, 2] <= s[, 1]))
  }
})

test_that("backend = \"future\" grows and predicts the same survival forest", {
  skip_if_not_installed("future", "1.49.0")
  skip_on_cran()
  old <- future::plan(future::multisession, workers = 2, rscript_libs = .libPaths())
  on.exit(future::plan(old), add = TRUE)
  v <- survival::veteran
  here <- ccforest(Surv(time, status) ~ ., data = v, n_tree = 12, seed = 17)
  there <- ccforest(Surv(time, status) ~ ., data = v, n_tree = 12, seed = 17, backend = "future")
  expect_identical(there$forest$trees, here$forest$trees)
  expect_identical(there$predictions, here$predictions)
  expect_identical(predict(here, v, type = "survival", times = c(50, 100), backend = "future",
                           chunk_size = 40),
                   predict(here, v, type = "survival", times = c(50, 100)))
})

test_that("na_action = \"omit\" lines out-of-bag values up with the data's rows", {
  d <- lung_data()
  fit <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 30, seed = 18, na_action = "omit")
  expect_length(fit$predictions, nrow(d))
  expect_true(all(is.na(fit$predictions[!stats::complete.cases(d)])))
  expect_equal(nrow(fit$oob_survival$survival), nrow(d))
  expect_equal(fit$n_obs, sum(stats::complete.cases(d)))
})

test_that("a factor of many levels is valued by the martingale residuals", {
  set.seed(21)
  n <- 1500
  effect <- rnorm(60)
  g <- factor(sample(sprintf("g%02d", 1:60), n, TRUE), sprintf("g%02d", 1:60))
  x <- data.frame(g = g, a = rnorm(n))
  time <- rexp(n, exp(effect[as.integer(g)] + 0.5 * x$a))
  cens <- rexp(n, 0.3)
  y <- Surv(pmin(time, cens), as.integer(time <= cens))
  fit <- ccforest(x, y, n_tree = 10, seed = 3)
  expect_identical(fit$blueprint$feature_type, c("scored", "numeric"))
  # Levels of higher hazard have more events than their cumulative hazard
  # foretells: larger residuals.
  expect_gt(cor(fit$blueprint$scores[[1]][, 1], effect), 0.8)
  expect_identical(predict(fit, x[1:20, ], type = "risk"),
                   predict(ccforest(x, y, n_tree = 10, seed = 3, n_thread = 1), x[1:20, ],
                           type = "risk"))
})

test_that("leaves are compact: counts at their own event times, not a curve per leaf", {
  # 17,500 rows and over 2,000 distinct event times (issue 24): a leaf keeps
  # its rows at risk and events at its own event times only. A forest that
  # kept a value per leaf and distinct time (ranger's cumulative hazards)
  # would need n_leaf x n_time x 8 bytes a tree.
  set.seed(1)
  n <- 17500
  x <- data.frame(a = rnorm(n), b = rnorm(n), c = rnorm(n), d = runif(n))
  time <- round(rexp(n, exp(0.5 * x$a - 0.3 * x$b)) * 1000)
  cens <- round(rexp(n, 0.5) * 1000)
  y <- Surv(pmin(time, cens) + 1, as.integer(time <= cens))
  n_time <- length(unique(y[y[, 2] == 1, 1]))
  expect_gt(n_time, 2000)
  # min_events = 1: leaves bounded in rows only, as small as the format
  # must serve (the default's events bound makes them larger, each a
  # larger part of a curve).
  for (min_leaf in list(NULL, 3L)) {
    fit <- ccforest(x, y, n_tree = 3, seed = 1, min_leaf = min_leaf,
                    min_split = if (!is.null(min_leaf)) 2L * min_leaf, min_events = 1L)
    bytes <- sum(lengths(fit$forest$trees))
    leaves <- sum(vapply(1:3, function(t) sum(tree_info(fit, t)$terminal), 1L))
    entries <- sum(vapply(1:3, function(t) {
      info <- tree_info(fit, t)
      sum(lengths(info$time[info$terminal]))
    }, 1L))
    # With the default leaves, fewer than 8 bytes per stored event time,
    # splits included; with any, a small part of a curve per leaf.
    if (is.null(min_leaf)) expect_lt(bytes, 8 * entries)
    expect_lt(bytes, leaves * n_time * 8 / 50)
  }
})

test_that("the memory guard counts a survival fit's out-of-bag curves and its trees", {
  set.seed(3)
  n <- 20000
  x <- data.frame(a = rnorm(n), b = rnorm(n))
  y <- Surv(rexp(n, exp(x$a)), rbinom(n, 1, 0.7))
  # Curves at 51 values per row in the core and twice in R, and a byte per
  # row and tree: 24.7 million bytes, 23.5 MB.
  withr::local_options(ccforest.memory_limit = 20 * 2^20)
  expect_error(ccforest(x, y, n_tree = 10, max_depth = 1, seed = 1),
               "besides its trees \\(23\\.5 MB for its out-of-bag estimates\\)")
  expect_s3_class(ccforest(x, y, n_tree = 10, max_depth = 1, seed = 1, sampling = "projection"),
                  "ccforest")
  # The trees' size, extrapolated from the first ones, is refused with it.
  small <- data.frame(a = x$a[1:3000], b = x$b[1:3000])
  fit <- ccforest(small, y[1:3000], n_tree = 40, seed = 1, n_thread = 1)
  actual <- sum(lengths(fit$forest$trees) + 56)
  extra <- ccforest:::survival_oob_bytes(3000, 40, 1)
  withr::local_options(ccforest.memory_limit = extra + 128 * 40 + 100)
  message <- tryCatch(ccforest(small, y[1:3000], n_tree = 40, seed = 1, n_thread = 1),
                      error = conditionMessage)
  expect_match(message, "would need about .* for its 40 trees")
  m <- regmatches(message, regexec("need about ([0-9.]+) (bytes|KB|MB|GB)", message))[[1]]
  estimate <- as.numeric(m[[2]]) * 1024^(match(m[[3]], c("bytes", "KB", "MB", "GB")) - 1)
  expect_true(estimate > actual / 1.25 && estimate < actual * 1.25,
              label = sprintf("estimate %.0f vs actual %.0f bytes", estimate, actual))
})

test_that("every child of a split holds at least min_events rows with an event", {
  # Projection bootstrapping grows each tree on every row, so the training
  # rows' terminal nodes are the trees' leaves with all their rows.
  d <- survival::veteran
  for (k in c(1L, 8L, 20L)) {
    fit <- ccforest(survival::Surv(time, status) ~ ., d, n_tree = 5, seed = 3, min_leaf = 1,
                    min_split = 2, min_events = k, sampling = "projection")
    nodes <- predict(fit, d, type = "terminal_nodes")
    events_per_leaf <- unlist(lapply(seq_len(ncol(nodes)), function(t) {
      tapply(d$status, nodes[, t], sum)
    }))
    # A tree of one leaf has all the events; otherwise each leaf has k.
    expect_gte(min(events_per_leaf), k)
    if (k == 1L) few_leaves <- length(events_per_leaf)
  }
  expect_lt(length(events_per_leaf), few_leaves)
})

test_that("curves are labelled by format() of the times of each call", {
  # Labels are kept for the last times formatted (a served model is asked
  # for the same ones every call): a change of times or of printing options
  # must give new ones.
  fit <- ccforest(survival::Surv(time, status) ~ age + sex, data = survival::lung,
                  n_tree = 10, seed = 2)
  rows <- survival::lung[1:2, ]
  labels <- function(times, ...) colnames(predict(fit, rows, type = "survival", times = times, ...))
  expect_identical(labels(c(100, 250.5)), format(c(100, 250.5), trim = TRUE))
  expect_identical(labels(c(100, 250.5)), c("100.0", "250.5"))
  expect_identical(labels(c(100, 250)), c("100", "250"))
  expect_identical(labels(1 / 3), format(1 / 3, trim = TRUE))
  withr::with_options(list(digits = 3), {
    expect_identical(labels(1 / 3), "0.333")
  })
  withr::with_options(list(OutDec = ","), {
    expect_identical(labels(2.5), "2,5")
  })
  expect_identical(labels(2.5), "2.5")
  expect_identical(dimnames(predict(fit, rows, type = "chf", times = c(5, 7)))[[2]], c("5", "7"))
})
