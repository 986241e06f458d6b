# The parsnip engine, used the way tidymodels users use it: through a
# workflow with a recipe, resampled and tuned.

skip_if_not_installed("parsnip")
skip_if_not_installed("workflows")
skip_if_not_installed("recipes")
skip_if_not_installed("rsample")
skip_if_not_installed("tune")
skip_if_not_installed("yardstick")
skip_if_not_installed("dials")
skip_if_not_installed("hardhat")
skip_if_not_installed("tibble")

# Loading parsnip registers the engine (through the hook set in .onLoad).
suppressPackageStartupMessages(loadNamespace("parsnip"))

ccf_spec <- function(mode, ...) {
  parsnip::set_mode(parsnip::set_engine(parsnip::rand_forest(...), "ccforest"), mode)
}

test_that("the engine is registered for each mode parsnip has, once", {
  engines <- parsnip::show_engines("rand_forest")
  ours <- engines[engines$engine == "ccforest", ]
  # and quantile and censored regression where parsnip has them
  # (test-tidymodels-intervals.R, test-parsnip-survival.R)
  has_modes <- parsnip::get_model_env()$rand_forest_modes
  modes <- c("classification", "regression",
             intersect(c("quantile regression", "censored regression"), has_modes))
  expect_setequal(ours$mode, modes)
  # Registering again is harmless.
  expect_false(register_parsnip_engine())
  expect_equal(sum(parsnip::show_engines("rand_forest")$engine == "ccforest"), length(modes))
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
  # The paper's variant is an engine argument like any other.
  paper <- parsnip::fit(
    parsnip::set_engine(parsnip::set_mode(parsnip::rand_forest(trees = 5), "classification"),
                        "ccforest", variant = "paper", seed = 1),
    Species ~ ., data = iris)
  expect_identical(paper$fit$options$variant, "paper")
  expect_identical(paper$fit$options$max_directions, 0L)
})

