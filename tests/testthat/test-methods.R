# The generics of stats on a fitted forest: formula(), terms(), nobs(),
# update(), fitted(), residuals(), coef(), deviance(); predict(newdata =).

test_that("formula() returns the formula with `.` expanded, as lm() does", {
  fit <- ccforest(mpg ~ ., data = mtcars, n_tree = 5, seed = 1)
  form <- formula(fit)
  expect_s3_class(form, "formula")
  # lm() expands `.` the same way: the reference.
  expect_equal(form, formula(stats::lm(mpg ~ ., data = mtcars)), ignore_attr = TRUE)
  expect_identical(environment(form), globalenv())
  expect_identical(attr(terms(fit), "term.labels"), names(mtcars)[-1])
  expect_identical(attr(terms(fit), "response"), 1L)

  dropped <- ccforest(cbind(mpg, qsec) ~ . - cyl, data = mtcars, n_tree = 5, seed = 1)
  expect_identical(deparse(formula(dropped)[[2L]]), "cbind(mpg, qsec)")
  expect_identical(all.vars(formula(dropped)[[3L]]), setdiff(names(mtcars), c("mpg", "qsec", "cyl")))
})

test_that("a transformed term keeps the environment holding what it uses", {
  make_fit <- function() {
    shift <- function(v) v - 100
    ccforest(mpg ~ shift(hp) + log(wt), data = mtcars, n_tree = 5, seed = 1)
  }
  fit <- make_fit()
  form <- formula(fit)
  expect_identical(deparse(form), "mpg ~ shift(hp) + log(wt)")
  expect_identical(ls(environment(form)), "shift")
  expect_equal(eval(form[[3L]][[2L]], mtcars, environment(form)), mtcars$hp - 100)
  # update() evaluates the call where it is called; the kept helper comes
  # along with the formula.
  refit <- update(fit, . ~ . - log(wt))
  expect_identical(refit$blueprint$feature_names, "shift(hp)")
})

test_that("formula() and terms() of an x/y fit say there is no formula", {
  fit <- ccforest(iris[, 1:4], iris$Species, n_tree = 5, seed = 1)
  expect_error(formula(fit), "`x` was fitted with x and y, not a formula")
  expect_error(terms(fit), "`x` was fitted with x and y, not a formula")
})

test_that("nobs() counts the rows the forest was grown on", {
  expect_identical(nobs(ccforest(Species ~ ., data = iris, n_tree = 3, seed = 1)), 150L)
  aq <- airquality
  fit <- ccforest(Ozone ~ ., data = aq, na_action = "omit", n_tree = 3, seed = 1)
  expect_identical(nobs(fit), sum(stats::complete.cases(aq)))
})

test_that("update() changes the formula and refits as a new call would", {
  fit <- ccforest(mpg ~ ., data = mtcars, n_tree = 20, seed = 3)
  smaller <- update(fit, . ~ . - cyl - disp)
  direct <- ccforest(mpg ~ hp + drat + wt + qsec + vs + am + gear + carb, data = mtcars,
                     n_tree = 20, seed = 3)
  expect_identical(smaller$forest, direct$forest)
  expect_identical(smaller$blueprint$feature_names, direct$blueprint$feature_names)
  expect_identical(smaller$call$data, quote(mtcars))
  # The call records the formula by name, as ccforest(formula = ) does.
  named <- ccforest(formula = mpg ~ wt + hp, data = mtcars, n_tree = 5, seed = 1)
  expect_identical(named$call, quote(ccforest(formula = mpg ~ wt + hp, data = mtcars,
                                              n_tree = 5, seed = 1)))
})

test_that("update() changes, adds and removes arguments, for formula and x/y fits", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 10, seed = 1)
  more <- update(fit, n_tree = 30, max_depth = 3)
  expect_identical(more$options$n_tree, 30L)
  expect_identical(more$options$max_depth, 3L)
  expect_identical(more$forest, ccforest(Species ~ ., data = iris, n_tree = 30, max_depth = 3,
                                         seed = 1)$forest)
  back <- update(more, max_depth = NULL)
  expect_identical(back$options$max_depth, 0L)
  expect_null(back$call$max_depth)

  xy <- ccforest(x = iris[, 1:4], y = iris$Species, n_tree = 10, seed = 2)
  narrow <- update(xy, x = iris[, 3:4])
  expect_identical(narrow$blueprint$feature_names, c("Petal.Length", "Petal.Width"))
  expect_identical(narrow$forest, ccforest(x = iris[, 3:4], y = iris$Species, n_tree = 10,
                                           seed = 2)$forest)
  expect_error(update(xy, . ~ . - Sepal.Length),
               "`formula.` can only change the formula of a forest fitted with one")
})

