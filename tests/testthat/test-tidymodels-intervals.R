# tidymodels' quantile regression mode for the engine, and probably's
# conformal intervals run on a ccforest workflow.

skip_if_not_installed("parsnip")
skip_if_not_installed("workflows")
skip_if_not_installed("hardhat")
skip_if_not_installed("tibble")

sim <- function(n) {
  x1 <- stats::runif(n, -2, 2)
  x2 <- stats::runif(n, -2, 2)
  data.frame(x1 = x1, x2 = x2, y = sin(1.5 * x1) + 0.5 * x2 + stats::rnorm(n, sd = 0.1 + 0.4 * abs(x1)))
}

test_that("the engine fits parsnip's quantile regression mode and predicts its quantiles", {
  library(parsnip)
  skip_if_not("quantile regression" %in% parsnip::get_model_env()$rand_forest_modes)
  set.seed(1)
  d <- sim(200)
  spec <- rand_forest(trees = 40) |>
    set_engine("ccforest", seed = 3) |>
    set_mode("quantile regression", quantile_levels = c(0.1, 0.5, 0.9))
  fit <- fit(spec, y ~ ., data = d)
  forest <- extract_fit_engine(fit)
  expect_false(is.null(forest$quantile))
  pred <- predict(fit, d[1:5, ])
  expect_named(pred, ".pred_quantile")
  expect_s3_class(pred$.pred_quantile, "quantile_pred")
  values <- as.matrix(pred$.pred_quantile)
  expect_equal(values, predict(forest, d[1:5, ], type = "quantiles", quantiles = c(0.1, 0.5, 0.9)),
               ignore_attr = TRUE)
  expect_identical(hardhat::extract_quantile_levels(pred$.pred_quantile), c(0.1, 0.5, 0.9))
  # The same through a workflow, which is what tune and probably use.
  wf <- workflows::workflow(y ~ ., spec) |> fit(data = d)
  expect_equal(as.matrix(predict(wf, d[1:5, ])$.pred_quantile), values)
  # multi_predict() (how tune scores smaller numbers of trees) gives the
  # quantiles of the first k trees.
  multi <- multi_predict(fit, d[1:3, ], trees = c(5, 40))
  expect_identical(multi$.pred[[2]]$trees, c(5L, 40L))
  expect_equal(as.matrix(multi$.pred[[2]]$.pred_quantile)[1, ],
               predict(forest, d[2, ], type = "quantiles", quantiles = c(0.1, 0.5, 0.9),
                       n_tree = 5)[1, ], ignore_attr = TRUE)
  # The engine is registered for the mode once.
  engines <- parsnip::get_model_env()$rand_forest
  expect_equal(sum(engines$engine == "ccforest" & engines$mode == "quantile regression"), 1)
  expect_false(ccforest:::register_parsnip_quantile())
})

test_that("tune tunes the engine in quantile regression mode", {
  skip_on_cran()
  skip_if_not_installed("tune")
  skip_if_not_installed("rsample")
  skip_if_not_installed("yardstick")
  library(parsnip)
  skip_if_not("quantile regression" %in% parsnip::get_model_env()$rand_forest_modes)
  set.seed(5)
  d <- sim(150)
  d$x3 <- stats::runif(150)
  spec <- rand_forest(trees = 20, mtry = tune::tune()) |>
    set_engine("ccforest", seed = 1) |>
    set_mode("quantile regression", quantile_levels = c(0.1, 0.5, 0.9))
  res <- tune::tune_grid(workflows::workflow(y ~ ., spec), rsample::vfold_cv(d, 2),
                         grid = data.frame(mtry = c(1, 3)))
  metrics <- tune::collect_metrics(res)
  expect_identical(unique(metrics$.metric), "weighted_interval_score")
  expect_true(all(is.finite(metrics$mean)))
})

covered <- function(intervals, y) mean(y >= intervals$.pred_lower & y <= intervals$.pred_upper)

