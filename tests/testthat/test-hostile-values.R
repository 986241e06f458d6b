# Hostile values (issue #5, section 1): missing, constant, duplicated,
# extreme and oddly typed values. Each case either fits and predicts
# correctly or stops with a clear R error naming the column or argument.

test_that("all-NA column: an error naming the column, whatever its type", {
  d <- hostile_signal_data()
  for (z in list(NA_real_, NA, NA_integer_, NA_character_,
                 factor(NA, levels = c("a", "b")))) {
    dz <- d
    dz$z <- rep(z, nrow(d))
    expect_error(ccforest(y ~ ., data = dz, n_tree = 5, seed = 1),
                 "Column `z` is entirely missing", label = class(z)[1])
    expect_error(ccforest(dz[c("a", "b", "z")], dz$y, n_tree = 5, seed = 1),
                 "Column `z` is entirely missing", label = class(z)[1])
  }
  # na_action = "fail" and "omit" must not turn this into something vaguer.
  dz <- transform(d, z = NA_real_)
  expect_error(ccforest(y ~ ., data = dz, n_tree = 5, seed = 1, na_action = "fail"),
               "`z`")
  expect_error(ccforest(y ~ ., data = dz, n_tree = 5, seed = 1, na_action = "omit"),
               "`z`.*entirely missing|No complete rows")
})

test_that("all rows NA: every entry missing is an error", {
  d <- hostile_signal_data()
  d$a <- NA_real_
  d$b <- NA_real_
  expect_error(ccforest(y ~ ., data = d, n_tree = 5, seed = 1), "entirely missing")
})

test_that("all rows NA: every row incomplete follows na_action", {
  d <- hostile_signal_data()
  odd <- seq(1, nrow(d), 2)
  d$a[odd] <- NA
  d$b[-odd] <- NA
  for (na_action in c("impute_random", "impute_mean")) {
    fit <- ccforest(y ~ ., data = d, n_tree = 5, seed = 1, na_action = na_action)
    hostile_expect_probabilities(predict(fit, d, type = "prob"), na_action)
    hostile_expect_finite(predict(fit, d), na_action)
  }
  expect_error(ccforest(y ~ ., data = d, n_tree = 5, seed = 1, na_action = "fail"),
               "missing values in column\\(s\\) `a`, `b`")
  expect_error(ccforest(y ~ ., data = d, n_tree = 5, seed = 1, na_action = "omit"),
               "No complete rows remain after na_action = \"omit\"")
})

test_that("constant columns: a constant fit, finite everywhere", {
  d <- hostile_signal_data()
  d$a <- 1
  d$b <- 2L
  fit <- ccforest(y ~ ., data = d, n_tree = 5, seed = 1)
  prob <- predict(fit, d, type = "prob")
  hostile_expect_probabilities(prob)
  # No feature varies, so every row gets the same prediction.
  expect_equal(nrow(unique(prob)), 1L)

  r <- hostile_signal_data()
  r$y <- r$a + r$b
  r$a <- 1
  r$b <- -3
  reg <- ccforest(y ~ ., data = r, n_tree = 5, seed = 1)
  pred <- predict(reg, r)
  hostile_expect_finite(pred)
  expect_length(unique(pred), 1L)
  expect_true(pred[1] >= min(r$y) && pred[1] <= max(r$y))
})

test_that("constant columns: one constant column beside informative ones is harmless", {
  d <- hostile_signal_data()
  base <- ccforest(y ~ ., data = d, n_tree = 10, seed = 1)
  with_const <- ccforest(y ~ ., data = transform(d, k = 7), n_tree = 10, seed = 1)
  expect_gt(hostile_accuracy(with_const, transform(d, k = 7), d$y),
            hostile_accuracy(base, d, d$y) - 0.1)
})

test_that("constant columns: a constant regression output is predicted exactly", {
  d <- hostile_signal_data()
  d$y <- 3.25
  fit <- ccforest(y ~ ., data = d, n_tree = 5, seed = 1)
  expect_equal(predict(fit, d), rep(3.25, nrow(d)))
})

