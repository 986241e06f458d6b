# The mlr3 learners (R/with-mlr3.R): registered in either load order, with a
# parameter set that mirrors ccforest()'s arguments, fitting the forest
# ccforest() fits, and working in resample(), benchmark() and tuning.
# tools/install-deps.R installs mlr3, mlr3learners and mlr3tuning (Suggests).

skip_if_not_installed("mlr3")
skip_if_not_installed("paradox")

sonar_task <- function() mlr3::tsk("sonar")

# mlr3 and bbotk log every resampling and tuning step, and the warnings they
# catch (the standard errors of 20 trees are clamped, with a warning).
for (logger_name in c("mlr3", "bbotk")) {
  local({
    logger <- lgr::get_logger(logger_name)
    old <- logger$threshold
    logger$set_threshold("error")
    withr::defer(logger$set_threshold(old), envir = testthat::teardown_env())
  })
}

test_that("the learners are in mlr3's dictionary, whichever package is loaded first", {
  loadNamespace("mlr3")
  expect_true(all(c("classif.ccforest", "regr.ccforest") %in% mlr3::mlr_learners$keys()))
  expect_s3_class(mlr3::lrn("classif.ccforest"), "LearnerClassif")
  expect_s3_class(mlr3::lrn("regr.ccforest"), "LearnerRegr")

  skip_if_not_installed("callr")
  keys_after <- function(first) {
    callr::r(function(first) {
      for (pkg in first) loadNamespace(pkg)
      keys <- mlr3::mlr_learners$keys("ccforest")
      unloadNamespace("ccforest")
      list(keys, mlr3::mlr_learners$keys("ccforest"))
    }, args = list(first = first), libpath = .libPaths())
  }
  expected <- c("classif.ccforest", "regr.ccforest")
  # Unloading ccforest takes them out again, so nothing points at code gone.
  expect_equal(keys_after(c("ccforest", "mlr3")), list(expected, character()))
  expect_equal(keys_after(c("mlr3", "ccforest")), list(expected, character()))
})

test_that("every argument of ccforest() is a parameter, with ccforest()'s default", {
  arguments <- formals(ccforest:::ccforest.default)
  # Given by the task (x, y, case_weights), or with no use in mlr3: a
  # learner is a whole forest (first_tree), and no mlr3 predict type or task
  # uses quantiles, min_events or min_statistic (survival).
  not_parameters <- c("x", "y", "...", "case_weights", "first_tree", "quantiles", "min_events",
                      "min_statistic")
  for (type in c("classif", "regr")) {
    params <- mlr3::lrn(paste0(type, ".ccforest"))$param_set
    task_specific <- if (type == "classif") "output_bins" else c("split_rule", "class_weights")
    expect_setequal(setdiff(params$ids(), "mtry_ratio"),
                    setdiff(names(arguments), c(not_parameters, task_specific)))
    same_value <- function(a, b) {
      if (is.numeric(a) && is.numeric(b)) isTRUE(all.equal(as.numeric(a), as.numeric(b)))
      else identical(a, b)
    }
    defaults <- params$default
    # These are resolved at fit time (by the task, options() or the session).
    checked <- setdiff(names(defaults), c("split_rule", "n_thread", "verbose"))
    expect_true(length(checked) > 15L)
    for (id in checked) {
      expect_true(same_value(defaults[[id]], eval(arguments[[id]])),
                  label = sprintf("%s: %s's default", type, id))
    }
    expect_identical(params$ids(tags = "threads"), "n_thread")
    expect_identical(params$values$n_thread, 1L)
  }
})

test_that("the learners pass mlr3's own conformance tests (expect_learner, run_autotest)", {
  skip_on_cran()  # dozens of small fits on mlr3's generated tasks
  helpers <- list.files(system.file("testthat", package = "mlr3"), pattern = "^helper.*[.]R$",
                        full.names = TRUE)
  skip_if(length(helpers) == 0L, "this mlr3 does not install its test helpers")
  env <- new.env(parent = asNamespace("mlr3"))
  for (file in helpers) sys.source(file, envir = env)
  for (type in c("classif", "regr")) {
    # Bagging, so that the forests have the out-of-bag error the autotest
    # asks of learners with the property "oob_error".
    learner <- mlr3::lrn(paste0(type, ".ccforest"), n_tree = 20, sampling = "bagging")
    env$expect_learner(learner, check_man = TRUE)
    result <- suppressWarnings(env$run_autotest(learner))  # se of 20 trees: clamped, warned
    expect_true(isTRUE(result), info = paste(type, format(result$error)))
  }
})

