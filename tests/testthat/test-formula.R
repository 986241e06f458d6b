formula_frame <- function() {
  data.frame(
    y = factor(c("a", "b", "a", NA, "b"), levels = c("a", "b", "never")),
    x1 = c(1, 2, 4, 8, 16),
    x2 = c(0.5, NA, 1.5, 2, 2.5),
    x3 = c("u", "v", "u", "v", "w"),
    g = factor(c("p", "q", "p", "q", "p"), levels = c("p", "q", "r"))
  )
}

test_that("`.` expands to every column except the response", {
  df <- formula_frame()
  fd <- ccforest:::formula_data(y ~ ., df)
  expect_identical(names(fd), c("x", "y", "terms_info"))
  expect_s3_class(fd$x, "data.frame")
  expect_identical(names(fd$x), c("x1", "x2", "x3", "g"))
  expect_identical(fd$x$x1, df$x1)
  expect_identical(fd$x$x3, df$x3)
  expect_identical(fd$terms_info$feature_names, c("x1", "x2", "x3", "g"))
  expect_identical(fd$terms_info$response_names, "y")
})

test_that("factors keep every level and rows with missing values stay", {
  df <- formula_frame()
  fd <- ccforest:::formula_data(y ~ ., df)
  expect_identical(fd$y, df$y)
  expect_identical(levels(fd$y), c("a", "b", "never"))
  expect_identical(levels(fd$x$g), c("p", "q", "r"))
  expect_identical(nrow(fd$x), 5L)
  expect_identical(fd$x$x2, df$x2)
})

test_that("`-` removes features and explicit terms can be expressions", {
  df <- formula_frame()
  expect_identical(
    names(ccforest:::formula_data(y ~ . - x3, df)$x),
    c("x1", "x2", "g")
  )
  fd <- ccforest:::formula_data(y ~ log(x1) + I(x2^2) + g, df)
  expect_identical(names(fd$x), c("log(x1)", "I(x2^2)", "g"))
  expect_equal(fd$x[["log(x1)"]], log(df$x1))
  expect_equal(as.vector(fd$x[["I(x2^2)"]]), df$x2^2)
  expect_identical(fd$terms_info$feature_columns, list("x1", "x2", "g"))
})

test_that("column names that are not syntactic work", {
  df <- data.frame(`my y` = c(1, 2, 3), `x 1` = c(3, 1, 2), check.names = FALSE)
  fd <- ccforest:::formula_data(`my y` ~ ., df)
  expect_identical(names(fd$x), "x 1")
  expect_identical(fd$terms_info$response_names, "my y")
  expect_identical(fd$y, c(1, 2, 3))
})

test_that("a single response expression gives one output", {
  df <- data.frame(y = c(1, 10, 100), x = c(1, 2, 3))
  fd <- ccforest:::formula_data(log10(y) ~ ., df)
  expect_identical(names(fd$x), "x")
  expect_equal(fd$y, c(0, 1, 2))
  expect_identical(fd$terms_info$response_names, "log10(y)")
})

test_that("cbind() on the left gives several numeric outputs", {
  df <- data.frame(y1 = c(1, 2, 3), y2 = c(5L, 3L, 1L), x1 = c(0, 1, 0), x2 = c(2, 2, 3))
  fd <- ccforest:::formula_data(cbind(y1, y2) ~ ., df)
  expect_identical(names(fd$x), c("x1", "x2"))
  expect_s3_class(fd$y, "data.frame")
  expect_identical(names(fd$y), c("y1", "y2"))
  expect_identical(fd$y$y1, df$y1)
  expect_identical(fd$y$y2, df$y2)
  expect_identical(fd$terms_info$response_names, c("y1", "y2"))
})

