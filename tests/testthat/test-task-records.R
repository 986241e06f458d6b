# The task records (R/task-records.R): one per task, with the same fields,
# and what fits and methods do agrees with them.

test_that("every task has a record with the same fields", {
  tasks <- c("classification", "regression", "survival")
  fields <- lapply(tasks, function(task) names(task_record(task)))
  expect_identical(fields[[2L]], fields[[1L]])
  expect_identical(fields[[3L]], fields[[1L]])
  expect_error(task_record("poisson"), "internal error: no task \"poisson\"", fixed = TRUE)
})

test_that("fits take their default node sizes from their task's record", {
  cls <- ccforest(Species ~ ., iris, n_tree = 2, seed = 1)
  reg <- ccforest(mpg ~ ., mtcars, n_tree = 2, seed = 1)
  expect_identical(c(cls$options$min_split, cls$options$min_leaf), c(2L, 1L))
  expect_identical(c(reg$options$min_split, reg$options$min_leaf), c(6L, 3L))
  # Survival: the square root of the rows, at least 5; the split twice that.
  lung <- stats::na.omit(survival::lung[, c("time", "status", "age", "ph.ecog")])
  surv <- ccforest(survival::Surv(time, status) ~ ., lung, n_tree = 2, seed = 1)
  leaf <- max(5L, as.integer(ceiling(sqrt(nrow(lung)))))
  expect_identical(c(surv$options$min_split, surv$options$min_leaf), c(2L * leaf, leaf))
  small <- ccforest(survival::Surv(time, status) ~ ., lung[1:16, ], n_tree = 2, seed = 1)
  expect_identical(small$options$min_leaf, 5L)
})

test_that("regression values and errors are rescaled to the outputs' units by the record", {
  response <- list(task = "regression", scale = c(2, 10), center = c(1, -5))
  record <- task_record("regression")
  z <- matrix(c(0, 1, -1, 0.5), 2)
  expect_identical(record$to_output_units(z, response),
                   cbind(c(1, 3), c(-15, 0)))
  expect_identical(record$error_scale(response), c(4, 100))
  expect_null(task_record("classification")$error_scale(response))
  expect_identical(task_record("survival")$to_output_units(z, response), z)
})