test_that("update() evaluates in the caller's frame, like stats::update()", {
  local_fit <- function() {
    cars_here <- mtcars[mtcars$cyl != 8, ]
    fit <- ccforest(mpg ~ wt + hp, data = cars_here, n_tree = 5, seed = 1)
    update(fit, n_tree = 7)
  }
  refit <- local_fit()
  expect_identical(refit$n_obs, sum(mtcars$cyl != 8))
  expect_identical(refit$options$n_tree, 7L)
  # evaluate = FALSE returns the call.
  fit <- ccforest(mpg ~ wt, data = mtcars, n_tree = 5, seed = 1)
  expect_identical(update(fit, n_tree = 9, evaluate = FALSE),
                   quote(ccforest(formula = mpg ~ wt, data = mtcars, n_tree = 9, seed = 1)))
  expect_error(update(fit, . ~ ., 9), "Every argument given to update\\(\\) must be named")
  expect_error(update(fit, evaluate = NA), "`evaluate` must be TRUE or FALSE")
  no_call <- fit
  no_call$call <- NULL
  expect_error(update(no_call, n_tree = 2), "`object` has no call recorded")
})

test_that("a fit called through do.call() records a call without the data", {
  set.seed(1)
  x <- data.frame(matrix(rnorm(2000 * 10), 2000, 10))
  y <- x$X1 + rnorm(2000)
  direct <- ccforest(x, y, n_tree = 3, seed = 1)
  spliced <- do.call(ccforest, list(x = x, y = y, n_tree = 3, seed = 1))
  expect_identical(spliced$forest, direct$forest)
  expect_identical(spliced$call, quote(ccforest(x = `<data.frame: 2000 x 10>`,
                                                y = `<double vector of length 2000>`,
                                                n_tree = 3, seed = 1)))
  # The fit's size does not depend on how it was called (the data are 160 KB).
  size <- function(fit) length(serialize(fit, NULL))
  expect_lt(abs(size(spliced) - size(direct)), 200)
  expect_lt(length(capture.output(print(spliced))), 20L)
  # Short plain values stay as they were given; so does the formula method's.
  d <- data.frame(x, y = y)
  weighted <- do.call(ccforest, list(y ~ X1 + X2, data = d, n_tree = 2, seed = 1,
                                     case_weights = rep(1, 2000), mtry = 2L))
  expect_identical(weighted$call, quote(ccforest(formula = y ~ X1 + X2,
                                                 data = `<data.frame: 2000 x 11>`, n_tree = 2,
                                                 seed = 1,
                                                 case_weights = `<double vector of length 2000>`,
                                                 mtry = 2L)))
  # update() cannot find such data again, and says what to give it.
  expect_error(update(spliced, n_tree = 5),
               paste0("update\\(\\) cannot refit `object`: its call does not hold `x`, `y` ",
                      "\\(the fit was called through do.call\\(\\) or caret"))
  expect_identical(update(spliced, x = x[, 1:3], y = y, n_tree = 2)$blueprint$feature_names,
                   c("X1", "X2", "X3"))
})

