# Every user-facing error of survival forests names the argument and the
# offending value.

skip_if_not_installed("survival")
library(survival)

v <- survival::veteran[1:60, ]
x <- v[, c("trt", "celltype", "karno", "diagtime", "age", "prior")]

test_that("bad survival times and statuses are refused with the rows", {
  expect_error(ccforest(x, Surv(v$time - 100, v$status)),
               "`y` has negative times \\(row 1, .*-28\\).*>= 0")
  time <- v$time
  time[3] <- NA
  expect_error(ccforest(x, Surv(time, v$status)), "`y` has 1 missing time \\(row 3\\)")
  status <- v$status
  status[5] <- 3  # not a status code: Surv() makes it NA, with a warning
  y <- suppressWarnings(Surv(v$time, status))
  expect_error(ccforest(x, y), "`y` has 1 missing or invalid status \\(row 5\\).*0/1")
  expect_error(suppressWarnings(ccforest(x[0, ], Surv(v$time[0], v$status[0]))),
               "`y` has length 0")
  d <- v
  d$time[4] <- Inf
  expect_error(ccforest(Surv(time, status) ~ ., data = d), "negative or infinite time.*row 4")
})

test_that("outcomes without events, or with one, are refused", {
  expect_error(ccforest(x, Surv(v$time, rep(0, 60))),
               "`y` has no events \\(every time is censored\\)")
  expect_error(ccforest(x, Surv(v$time, c(1, rep(0, 59)))), "`y` has only one event")
  w <- rep(1, 60)
  w[v$status == 1][-1] <- 0
  expect_error(ccforest(x, Surv(v$time, v$status), case_weights = w),
               "only one event: .*rows of positive weight")
})

test_that("censoring other than right-censoring is refused, not mis-fitted", {
  expect_error(ccforest(x, Surv(v$time, v$time + 5, type = "interval2")),
               "`y` is an interval-censored Surv object")
  expect_error(ccforest(x, Surv(v$time, v$status, type = "left")),
               "`y` is a left-censored Surv object")
  expect_error(ccforest(x, Surv(rep(0, 60), v$time, v$status)),
               "`y` is a counting-process")
  expect_error(ccforest(cbind(Surv(time, status), karno) ~ age, data = v),
               "survival outcome \\(Surv\\) beside other outputs")
  # Through a formula, the outcome is named, not `data` (issue 36).
  d <- v
  d$start <- 0
  expect_error(ccforest(Surv(start, time, status) ~ age + karno, data = d),
               "The outcome `Surv(start, time, status)` is a counting-process (start, stop] Surv object",
               fixed = TRUE)
  expect_error(ccforest(Surv(time, time + 5, type = "interval2") ~ age + karno, data = d),
               "The outcome `Surv(time, time + 5, type = \"interval2\")` is an interval-censored",
               fixed = TRUE)
  d$time[4] <- NA
  expect_error(ccforest(Surv(time, status) ~ age, data = d),
               "The outcome `Surv(time, status)` has 1 missing time (row 4)", fixed = TRUE)
  d$time[4] <- -1
  expect_error(ccforest(Surv(time, status) ~ age, data = d),
               "The outcome `Surv(time, status)` has negative time (row 4", fixed = TRUE)
  d$status <- 0
  d$time[4] <- 1
  expect_error(ccforest(Surv(time, status) ~ age, data = d),
               "The outcome `Surv(time, status)` has no events", fixed = TRUE)
})

test_that("options of other tasks are refused for survival outcomes", {
  expect_error(ccforest(x, Surv(v$time, v$status), class_weights = c(a = 2)),
               "`class_weights` is for classification")
  expect_error(ccforest(x, Surv(v$time, v$status), quantiles = TRUE),
               "quantiles = TRUE is for regression")
  expect_error(ccforest(x, Surv(v$time, v$status), split_rule = "variance"),
               "split_rule = \"variance\" is not for survival outcomes")
  expect_error(ccforest(Species ~ ., data = iris, split_rule = "logrank"),
               "split_rule = \"logrank\" is for survival outcomes.*categorical")
  expect_error(ccforest(mpg ~ ., data = mtcars, split_rule = "logrank"),
               "split_rule = \"logrank\" is for survival outcomes.*numeric")
  expect_error(ccforest(x, Surv(v$time, v$status), output_bins = 4),
               "`output_bins` is for regression")
  expect_error(ccforest(x, Surv(v$time, v$status), sample_fraction = c(a = 0.5, b = 0.5)),
               "One `sample_fraction` per class is for classification")
})

