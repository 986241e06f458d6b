# The parsnip engine, used the way tidymodels users use it: through a
# workflow with a recipe, resampled and tuned.

skip_if_not_installed("parsnip")
skip_if_not_installed("workflows")
skip_if_not_installed("recipes")
skip_if_not_installed("rsample")
skip_if_not_installed("tune")
skip_if_not_installed("yardstick")
skip_if_not_installed("dials")

# Loading parsnip registers the engine (through the hook set in .onLoad).
suppressPackageStartupMessages(loadNamespace("parsnip"))

ccf_spec <- function(mode, ...) {
  parsnip::set_mode(parsnip::set_engine(parsnip::rand_forest(...), "ccforest"), mode)
}

test_that("the engine is registered for classification and regression, once", {
  engines <- parsnip::show_engines("rand_forest")
  ours <- engines[engines$engine == "ccforest", ]
  expect_setequal(ours$mode, c("classification", "regression"))
  # Registering again is harmless.
  expect_false(register_parsnip_engine())
  expect_equal(sum(parsnip::show_engines("rand_forest")$engine == "ccforest"), 2L)
})

test_that("the main arguments map to ccforest's", {
  spec <- ccf_spec("classification", trees = 50, mtry = 3, min_n = 4)
  call <- parsnip::translate(spec)$method$fit$args
  expect_true(all(c("x", "y", "n_tree", "mtry", "min_split", "n_thread", "seed", "verbose") %in%
                    names(call)))
  fitted <- parsnip::fit(spec, Species ~ ., data = iris)
  expect_identical(fitted$fit$options[c("n_tree", "mtry", "min_split")],
                   list(n_tree = 50L, mtry = 3L, min_split = 4L))
})

test_that("a classification workflow fits and predicts consistent classes and probabilities", {
  set.seed(1)
  split <- rsample::initial_split(iris, prop = 0.7, strata = Species)
  train <- rsample::training(split)
  test <- rsample::testing(split)
  wf <- workflows::add_model(
    workflows::add_recipe(workflows::workflow(), recipes::recipe(Species ~ ., data = train)),
    ccf_spec("classification", trees = 50)
  )
  fitted <- parsnip::fit(wf, data = train)
  engine_fit <- workflows::extract_fit_engine(fitted)
  expect_s3_class(engine_fit, "ccforest")
  expect_identical(engine_fit$options$n_tree, 50L)

  classes <- predict(fitted, test)
  probs <- predict(fitted, test, type = "prob")
  expect_identical(names(classes), ".pred_class")
  expect_identical(names(probs), paste0(".pred_", levels(iris$Species)))
  expect_equal(nrow(classes), nrow(test))
  expect_equal(unname(rowSums(probs)), rep(1, nrow(test)), tolerance = 1e-8)
  best <- levels(iris$Species)[max.col(as.matrix(probs), ties.method = "first")]
  expect_identical(as.character(classes$.pred_class), best)
  expect_gt(mean(classes$.pred_class == test$Species), 0.85)

  augmented <- parsnip::augment(fitted, test)
  expect_true(all(c(".pred_class", ".pred_setosa", ".pred_versicolor", ".pred_virginica") %in%
                    names(augmented)))
  expect_equal(nrow(augmented), nrow(test))

  # Rows with missing predictors keep their place and get a prediction.
  holes <- test
  holes$Sepal.Length[c(1, 5)] <- NA
  holes$Petal.Width[2] <- NA
  with_na <- predict(fitted, holes)
  expect_equal(nrow(with_na), nrow(test))
  expect_false(anyNA(with_na$.pred_class))
})

test_that("factor predictors reach ccforest as factors", {
  set.seed(2)
  n <- 200
  data <- data.frame(x = stats::rnorm(n), g = factor(sample(c("a", "b", "c"), n, replace = TRUE)))
  data$y <- data$x + c(a = -2, b = 0, c = 2)[as.character(data$g)] + stats::rnorm(n, sd = 0.1)
  fitted <- parsnip::fit(ccf_spec("regression", trees = 30), y ~ ., data = data)
  expect_identical(fitted$fit$blueprint$feature_names, c("x", "g"))
  expect_identical(fitted$fit$blueprint$feature_type, c("numeric", "factor"))
})

test_that("a regression model predicts .pred on the outcome's scale", {
  set.seed(3)
  data <- mtcars
  split <- rsample::initial_split(data, prop = 0.75)
  fitted <- parsnip::fit(ccf_spec("regression", trees = 50, min_n = 5), mpg ~ .,
                         data = rsample::training(split))
  test <- rsample::testing(split)
  predicted <- predict(fitted, test)
  expect_identical(names(predicted), ".pred")
  expect_equal(nrow(predicted), nrow(test))
  expect_equal(predicted$.pred, predict(fitted$fit, test))
  expect_lt(sqrt(mean((predicted$.pred - test$mpg)^2)), 0.5 * stats::sd(data$mpg) + 1)
  # The engine honours the mapped arguments.
  expect_identical(fitted$fit$options$min_split, 5L)
})

test_that("engine arguments are passed on, and set.seed() makes fits reproducible", {
  spec <- parsnip::set_engine(
    parsnip::set_mode(parsnip::rand_forest(trees = 20), "classification"),
    "ccforest", projection = "axis", importance = "projection"
  )
  set.seed(4)
  a <- parsnip::fit(spec, Species ~ ., data = iris)
  set.seed(4)
  b <- parsnip::fit(spec, Species ~ ., data = iris)
  expect_identical(a$fit$options$projection, "axis")
  expect_s3_class(a$fit$variable.importance, "ccforest_importance")
  expect_identical(a$fit$forest, b$fit$forest)
})

test_that("tune_grid() tunes mtry and min_n with cross-validation", {
  skip_on_cran()
  set.seed(2024)
  folds <- rsample::vfold_cv(iris, v = 5, strata = Species)
  wf <- workflows::add_model(
    workflows::add_recipe(workflows::workflow(), recipes::recipe(Species ~ ., data = iris)),
    ccf_spec("classification", trees = 50, mtry = parsnip::tune(), min_n = parsnip::tune())
  )
  grid <- expand.grid(mtry = c(1L, 2L, 4L), min_n = c(2L, 10L))
  tuned <- tune::tune_grid(
    wf, resamples = folds, grid = grid,
    metrics = yardstick::metric_set(yardstick::accuracy, yardstick::roc_auc)
  )
  metrics <- tune::collect_metrics(tuned)
  expect_equal(nrow(metrics), 2L * nrow(grid))
  accuracy <- metrics[metrics$.metric == "accuracy", ]
  roc_auc <- metrics[metrics$.metric == "roc_auc", ]
  expect_true(all(accuracy$n == 5L))
  expect_gt(max(accuracy$mean), 0.9)
  expect_gt(max(roc_auc$mean), 0.95)

  best <- tune::select_best(tuned, metric = "accuracy")
  final <- parsnip::fit(tune::finalize_workflow(wf, best), data = iris)
  expect_identical(workflows::extract_fit_engine(final)$options$mtry, as.integer(best$mtry))

  # A grid built by dials from the engine's parameters works too.
  params <- dials::finalize(tune::extract_parameter_set_dials(wf), iris[, 1:4])
  expect_identical(params$id, c("mtry", "min_n"))
  expect_equal(dials::range_get(params$object[[1]])$upper, 4L)
})
