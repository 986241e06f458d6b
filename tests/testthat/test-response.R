population_sd <- function(v) {
  sqrt(mean((v - mean(v))^2))
}

test_that("a factor gives 0-based codes and keeps every level", {
  y <- factor(c("b", "a", "b", "d"), levels = c("a", "b", "c", "d"))
  resp <- ccforest:::prepare_response(y)
  expect_s3_class(resp, "ccforest_response")
  expect_identical(resp$task, "classification")
  expect_identical(resp$names, "y")
  expect_identical(resp$n, 4L)
  expect_identical(resp$levels, list(c("a", "b", "c", "d")))
  expect_identical(resp$n_class, 4L)
  expect_true(is.matrix(resp$codes))
  expect_identical(typeof(resp$codes), "integer")
  expect_identical(dim(resp$codes), c(4L, 1L))
  expect_identical(as.vector(resp$codes), c(1L, 0L, 1L, 3L))
  expect_null(resp$values)
})

test_that("a vector output is named by `name`, or else by `arg`", {
  y <- factor(c("p", "q", "p"))
  expect_identical(ccforest:::prepare_response(y, arg = "Species")$names, "Species")
  expect_identical(ccforest:::prepare_response(y, name = "Species")$names, "Species")
  expect_identical(colnames(ccforest:::prepare_response(y, name = "kind")$codes), "kind")
})

test_that("ordered factors are classification outputs too", {
  y <- factor(c("lo", "hi", "lo"), levels = c("lo", "mid", "hi"), ordered = TRUE)
  resp <- ccforest:::prepare_response(y)
  expect_identical(resp$task, "classification")
  expect_identical(resp$levels[[1]], c("lo", "mid", "hi"))
  expect_identical(as.vector(resp$codes), c(0L, 2L, 0L))
})

test_that("character and logical outputs become factors with a message", {
  y <- c("cat", "ant", "cat", "bee")
  expect_message(
    resp <- ccforest:::prepare_response(y),
    "Treating character `y` as a factor (classification).", fixed = TRUE
  )
  expect_identical(resp$levels[[1]], levels(factor(y)))
  expect_identical(as.vector(resp$codes), as.integer(factor(y)) - 1L)

  expect_message(
    resp <- ccforest:::prepare_response(c(TRUE, FALSE, FALSE)),
    "Treating logical `y` as a factor (classification).", fixed = TRUE
  )
  expect_identical(resp$levels[[1]], c("FALSE", "TRUE"))
  expect_identical(as.vector(resp$codes), c(1L, 0L, 0L))
})

test_that("a numeric output is z-scored with population statistics", {
  y <- c(3, 7.5, -1, 10, 4)
  resp <- ccforest:::prepare_response(y)
  expect_identical(resp$task, "regression")
  expect_identical(resp$n, 5L)
  expect_equal(resp$center, mean(y))
  expect_equal(resp$scale, population_sd(y))
  expect_identical(dim(resp$values), c(5L, 1L))
  expect_identical(typeof(resp$values), "double")
  expect_equal(as.vector(resp$values), (y - mean(y)) / population_sd(y))
  expect_equal(as.vector(resp$values) * resp$scale + resp$center, y)
  expect_null(resp$codes)
})

test_that("integer outputs are regression and constant outputs get scale 1", {
  resp <- ccforest:::prepare_response(c(1L, 2L, 3L, 4L))
  expect_identical(resp$task, "regression")
  expect_equal(resp$scale, population_sd(1:4))

  constant <- ccforest:::prepare_response(c(5, 5, 5))
  expect_identical(constant$scale, 1)
  expect_identical(constant$center, 5)
  expect_identical(as.vector(constant$values), c(0, 0, 0))
})

test_that("several numeric outputs give multivariate regression", {
  y <- data.frame(u = c(1, 2, 4, 8), v = c(10L, 0L, 5L, 5L))
  resp <- ccforest:::prepare_response(y)
  expect_identical(resp$task, "regression")
  expect_identical(resp$names, c("u", "v"))
  expect_identical(resp$n_output, 2L)
  expect_identical(dim(resp$values), c(4L, 2L))
  expect_equal(unname(resp$values[, "u"]), (y$u - mean(y$u)) / population_sd(y$u))
  expect_equal(unname(resp$values[, "v"]), (y$v - mean(y$v)) / population_sd(y$v))
  expect_equal(resp$center, c(mean(y$u), mean(y$v)))
  expect_equal(resp$scale, c(population_sd(y$u), population_sd(y$v)))
})