test_that("probably's split and quantile conformal intervals work on a ccforest workflow", {
  skip_if_not_installed("probably")
  library(parsnip)
  set.seed(2)
  train <- sim(300)
  cal <- sim(300)
  test <- sim(1000)
  wf <- workflows::workflow(y ~ ., rand_forest(trees = 50) |>
                              set_engine("ccforest", seed = 1) |>
                              set_mode("regression")) |>
    fit(data = train)
  split <- probably::int_conformal_split(wf, cal_data = cal)
  iv <- predict(split, test, level = 0.9)
  expect_named(iv, c(".pred", ".pred_lower", ".pred_upper"))
  expect_equal(iv$.pred, unname(predict(workflows::extract_fit_engine(wf), test)))
  # Split conformal on 300 calibration rows: coverage ~ Beta, mean
  # ceiling(0.9 * 301) / 301, plus the test set's binomial noise.
  expected <- ceiling(0.9 * 301) / 301
  sd <- sqrt(expected * (1 - expected) * (1 / 302 + 1 / 1000))
  expect_lt(abs(covered(iv, test$y) - expected), 3 * sd)

  skip_if_not_installed("quantregForest")
  skip_if_not_installed("dplyr")
  # probably 1.2.0 calls dplyr's select() unqualified when it fits its own
  # quantile forest, so it finds whichever select() the global environment or
  # the search path offers first (MASS's, once caret's tests attached it):
  # dplyr's, for this test.
  assign("select", dplyr::select, envir = globalenv())
  withr::defer(rm("select", envir = globalenv()))
  quantile <- probably::int_conformal_quantile(wf, train_data = train, cal_data = cal,
                                               level = 0.9, ntree = 100)
  iv <- predict(quantile, test)
  expect_lt(abs(covered(iv, test$y) - expected), 3 * sd)
})

test_that("probably's cross-validation conformal intervals work on resampled ccforest workflows", {
  skip_if_not_installed("probably")
  skip_if_not_installed("rsample")
  skip_if_not_installed("tune")
  library(parsnip)
  set.seed(3)
  train <- sim(250)
  test <- sim(500)
  wf <- workflows::workflow(y ~ ., rand_forest(trees = 30) |>
                              set_engine("ccforest", seed = 1) |>
                              set_mode("regression"))
  folds <- rsample::vfold_cv(train, v = 5)
  res <- tune::fit_resamples(wf, folds,
                             control = tune::control_resamples(save_pred = TRUE, extract = I))
  cv <- probably::int_conformal_cv(res)
  iv <- predict(cv, test, level = 0.9)
  expect_named(iv, c(".pred_lower", ".pred", ".pred_upper"), ignore.order = TRUE)
  expect_true(all(iv$.pred_lower < iv$.pred & iv$.pred < iv$.pred_upper))
  # CV+ guarantees 1 - 2 alpha; in practice about the level.
  expect_gt(covered(iv, test$y), 0.8)
})

test_that("probably's full conformal intervals refit ccforest workflows", {
  skip_if_not_installed("probably")
  skip_if_not_installed("mgcv")
  library(parsnip)
  set.seed(4)
  train <- sim(60)
  wf <- workflows::workflow(y ~ ., rand_forest(trees = 10) |>
                              set_engine("ccforest", seed = 1) |>
                              set_mode("regression")) |>
    fit(data = train)
  full <- probably::int_conformal_full(
    wf, train_data = train,
    control = probably::control_conformal_full(method = "grid", trial_points = 10, seed = 1)
  )
  iv <- predict(full, sim(2), level = 0.8)
  expect_identical(nrow(iv), 2L)
  expect_true(all(is.finite(iv$.pred_lower) & iv$.pred_lower < iv$.pred_upper))
})

test_that("the quantile regression mode caps min_n by the analysis set's rows", {
  skip_if_not_installed("parsnip")
  skip_if_not("quantile regression" %in% parsnip::get_model_env()$rand_forest_modes)
  d <- mtcars[1:12, ]
  spec <- parsnip::set_mode(
    parsnip::set_engine(parsnip::rand_forest(trees = 5, min_n = 40), "ccforest"),
    "quantile regression", quantile_levels = c(0.25, 0.75)
  )
  warnings <- character(0)
  fit <- withCallingHandlers(
    parsnip::fit(spec, mpg ~ ., data = d),
    warning = function(w) {
      warnings <<- c(warnings, conditionMessage(w))
      invokeRestart("muffleWarning")
    }
  )
  expect_match(warnings, "40 samples were requested but there were 12 rows", all = FALSE)
  expect_identical(parsnip::extract_fit_engine(fit)$options$min_split, 12L)
})