test_that("fitted() and residuals() are the stored out-of-bag values", {
  bag <- ccforest(mpg ~ ., data = mtcars, n_tree = 60, sampling = "bagging", seed = 1)
  expect_identical(fitted(bag), bag$predictions)
  expect_equal(residuals(bag), mtcars$mpg - fitted(bag))
  # The out-of-bag error is the mean squared residual over rows with a prediction.
  expect_equal(mean(residuals(bag)^2, na.rm = TRUE), bag$oob_error)

  classes <- ccforest(Species ~ ., data = iris, n_tree = 30, sampling = "bagging", seed = 1)
  expect_s3_class(fitted(classes), "factor")
  expect_identical(fitted(classes), classes$predictions)
  expect_equal(mean(fitted(classes) != iris$Species, na.rm = TRUE), classes$oob_error)
  expect_error(residuals(classes), "residuals\\(\\) is for regression forests")

  multi <- ccforest(cbind(mpg, qsec) ~ ., data = mtcars, n_tree = 40, sampling = "bagging",
                    seed = 1)
  expect_named(residuals(multi), c("mpg", "qsec"))
  expect_equal(residuals(multi)$qsec, mtcars$qsec - fitted(multi)$qsec)
})

test_that("out-of-bag values line up with the data's rows under na_action = \"omit\"", {
  d <- mtcars
  d$wt[c(2, 9)] <- NA
  d$mpg[20] <- NA
  bag <- ccforest(mpg ~ ., data = d, n_tree = 60, sampling = "bagging", na_action = "omit",
                  seed = 1)
  expect_length(residuals(bag), nrow(d))
  expect_true(all(is.na(residuals(bag)[c(2, 9, 20)])))
  expect_equal(residuals(bag), d$mpg - fitted(bag))
})

test_that("without out-of-bag rows, fitted() and residuals() say why", {
  fit <- ccforest(mpg ~ ., data = mtcars, n_tree = 5, seed = 1)
  expect_error(fitted(fit), paste0("fitted\\(\\) needs out-of-bag predictions, which only ",
                                   "forests whose trees are grown on samples have \\(sampling = ",
                                   "\"bagging\", or a `sample_fraction` below 1\\); every tree of ",
                                   "`object` saw every row."))
  # A projection forest grown on subsamples has them.
  sub <- ccforest(mpg ~ ., data = mtcars, n_tree = 30, seed = 1, sample_fraction = 0.6)
  expect_identical(fitted(sub), sub$predictions)
  expect_error(residuals(fit), "residuals\\(\\) needs out-of-bag predictions")
  old <- as_unsealed(ccforest(mpg ~ ., data = mtcars, n_tree = 5, sampling = "bagging", seed = 1))
  old$residuals <- NULL
  expect_error(residuals(old), "did not keep out-of-bag residuals; refit")
})

test_that("coef() and deviance() are errors that say what to use instead", {
  fit <- ccforest(mpg ~ ., data = mtcars, n_tree = 5, seed = 1)
  expect_error(coef(fit), "has no coefficients. Use importance\\(\\)")
  expect_error(deviance(fit), paste0("has no deviance. A forest whose trees are grown on ",
                                     "samples \\(sampling = \"bagging\", or a `sample_fraction` ",
                                     "below 1\\) stores its out-of-bag error in `oob_error`"))
})

test_that("predict() takes newdata as well as new_data, not both", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 10, seed = 1)
  expect_identical(predict(fit, newdata = iris[1:5, ]), predict(fit, new_data = iris[1:5, ]))
  expect_identical(predict(fit, newdata = iris[1:5, ], type = "prob"),
                   predict(fit, iris[1:5, ], type = "prob"))
  expect_error(predict(fit, iris, newdata = iris[1:5, ]),
               "Both `new_data` and `newdata` were given")
  expect_error(predict(fit), "`new_data` is missing")
  expect_error(predict(fit, newdat = iris), "Unknown argument `newdat`.*did you mean `newdata`")
})

test_that("a min_split larger than the data warns with both numbers", {
  expect_warning(fit <- ccforest(mpg ~ ., data = mtcars, min_split = 40, n_tree = 3, seed = 1),
                 "min_split = 40 is larger than the 32 training rows")
  expect_true(all(tree_sizes(fit)$leaves == 1L))
  expect_silent(ccforest(mpg ~ ., data = mtcars, min_split = 32, n_tree = 3, seed = 1))
  # Only a min_split the user chose: the regression default (6) on 4 rows is not theirs.
  expect_silent(ccforest(mpg ~ wt, data = mtcars[1:4, ], n_tree = 3, seed = 1))
})

test_that("ccforest(formula = ) without a formula says so", {
  expect_error(ccforest(data = iris), "`formula` is missing")
})
