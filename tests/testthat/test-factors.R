# Factors with many levels: ordered by the outputs, one numeric column.

test_that("level scores are shrunk level means, or their first principal axis", {
  set.seed(1)
  n <- 300
  codes <- sample(1:6, n, replace = TRUE)
  codes[codes == 6] <- 5L  # level 6 never occurs
  y <- rnorm(n) + codes
  response <- ccforest:::prepare_response(y, "y")
  got <- ccforest:::level_scores(codes, 6L, response, NULL, NULL)
  z <- response$values[, 1]
  expected <- vapply(1:6, function(l) {
    (sum(z[codes == l]) + mean(z)) / (sum(codes == l) + 1) - mean(z)
  }, numeric(1))
  expected[6] <- NA
  expect_equal(as.vector(got), expected)
  # Each training row's own value leaves its own output out of its level.
  own <- vapply(seq_len(n), function(i) {
    same <- codes == codes[[i]]
    (sum(z[same]) - z[[i]] + mean(z)) / sum(same) - mean(z)
  }, numeric(1))
  expect_equal(attr(got, "own"), own)
  # With weights: weighted means, weight 0 rows left out.
  w <- runif(n)
  w[1:20] <- 0
  got_w <- as.vector(ccforest:::level_scores(codes, 6L, response, w, NULL))
  keep <- w > 0
  overall <- sum(w[keep] * z[keep]) / sum(w[keep])
  expected_w <- vapply(1:5, function(l) {
    i <- keep & codes == l
    (sum(w[i] * z[i]) + overall) / (sum(w[i]) + 1) - overall
  }, numeric(1))
  expect_equal(got_w[1:5], expected_w)
  # Three classes: the levels' (shrunk) class shares on their first
  # principal axis, weighted by the levels' sizes.
  cls <- factor(sample(c("a", "b", "c"), n, replace = TRUE))
  response <- ccforest:::prepare_response(cls, "y")
  got <- as.vector(ccforest:::level_scores(codes, 6L, response, NULL, NULL))
  onehot <- outer(as.integer(cls), 1:3, `==`) + 0
  overall <- colMeans(onehot)
  shares <- t(vapply(1:5, function(l) {
    (colSums(onehot[codes == l, , drop = FALSE]) + overall) / (sum(codes == l) + 1)
  }, numeric(3)))
  centred <- sweep(shares, 2, overall)
  sizes <- tabulate(codes, 5)
  axis <- eigen(crossprod(centred * sqrt(sizes)))$vectors[, 1]
  if (axis[which.max(abs(axis))] < 0) axis <- -axis
  expect_equal(got[1:5], as.vector(centred %*% axis))
  expect_true(is.na(got[6]))
})

test_that("a factor with thousands of levels costs one column", {
  set.seed(2)
  n <- 5000
  effect <- rnorm(3000)
  d <- data.frame(f = factor(sample(sprintf("l%04d", 1:3000), n, TRUE), levels = sprintf("l%04d", 1:3000)),
                  a = rnorm(n))
  d$y <- factor(ifelse(effect[as.integer(d$f)] + d$a + rnorm(n, sd = 0.5) > 0, "p", "q"))
  fit <- ccforest(y ~ ., d, n_tree = 20, seed = 1)
  expect_identical(fit$blueprint$feature_type, c("scored", "numeric"))
  expect_identical(fit$blueprint$column_names, c("f", "a"))
  expect_identical(ncol(ccforest:::predictor_matrix(fit, d)), 2L)
  # The levels' order carries their effect; the training rows' own values
  # are not stored.
  expect_gt(abs(cor(fit$blueprint$scores[[1]], effect, use = "complete.obs")), 0.5)
  expect_null(attr(fit$blueprint, "own_scores"))
  expect_lt(length(serialize(fit$blueprint, NULL)), 1e5)
  # New data: known levels as at fit, unseen ones missing (with a warning).
  new <- d[1:4, c("f", "a")]
  new$f <- as.character(new$f)
  new$f[2] <- "never seen"
  expect_warning(p <- predict(fit, new, type = "prob"),
                 "Column `f` has level\\(s\\) `never seen` not seen when fitting; treated as missing.")
  expect_false(anyNA(p))
  expect_identical(p[-2, ], predict(fit, d[c(1, 3, 4), ], type = "prob"))
  # The paper's encoding stays available, and is the default for few levels.
  few <- ccforest(Species ~ ., transform(iris, g = factor(rep(letters[1:10], 15))), n_tree = 3,
                  seed = 1)
  expect_identical(few$blueprint$feature_type[5], "factor")
  expect_length(few$blueprint$column_names, 14L)
  small <- d[1:300, ]
  small$f <- droplevels(small$f)
  paper <- ccforest(y ~ ., small, n_tree = 3, seed = 1, onehot_max_levels = Inf)
  expect_identical(paper$blueprint$feature_type, c("factor", "numeric"))
  expect_length(paper$blueprint$column_names, nlevels(small$f) + 1L)
})