test_that("prediction arguments are checked", {
  fit <- ccforest(Surv(time, status) ~ ., data = v, n_tree = 5, seed = 1)
  expect_error(predict(fit, v, type = "quantiles"),
               "type = \"quantiles\" is not for survival forests")
  expect_error(predict(fit, v, type = "class"), "type = \"class\" is not for survival forests")
  expect_error(predict(fit, v, type = "mortality"), "type = \"risk\"")
  expect_error(predict(fit, v, type = "hazard"), "type")
  expect_error(predict(fit, v, type = "survival", times = c(1, -2)),
               "`times` must be finite times >= 0, but element 2 is -2")
  expect_error(predict(fit, v, type = "survival", times = c(1, NA)), "element 2 is NA")
  expect_error(predict(fit, v, type = "survival", times = c(1, Inf)), "element 2 is Inf")
  expect_error(predict(fit, v, type = "chf", times = "a"),
               "`times` must be a numeric vector of times >= 0, not a character")
  expect_error(predict(fit, v, type = "cif", times = numeric(0)), "`times` must be a numeric")
  expect_error(predict(fit, v, type = "time", horizon = 0), "`horizon` must be one finite time > 0, not 0")
  expect_error(predict(fit, v, type = "time", horizon = c(1, 2)), "`horizon` must be one")
  expect_error(predict(fit, v, type = "risk", times = 3),
               "`times` is for type = \"survival\", \"chf\" or \"cif\", not \"risk\"")
  expect_error(predict(fit, v, type = "time", times = 3), "integrates the survival curve")
  expect_error(predict(fit, v, type = "survival", horizon = 3),
               "`horizon` is for type = \"time\"")
  expect_error(predict(fit, v, predict_all = TRUE), "predict_all = TRUE")
  expect_error(predict(fit, v, type = "survival", calibration = v), "`calibration` is for")
  classifier <- ccforest(Species ~ ., data = iris, n_tree = 2, seed = 1)
  expect_error(predict(classifier, iris, times = 3), "`times` is for survival forests")
  expect_error(predict(classifier, iris, horizon = 3), "`horizon` is for survival forests")
})

test_that("importance and partial dependence check their survival arguments", {
  fit <- ccforest(Surv(time, status) ~ ., data = v, n_tree = 5, seed = 1)
  expect_error(importance(fit, new_data = v, local = TRUE),
               "local = TRUE is not available for survival forests")
  expect_error(importance(fit, new_data = v[, names(v) != "time"]),
               "`new_data` has no outcome `Surv\\(time, status\\)`")
  expect_error(importance(fit, new_data = v, y = v$time), "`y` must be the held-out survival outcome")
  none <- v
  none$status <- 0
  expect_error(importance(fit, new_data = none), "at least one event")
  expect_error(partial_dependence(fit, v, "karno", type = "survival"),
               "type = \"survival\" needs `times`")
  expect_error(partial_dependence(fit, v, "karno", type = "risk", times = 3),
               "`times` is for type")
  expect_error(partial_dependence(fit, v, "karno", type = "prob"), "type")
  classifier <- ccforest(Species ~ ., data = iris, n_tree = 2, seed = 1)
  expect_error(partial_dependence(classifier, iris, "Sepal.Length", times = 3),
               "`times` is for survival forests")
  expect_error(residuals(ccforest(Surv(time, status) ~ ., data = v, n_tree = 5, seed = 1)),
               "residuals\\(\\) is for regression forests; `object` is a survival forest")
})

test_that("min_events is checked, and is for survival forests only", {
  d <- survival::veteran
  for (bad in list(0, -1, 2.5, "a", NA, c(1, 2))) {
    expect_error(ccforest(survival::Surv(time, status) ~ ., d, n_tree = 2, min_events = bad),
                 "`min_events` must be a single whole number >= 1, not ")
  }
  expect_error(ccforest(Species ~ ., iris, n_tree = 2, min_events = 3),
               "`min_events` is for survival forests, but `y` gives a classification forest")
  expect_error(ccforest(mpg ~ ., mtcars, n_tree = 2, min_events = 3),
               "`min_events` is for survival forests, but `y` gives a regression forest")
  withr::local_options(ccforest.survival_intervals = 0)
  expect_error(ccforest(survival::Surv(time, status) ~ ., d, n_tree = 2),
               "`options\\(ccforest.survival_intervals\\)` must be a single whole number >= 1")
})