test_that("duplicated rows with conflicting labels share their probability", {
  d <- data.frame(a = rep(1:5, each = 4), b = rep(c(2, 7, 1, 8, 3), each = 4),
                  y = factor(rep(c("u", "v"), 10)))
  # Projection bootstrapping: every tree sees every row; each group of four
  # identical rows (two u, two v) cannot be split, so its leaf says 50/50.
  fit <- ccforest(y ~ ., data = d, n_tree = 5, seed = 1, sampling = "projection", mtry = 1)
  prob <- predict(fit, d, type = "prob")
  hostile_expect_probabilities(prob)
  expect_equal(unname(prob), matrix(0.5, nrow(d), 2))

  values <- seq_len(nrow(d)) / 4
  reg <- ccforest(d[c("a", "b")], values, n_tree = 5, seed = 1, sampling = "projection",
                  mtry = 1, min_split = 2, min_leaf = 1)
  # Each group's leaf holds its mean.
  expect_equal(predict(reg, d), stats::ave(values, d$a))
})

test_that("extreme magnitudes: features at 1e300 and 1e-300 fit like unit-scale ones", {
  # z-scoring makes the fit independent of the features' units, so a forest
  # on x * 1e300 should be as good as one on x. The population variance
  # (x - mean)^2 overflows to Inf at 1e300 and underflows to 0 at 1e-300;
  # the scale then falls back to 1 and the core sees unscaled values.
  d <- hostile_signal_data(90)
  base <- hostile_accuracy(ccforest(y ~ ., data = d, n_tree = 10, seed = 1), d, d$y)
  expect_gt(base, 0.9)
  for (s in c(1e300, 1e-300)) {
    ds <- transform(d, a = a * s, b = b * s)
    fit <- ccforest(y ~ ., data = ds, n_tree = 10, seed = 1)
    prob <- predict(fit, ds, type = "prob")
    hostile_expect_probabilities(prob, paste("scale", s))
    expect_gt(hostile_accuracy(fit, ds, d$y), base - 0.1)
  }
})

test_that("extreme magnitudes: columns at 1e300 and 1e-300 side by side fit", {
  d <- hostile_signal_data(90)
  base <- hostile_accuracy(ccforest(y ~ ., data = d, n_tree = 10, seed = 1), d, d$y)
  ds <- transform(d, a = a * 1e300, b = b * 1e-300)
  fit <- ccforest(y ~ ., data = ds, n_tree = 10, seed = 1)
  hostile_expect_probabilities(predict(fit, ds, type = "prob"))
  expect_gt(hostile_accuracy(fit, ds, d$y), base - 0.1)
})

test_that("extreme magnitudes: a regression output at 1e300 and 1e-300 is not flattened", {
  d <- hostile_signal_data(90)
  d$y <- d$a + 0.5 * d$b
  base <- predict(ccforest(y ~ ., data = d, n_tree = 10, seed = 1), d)
  for (s in c(1e300, 1e-300)) {
    fit <- ccforest(y ~ ., data = transform(d, y = y * s), n_tree = 10, seed = 1)
    pred <- predict(fit, d)
    hostile_expect_finite(pred, paste("scale", s))
    # The same forest up to rounding: predictions track the unit-scale ones.
    expect_gt(stats::sd(pred / s), 0)  # sd(pred) itself underflows at 1e-300
    expect_gt(if (stats::sd(pred / s) > 0) stats::cor(pred / s, base) else 0, 0.95)
  }
})

test_that("extreme magnitudes: values near the double limit stay finite", {
  d <- hostile_signal_data()
  d$a[1] <- 1.7e308
  d$a[2] <- -1.7e308
  fit <- ccforest(y ~ ., data = d, n_tree = 5, seed = 1)
  hostile_expect_probabilities(predict(fit, d, type = "prob"))
  r <- transform(d, y = b)
  r$y[1] <- 1.7e308
  r$y[2] <- -1.7e308
  reg <- ccforest(y ~ ., data = r, n_tree = 5, seed = 1)
  hostile_expect_finite(predict(reg, r))
})