test_that("oob_error = FALSE is an engine argument, as ranger's oob.error", {
  spec <- parsnip::set_engine(
    parsnip::set_mode(parsnip::rand_forest(trees = 10), "regression"),
    "ccforest", sampling = "bagging", oob_error = FALSE, seed = 2
  )
  fitted <- parsnip::fit(spec, mpg ~ ., data = mtcars)
  expect_false(fitted$fit$options$oob_error)
  expect_null(fitted$fit$oob_error)
  with <- ccforest(mpg ~ ., data = mtcars, n_tree = 10, sampling = "bagging", seed = 2,
                   n_thread = 1)
  expect_identical(fitted$fit$forest, with$forest)
  expect_equal(predict(fitted, mtcars)$.pred, unname(predict(with, mtcars)))
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

test_that("min_n and mtry are capped by the rows and columns of the analysis set", {
  small <- iris[c(1:8, 51:58, 101:108), ]
  spec <- ccf_spec("classification", trees = 5, mtry = 10, min_n = 40)
  expect_match(paste(deparse(parsnip::translate(spec)$method$fit$func), collapse = ""),
               "ccforest_parsnip_fit")
  warnings <- character(0)
  fitted <- withCallingHandlers(
    parsnip::fit(spec, Species ~ ., data = small),
    warning = function(w) {
      warnings <<- c(warnings, conditionMessage(w))
      invokeRestart("muffleWarning")
    }
  )
  expect_match(warnings, "40 samples were requested but there were 24 rows", all = FALSE)
  expect_match(warnings, "10 columns were requested but there were 4 predictors", all = FALSE)
  expect_identical(fitted$fit$options[c("mtry", "min_split")], list(mtry = 4L, min_split = 24L))
  expect_gt(mean(tree_sizes(fitted$fit)$leaves), 1)
  # The call records what parsnip asked for, with the cap.
  expect_identical(fitted$fit$call$min_split, 24L)
  # Tuning min_n beyond a fold's rows scores forests, not single leaves.
  skip_on_cran()
  set.seed(3)
  folds <- rsample::vfold_cv(small, v = 2)
  wf <- workflows::add_model(
    workflows::add_formula(workflows::workflow(), Species ~ .),
    ccf_spec("classification", trees = 10, min_n = parsnip::tune())
  )
  tuned <- suppressMessages(suppressWarnings(tune::tune_grid(
    wf, resamples = folds, grid = data.frame(min_n = c(2L, 40L)),
    metrics = yardstick::metric_set(yardstick::accuracy, yardstick::roc_auc)
  )))
  metrics <- tune::collect_metrics(tuned)
  expect_false(anyNA(metrics$mean))
  expect_gt(min(metrics$mean[metrics$.metric == "accuracy"]), 0.5)
})

test_that("parsnip fits are quiet unless asked, and sample_fraction can be tuned", {
  spec <- ccf_spec("regression", trees = 5)
  expect_silent(parsnip::fit(spec, mpg ~ ., data = mtcars))
  tuned_spec <- parsnip::set_engine(
    parsnip::set_mode(parsnip::rand_forest(trees = 5), "regression"), "ccforest",
    sample_fraction = parsnip::tune(), replace = FALSE
  )
  wf <- workflows::add_model(workflows::add_formula(workflows::workflow(), mpg ~ .), tuned_spec)
  params <- tune::extract_parameter_set_dials(wf)
  expect_identical(params$id, "sample_fraction")
  expect_s3_class(params$object[[1]], "quant_param")
  expect_identical(params$object[[1]]$label, dials::sample_prop()$label)
  final <- parsnip::fit(tune::finalize_workflow(wf, data.frame(sample_fraction = 0.5)),
                        data = mtcars)
  engine <- workflows::extract_fit_engine(final)
  expect_identical(engine$options[c("sample_fraction", "replace")],
                   list(sample_fraction = 0.5, replace = FALSE))
  expect_false(is.null(engine$oob_error))
})

test_that("the dials parameters of the engine arguments list the valid values", {
  projection <- ccf_projection()
  expect_s3_class(projection, "qual_param")
  expect_identical(projection$values, c("cca", "rotation", "pca", "axis"))
  expect_identical(ccf_split_rule()$values, c("entropy", "gini"))
  expect_identical(ccf_sampling()$values, c("projection", "bagging"))
  expect_identical(ccf_projection(values = c("axis", "cca"))$values, c("axis", "cca"))
  expect_error(ccf_projection(values = c("cca", "random")),
               "`values` must be among \"cca\", \"rotation\", \"pca\", \"axis\"; \"random\" is not")
  expect_error(ccf_sampling(values = 1), "`values` must be a character vector of one or more of")
  expect_error(ccf_split_rule(values = character(0)), "`values` must be a character vector")
  grid <- dials::grid_regular(ccf_projection(), ccf_sampling(), levels = c(4, 2))
  expect_equal(nrow(grid), 8L)
})

test_that("the options beyond the paper have dials parameters too", {
  directions <- ccf_max_directions()
  expect_s3_class(directions, "quant_param")
  expect_identical(unname(unlist(dials::range_get(directions))), c(1L, 5L))
  ratio <- ccf_direction_ratio()
  expect_s3_class(ratio, "quant_param")
  expect_identical(ratio$type, "double")
  expect_identical(unname(unlist(dials::range_get(ccf_direction_ratio(range = c(0.5, 1))))),
                   c(0.5, 1))
  expect_error(ccf_direction_ratio(range = c(0.5, 2)),
               "`range` must be two increasing numbers between 0 and 1, not a double vector of length 2 (c(0.5, 2)).",
               fixed = TRUE)
  expect_error(ccf_direction_ratio(range = "a"),
               "`range` must be two increasing numbers between 0 and 1, not a character vector")
  expect_identical(ccf_axis_candidates()$values, c("none", "random", "search"))
  expect_identical(unname(unlist(dials::range_get(ccf_output_bins(range = c(2, 6))))), c(2L, 6L))
  expect_error(ccf_max_directions(range = c(3, 1)),
               "`range` must be two increasing whole numbers >= 1, not a double vector of length 2 (c(3, 1)).",
               fixed = TRUE)
  expect_error(ccf_output_bins(range = c(1, 4)),
               "`range` must be two whole numbers >= 2, not a double vector of length 2 (c(1, 4)).",
               fixed = TRUE)
  expect_error(ccf_axis_candidates(values = TRUE), paste0(
    "`values` must be a character vector of one or more of \"none\", \"random\", \"search\", ",
    "not a logical vector of length 1 (TRUE)."), fixed = TRUE)
  expect_error(ccf_axis_candidates(values = "yes"),
               "`values` must be among \"none\", \"random\", \"search\"; \"yes\" is not.",
               fixed = TRUE)
  spec <- parsnip::set_engine(
    parsnip::set_mode(parsnip::rand_forest(trees = 10), "regression"), "ccforest",
    max_directions = parsnip::tune(), axis_candidates = parsnip::tune(),
    output_bins = parsnip::tune(), direction_ratio = parsnip::tune()
  )
  wf <- workflows::add_model(workflows::add_formula(workflows::workflow(), mpg ~ .), spec)
  params <- tune::extract_parameter_set_dials(wf)
  expect_setequal(params$id, c("max_directions", "axis_candidates", "output_bins",
                               "direction_ratio"))
  set.seed(6)
  grid <- dials::grid_random(params, size = 2)
  folds <- rsample::vfold_cv(mtcars, v = 2)
  tuned <- tune::tune_grid(wf, resamples = folds, grid = grid,
                           metrics = yardstick::metric_set(yardstick::rmse))
  expect_equal(nrow(tune::collect_metrics(tuned)), 2L)
})

test_that("tune() on engine arguments is found without a hand-made parameter set", {
  spec <- parsnip::set_engine(
    parsnip::set_mode(parsnip::rand_forest(trees = parsnip::tune()), "classification"),
    "ccforest", projection = parsnip::tune(), split_rule = parsnip::tune(),
    sampling = parsnip::tune()
  )
  wf <- workflows::add_model(workflows::add_formula(workflows::workflow(), Species ~ .), spec)
  params <- tune::extract_parameter_set_dials(wf)
  expect_setequal(params$id, c("trees", "projection", "split_rule", "sampling"))
  objects <- stats::setNames(params$object, params$id)
  expect_identical(objects$projection$values, ccf_projection()$values)
  expect_identical(objects$split_rule$values, ccf_split_rule()$values)
  expect_identical(objects$sampling$values, ccf_sampling()$values)
  # A grid made from them fits.
  set.seed(5)
  grid <- dials::grid_random(dials::finalize(params, iris[, 1:4]), size = 2)
  grid$trees <- c(5L, 8L)
  folds <- rsample::vfold_cv(iris, v = 2)
  tuned <- tune::tune_grid(wf, resamples = folds, grid = grid,
                           metrics = yardstick::metric_set(yardstick::accuracy))
  expect_equal(nrow(tune::collect_metrics(tuned)), 2L)
  expect_true(all(tune::collect_metrics(tuned)$n == 2L))
})

test_that("multi_predict() gives the predictions of the first `trees` trees", {
  spec <- ccf_spec("classification", trees = 30)
  fitted <- parsnip::fit(spec, Species ~ ., data = iris)
  rows <- iris[c(1, 60, 120, 135), ]
  expect_true(parsnip::has_multi_predict(fitted))
  expect_identical(parsnip::multi_predict_args(fitted), "trees")
  probs <- parsnip::multi_predict(fitted, rows, type = "prob", trees = c(20, 3))
  expect_equal(nrow(probs), nrow(rows))
  for (i in seq_len(nrow(rows))) {
    piece <- probs$.pred[[i]]
    expect_named(piece, c("trees", paste0(".pred_", levels(iris$Species))))
    expect_identical(piece$trees, c(3L, 20L))
    for (k in 1:2) {
      reference <- predict(fitted$fit, rows[i, ], type = "prob", n_tree = piece$trees[[k]])
      expect_equal(unlist(piece[k, -1], use.names = FALSE), as.vector(reference))
    }
  }
  classes <- parsnip::multi_predict(fitted, rows, trees = 5)
  expect_identical(vapply(classes$.pred, function(p) as.character(p$.pred_class), ""),
                   as.character(predict(fitted$fit, rows, n_tree = 5)))
  everything <- parsnip::multi_predict(fitted, rows)
  expect_identical(everything$.pred[[1]]$trees, 30L)

  reg <- parsnip::fit(ccf_spec("regression", trees = 12), mpg ~ ., data = mtcars)
  numbers <- parsnip::multi_predict(reg, mtcars[1:3, ], trees = c(1, 12))
  expect_named(numbers$.pred[[2]], c("trees", ".pred"))
  expect_equal(numbers$.pred[[2]]$.pred,
               c(predict(reg$fit, mtcars[2, ], n_tree = 1), predict(reg$fit, mtcars[2, ])))

  expect_error(parsnip::multi_predict(fitted, rows, trees = 31),
               "`trees` must be whole numbers between 1 and 30 \\(the trees in the forest\\), not 31")
  expect_error(parsnip::multi_predict(fitted, rows, trees = 2.5), "`trees` must be whole numbers")
  expect_error(parsnip::multi_predict(fitted, rows, type = "numeric"),
               "`type` must be one of \"class\", \"prob\"")
  expect_error(parsnip::multi_predict(reg, mtcars, type = "prob"), "`type` must be one of \"numeric\"")
  expect_error(parsnip::multi_predict(fitted, rows, tress = 3),
               "Unknown argument `tress` in multi_predict\\(\\); did you mean `trees`")
})

test_that("tuning `trees` fits one forest per other setting, the largest", {
  skip_on_cran()
  set.seed(3)
  folds <- rsample::vfold_cv(iris, v = 2, strata = Species)
  spec <- parsnip::set_engine(
    parsnip::set_mode(parsnip::rand_forest(trees = parsnip::tune(), min_n = parsnip::tune()),
                      "classification"),
    "ccforest", seed = 11
  )
  wf <- workflows::add_model(workflows::add_formula(workflows::workflow(), Species ~ .), spec)
  grid <- expand.grid(trees = c(2L, 6L, 15L), min_n = c(2L, 30L))
  tuned <- tune::tune_grid(
    wf, resamples = folds, grid = grid,
    metrics = yardstick::metric_set(yardstick::accuracy),
    control = tune::control_grid(extract = function(x) workflows::extract_fit_engine(x)$options$n_tree)
  )
  # Every configuration, also trees = 2 and 6, was predicted from a forest of 15 trees.
  extracts <- tune::collect_extracts(tuned)
  expect_equal(nrow(extracts), nrow(grid) * 2L)
  expect_true(all(unlist(extracts$.extracts) == 15L))
  # And its metrics are those of a forest of that many trees fitted directly:
  # tree t depends only on the data, the options, the seed and t.
  metrics <- tune::collect_metrics(tuned, summarize = FALSE)
  for (i in seq_len(nrow(grid))) {
    for (f in seq_along(folds$splits)) {
      split <- folds$splits[[f]]
      direct <- ccforest(Species ~ ., data = rsample::analysis(split), n_tree = grid$trees[[i]],
                         min_split = grid$min_n[[i]], seed = 11, n_thread = 1)
      held_out <- rsample::assessment(split)
      accuracy <- mean(predict(direct, held_out) == held_out$Species)
      row <- metrics$trees == grid$trees[[i]] & metrics$min_n == grid$min_n[[i]] &
        metrics$id == folds$id[[f]]
      expect_equal(metrics$.estimate[row], accuracy)
    }
  }
})

test_that("tune's min_grid() for rand_forest leaves other engines' grids alone", {
  ranger_spec <- parsnip::set_engine(
    parsnip::set_mode(parsnip::rand_forest(trees = parsnip::tune()), "classification"), "ranger"
  )
  grid <- tibble::tibble(trees = c(5L, 10L))
  expect_equal(nrow(tune::min_grid(ranger_spec, grid)), 2L)
  ours <- parsnip::set_engine(ranger_spec, "ccforest")
  reduced <- tune::min_grid(ours, grid)
  expect_equal(reduced$trees, 10L)
  expect_identical(reduced$.submodels[[1]], list(trees = 5L))
})

test_that("case weights reach ccforest() as case_weights, through fit() and workflows", {
  spec <- parsnip::set_engine(
    parsnip::set_mode(parsnip::rand_forest(trees = 10), "classification"), "ccforest", seed = 1
  )
  expect_true("weights" %in% parsnip::get_fit("rand_forest")$value[[
    which(parsnip::get_fit("rand_forest")$engine == "ccforest")[[1]]]]$protect)
  w <- rep(c(0, 1, 3), 50)
  direct <- ccforest(iris[, 1:4], iris$Species, n_tree = 10, seed = 1, case_weights = w,
                     n_thread = 1, verbose = FALSE)
  fitted <- parsnip::fit(spec, Species ~ ., data = iris,
                         case_weights = hardhat::importance_weights(w))
  expect_true(fitted$fit$options$case_weights)
  expect_identical(fitted$fit$forest, direct$forest)

  data <- iris
  data$w <- hardhat::importance_weights(w)
  wf <- workflows::add_model(
    workflows::add_formula(workflows::add_case_weights(workflows::workflow(), w), Species ~ .),
    spec
  )
  expect_identical(workflows::extract_fit_engine(parsnip::fit(wf, data))$forest, direct$forest)
  # Frequency weights too; without weights the forest is unweighted.
  counts <- parsnip::fit(spec, Species ~ ., data = iris,
                         case_weights = hardhat::frequency_weights(rep(1:3, 50)))
  expect_identical(counts$fit$forest,
                   ccforest(iris[, 1:4], iris$Species, n_tree = 10, seed = 1,
                            case_weights = rep(1:3, 50), n_thread = 1, verbose = FALSE)$forest)
  expect_false(parsnip::fit(spec, Species ~ ., data = iris)$fit$options$case_weights)
})
