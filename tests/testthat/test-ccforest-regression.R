# Regression forests end to end, checked against a constant model, against
# leaf means recomputed from the training rows, and against an R walk over
# tree_info()'s documented table (route_rows() in helper-data.R).

test_that("a smooth 2-D function is fitted far better than by a constant", {
  set.seed(401)
  train <- make_smooth(1000)
  test <- make_smooth(500)
  fit <- ccforest(y ~ ., data = train, n_tree = 50, seed = 1)
  expect_identical(fit$task, "regression")
  pred <- predict(fit, test)
  expect_type(pred, "double")
  expect_length(pred, 500L)
  constant_mse <- mean((test$y - mean(train$y))^2)
  expect_lt(mean((pred - test$y)^2), 0.2 * constant_mse)
  expect_lt(mean((pred - test$y)^2), 0.2 * stats::var(test$y))
  # Averages of leaf means stay within the range of the training outputs.
  expect_true(all(pred >= min(train$y) - 1e-9 & pred <= max(train$y) + 1e-9))
})

test_that("regression predictions equal the walk over tree_info()", {
  set.seed(402)
  train <- make_smooth(200)
  fit <- ccforest(y ~ ., data = train, n_tree = 4, seed = 2)
  test <- make_smooth(30)
  z <- encode_numeric(fit, test)
  ref <- numeric(nrow(test))
  for (t in 1:4) {
    info <- tree_info(fit, t)
    leaves <- route_rows(fit, t, z, info)
    ref <- ref + info$prediction[leaves + 1L]
  }
  # tree_info() gives leaf means on the original scale, as predictions are.
  ref <- ref / 4
  expect_false(anyNA(ref))
  expect_equal(predict(fit, test), ref, tolerance = 1e-10)
  # The stored output statistics are the population mean and sd of y.
  expect_equal(fit$response$center, mean(train$y), tolerance = 1e-12)
  expect_equal(fit$response$scale, sqrt(mean((train$y - mean(train$y))^2)), tolerance = 1e-12)
})

test_that("leaves hold the mean of their training rows and at least min_leaf of them", {
  set.seed(403)
  train <- make_smooth(250)
  for (min_leaf in c(3L, 11L)) {
    fit <- ccforest(y ~ ., data = train, n_tree = 3, min_leaf = min_leaf,
                    sampling = "projection", seed = 3)
    z <- encode_numeric(fit, train)
    for (t in 1:3) {
      info <- tree_info(fit, t)
      leaves <- route_rows(fit, t, z, info)
      counts <- tabulate(leaves + 1L, nrow(info))
      expect_true(all(counts[info$terminal] >= min_leaf))
      expect_identical(sum(counts), nrow(train))
      for (leaf in unique(leaves)) {
        expect_equal(info$prediction[[leaf + 1L]], mean(train$y[leaves == leaf]),
                     tolerance = 1e-10)
      }
    }
  }
})

test_that("regression has its own defaults, and max_depth = 1 gives stumps", {
  fit <- ccforest(mpg ~ ., data = mtcars, n_tree = 5, seed = 4)
  expect_identical(fit$options$split_rule, "variance")
  expect_identical(fit$options$min_leaf, 3L)
  expect_identical(fit$options$min_split, 6L)
  stump <- ccforest(mpg ~ ., data = mtcars, n_tree = 6, max_depth = 1, seed = 4)
  expect_identical(n_trees_of(stump), 6L)
  for (t in 1:6) {
    info <- tree_info(stump, t)
    expect_identical(info$node, 0:2)
    expect_identical(info$terminal, c(FALSE, TRUE, TRUE))
    expect_identical(info$left, c(1L, NA, NA))
    expect_identical(info$right, c(2L, NA, NA))
  }
  expect_identical(ccforest:::tree_sizes(stump), list(leaves = rep(2L, 6), depth = rep(1L, 6)))
  # A stump's leaves each hold >= 3 rows: it predicts at most 2 values per tree.
  expect_lte(length(unique(predict(stump, mtcars, n_tree = 1))), 2L)
})