test_that("cbind() on the left keeps factor outputs as factors", {
  df <- data.frame(
    a = factor(c("x", "y", "x"), levels = c("x", "y", "z")),
    b = factor(c("k", "k", "m")),
    x = c(1, 2, 3)
  )
  fd <- ccforest:::formula_data(cbind(a, b) ~ x, df)
  expect_identical(fd$y$a, df$a)
  expect_identical(fd$y$b, df$b)
  # Base cbind() would have turned them into integer codes.
  expect_false(is.factor(with(df, cbind(a, b))[, 1]))
  resp <- ccforest:::prepare_response(fd$y)
  expect_identical(resp$task, "classification")
  expect_identical(resp$levels, list(c("x", "y", "z"), c("k", "m")))
})

test_that("cbind() outputs may be named or be expressions", {
  df <- data.frame(y1 = c(1, 2, 3), y2 = c(4, 5, 6), x = c(1, 0, 1))
  fd <- ccforest:::formula_data(cbind(first = y1, log(y2)) ~ x, df)
  expect_identical(names(fd$y), c("first", "log(y2)"))
  expect_equal(fd$y[["log(y2)"]], log(df$y2))
})

test_that("interaction terms are not supported", {
  df <- formula_frame()
  expect_error(
    ccforest:::formula_data(y ~ x1:x2, df),
    "Interaction terms (`x1:x2`) are not supported in `formula`; trees find interactions themselves",
    fixed = TRUE
  )
  expect_error(
    ccforest:::formula_data(y ~ x1 * g, df),
    "Interaction terms (`x1:g`) are not supported", fixed = TRUE
  )
})

test_that("other unsupported formulas are errors", {
  df <- formula_frame()
  expect_error(
    ccforest:::formula_data(~ x1, df),
    "`formula` must be a two-sided formula such as `y ~ .`, not ~x1.", fixed = TRUE
  )
  expect_error(
    ccforest:::formula_data("y ~ x1", df),
    "`formula` must be a two-sided formula such as `y ~ .`, not <character>.", fixed = TRUE
  )
  expect_error(
    ccforest:::formula_data(y ~ 1, df),
    "`formula` has no features on its right-hand side.", fixed = TRUE
  )
  expect_error(
    ccforest:::formula_data(y ~ x1 + offset(x2), df),
    "`offset(x2)` in `formula`: offset() fixes a term's coefficient at 1 in a linear predictor",
    fixed = TRUE
  )
  expect_error(
    ccforest:::formula_data(x1 ~ x1 + x2, df),
    "`x1` appear(s) on both sides of `formula`", fixed = TRUE
  )
})

test_that("`data` must be a data.frame", {
  expect_error(
    ccforest:::formula_data(y ~ x, list(y = 1:3, x = 3:1)),
    "`data` must be a data.frame, not <list>.", fixed = TRUE
  )
  expect_error(
    ccforest:::formula_data(y ~ x, cbind(y = 1:3, x = 3:1)),
    "`data` must be a data.frame, not <integer matrix>. Convert it with as.data.frame().",
    fixed = TRUE
  )
})

test_that("features must come from `data`", {
  df <- formula_frame()
  stray <- c(1, 2, 3, 4, 5)
  expect_error(
    ccforest:::formula_data(y ~ x1 + stray, df),
    "Feature `stray` in `formula` is not a column of `data`.", fixed = TRUE
  )
  expect_error(
    ccforest:::formula_data(y ~ x1 + log(stray), df),
    "Feature `log(stray)` in `formula` uses no column of `data`.", fixed = TRUE
  )
  expect_error(
    ccforest:::formula_data(y ~ x1 + no_such_function(x2), df),
    "Cannot evaluate feature `no_such_function(x2)` in `data`:", fixed = TRUE
  )
  expect_error(
    ccforest:::formula_data(y ~ x1 + mean(x1), df),
    "Feature `mean(x1)` in `formula` has length 1, but `data` has 5 rows.", fixed = TRUE
  )
  expect_error(
    ccforest:::formula_data(y ~ poly(x1, 2), df),
    "Feature `poly(x1, 2)` in `formula` gives several columns; write one term per column.",
    fixed = TRUE
  )
  expect_error(
    ccforest:::formula_data(missing_output ~ x1, df),
    "Cannot evaluate output `missing_output` in `data`:", fixed = TRUE
  )
})

