# Negation importance (flip the sign of a variable's coefficients in every
# split) and local (per-row) importance. The references negate the encoded
# columns in R, which is the same as flipping the coefficients, and predict
# with the forest's ordinary predictor.

encoded <- function(fit, data) ccforest:::predictor_matrix(fit, data)

raw_predict <- function(fit, z) ccforest:::predict_values(fit, z, n_trees_of(fit), 2L)

test_that("negation importance is the error increase with a variable's columns negated", {
  set.seed(1)
  d <- make_smooth(300, noise = 0.2)
  d$noise <- rnorm(300)
  fit <- ccforest(y ~ ., data = d[1:200, ], n_tree = 30, seed = 1)
  test <- d[201:300, ]
  vi <- importance(fit, type = "negation", new_data = test)
  expect_identical(attr(vi, "type"), "negation")
  z <- encoded(fit, test)
  base <- mean((raw_predict(fit, z)[, 1] * fit$response$scale + fit$response$center - test$y)^2)
  for (v in c("x1", "x2", "noise")) {
    zn <- z
    zn[, v] <- -zn[, v]
    err <- mean((raw_predict(fit, zn)[, 1] * fit$response$scale + fit$response$center - test$y)^2)
    expect_equal(vi[[v]], err - base)
  }
  expect_gt(vi[["x1"]], 50 * abs(vi[["noise"]]))
  # y depends on x2 through x2^2, symmetric about x2's mean: reflecting x2
  # changes almost nothing, though permuting it does (the documented caveat).
  perm <- importance(fit, type = "permutation", new_data = test, seed = 1)
  expect_lt(abs(vi[["x2"]]), perm[["x2"]] / 20)
})

test_that("a factor's indicator columns are negated together", {
  d <- transform(mtcars, cyl = factor(cyl))
  fit <- ccforest(mpg ~ ., data = d[1:22, ], n_tree = 20, seed = 2, na_action = "impute_mean")
  test <- d[23:32, ]
  test$hp[2] <- NA
  vi <- importance(fit, type = "negation", new_data = test)
  z <- encoded(fit, test)
  columns <- which(fit$blueprint$column_feature == match("cyl", fit$blueprint$feature_names))
  expect_length(columns, 3)
  zn <- z
  zn[, columns] <- -zn[, columns]
  pred <- function(z) raw_predict(fit, z)[, 1] * fit$response$scale + fit$response$center
  expect_equal(vi[["cyl"]], mean((pred(zn) - test$mpg)^2) - mean((pred(z) - test$mpg)^2))
})

test_that("out-of-bag negation importance averages each tree's out-of-bag increase", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 15, sampling = "bagging",
                  importance = "negation", seed = 3)
  vi <- importance(fit)
  expect_identical(attr(vi, "type"), "negation")
  expect_identical(importance(fit, type = "negation"), vi)
  counts <- ccforest:::in_bag_counts(fit)
  z <- encoded(fit, iris)
  truth <- as.integer(iris$Species)
  tree_error <- function(zz) {
    all <- ccforest:::per_tree_raw(fit, zz, 15L, 2L, FALSE)
    vapply(1:15, function(t) {
      out <- counts[, t] == 0L
      mean(max.col(all[out, , t], "first") != truth[out])
    }, numeric(1))
  }
  base <- tree_error(z)
  for (v in c("Petal.Width", "Sepal.Width")) {
    zn <- z
    zn[, v] <- -zn[, v]
    expect_equal(vi[[v]], mean(tree_error(zn) - base))
  }
})

test_that("local importance gives each row's increase, averaging to the importance", {
  set.seed(4)
  train <- seq(1, 150, by = 2)
  fit <- ccforest(Species ~ ., data = iris[train, ], n_tree = 20, seed = 1)
  test <- iris[-train, ]
  test$Species[3] <- NA
  for (type in c("negation", "permutation")) {
    local <- importance(fit, type = type, new_data = test, local = TRUE, n_repeat = 2, seed = 5)
    expect_s3_class(local, "ccforest_local_importance")
    expect_identical(dim(local), c(75L, 4L))
    expect_true(all(is.na(local[3, ])))
    global <- importance(fit, type = type, new_data = test, n_repeat = 2, seed = 5)
    expect_equal(colMeans(local, na.rm = TRUE)[names(global)], unclass(global),
                 ignore_attr = TRUE)
  }
  expect_output(print(local), "Local permutation importance: each row's increase in loss, 75 rows x 4 variables")
  reg <- ccforest(mpg ~ ., data = mtcars[1:22, ], n_tree = 20, seed = 1)
  local <- importance(reg, type = "negation", new_data = mtcars[23:32, ], local = TRUE)
  z <- encoded(reg, mtcars[23:32, ])
  zn <- z
  zn[, "wt"] <- -zn[, "wt"]
  pred <- function(z) raw_predict(reg, z)[, 1] * reg$response$scale + reg$response$center
  expect_equal(local[, "wt"], (pred(zn) - mtcars$mpg[23:32])^2 - (pred(z) - mtcars$mpg[23:32])^2)
})

test_that("negation and local importance refuse what they cannot do", {
  fit <- ccforest(mpg ~ ., data = mtcars, n_tree = 10, seed = 1)
  expect_error(importance(fit, type = "negation"),
               "Negation importance needs held-out data: call importance\\(fit, new_data = ..., type = \"negation\"\\)")
  expect_error(importance(fit, local = TRUE),
               "local = TRUE measures each held-out row's loss: give the held-out rows as `new_data`")
  expect_error(importance(fit, type = "projection", local = TRUE),
               "which projection importance \\(computed from the forest alone\\) has none of")
  expect_error(importance(fit, type = "negation", new_data = mtcars[, -1]),
               "`new_data` has no output column `mpg`: negation importance compares")
  expect_error(importance(fit, type = "negation", new_data = mtcars, local = NA), "`local`")
  expect_error(ccforest(mpg ~ ., data = mtcars, n_tree = 5, importance = "negation",
                        sampling = "projection"),
               "importance = \"negation\" at fit time needs out-of-bag rows")
  expect_error(importance(fit, type = "shap"), "`type` must be one of \"projection\", \"permutation\", \"negation\"")
})