test_that("integer overflow candidates: .Machine$integer.max values fit", {
  big <- .Machine$integer.max
  d <- hostile_signal_data()
  d$i <- ifelse(d$a > 0, big, -big)
  expect_type(d$i, "integer")
  fit <- ccforest(y ~ ., data = d, n_tree = 5, seed = 1)
  hostile_expect_probabilities(predict(fit, d, type = "prob"))
  # A single integer feature at the limits separates its two groups.
  two <- data.frame(i = rep(c(big, -big, 0L), 10), y = factor(rep(c("u", "v", "w"), 10)))
  fit2 <- ccforest(y ~ i, data = two, n_tree = 5, seed = 1)
  expect_identical(predict(fit2, two), two$y)

  r <- data.frame(a = 1:30, y = rep(c(big, -big, 1L), 10))
  reg <- ccforest(y ~ a, data = r, n_tree = 5, seed = 1)
  pred <- predict(reg, r)
  hostile_expect_finite(pred)
  expect_true(all(pred >= -big & pred <= big))
})

test_that("Inf and -Inf: an error naming the column and rows", {
  d <- hostile_signal_data()
  d$a[3] <- Inf
  # The formula interface names `data`, the x/y interface `x`.
  expect_error(ccforest(y ~ ., data = d, n_tree = 5, seed = 1),
               "Column `a` of `data` contains infinite values \\(row 3\\)")
  d$a[3:9] <- -Inf
  expect_error(ccforest(d[1:2], d$y, n_tree = 5, seed = 1),
               "Column `a` of `x` contains infinite values \\(rows 3, 4, 5, 6, 7, \\.\\.\\.\\)")
  r <- hostile_signal_data()
  r$y <- r$a
  r$y[4] <- -Inf
  expect_error(ccforest(y ~ ., data = r, n_tree = 5, seed = 1),
               "`y`.*infinite values \\(row 4\\)")
  expect_error(ccforest(as.matrix(r[1:2]), r$y, n_tree = 5, seed = 1),
               "infinite values \\(row 4\\)")
})

test_that("NaN is treated as NA", {
  d <- hostile_signal_data()
  d_nan <- d
  d_nan$a[c(3, 8)] <- NaN
  d_na <- d
  d_na$a[c(3, 8)] <- NA
  fit_nan <- ccforest(y ~ ., data = d_nan, n_tree = 5, seed = 1)
  fit_na <- ccforest(y ~ ., data = d_na, n_tree = 5, seed = 1)
  expect_identical(fit_nan$forest, fit_na$forest)
  expect_identical(predict(fit_nan, d_nan, type = "prob"),
                   predict(fit_nan, d_na, type = "prob"))
  hostile_expect_probabilities(predict(fit_nan, d_nan, type = "prob"))
  expect_error(ccforest(y ~ ., data = d_nan, n_tree = 5, seed = 1, na_action = "fail"),
               "missing values in column\\(s\\) `a`")
  omitted <- ccforest(y ~ ., data = d_nan, n_tree = 5, seed = 1, na_action = "omit")
  expect_identical(omitted$n_obs, nrow(d) - 2L)
  r <- transform(d, y = a)
  r$y[2] <- NaN
  expect_error(ccforest(y ~ b, data = r, n_tree = 5, seed = 1), "missing values.*`y`|`y`.*missing values")
})

test_that("a numeric column stored as character becomes a factor, with a message", {
  d <- hostile_signal_data()
  d$a <- as.character(round(d$a, 2))
  expect_message(
    fit <- ccforest(y ~ ., data = d, n_tree = 5, seed = 1),
    "Treating character column\\(s\\) `a` as factors"
  )
  # Many distinct values: a factor with many levels, ordered by the output.
  expect_identical(fit$blueprint$feature_type, c("scored", "numeric"))
  hostile_expect_probabilities(predict(fit, d, type = "prob"))
  few <- transform(d, a = as.character(round(as.numeric(a))))
  expect_message(fit <- ccforest(y ~ ., data = few, n_tree = 5, seed = 1), "as factors")
  expect_identical(fit$blueprint$feature_type, c("factor", "numeric"))
})