test_that("a matrix without column names gets numbered output names", {
  m <- cbind(c(1, 2, 3), c(3, 1, 2))
  resp <- ccforest:::prepare_response(m)
  expect_identical(resp$names, c("y1", "y2"))
  expect_equal(unname(resp$values[, 2]), (m[, 2] - 2) / population_sd(m[, 2]))

  one_column <- ccforest:::prepare_response(matrix(c(1, 5, 9), dimnames = list(NULL, "z")))
  expect_identical(one_column$names, "z")
  expect_identical(one_column$n_output, 1L)
})

test_that("several factor outputs give multi-output classification", {
  y <- data.frame(
    a = factor(c("x", "y", "x"), levels = c("x", "y", "unused")),
    b = factor(c("p", "q", "r"))
  )
  resp <- ccforest:::prepare_response(y)
  expect_identical(resp$task, "classification")
  expect_identical(resp$names, c("a", "b"))
  expect_identical(resp$n_class, c(3L, 3L))
  expect_identical(resp$levels, list(c("x", "y", "unused"), c("p", "q", "r")))
  expect_identical(
    resp$codes,
    matrix(c(0L, 1L, 0L, 0L, 1L, 2L), 3, dimnames = list(NULL, c("a", "b")))
  )
})

test_that("character outputs in a data.frame are converted with one message", {
  y <- data.frame(a = c("x", "y", "x"), b = factor(c("p", "q", "p")), c = c(TRUE, FALSE, TRUE))
  expect_message(
    resp <- ccforest:::prepare_response(y),
    "Treating character and logical column(s) `a`, `c` of `y` as factors (classification).",
    fixed = TRUE
  )
  expect_identical(resp$levels[[3]], c("FALSE", "TRUE"))
  expect_message(
    ccforest:::prepare_response(matrix(c("a", "b", "b", "a"), 2)),
    "column(s) `y1`, `y2` of `y`", fixed = TRUE
  )
})

test_that("mixing categorical and numeric outputs is an error", {
  y <- data.frame(u = c(1, 2, 3), g = factor(c("a", "b", "a")))
  expect_error(
    ccforest:::prepare_response(y),
    "`y` mixes categorical outputs (`g`) and numeric outputs (`u`); all outputs must be of one kind.",
    fixed = TRUE
  )
})

test_that("empty outcomes are errors", {
  expect_error(
    ccforest:::prepare_response(numeric(0)),
    "`y` has length 0; at least one observation is needed.", fixed = TRUE
  )
  expect_error(
    ccforest:::prepare_response(factor(character(0))),
    "`y` has length 0", fixed = TRUE
  )
  expect_error(
    ccforest:::prepare_response(data.frame(a = numeric(0))),
    "`y` has no rows; at least one observation is needed.", fixed = TRUE
  )
  expect_error(
    ccforest:::prepare_response(data.frame(row.names = 1:3)),
    "`y` has no columns; at least one output is needed.", fixed = TRUE
  )
})

test_that("missing outcomes are errors that say how many and what to do", {
  expect_error(
    ccforest:::prepare_response(c(1, NA, 3, NA, NaN)),
    "`y` has 3 missing values; remove those rows or use na_action = \"omit\".",
    fixed = TRUE
  )
  expect_error(
    ccforest:::prepare_response(factor(c("a", NA, "b")), arg = "Species"),
    "`Species` has 1 missing value; remove those rows", fixed = TRUE
  )
  y <- data.frame(u = c(1, NA, 3, 4), v = c(NA, NA, 1, 2))
  expect_error(
    ccforest:::prepare_response(y),
    "`y` has missing values in 2 rows (column(s) `u`, `v`); remove those rows or use na_action = \"omit\".",
    fixed = TRUE
  )
})

