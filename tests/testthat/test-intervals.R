# Conformal prediction intervals. Coverage is checked on held-out simulated
# data, homoscedastic and heteroscedastic, against the nominal level with
# the sampling error of the test itself: fixed seeds make every check
# deterministic, and the sizes keep it to a few seconds.

sim <- function(n, hetero) {
  x1 <- stats::runif(n, -2, 2)
  x2 <- stats::runif(n, -2, 2)
  sd <- if (hetero) 0.1 + 0.5 * abs(x1) else 0.5
  data.frame(x1 = x1, x2 = x2, y = sin(1.5 * x1) + 0.5 * x2 + stats::rnorm(n, sd = sd))
}

covered <- function(iv, y) mean(y >= iv$lower & y <= iv$upper)

test_that("conformalised quantile regression covers at the nominal level", {
  level <- 0.9
  for (hetero in c(FALSE, TRUE)) {
    set.seed(if (hetero) 11 else 12)
    fit <- ccforest(y ~ ., data = sim(400, hetero), n_tree = 100, quantiles = TRUE, seed = 1)
    # Five calibration sets of 300 rows, each judged on 1000 new rows.
    n_cal <- 300
    n_test <- 1000
    coverage <- vapply(1:5, function(r) {
      iv <- predict(fit, test <- sim(n_test, hetero), type = "interval", level = level,
                    calibration = sim(n_cal, hetero))
      expect_identical(attr(iv, "method"), "cqr")
      covered(iv, test$y)
    }, numeric(1))
    # Split conformal: given the calibration set, coverage is Beta(k, n + 1 - k)
    # with k = ceiling(level (n + 1)), and each test set adds binomial noise.
    k <- ceiling(level * (n_cal + 1))
    expected <- k / (n_cal + 1)
    sd_one <- sqrt(expected * (1 - expected) / (n_cal + 2) + expected * (1 - expected) / n_test)
    expect_lt(abs(mean(coverage) - expected), 3 * sd_one / sqrt(5))
  }
})

test_that("conformalised quantile intervals widen where the noise is larger", {
  set.seed(13)
  fit <- ccforest(y ~ ., data = sim(800, TRUE), n_tree = 100, quantiles = TRUE, seed = 1)
  test <- sim(1000, TRUE)
  iv <- predict(fit, test, type = "interval", level = 0.9, calibration = sim(400, TRUE))
  width <- iv$upper - iv$lower
  expect_gt(mean(width[abs(test$x1) > 1.5]), 2 * mean(width[abs(test$x1) < 0.5]))
  expect_equal(iv$prediction, unname(predict(fit, test)))
})

test_that("conformalised quantile regression is the documented computation", {
  set.seed(14)
  fit <- ccforest(y ~ ., data = sim(200, TRUE), n_tree = 50, quantiles = TRUE, seed = 2)
  cal <- sim(99, TRUE)
  new <- sim(5, TRUE)
  iv <- predict(fit, new, type = "interval", level = 0.8, calibration = cal)
  q_cal <- predict(fit, cal, type = "quantiles", quantiles = c(0.1, 0.9))
  scores <- pmax(q_cal[, 1] - cal$y, cal$y - q_cal[, 2])
  widen <- sort(scores)[80]  # ceiling(0.8 * 100)
  q_new <- predict(fit, new, type = "quantiles", quantiles = c(0.1, 0.9))
  expect_equal(iv$lower, unname(q_new[, 1] - widen))
  expect_equal(iv$upper, unname(q_new[, 2] + widen))
  # Too few calibration rows for the level: an infinite interval.
  iv <- predict(fit, new, type = "interval", level = 0.99, calibration = cal[1:20, ])
  expect_true(all(iv$upper == Inf & iv$lower == -Inf))
  # x/y fits take the calibration outputs in calibration_y.
  xy <- ccforest(sim(200, TRUE)[1:2], sim(200, TRUE)$y, n_tree = 20, quantiles = TRUE, seed = 1)
  expect_s3_class(predict(xy, new, type = "interval", calibration = cal[1:2],
                          calibration_y = cal$y), "ccforest_interval")
  expect_error(predict(xy, new, type = "interval", calibration = cal[1:2]),
               "`calibration_y` is missing: interval = \"cqr\" needs the outputs of `calibration`")
})

# Jackknife+-after-bootstrap written out from the in-bag counts and the
# trees' predictions.
jab_reference <- function(fit, new, level) {
  counts <- ccforest:::in_bag_counts(fit)
  trees <- predict(fit, new, predict_all = TRUE)
  oob <- counts == 0L
  r <- abs(residuals(fit))
  use <- !is.na(r)
  mu <- (oob[use, ] %*% t(trees)) / rowSums(oob[use, ])  # training rows x new rows
  n <- sum(use)
  k <- ceiling(level * (n + 1))
  lower <- apply(mu - r[use], 2, function(v) sort(v)[n + 1 - k])
  upper <- apply(mu + r[use], 2, function(v) sort(v)[k])
  list(lower = lower, upper = upper)
}