test_that("a factor with 1,000 levels fits and predicts", {
  withr::local_seed(5)
  n <- 200
  d <- data.frame(
    f = factor(sample(sprintf("L%04d", 1:1000), n, replace = TRUE),
               levels = sprintf("L%04d", 1:1000)),
    b = stats::rnorm(n)
  )
  d$y <- factor(ifelse(d$b > 0, "pos", "neg"))
  fit <- ccforest(y ~ ., data = d, n_tree = 25, seed = 1)
  expect_length(fit$blueprint$column_names, 2L)
  onehot <- ccforest(y ~ ., data = d, n_tree = 5, seed = 1, onehot_max_levels = Inf)
  expect_length(onehot$blueprint$column_names, 1001L)
  hostile_expect_probabilities(predict(onehot, d, type = "prob"))
  prob <- predict(fit, d, type = "prob")
  hostile_expect_probabilities(prob)
  expect_gt(hostile_accuracy(fit, d, d$y), 0.9)
  # An unseen level at prediction warns and still predicts; so do levels
  # declared but held by no training row (L0001 and L0002 here).
  new <- d[1:3, ]
  new$f <- factor(c("L0001", "brand new", "L0002"))
  expect_warning(
    expect_warning(p <- predict(fit, new, type = "prob"), "`brand new` not seen"),
    "`L0001`, `L0002` that no training row of positive weight had"
  )
  hostile_expect_probabilities(p)
})

test_that("a factor with one level is a constant feature", {
  d <- hostile_signal_data()
  d$f1 <- factor("only")
  fit <- ccforest(y ~ ., data = d, n_tree = 5, seed = 1)
  hostile_expect_probabilities(predict(fit, d, type = "prob"))
  alone <- data.frame(f1 = factor(rep("only", nrow(d))), y = d$y)
  fit_alone <- ccforest(y ~ f1, data = alone, n_tree = 5, seed = 1)
  prob <- predict(fit_alone, alone, type = "prob")
  hostile_expect_probabilities(prob)
  expect_equal(nrow(unique(prob)), 1L)
  ord <- data.frame(o = factor(rep("only", nrow(d)), ordered = TRUE), a = d$a, y = d$y)
  hostile_expect_probabilities(
    predict(ccforest(y ~ ., data = ord, n_tree = 5, seed = 1), ord, type = "prob")
  )
})

test_that("logical columns are 0/1 features: the same forest as integer 0/1", {
  d <- hostile_signal_data()
  d$l <- d$a > 0
  d$a <- NULL
  d01 <- transform(d, l = as.integer(l))
  fit_l <- ccforest(y ~ ., data = d, n_tree = 5, seed = 1)
  fit_i <- ccforest(y ~ ., data = d01, n_tree = 5, seed = 1)
  expect_identical(fit_l$forest, fit_i$forest)
  expect_identical(predict(fit_l, d), predict(fit_i, d01))
  m <- cbind(l = d$l, k = d$b > 0)
  fit_m <- ccforest(m, d$y, n_tree = 5, seed = 1)
  hostile_expect_probabilities(predict(fit_m, m, type = "prob"))
})

test_that("Date and POSIXct columns are used as numbers", {
  d <- hostile_signal_data()
  d$when <- as.Date("2020-01-01") + seq_len(nrow(d))
  fit <- ccforest(y ~ ., data = d, n_tree = 5, seed = 1)
  hostile_expect_probabilities(predict(fit, d, type = "prob"))
  d$when <- as.POSIXct("2020-01-01", tz = "UTC") + seq_len(nrow(d))
  fit <- ccforest(d[c("a", "when")], d$y, n_tree = 5, seed = 1)
  expect_identical(fit$blueprint$feature_type, c("numeric", "datetime"))
  hostile_expect_probabilities(predict(fit, d, type = "prob"))
})