test_that("functions from the formula's environment can be used and are kept", {
  double_it <- function(v) 2 * v
  df <- formula_frame()
  fd <- ccforest:::formula_data(y ~ double_it(x1), df)
  expect_identical(fd$x[["double_it(x1)"]], 2 * df$x1)
  expect_true(is.environment(fd$terms_info$env))
  rebuilt <- ccforest:::formula_new_data(fd$terms_info, data.frame(x1 = c(5, 6)))
  expect_identical(rebuilt[["double_it(x1)"]], c(10, 12))
})

test_that("terms are evaluated in the formula's environment, not the caller's", {
  make_formula <- function() {
    triple <- function(v) 3 * v
    y ~ triple(x1)
  }
  df <- formula_frame()
  fd <- ccforest:::formula_data(make_formula(), df)
  expect_false(exists("triple", inherits = FALSE))
  expect_identical(fd$x[["triple(x1)"]], 3 * df$x1)
  rebuilt <- ccforest:::formula_new_data(fd$terms_info, data.frame(x1 = 2))
  expect_identical(rebuilt[["triple(x1)"]], 6)
})

test_that("only expression terms keep an environment", {
  fd <- ccforest:::formula_data(y ~ x1 + g, formula_frame())
  expect_null(fd$terms_info$env)
})

test_that("formula_new_data() rebuilds the features without the response", {
  df <- formula_frame()
  fd <- ccforest:::formula_data(y ~ log(x1) + x2 + g, df)
  new_data <- df[, c("g", "x2", "x1")]
  rebuilt <- ccforest:::formula_new_data(fd$terms_info, new_data)
  expect_identical(rebuilt, fd$x)
  expect_identical(names(rebuilt), c("log(x1)", "x2", "g"))
  two_rows <- ccforest:::formula_new_data(fd$terms_info, df[4:5, c("x1", "x2", "g")])
  expect_identical(nrow(two_rows), 2L)
  expect_equal(two_rows[["log(x1)"]], log(c(8, 16)))
})

test_that("formula_new_data() names every missing column", {
  fd <- ccforest:::formula_data(y ~ log(x1) + x2 + g, formula_frame())
  expect_error(
    ccforest:::formula_new_data(fd$terms_info, data.frame(x2 = 1)),
    "`new_data` is missing column(s) `x1`, `g` used to fit the forest.", fixed = TRUE
  )
})

test_that("formula_new_data() accepts matrices with column names only", {
  df <- data.frame(y = c(1, 2, 3), a = c(1, 5, 2), b = c(2, 2, 9))
  fd <- ccforest:::formula_data(y ~ a + sqrt(b), df)
  m <- cbind(b = c(4, 16), a = c(0, 1))
  rebuilt <- ccforest:::formula_new_data(fd$terms_info, m)
  expect_identical(rebuilt$a, c(0, 1))
  expect_identical(rebuilt[["sqrt(b)"]], c(2, 4))
  expect_error(
    ccforest:::formula_new_data(fd$terms_info, unname(m)),
    "`new_data` is a matrix without column names", fixed = TRUE
  )
  expect_error(
    ccforest:::formula_new_data(fd$terms_info, list(a = 1, b = 1)),
    "`new_data` must be a data.frame or a matrix, not <list>.", fixed = TRUE
  )
})

test_that("tibbles work as `data`", {
  df <- formula_frame()
  from_tibble <- ccforest:::formula_data(y ~ ., tibble::as_tibble(df))
  from_frame <- ccforest:::formula_data(y ~ ., df)
  expect_identical(from_tibble$x, from_frame$x)
  expect_identical(from_tibble$y, from_frame$y)
})