test_that("a trained learner holds the forest ccforest() grows with the same arguments", {
  task <- sonar_task()
  learner <- mlr3::lrn("classif.ccforest", n_tree = 20, seed = 7, mtry = 5,
                       predict_type = "prob")
  rows <- 1:150
  learner$train(task, row_ids = rows)
  x <- as.data.frame(task$data(rows = rows, cols = task$feature_names))
  direct <- ccforest(x, task$truth(rows), n_tree = 20, seed = 7, mtry = 5, n_thread = 1,
                     verbose = FALSE)
  new_data <- as.data.frame(task$data(rows = 151:208, cols = task$feature_names))
  prediction <- learner$predict(task, row_ids = 151:208)
  expect_equal(unname(prediction$prob), unname(predict(direct, new_data, type = "prob")))
  expect_equal(colnames(prediction$prob), task$class_names)
  # The class is the one predict(type = "class") gives, ties included.
  expect_identical(as.character(prediction$response),
                   as.character(predict(direct, new_data, type = "class")))
  expect_identical(learner$model$options$mtry, 5L)
})

test_that("mtry_ratio sets mtry as a share of the features, and not with mtry", {
  task <- sonar_task()  # 60 features
  learner <- mlr3::lrn("classif.ccforest", n_tree = 2, mtry_ratio = 0.25)
  learner$train(task)
  expect_identical(learner$model$options$mtry, 15L)
  learner$param_set$set_values(mtry_ratio = 0)
  learner$train(task)
  expect_identical(learner$model$options$mtry, 1L)
  learner$param_set$set_values(mtry = 3L)
  expect_error(learner$train(task), "Give `mtry` or `mtry_ratio`, not both")
})

test_that("the task's weights reach the forest as case weights", {
  data <- iris
  data$w <- rep(c(1, 3), length.out = nrow(data))
  task <- mlr3::as_task_classif(data, target = "Species")
  task$set_col_roles("w", roles = if ("weights_learner" %in% mlr3::mlr_reflections$task_col_roles$classif) {
    "weights_learner"
  } else {
    "weight"
  })
  # Leaves of several rows: with pure leaves, weights could not move the
  # probabilities (see ccforest()'s section on weights).
  learner <- mlr3::lrn("classif.ccforest", n_tree = 10, seed = 3, min_leaf = 10,
                       predict_type = "prob")
  learner$train(task)
  # The task orders the features by name: the same seed grows the same
  # forest only on the same column order.
  x <- iris[task$feature_names]
  direct <- ccforest(x, iris$Species, case_weights = data$w, n_tree = 10, seed = 3,
                     min_leaf = 10, n_thread = 1, verbose = FALSE)
  unweighted <- ccforest(x, iris$Species, n_tree = 10, seed = 3, min_leaf = 10,
                         n_thread = 1, verbose = FALSE)
  expect_equal(unname(learner$predict(task)$prob), unname(predict(direct, iris, type = "prob")))
  expect_false(isTRUE(all.equal(predict(direct, iris, type = "prob"),
                                predict(unweighted, iris, type = "prob"))))
})

test_that("importance() is the forest's importance, named and sorted; oob_error() its OOB error", {
  task <- mlr3::tsk("mtcars")
  learner <- mlr3::lrn("regr.ccforest", n_tree = 30, seed = 1)
  expect_error(learner$importance(), "No model stored")
  learner$train(task)
  imp <- learner$importance()
  expect_type(imp, "double")
  expect_false(is.unsorted(rev(imp)))
  reference <- importance(learner$model)
  expect_equal(imp, sort(setNames(as.numeric(reference), names(reference)), decreasing = TRUE))
  expect_setequal(names(imp), task$feature_names)
  expect_error(learner$oob_error(), "no out-of-bag error.*sampling = \"bagging\"")

  learner$param_set$set_values(sampling = "bagging", importance = "permutation")
  learner$train(task)
  expect_identical(learner$oob_error(), learner$model$oob_error)
  expect_identical(learner$state$oob_error, learner$model$oob_error)
  # mtcars: an out-of-bag MSE well below the variance of mpg.
  expect_lt(learner$oob_error(), var(mtcars$mpg))
  expect_identical(attr(learner$model$variable.importance, "type"), "permutation")
  expect_equal(learner$importance()[["wt"]], learner$model$variable.importance[["wt"]])
})

test_that("oob_error = FALSE, ranger's oob.error, skips the estimates; $oob_error() says so", {
  params <- mlr3::lrn("classif.ccforest")$param_set
  expect_identical(params$default$oob_error, TRUE)
  expect_identical(params$class[["oob_error"]], "ParamLgl")
  expect_identical(params$tags$oob_error, "train")
  task <- mlr3::tsk("mtcars")
  learner <- mlr3::lrn("regr.ccforest", n_tree = 20, seed = 1, sampling = "bagging",
                       oob_error = FALSE)
  learner$train(task)
  expect_false(learner$model$options$oob_error)
  expect_null(learner$model$oob_error)
  expect_null(learner$state$oob_error)
  expect_error(learner$oob_error(), paste0(
    "This forest has no out-of-bag error: it was trained with oob_error = FALSE, which skips ",
    "the out-of-bag estimates. Drop that parameter to have one."), fixed = TRUE)
  # The same forest as with the estimates, which predicts the same.
  with <- mlr3::lrn("regr.ccforest", n_tree = 20, seed = 1, sampling = "bagging")
  with$train(task)
  expect_identical(learner$model$forest, with$model$forest)
  expect_identical(learner$predict(task)$response, with$predict(task)$response)
  expect_error(mlr3::lrn("regr.ccforest", oob_error = NA), "oob_error")
})