test_that("jackknife+-after-bootstrap is the documented computation", {
  set.seed(21)
  fit <- ccforest(y ~ ., data = sim(150, FALSE), n_tree = 60, sampling = "bagging", seed = 3)
  new <- sim(7, FALSE)
  iv <- predict(fit, new, type = "interval", level = 0.8)
  expect_identical(attr(iv, "method"), "jackknife+")
  ref <- jab_reference(fit, new, 0.8)
  expect_equal(iv$lower, ref$lower)
  expect_equal(iv$upper, ref$upper)
})

test_that("jackknife+-after-bootstrap covers at about the nominal level", {
  level <- 0.9
  for (hetero in c(FALSE, TRUE)) {
    coverage <- vapply(1:4, function(r) {
      set.seed(30 + r + 10 * hetero)
      fit <- ccforest(y ~ ., data = sim(300, hetero), n_tree = 100, sampling = "bagging",
                      seed = r)
      test <- sim(1000, hetero)
      covered(predict(fit, test, type = "interval", level = level), test$y)
    }, numeric(1))
    # No finite-sample law here beyond 1 - 2 alpha; in practice it sits at the
    # level, within the test sets' binomial noise and the fits' spread.
    expect_lt(abs(mean(coverage) - level), 3 * sqrt(level * (1 - level) / 4000) + 0.02)
  }
})

test_that("intervals refuse what they cannot do, and say what to do", {
  proj <- ccforest(mpg ~ ., data = mtcars, n_tree = 10, seed = 1)
  expect_error(predict(proj, mtcars, type = "interval"),
               "type = \"interval\" needs either a calibration set, `calibration`")
  expect_error(predict(proj, mtcars, type = "interval", calibration = mtcars),
               "interval = \"cqr\" conformalises the forest's quantiles, so it needs a forest fitted with quantiles = TRUE")
  q <- ccforest(mpg ~ ., data = mtcars[1:20, ], n_tree = 10, seed = 1, quantiles = TRUE)
  expect_error(predict(q, mtcars, type = "interval", interval = "cqr"),
               "interval = \"cqr\" needs `calibration`")
  expect_error(predict(q, mtcars, type = "interval", level = 1, calibration = mtcars),
               "`level` must be one number strictly between 0 and 1, not 1")
  expect_error(predict(q, mtcars, type = "interval", level = c(0.8, 0.9), calibration = mtcars),
               "`level` must be one number")
  expect_error(predict(q, mtcars, type = "interval", interval = "split", calibration = mtcars),
               "`interval` must be one of \"cqr\", \"jackknife\\+\"")
  cal <- mtcars[21:32, ]
  cal$mpg <- NA_real_
  expect_error(predict(q, mtcars, type = "interval", calibration = cal),
               "Every output in `calibration` is missing")
  expect_error(predict(q, mtcars, type = "interval", calibration = mtcars[21:32, -1]),
               "`calibration` has no output column `mpg`")
  bag <- ccforest(mpg ~ ., data = mtcars, n_tree = 10, seed = 1, sampling = "bagging")
  expect_error(predict(bag, mtcars, type = "interval", n_tree = 5),
               "uses the out-of-bag residuals of all 10 trees.*drop n_tree = 5")
  expect_error(predict(bag, mtcars, type = "interval", interval = "jackknife+",
                       calibration = mtcars),
               "interval = \"jackknife\\+\" uses the out-of-bag residuals, not `calibration`")
  cls <- ccforest(Species ~ ., data = iris, n_tree = 5, seed = 1)
  expect_error(predict(cls, iris, type = "interval"),
               "type = \"interval\" is for regression forests; this one is a classifier")
  multi <- ccforest(cbind(mpg, qsec) ~ ., data = mtcars, n_tree = 5, seed = 1)
  expect_error(predict(multi, mtcars, type = "interval"),
               "type = \"interval\" is for regression forests with one numeric output; this one has 2 outputs")
})

test_that("intervals print with their level and method", {
  set.seed(5)
  fit <- ccforest(y ~ ., data = sim(100, FALSE), n_tree = 20, sampling = "bagging", seed = 1)
  iv <- predict(fit, sim(3, FALSE), type = "interval", level = 0.8)
  expect_output(print(iv), "Prediction intervals at level 0.8 \\(jackknife\\+-after-bootstrap\\)")
  expect_named(iv, c("prediction", "lower", "upper"))
})