test_that("min_split stops splitting small nodes", {
  set.seed(405)
  train <- make_smooth(60)
  expect_warning(
    fit <- ccforest(y ~ ., data = train, n_tree = 3, min_split = 61, sampling = "projection",
                    seed = 5),
    "min_split = 61 is larger than the 60 training rows"
  )
  # Every tree is a lone leaf.
  for (t in 1:3) {
    info <- tree_info(fit, t)
    expect_identical(info$node, 0L)
    expect_identical(info$terminal, TRUE)
  }
  expect_identical(ccforest:::tree_sizes(fit), list(leaves = rep(1L, 3), depth = rep(0L, 3)))
  # A lone leaf predicts the training mean (no bagging: the root holds every row).
  expect_equal(predict(fit, train[1:3, ]), rep(mean(train$y), 3), tolerance = 1e-12)
})

test_that("multivariate regression via cbind() and via a data.frame y", {
  set.seed(406)
  train <- make_smooth(600)
  train$y2 <- 10 * cos(train$x1) - 3 * train$x2 + stats::rnorm(600, sd = 0.1)
  test <- make_smooth(200)
  test$y2 <- 10 * cos(test$x1) - 3 * test$x2
  fit <- ccforest(cbind(y, y2) ~ x1 + x2, data = train, n_tree = 30, seed = 6)
  expect_identical(fit$response$names, c("y", "y2"))
  pred <- predict(fit, test)
  expect_s3_class(pred, "data.frame")
  expect_identical(names(pred), c("y", "y2"))
  expect_lt(mean((pred$y - test$y)^2), 0.2 * stats::var(test$y))
  expect_lt(mean((pred$y2 - test$y2)^2), 0.2 * stats::var(test$y2))
  xy <- ccforest(train[, c("x1", "x2")], train[, c("y", "y2")], n_tree = 30, seed = 6)
  expect_identical(xy$forest, fit$forest)
  expect_identical(predict(xy, test), pred)
  expect_error(predict(fit, test, type = "prob"), "regression forest")
})

test_that("sampling, mtry functions and missing values work for regression", {
  set.seed(407)
  df <- data.frame(matrix(stats::rnorm(300 * 5), 300, 5))
  df$y <- df$X1 - 2 * df$X2 + stats::rnorm(300, sd = 0.2)
  bag <- ccforest(y ~ ., df, n_tree = 10, sampling = "bagging", mtry = function(D) D - 2,
                  seed = 7)
  expect_identical(bag$options$sampling, "bagging")
  expect_identical(bag$options$mtry, 3L)
  expect_lt(mean((predict(bag, df) - df$y)^2), 0.2 * stats::var(df$y))
  holey <- df
  holey$X3[1:20] <- NA
  holey$X1[15:25] <- NA
  for (na in c("impute_random", "impute_mean", "omit")) {
    fit <- ccforest(y ~ ., holey, n_tree = 10, na_action = na, seed = 7)
    pred <- predict(fit, holey[10:30, ])
    expect_false(anyNA(pred))
    expect_length(pred, 21L)
  }
  expect_identical(ccforest(y ~ ., holey, n_tree = 2, na_action = "omit", seed = 7)$n_obs, 275L)
})

test_that("a constant output is predicted exactly", {
  df <- data.frame(x = 1:20, z = (1:20)^2, y = 3.5)
  fit <- ccforest(y ~ ., df, n_tree = 3, seed = 8)
  expect_equal(predict(fit, df), rep(3.5, 20))
})

test_that("a single row and an integer response work", {
  fit <- ccforest(mtcars[, -1], as.integer(round(mtcars$mpg)), n_tree = 10, seed = 9)
  expect_identical(fit$task, "regression")
  one <- predict(fit, mtcars[5, ])
  expect_type(one, "double")
  expect_length(one, 1L)
  expect_equal(one, predict(fit, mtcars)[5], tolerance = 1e-12)
})