test_that("missing values, factors and standard errors pass through", {
  data <- airquality
  data$Month <- factor(data$Month)
  task <- mlr3::as_task_regr(data[!is.na(data$Ozone), ], target = "Ozone")
  expect_true(any(task$missings() > 0))
  learner <- mlr3::lrn("regr.ccforest", n_tree = 40, seed = 2, sampling = "bagging",
                       predict_type = "se")
  learner$train(task)
  prediction <- suppressWarnings(learner$predict(task))  # se may clamp a few to 0
  expect_false(anyNA(prediction$response))
  expect_true(all(prediction$se >= 0))
  expect_equal(prediction$response, unname(predict(learner$model, task$data(), type = "response")))
})

test_that("resample() and set_threads() run the learner", {
  task <- sonar_task()
  learner <- mlr3::lrn("classif.ccforest", n_tree = 50)
  mlr3::set_threads(learner, 2L)
  expect_identical(learner$param_set$values$n_thread, 2L)
  set.seed(11)
  rr <- mlr3::resample(task, learner, mlr3::rsmp("cv", folds = 3))
  expect_length(rr$learners, 3L)
  expect_identical(nrow(rr$errors), 0L)
  # The sonar classes are balanced about 53:47: a forest that learned
  # something errs on far fewer than the featureless 47%.
  expect_lt(rr$aggregate(mlr3::msr("classif.ce")), 0.35)
})

test_that("benchmark() puts the learner next to mlr3learners' ranger", {
  skip_if_not_installed("mlr3learners")
  skip_if_not_installed("ranger")
  loadNamespace("mlr3learners")
  # One benchmark per task type: mlr3 does not mix them.
  set.seed(5)
  classif <- mlr3::benchmark(mlr3::benchmark_grid(
    sonar_task(),
    list(mlr3::lrn("classif.ccforest", n_tree = 50), mlr3::lrn("classif.ranger", num.trees = 50),
         mlr3::lrn("classif.featureless")),
    mlr3::rsmp("cv", folds = 3)
  ))
  ce <- classif$aggregate(mlr3::msr("classif.ce"))
  ce <- setNames(ce$classif.ce, ce$learner_id)
  expect_setequal(names(ce), c("classif.ccforest", "classif.ranger", "classif.featureless"))
  expect_lt(ce[["classif.ccforest"]], ce[["classif.featureless"]] - 0.1)

  regr <- mlr3::benchmark(mlr3::benchmark_grid(
    mlr3::tsk("mtcars"),
    list(mlr3::lrn("regr.ccforest", n_tree = 50), mlr3::lrn("regr.ranger", num.trees = 50)),
    mlr3::rsmp("cv", folds = 3)
  ))
  mse <- regr$aggregate(mlr3::msr("regr.mse"))
  expect_setequal(mse$learner_id, c("regr.ccforest", "regr.ranger"))
  expect_lt(mse$regr.mse[mse$learner_id == "regr.ccforest"], var(mtcars$mpg) / 2)
})

test_that("mlr3tuning tunes the parameters tagged for tuning", {
  skip_if_not_installed("mlr3tuning")
  loadNamespace("mlr3tuning")
  tagged <- mlr3::lrn("regr.ccforest")$param_set$ids(tags = "tune")
  expect_true(all(c("mtry_ratio", "min_leaf", "projection", "sample_fraction") %in% tagged))
  expect_false(any(c("n_thread", "seed", "verbose", "n_tree") %in% tagged))

  learner <- mlr3::lrn("regr.ccforest", n_tree = 20,
                       mtry_ratio = paradox::to_tune(0.1, 1),
                       min_leaf = paradox::to_tune(1L, 10L),
                       projection = paradox::to_tune(c("cca", "axis")))
  set.seed(3)
  instance <- mlr3tuning::tune(
    tuner = mlr3tuning::tnr("random_search", batch_size = 2),
    task = mlr3::tsk("mtcars"), learner = learner,
    resampling = mlr3::rsmp("holdout"), measures = mlr3::msr("regr.mse"), term_evals = 4
  )
  archive <- as.data.frame(instance$archive$data)
  expect_identical(nrow(archive), 4L)
  expect_true(all(archive$mtry_ratio >= 0.1 & archive$mtry_ratio <= 1))
  expect_true(all(archive$projection %in% c("cca", "axis")))
  expect_identical(instance$result_y[["regr.mse"]], min(archive$regr.mse))
})