test_that("a noisy factor with many levels hurts a regression forest less ordered than one-hot", {
  skip_if_not_installed("mlbench")
  rmse <- function(onehot) {
    mean(vapply(1:2, function(r) {
      set.seed(r)
      make <- function(n) {
        s <- mlbench::mlbench.friedman1(n)
        data.frame(s$x, y = s$y, noise = factor(sample(1:50, n, TRUE)))
      }
      train <- make(800)
      test <- make(2000)
      fit <- ccforest(y ~ ., train, n_tree = 150, seed = r, onehot_max_levels = onehot)
      sqrt(mean((predict(fit, test) - test$y)^2))
    }, numeric(1)))
  }
  expect_lt(rmse(32), 0.95 * rmse(Inf))
})

test_that("onehot_max_levels is checked", {
  expect_error(ccforest(Species ~ ., iris, onehot_max_levels = 0),
               "`onehot_max_levels` must be a single whole number >= 1, not 0.")
  expect_error(ccforest(Species ~ ., iris, onehot_max_levels = "many"),
               "`onehot_max_levels` must be a single whole number >= 1")
  expect_identical(ccforest(Species ~ ., iris, n_tree = 1, onehot_max_levels = Inf)$options$onehot_max_levels,
                   Inf)
})

test_that("dates, date-times and time differences are numbers, checked by class", {
  set.seed(3)
  n <- 200
  d <- data.frame(day = as.Date("2020-01-01") + sample(0:365, n, TRUE),
                  at = as.POSIXct("2021-06-01", tz = "UTC") + runif(n, 0, 86400 * 30),
                  lag = as.difftime(runif(n, 0, 48), units = "hours"))
  d$y <- as.numeric(d$day) / 100 + as.numeric(d$lag) + rnorm(n)
  fit <- ccforest(y ~ ., d, n_tree = 10, seed = 1)
  expect_identical(fit$blueprint$feature_type, c("date", "datetime", "difftime"))
  numbers <- data.frame(day = as.numeric(d$day), at = as.numeric(d$at),
                        lag = as.numeric(d$lag, units = "hours"), y = d$y)
  expect_identical(fit$forest$trees, ccforest(y ~ ., numbers, n_tree = 10, seed = 1)$forest$trees)
  # Other units and POSIXlt mean the same instants and durations.
  other <- d
  other$lag <- as.difftime(as.numeric(d$lag) * 60, units = "mins")
  other$at <- as.POSIXlt(d$at, tz = "America/New_York")
  expect_equal(predict(fit, other), predict(fit, d))
  expect_error(predict(fit, transform(d, day = as.numeric(day))),
               "Column `day` of `new_data` has type <numeric>, but it had type <Date> when the forest was fitted.")
  expect_error(predict(fit, transform(d, at = as.Date(at))),
               "Column `at` of `new_data` has type <Date>, but it had type <POSIXct> when the forest was fitted.")
})

test_that("sparse matrices from the Matrix package are accepted", {
  skip_if_not_installed("Matrix")
  set.seed(4)
  x <- Matrix::rsparsematrix(150, 6, density = 0.3)
  colnames(x) <- paste0("v", 1:6)
  y <- factor(as.matrix(x)[, 1] + as.matrix(x)[, 2] > 0)
  fit <- ccforest(x, y, n_tree = 10, seed = 1)
  dense <- ccforest(as.matrix(x), y, n_tree = 10, seed = 1)
  expect_identical(fit$forest$trees, dense$forest$trees)
  expect_identical(predict(fit, x), predict(dense, as.matrix(x)))
})
