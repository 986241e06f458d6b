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

test_that("each task takes its record's split rules, the first by default, and no other's", {
  d <- data.frame(a = c(1, 2, 3, 4, 5, 6, 7, 8), b = c(2, 1, 4, 3, 6, 5, 8, 7))
  outcomes <- list(
    classification = factor(rep(c("u", "v"), 4)),
    regression = c(1.5, 2, 0.5, 3, 2.5, 4, 1, 3.5),
    survival = survival::Surv(c(5, 8, 3, 9, 4, 7, 6, 2), c(1, 0, 1, 1, 0, 1, 1, 1))
  )
  fit <- function(y, ...) ccforest(d, y, n_tree = 2, seed = 1, verbose = FALSE, ...)
  for (task in names(outcomes)) {
    rules <- task_record(task)$split_rules
    expect_identical(fit(outcomes[[task]])$options$split_rule, rules[[1L]], label = task)
    for (rule in rules) {
      expect_identical(fit(outcomes[[task]], split_rule = rule)$options$split_rule, rule,
                       label = paste(task, rule))
    }
    for (other in setdiff(names(outcomes), task)) {
      for (rule in setdiff(task_record(other)$split_rules, rules)) {
        expect_error(fit(outcomes[[task]], split_rule = rule), "split_rule",
                     label = paste(task, "refuses", rule))
      }
    }
  }
})

test_that("a record's predict() types are the ones its forests take; others name their task", {
  cls <- ccforest(Species ~ ., iris, n_tree = 3, seed = 1)
  reg <- ccforest(mpg ~ ., mtcars, n_tree = 3, seed = 1)
  fits <- list(classification = cls, regression = reg)
  data <- list(classification = iris[1:3, ], regression = mtcars[1:3, ])
  for (task in names(fits)) {
    record <- task_record(task)
    other <- task_record(setdiff(names(fits), task))
    expect_identical(predict(fits[[task]], data[[task]]),
                     predict(fits[[task]], data[[task]], type = record$predict_types[[1L]]))
    for (type in setdiff(other$predict_types, record$predict_types)) {
      expect_error(predict(fits[[task]], data[[task]], type = type),
                   sprintf("type = \"%s\" is for %s; this one is %s: use %s.", type,
                           other$forests, record$described, record$type_advice),
                   fixed = TRUE)
    }
  }
})

test_that("tree_info() and partial_dependence() name values by the record, in the outputs' units", {
  two <- ccforest(cbind(mpg, qsec) ~ wt + hp, mtcars, n_tree = 3, seed = 1)
  labels <- task_record("regression")$value_labels(two$response)
  expect_identical(labels, c("prediction.mpg", "prediction.qsec"))
  info <- tree_info(two, 1)
  expect_true(all(labels %in% names(info)))
  # A leaf's value is a mean of training outputs: within their range.
  leaf_mpg <- info$prediction.mpg[info$terminal]
  expect_true(all(leaf_mpg >= min(mtcars$mpg) & leaf_mpg <= max(mtcars$mpg)))
  pd <- partial_dependence(two, mtcars, "wt", grid_size = 3)
  expect_identical(attr(pd, "value_columns"), labels)
  cls <- ccforest(Species ~ ., iris, n_tree = 3, seed = 1)
  labels <- task_record("classification")$value_labels(cls$response)
  expect_identical(labels, paste0("prob.", levels(iris$Species)))
  info <- tree_info(cls, 1)
  leaves <- as.matrix(info[info$terminal, labels])
  expect_equal(unname(rowSums(leaves)), rep(1, nrow(leaves)))
})

test_that("print() shows the task and out-of-bag estimate in the record's words", {
  reg <- ccforest(mpg ~ ., mtcars, n_tree = 5, seed = 1, sampling = "bagging")
  record <- task_record("regression")
  out <- capture.output(print(reg))
  expect_true(any(startsWith(out, record$oob_label)))
  expect_true(any(grepl(record$format_oob(reg), out, fixed = TRUE)))
  expect_true(any(grepl(record$task_label(reg$response), out, fixed = TRUE)))
  lung <- stats::na.omit(survival::lung[, c("time", "status", "age", "ph.ecog")])
  surv <- ccforest(survival::Surv(time, status) ~ ., lung, n_tree = 5, seed = 1)
  expect_true(any(startsWith(capture.output(print(surv)),
                             task_record("survival")$oob_label)))
})

test_that("a regression record's standardised outputs map back to the outputs exactly", {
  y <- c(3, 7.5, -2, 10, 4)
  response <- ccforest:::prepare_response(y)
  record <- task_record("regression")
  expect_equal(drop(record$to_output_units(response$values, response)), y)
  expect_equal(mean(response$values), 0)
  classes <- ccforest:::prepare_response(factor(c("a", "b", "a")))
  expect_identical(task_record("classification")$standardise(classes, NULL), classes)
})
