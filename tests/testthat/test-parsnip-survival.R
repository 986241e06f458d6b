# The parsnip engine's "censored regression" mode, with the censored
# package's conventions, in a workflow tuned with yardstick's survival metrics.

skip_if_not_installed("parsnip")
skip_if_not_installed("censored")
skip_if_not_installed("survival")

test_that("rand_forest() fits survival forests and predicts survival and time", {
  suppressPackageStartupMessages(library(censored))
  v <- survival::veteran
  spec <- parsnip::set_engine(parsnip::rand_forest(trees = 20, min_n = 30), "ccforest", seed = 3)
  spec <- parsnip::set_mode(spec, "censored regression")
  fitted <- parsnip::fit(spec, survival::Surv(time, status) ~ ., data = v)
  forest <- parsnip::extract_fit_engine(fitted)
  expect_s3_class(forest, "ccforest")
  expect_identical(forest$task, "survival")
  expect_identical(forest$options$min_split, 30L)
  direct <- ccforest(survival::Surv(time, status) ~ ., data = v, n_tree = 20, min_split = 30,
                     seed = 3, n_thread = 1)
  expect_identical(forest$forest$trees, direct$forest$trees)

  times <- c(10, 50, 200)
  surv <- predict(fitted, v[1:4, ], type = "survival", eval_time = times)
  expect_named(surv, ".pred")
  expect_equal(nrow(surv), 4L)
  expect_named(surv$.pred[[1]], c(".eval_time", ".pred_survival"))
  expected <- predict(direct, v[1:4, ], type = "survival", times = times)
  for (i in 1:4) {
    expect_equal(surv$.pred[[i]]$.eval_time, times)
    expect_equal(surv$.pred[[i]]$.pred_survival, unname(expected[i, ]))
  }
  time <- predict(fitted, v[1:4, ], type = "time")
  expect_equal(time$.pred_time, predict(direct, v[1:4, ], type = "time"))
  expect_error(predict(fitted, v[1:2, ], type = "survival", eval_time = -1),
               "evaluation times|eval_time")

  multi <- parsnip::multi_predict(fitted, v[1:2, ], type = "survival", eval_time = times,
                                  trees = c(5, 20))
  first <- multi$.pred[[1]]
  expect_equal(first$trees, rep(c(5L, 20L), each = 3))
  expect_equal(first$.pred_survival[first$trees == 5],
               unname(predict(direct, v[1, ], type = "survival", times = times, n_tree = 5)[1, ]))
})

test_that("a workflow is tuned with concordance_survival and brier_survival_integrated", {
  skip_on_cran()
  skip_if_not_installed("tune")
  skip_if_not_installed("workflows")
  skip_if_not_installed("yardstick")
  skip_if_not_installed("rsample")
  suppressPackageStartupMessages(library(censored))
  v <- survival::veteran
  v$outcome <- survival::Surv(v$time, v$status)
  v$time <- v$status <- NULL
  spec <- parsnip::rand_forest(trees = tune::tune(), min_n = tune::tune())
  spec <- parsnip::set_mode(parsnip::set_engine(spec, "ccforest"), "censored regression")
  wf <- workflows::add_model(workflows::add_formula(workflows::workflow(), outcome ~ .), spec)
  set.seed(4)
  folds <- rsample::vfold_cv(v, v = 3)
  metrics <- yardstick::metric_set(yardstick::concordance_survival,
                                   yardstick::brier_survival_integrated)
  grid <- expand.grid(trees = c(10, 30), min_n = c(10, 40))
  result <- tune::tune_grid(wf, folds, grid = grid, metrics = metrics,
                            eval_time = c(20, 50, 100, 200))
  collected <- tune::collect_metrics(result)
  expect_setequal(unique(collected$.metric),
                  c("concordance_survival", "brier_survival_integrated"))
  expect_equal(nrow(collected), 8L)
  expect_true(all(is.finite(collected$mean)))
  concordance <- collected[collected$.metric == "concordance_survival", ]
  expect_true(all(concordance$mean > 0.6))
  best <- tune::select_best(result, metric = "brier_survival_integrated")
  final <- parsnip::fit(tune::finalize_workflow(wf, best), v)
  expect_s3_class(workflows::extract_fit_engine(final), "ccforest")
})