test_that("infinite dates are refused by predict() as by fitting", {
  d <- hostile_signal_data()
  d$when <- as.Date("2020-01-01") + seq_len(nrow(d))
  bad <- d
  bad$when[5] <- as.Date(Inf)
  expect_error(ccforest(y ~ ., data = bad, n_tree = 5, seed = 1),
               "Column `when` of `data` contains infinite values \\(row 5\\)")
  fit <- ccforest(y ~ ., data = d, n_tree = 5, seed = 1)
  expect_error(predict(fit, bad),
               "Column `when` of `new_data` contains infinite values \\(row 5\\)")
  times <- d
  times$when <- as.POSIXct("2020-01-01", tz = "UTC") + seq_len(nrow(d))
  fit <- ccforest(y ~ ., data = times, n_tree = 5, seed = 1)
  times$when[2] <- as.POSIXct(-Inf, origin = "1970-01-01", tz = "UTC")
  expect_error(predict(fit, times), "Column `when` of `new_data` contains infinite values")
})

test_that("0 and -0 are the same value, missing values of their rows imputed alike", {
  # Random imputation is keyed on a row's content; -0 equals 0, so it must
  # not draw other values (a column centred at exactly 0 keeps -0 a -0).
  d <- data.frame(a = rep(c(-2, -1, 1, 2), 15), b = rnorm(60))
  d$y <- factor(ifelse(d$b + rnorm(60) > 0, "p", "q"))
  fit <- ccforest(y ~ ., data = d, n_tree = 50, seed = 1)
  expect_identical(fit$blueprint$center[[1]], 0)
  new <- data.frame(a = c(0, -0), b = NA_real_)
  expect_identical(1 / new$a, c(Inf, -Inf))
  p <- predict(fit, new, type = "prob")
  expect_identical(p[1, ], p[2, ])
})

test_that("POSIXlt columns are date-times, not list columns", {
  # POSIXlt is a list internally; it must not be taken for a list column.
  d <- hostile_signal_data()[1:2]
  d$when <- as.POSIXlt(as.POSIXct("2020-01-01", tz = "UTC") + seq_len(nrow(d)))
  fit <- ccforest(d, hostile_signal_data()$y, n_tree = 5, seed = 1)
  expect_identical(fit$blueprint$feature_type[[3]], "datetime")
  hostile_expect_probabilities(predict(fit, d, type = "prob"))
})

test_that("list-columns and matrix columns: an error naming the column", {
  d <- hostile_signal_data()
  dl <- d
  dl$l <- as.list(seq_len(nrow(d)))
  expect_error(ccforest(y ~ ., data = dl, n_tree = 5, seed = 1),
               "Column `l` of `data` is a list column")
  expect_error(ccforest(dl[c("a", "l")], d$y, n_tree = 5, seed = 1),
               "Column `l` of `x` is a list column")
  dm <- d[c("a", "b")]
  dm$m <- matrix(seq_len(2 * nrow(d)), nrow(d))
  expect_error(ccforest(dm, d$y, n_tree = 5, seed = 1),
               "Column `m` of `x` is a matrix column")
  dm$y <- d$y
  expect_error(ccforest(y ~ ., data = dm, n_tree = 5, seed = 1),
               "`m`.*several columns")
  dd <- d[c("a", "b")]
  dd$inner <- data.frame(p = d$a, q = d$b)
  expect_error(ccforest(dd, d$y, n_tree = 5, seed = 1),
               "Column `inner` of `x` is a data.frame column")
})