test_that("the user's data is not modified", {
  df <- formula_frame()
  df_copy <- df
  fd <- ccforest:::formula_data(y ~ . - x2, df)
  ccforest:::formula_new_data(fd$terms_info, df)
  expect_identical(df, df_copy)
})

test_that("formula features pass through the blueprint like x/y features", {
  df <- formula_frame()
  fd <- ccforest:::formula_data(y ~ x1 + g + x3, df)
  bp <- suppressMessages(ccforest:::new_blueprint(fd$x, arg = "data"))
  train <- ccforest:::apply_blueprint(bp, fd$x)
  direct <- suppressMessages(ccforest:::new_blueprint(df[, c("x1", "g", "x3")]))
  expect_identical(bp$column_names, direct$column_names)
  rebuilt <- ccforest:::formula_new_data(fd$terms_info, df[, c("x3", "g", "x1")])
  expect_identical(ccforest:::apply_blueprint(bp, rebuilt), train)
})

test_that("the special terms of model formulas are refused, saying what they would do (issue 36)", {
  lung <- survival::lung
  # strata(inst) became an 18-level factor feature that topped the importance.
  expect_error(ccforest(survival::Surv(time, status) ~ age + strata(inst), data = lung, n_tree = 2),
               paste0("`strata(inst)` in `formula`: strata() gives each stratum its own baseline ",
                      "hazard in survival::coxph(); a forest has no baseline hazard to stratify, ",
                      "and would read strata(inst) as a factor feature. Write the variable as a ",
                      "feature (e.g. `inst`)"), fixed = TRUE)
  expect_error(ccforest(survival::Surv(time, status) ~ age + survival::strata(sex, inst),
                        data = lung, n_tree = 2),
               "`survival::strata(sex, inst)` in `formula`: strata()", fixed = TRUE)
  expect_error(ccforest(survival::Surv(time, status) ~ age + cluster(inst), data = lung, n_tree = 2),
               "`cluster(inst)` in `formula`: cluster() marks correlated rows", fixed = TRUE)
  expect_error(ccforest(survival::Surv(time, status) ~ tt(age) + sex, data = lung, n_tree = 2),
               "`tt(age)` in `formula`: tt() asks survival::coxph() for a time-dependent",
               fixed = TRUE)
  expect_error(ccforest(survival::Surv(time, status) ~ age + frailty(inst), data = lung, n_tree = 2),
               "`frailty(inst)` in `formula`: frailty() adds a random effect", fixed = TRUE)
  expect_error(ccforest(survival::Surv(time, status) ~ age + ridge(wt.loss, sex), data = lung,
                        n_tree = 2), "`ridge(wt.loss, sex)` in `formula`: ridge() penalises",
               fixed = TRUE)
  expect_error(ccforest(survival::Surv(time, status) ~ age + pspline(wt.loss), data = lung,
                        n_tree = 2), "`pspline(wt.loss)` in `formula`: pspline()", fixed = TRUE)
  expect_error(ccforest(survival::Surv(time, status) ~ age + log(1 + strata(inst)), data = lung,
                        n_tree = 2), "`strata(inst)` in `formula`", fixed = TRUE)
  # Any task, and ".": the same.
  expect_error(ccforest(mpg ~ . + offset(wt), data = mtcars, n_tree = 2),
               "`offset(wt)` in `formula`: offset()", fixed = TRUE)
  expect_error(ccforest(Species ~ Sepal.Length + strata(Petal.Width), data = iris, n_tree = 2),
               "`strata(Petal.Width)` in `formula`", fixed = TRUE)
  # A column whose name is a special's is an ordinary feature.
  d <- data.frame(strata = rnorm(30), y = rnorm(30))
  expect_s3_class(ccforest(y ~ strata, data = d, n_tree = 2), "ccforest")
})

