# The caret model list, used through caret::train() with resampling.

skip_if_not_installed("caret")

test_that("the model list has what caret needs", {
  info <- ccforest_caret()
  expect_true(all(c("library", "type", "parameters", "grid", "fit", "predict", "prob",
                    "varImp", "predictors", "levels", "sort") %in% names(info)))
  expect_identical(info$parameters$parameter, c("mtry", "min_split"))
  expect_setequal(info$type, c("Classification", "Regression"))
})

test_that("the default grid suits the number of features", {
  info <- ccforest_caret()
  grid <- info$grid(iris[, 1:4], iris$Species, len = 3)
  expect_named(grid, c("mtry", "min_split"))
  expect_true(all(grid$mtry >= 1 & grid$mtry <= 4))
  expect_true(3L %in% grid$mtry) # the paper's default for D = 4
  expect_true(2L %in% grid$min_split)
  wide <- info$grid(as.data.frame(matrix(0, 5, 60)), factor(1:5), len = 4)
  expect_true(all(wide$mtry >= 1 & wide$mtry <= 60))
  expect_true(7L %in% wide$mtry) # ceiling(log2(60) + 1)
  expect_equal(length(unique(wide$mtry)), 4L)
  regression <- info$grid(mtcars[, -1], mtcars$mpg, len = 2)
  expect_true(6L %in% regression$min_split)
  set.seed(1)
  random <- info$grid(iris[, 1:4], iris$Species, len = 5, search = "random")
  expect_equal(nrow(random), 5L)
  expect_true(all(random$mtry >= 1 & random$mtry <= 4))
  # Simplest models first: few features per split, large nodes.
  sorted <- info$sort(grid)
  expect_identical(sorted$mtry[[1L]], min(grid$mtry))
  expect_identical(sorted$min_split[[1L]], max(grid$min_split))
})

test_that("caret::train() cross-validates a classifier with class probabilities", {
  skip_on_cran()
  set.seed(10)
  fit <- caret::train(
    iris[, 1:4], iris$Species,
    method = ccforest_caret(),
    tuneGrid = expand.grid(mtry = c(1, 2, 4), min_split = c(2, 10)),
    trControl = caret::trainControl(method = "cv", number = 5, classProbs = TRUE),
    n_tree = 50, n_thread = 1
  )
  expect_s3_class(fit$finalModel, "ccforest")
  expect_equal(nrow(fit$results), 6L)
  expect_gt(max(fit$results$Accuracy), 0.9)
  expect_identical(fit$finalModel$options$n_tree, 50L)
  expect_identical(fit$finalModel$options$mtry, as.integer(fit$bestTune$mtry))

  classes <- predict(fit, iris)
  expect_s3_class(classes, "factor")
  expect_identical(levels(classes), levels(iris$Species))
  probs <- predict(fit, iris, type = "prob")
  expect_named(probs, levels(iris$Species))
  expect_equal(unname(rowSums(probs)), rep(1, nrow(iris)), tolerance = 1e-8)
  best <- levels(iris$Species)[max.col(as.matrix(probs), ties.method = "first")]
  expect_identical(as.character(classes), best)

  vi <- caret::varImp(fit)
  expect_setequal(rownames(vi$importance), names(iris)[1:4])
  expect_equal(max(vi$importance$Overall), 100)
  raw <- caret::varImp(fit, scale = FALSE)$importance
  projection <- importance(fit$finalModel)
  expect_equal(raw[names(projection), "Overall"], as.vector(projection))
  expect_true(all(caret::predictors(fit) %in% names(iris)[1:4]))
  expect_identical(fit$modelInfo$levels(fit$finalModel), levels(iris$Species))
})

test_that("caret::train() tunes a regression forest on a real dataset", {
  skip_on_cran()
  skip_if_not_installed("mlbench")
  data("BostonHousing", package = "mlbench", envir = environment())
  set.seed(11)
  fit <- caret::train(
    BostonHousing[, names(BostonHousing) != "medv"], BostonHousing$medv,
    method = ccforest_caret(),
    tuneLength = 2,
    trControl = caret::trainControl(method = "cv", number = 5),
    n_tree = 30, n_thread = 1
  )
  expect_equal(nrow(fit$results), 4L)
  # A constant predictor has R^2 = 0 and an RMSE of sd(medv) = 9.2.
  expect_gt(max(fit$results$Rsquared), 0.75)
  expect_lt(min(fit$results$RMSE), 5)
  # The factor chas stays one feature.
  expect_identical(fit$finalModel$blueprint$feature_type[
    fit$finalModel$blueprint$feature_names == "chas"], "factor")
  predicted <- predict(fit, BostonHousing[1:5, ])
  expect_type(predicted, "double")
  expect_length(predicted, 5L)
})

test_that("the grid never proposes a min_split above the training rows", {
  info <- ccforest_caret()
  small <- info$grid(mtcars[1:20, -1], mtcars$mpg[1:20], len = 3)
  expect_true(all(small$min_split <= 20))
  expect_setequal(small$min_split, c(6L, 15L))
  tiny <- info$grid(mtcars[1:4, -1], mtcars$mpg[1:4], len = 3)
  expect_identical(unique(tiny$min_split), 4L)
  set.seed(2)
  random <- info$grid(mtcars[1:5, -1], mtcars$mpg[1:5], len = 20, search = "random")
  expect_true(all(random$min_split <= 5))
})