test_that("tibbles work like data.frames", {
  skip_if_not_installed("tibble")
  d <- hostile_mixed_data()
  tb <- tibble::as_tibble(d)
  fit_d <- ccforest(y ~ ., data = d, n_tree = 5, seed = 1)
  fit_t <- ccforest(y ~ ., data = tb, n_tree = 5, seed = 1)
  expect_identical(fit_t$forest, fit_d$forest)
  expect_identical(predict(fit_t, tb, type = "prob"), predict(fit_d, d, type = "prob"))
  expect_identical(predict(fit_d, tb), predict(fit_d, d))
  xy_t <- ccforest(tb[names(tb) != "y"], tb$y, n_tree = 5, seed = 1)
  expect_identical(xy_t$forest, fit_d$forest)
  # A one-column tibble as y.
  xy_ty <- ccforest(tb[names(tb) != "y"], tb["y"], n_tree = 5, seed = 1)
  expect_identical(xy_ty$forest, fit_d$forest)
})

test_that("data.tables work like data.frames", {
  skip_if_not_installed("data.table")
  d <- hostile_mixed_data()
  dt <- data.table::as.data.table(d)
  fit_d <- ccforest(y ~ ., data = d, n_tree = 5, seed = 1)
  fit_t <- ccforest(y ~ ., data = dt, n_tree = 5, seed = 1)
  expect_identical(fit_t$forest, fit_d$forest)
  expect_identical(predict(fit_t, dt, type = "prob"), predict(fit_d, d, type = "prob"))
  # Built with as.data.table(): this test file is not data.table-aware, so
  # dt[, j] would use data.frame semantics.
  x_t <- data.table::as.data.table(d[names(d) != "y"])
  y_t <- data.table::as.data.table(d["y"])
  xy_t <- ccforest(x_t, y_t[["y"]], n_tree = 5, seed = 1)
  expect_identical(xy_t$forest, fit_d$forest)
  xy_ty <- ccforest(x_t, y_t, n_tree = 5, seed = 1)
  expect_identical(xy_ty$forest, fit_d$forest)
  expect_identical(predict(xy_ty, x_t), predict(fit_d, d))
})