test_that("a classification output needs two observed classes", {
  expect_error(
    ccforest:::prepare_response(factor(c("a", "a", "a"))),
    "`y` has only one class (`a`); classification needs at least two.", fixed = TRUE
  )
  # Empty levels do not count as observed classes.
  expect_error(
    ccforest:::prepare_response(factor(c("a", "a"), levels = c("a", "b"))),
    "`y` has only one class (`a`)", fixed = TRUE
  )
  expect_error(
    suppressMessages(ccforest:::prepare_response(c(TRUE, TRUE))),
    "`y` has only one class (`TRUE`)", fixed = TRUE
  )
  y <- data.frame(a = factor(c("x", "y")), b = factor(c("k", "k")))
  expect_error(
    ccforest:::prepare_response(y),
    "Column `b` of `y` has only one class (`k`); classification needs at least two.",
    fixed = TRUE
  )
})

test_that("infinite regression outputs are errors", {
  expect_error(
    ccforest:::prepare_response(c(1, 2, Inf)),
    "`y` contains infinite values (row 3); remove or replace them.", fixed = TRUE
  )
  expect_error(
    ccforest:::prepare_response(data.frame(a = c(1, 2), b = c(-Inf, 0))),
    "Column `b` of `y` contains infinite values (row 1)", fixed = TRUE
  )
})

test_that("unsupported outcome types are errors", {
  expect_error(
    ccforest:::prepare_response(Sys.Date() + 1:3),
    "`y` must be a factor, character, logical or numeric vector, or a data.frame or matrix of such outputs, not <Date>.",
    fixed = TRUE
  )
  expect_error(ccforest:::prepare_response(list(1, 2)), "not <list>.", fixed = TRUE)
  expect_error(ccforest:::prepare_response(NULL), "not <NULL>.", fixed = TRUE)
  expect_error(ccforest:::prepare_response(complex(real = 1:2)), "not <complex>.", fixed = TRUE)
  expect_error(
    ccforest:::prepare_response(matrix(complex(real = 1:4), 2)),
    "not <complex matrix>.", fixed = TRUE
  )
  y <- data.frame(a = c(1, 2), when = as.POSIXct("2020-01-01", tz = "UTC") + 1:2)
  expect_error(
    ccforest:::prepare_response(y),
    "Column `when` of `y` has class <POSIXct>; outputs must be factor, character, logical or numeric.",
    fixed = TRUE
  )
  y <- data.frame(a = c(1, 2))
  y$l <- list(1, 2)
  expect_error(ccforest:::prepare_response(y), "Column `l` of `y` has class <list>", fixed = TRUE)
})

test_that("output names must be present and distinct", {
  expect_error(
    ccforest:::prepare_response(data.frame(a = 1:2, a = 3:4, check.names = FALSE)),
    "`y` has duplicated column name(s) `a`.", fixed = TRUE
  )
  m <- matrix(1:4, 2, dimnames = list(NULL, c("a", "")))
  expect_error(
    ccforest:::prepare_response(m),
    "`y` has empty column name(s) at position(s) 2", fixed = TRUE
  )
})

test_that("the user's outcome is not modified", {
  y <- data.frame(a = c("x", "y", "x"), b = factor(c("p", "q", "p")))
  y_copy <- y
  suppressMessages(ccforest:::prepare_response(y))
  expect_identical(y, y_copy)
})

test_that("response_row_ok() flags rows where any output is missing", {
  expect_identical(ccforest:::response_row_ok(c(1, NA, 3, NaN)), c(TRUE, FALSE, TRUE, FALSE))
  expect_identical(
    ccforest:::response_row_ok(factor(c("a", NA, "b"))),
    c(TRUE, FALSE, TRUE)
  )
  y <- data.frame(u = c(1, NA, 3, 4), v = factor(c("a", "b", NA, "a")))
  expect_identical(ccforest:::response_row_ok(y), c(TRUE, FALSE, FALSE, TRUE))
  m <- cbind(c(1, 2, NA), c(NA, 2, 3))
  expect_identical(ccforest:::response_row_ok(m), c(FALSE, TRUE, FALSE))
  numeric_y <- data.frame(u = c(1, NA, 3, 4, 6), w = c(2, 2, NA, 5, 1))
  kept <- numeric_y[ccforest:::response_row_ok(numeric_y), ]
  expect_identical(ccforest:::prepare_response(kept)$n, 3L)
})