test_that("caret's weights become ccforest's case_weights", {
  w <- rep(c(0, 1, 2), 50)
  param <- data.frame(mtry = 2, min_split = 2)
  via_caret <- ccforest_caret()$fit(iris[, 1:4], iris$Species, wts = w, param = param,
                                    n_tree = 10, seed = 1, n_thread = 1)
  direct <- ccforest(iris[, 1:4], iris$Species, case_weights = w, mtry = 2, min_split = 2,
                     n_tree = 10, seed = 1, n_thread = 1)
  expect_true(via_caret$options$case_weights)
  expect_identical(via_caret$forest, direct$forest)
  unweighted <- ccforest_caret()$fit(iris[, 1:4], iris$Species, wts = NULL, param = param,
                                     n_tree = 10, seed = 1, n_thread = 1)
  expect_false(unweighted$options$case_weights)
  expect_error(
    ccforest_caret()$fit(iris[, 1:4], iris$Species, wts = NULL, param = param,
                         case_weights = w),
    "Give case weights to caret::train\\(\\) as `weights`, not `case_weights`"
  )
})

test_that("caret's final model records a call without the training data", {
  skip_on_cran()
  set.seed(3)
  x <- data.frame(matrix(rnorm(3000 * 10), 3000, 10))
  y <- x$X1 - x$X2 + rnorm(3000)
  fit <- caret::train(x, y, method = ccforest_caret(),
                      tuneGrid = data.frame(mtry = 3, min_split = 6),
                      trControl = caret::trainControl(method = "none"),
                      n_tree = 5, seed = 2, n_thread = 1)
  model <- fit$finalModel
  expect_identical(model$call$x, as.name("<data.frame: 3000 x 10>"))
  expect_lt(length(serialize(model$call, NULL)), 1000)
  expect_lt(length(capture.output(print(model))), 20L)
  # caret adds a few small elements of its own to the model; the data are 240 KB.
  direct <- ccforest(x, y, mtry = 3, min_split = 6, n_tree = 5, seed = 2, n_thread = 1)
  expect_lt(abs(length(serialize(model, NULL)) - length(serialize(direct, NULL))), 5000)
})

test_that("sampling arguments pass through caret, and its fits are quiet", {
  param <- data.frame(mtry = 2, min_split = 2)
  fit <- expect_silent(ccforest_caret()$fit(iris[, 1:4], iris$Species, wts = NULL, param = param,
                                            n_tree = 5, seed = 1, sample_fraction = 0.5,
                                            replace = FALSE))
  expect_identical(fit$options[c("sample_fraction", "replace")],
                   list(sample_fraction = 0.5, replace = FALSE))
  expect_false(is.null(fit$oob_error))
  balanced <- ccforest_caret()$fit(iris[, 1:4], iris$Species, wts = NULL, param = param,
                                   n_tree = 5, seed = 1,
                                   sample_fraction = c(setosa = 0.1, versicolor = 0.1,
                                                       virginica = 0.1))
  expect_identical(balanced$options$sample_fraction,
                   c(setosa = 0.1, versicolor = 0.1, virginica = 0.1))
})

test_that("oob_error = FALSE passes through caret to the forest", {
  param <- data.frame(mtry = 2, min_split = 2)
  fit <- ccforest_caret()$fit(iris[, 1:4], iris$Species, wts = NULL, param = param,
                              n_tree = 5, seed = 1, sampling = "bagging", oob_error = FALSE)
  expect_false(fit$options$oob_error)
  expect_null(fit$oob_error)
  with <- ccforest_caret()$fit(iris[, 1:4], iris$Species, wts = NULL, param = param,
                               n_tree = 5, seed = 1, sampling = "bagging")
  expect_identical(fit$forest, with$forest)
  set.seed(3)
  trained <- caret::train(iris[, 1:4], iris$Species, method = ccforest_caret(),
                          tuneGrid = param, n_tree = 5, sample_fraction = 0.7,
                          oob_error = FALSE,
                          trControl = caret::trainControl(method = "cv", number = 2))
  # (caret's own `sampling` is another thing: sample_fraction gives the
  # trees samples here.)
  expect_false(trained$finalModel$options$oob_error)
  expect_identical(levels(predict(trained, iris[1:3, ])), levels(iris$Species))
})

test_that("caret::train() passes weights through to the final model", {
  skip_on_cran()
  w <- rep(c(1, 4), length.out = nrow(mtcars))
  set.seed(12)
  fit <- caret::train(
    mtcars[, -1], mtcars$mpg, weights = w,
    method = ccforest_caret(),
    tuneGrid = data.frame(mtry = 3, min_split = 6),
    trControl = caret::trainControl(method = "cv", number = 3),
    n_tree = 20, seed = 4, n_thread = 1
  )
  direct <- ccforest(mtcars[, -1], mtcars$mpg, case_weights = w, mtry = 3, min_split = 6,
                     n_tree = 20, seed = 4, n_thread = 1)
  expect_identical(fit$finalModel$forest, direct$forest)
})