test_that("the third hunt's cases (issue 36), each in its own process, give no silent answer", {
  skip_on_cran()
  cases <- list(
    c_index_nanoseconds = function() {
      d <- survival::veteran
      fit <- ccforest::ccforest(survival::Surv(time, status) ~ ., data = d, n_tree = 20, seed = 1)
      d$time <- d$time * 1e-9
      ns <- ccforest::ccforest(survival::Surv(time, status) ~ ., data = d, n_tree = 20, seed = 1)
      c(days = unname(fit$oob_c_index), ns = unname(ns$oob_c_index))
    },
    unused_cause = function() {
      set.seed(1)
      d <- data.frame(x1 = rnorm(150), x2 = rnorm(150), time = rexp(150))
      d$event <- factor(sample(c("cens", "a"), 150, TRUE), levels = c("cens", "a", "rare"))
      fit <- ccforest::ccforest(survival::Surv(time, event) ~ x1 + x2, data = d, n_tree = 15,
                                seed = 1, importance = "permutation")
      list(error = fit$oob_error, importance = fit$variable.importance)
    },
    tied_times = function() {
      d <- data.frame(x1 = rnorm(50), x2 = rnorm(50), time = 3, status = 1)
      fit <- suppressWarnings(ccforest::ccforest(survival::Surv(time, status) ~ x1 + x2, d,
                                                 n_tree = 5, seed = 1, importance = "negation"))
      list(error = fit$oob_error, importance = fit$variable.importance)
    },
    explain_survival = function() {
      fit <- ccforest::ccforest(survival::Surv(time, status) ~ age + karno, survival::veteran,
                                n_tree = 5, seed = 1)
      ccforest::ccforest_numeric_predictions(fit, survival::veteran[1:3, ])
    },
    edited_c_index = function() {
      fit <- ccforest::ccforest(survival::Surv(time, status) ~ age + karno, survival::veteran,
                                n_tree = 5, seed = 1)
      fit$oob_c_index[[1]] <- 0.99
      print(fit)
    },
    flipped_uniform_weights = function() {
      fit <- ccforest::ccforest(mpg ~ ., mtcars, n_tree = 10, seed = 1, sampling = "bagging")
      fit$bagging$uniform_weights <- !fit$bagging$uniform_weights
      predict(fit, mtcars, type = "se")
    },
    lost_checksum = function() {
      fit <- ccforest::ccforest(mpg ~ ., mtcars, n_tree = 5, seed = 1)
      fit$checksum <- NULL
      fit$blueprint$center[[1]] <- 100
      predict(fit, mtcars)
    },
    class_weight_zero = function() {
      d <- data.frame(x = rnorm(60), y = factor(rep(c("no", "yes"), 30)))
      ccforest::ccforest(y ~ x, d, n_tree = 3, class_weights = c(yes = 0))
    },
    fraction_zero = function() {
      d <- data.frame(x = rnorm(60), y = factor(rep(c("no", "yes"), 30)))
      ccforest::ccforest(y ~ x, d, n_tree = 3, sampling = "bagging",
                         sample_fraction = c(no = 0.5, yes = 0))
    },
    counting_process = function() {
      d <- survival::veteran
      d$start <- 0
      ccforest::ccforest(survival::Surv(start, time, status) ~ age, d, n_tree = 3)
    },
    strata = function() {
      ccforest::ccforest(survival::Surv(time, status) ~ age + strata(inst), survival::lung,
                         n_tree = 3)
    },
    plot_bagged_survival = function() {
      fit <- ccforest::ccforest(survival::Surv(time, status) ~ age + karno, survival::veteran,
                                n_tree = 5, seed = 1)
      grDevices::pdf(NULL)
      on.exit(grDevices::dev.off())
      plot(fit, which = "error")
    },
    case_weights_logical = function() {
      ccforest::ccforest(iris[1:4], iris$Species, n_tree = 2, case_weights = rep(TRUE, 150))
    },
    sparse_past_the_limit = function() {
      options(ccforest.memory_limit = 5e8)
      x <- Matrix::sparseMatrix(i = 1:3, j = 1:3, x = 1, dims = c(20000, 10000))
      ccforest::ccforest(x, survival::Surv(rexp(20000), rep(1, 20000)), n_tree = 1)
    }
  )
  out <- hostile_isolated_cases(cases, timeout = 300)
  hostile_expect_isolated_ok(out$c_index_nanoseconds, "c_index_nanoseconds")
  expect_identical(out$c_index_nanoseconds$value[["ns"]], out$c_index_nanoseconds$value[["days"]])
  hostile_expect_isolated_ok(out$unused_cause, "unused_cause")
  expect_true(is.finite(out$unused_cause$value$error))
  expect_setequal(names(out$unused_cause$value$importance), c("x1", "x2"))
  hostile_expect_isolated_ok(out$tied_times, "tied_times")
  expect_true(is.na(out$tied_times$value$error))
  expect_setequal(names(out$tied_times$value$importance), c("x1", "x2"))
  hostile_expect_isolated_ok(out$explain_survival, "explain_survival")
  expect_length(out$explain_survival$value, 3L)
  errors <- c(
    edited_c_index = "is damaged: its contents do not match its checksum",
    flipped_uniform_weights = "is damaged: its contents do not match its checksum",
    lost_checksum = "is damaged: it has no checksum",
    class_weight_zero = "`class_weights` gives class `yes` weight 0 leaves output `y` with rows of only one class",
    fraction_zero = "`sample_fraction` draws no row of class `yes`",
    counting_process = "The outcome `survival::Surv\\(start, time, status\\)` is a counting-process",
    strata = "`strata\\(inst\\)` in `formula`: strata\\(\\) gives each stratum its own baseline hazard",
    plot_bagged_survival = "which survival forests do not keep",
    case_weights_logical = "not a logical vector of length 150",
    sparse_past_the_limit = "`x` is a sparse 20000 x 10000 matrix, which ccforest reads dense"
  )
  for (name in names(errors)) {
    hostile_expect_isolated_error(out[[name]], errors[[name]], label = name)
  }
})
