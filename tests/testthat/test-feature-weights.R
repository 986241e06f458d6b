# feature_weights: nodes sample features in proportion to given weights, or
# to each feature's screening R^2 with the outputs (squared).

split_features <- function(fit) {
  unique(unlist(lapply(seq_len(n_trees(fit)), function(t) tree_info(fit, t)$columns)))
}

test_that("features of weight 0 are never sampled, those of positive weight are", {
  d <- wide_data()
  w <- rep(c(0, 1), c(20, 20))
  fit <- ccforest(d$x, d$y, n_tree = 30, seed = 1, feature_weights = w, verbose = FALSE)
  used <- split_features(fit)
  expect_true(all(used %in% colnames(d$x)[21:40]))
  expect_gt(length(used), 10)
  # A weight far too small to matter against the others still counts as
  # positive: alone with zeros, it is the only feature there is to sample.
  tiny <- c(1e-300, rep(0, 39))
  only <- ccforest(d$x, d$y, n_tree = 5, seed = 2, mtry = 5, feature_weights = tiny,
                   verbose = FALSE)
  expect_identical(split_features(only), "g1")
})

test_that("with all weight on the informative features, splits use only those", {
  fit <- ccforest(Species ~ ., iris, n_tree = 20, seed = 3, verbose = FALSE,
                  feature_weights = c(Sepal.Length = 0, Sepal.Width = 0, Petal.Length = 1,
                                      Petal.Width = 1))
  expect_setequal(split_features(fit), c("Petal.Length", "Petal.Width"))
  # mtry above the features of positive weight: each node takes all of them
  # (a two-feature CCA direction uses both).
  info <- tree_info(fit, 1)
  splits <- info[!info$terminal, ]
  expect_true(all(lengths(splits$columns) == 2L))
})

test_that("survival and regression forests sample by the weights too", {
  skip_if_not_installed("survival")
  vet <- survival::veteran
  fit <- ccforest(survival::Surv(time, status) ~ age + karno + diagtime + prior, data = vet,
                  n_tree = 10, seed = 14, verbose = FALSE,
                  feature_weights = c(age = 0, karno = 1, diagtime = 1, prior = 0))
  expect_true(all(split_features(fit) %in% c("karno", "diagtime")))
  reg <- ccforest(mtcars[, -1], mtcars$mpg, n_tree = 10, seed = 14, verbose = FALSE,
                  feature_weights = as.numeric(names(mtcars)[-1] %in% c("wt", "hp")))
  expect_setequal(split_features(reg), c("wt", "hp"))
})

test_that("features are drawn in proportion to their weights", {
  # mtry = 1 and two equally informative features (and no others): the root
  # splits on the one drawn, feature b three times as often as a.
  set.seed(3802)
  n <- 200
  x <- data.frame(a = stats::rnorm(n), b = stats::rnorm(n))
  y <- factor(x$a + x$b > 0)
  fit <- ccforest(x, y, n_tree = 400, mtry = 1, seed = 4, verbose = FALSE,
                  feature_weights = c(a = 1, b = 3))
  root <- vapply(seq_len(400), function(t) tree_info(fit, t)$columns[[1L]], "")
  share <- mean(root == "b")
  # Binomial(400, 0.75): sd 0.022; the uniform sampler would give 0.5.
  expect_gt(share, 0.75 - 0.08)
  expect_lt(share, 0.75 + 0.08)
})

test_that("weights are matched by name, and only their ratios count", {
  d <- wide_data(p = 12)
  w <- seq(1, 12)
  a <- ccforest(d$x, d$y, n_tree = 8, seed = 5, feature_weights = w, verbose = FALSE)
  shuffled <- stats::setNames(w, colnames(d$x))[c(12:1)]
  b <- ccforest(d$x, d$y, n_tree = 8, seed = 5, feature_weights = shuffled, verbose = FALSE)
  c8 <- ccforest(d$x, d$y, n_tree = 8, seed = 5, feature_weights = 8 * w, verbose = FALSE)
  expect_identical(a$forest$trees, b$forest$trees)
  expect_identical(a$forest$trees, c8$forest$trees)
  # The user's vector is not modified.
  expect_identical(shuffled, stats::setNames(w, colnames(d$x))[c(12:1)])
})

test_that("weighted and screened forests are the same on any number of threads", {
  d <- wide_data()
  for (weights in list(stats::runif(40), "screen")) {
    one <- ccforest(d$x, d$y, n_tree = 12, seed = 6, n_thread = 1, feature_weights = weights,
                    verbose = FALSE)
    two <- ccforest(d$x, d$y, n_tree = 12, seed = 6, n_thread = 2, feature_weights = weights,
                    verbose = FALSE)
    expect_identical(one$forest$trees, two$forest$trees)
  }
})

test_that("without feature_weights the forest is the one uniform sampling grows", {
  d <- wide_data()
  a <- ccforest(d$x, d$y, n_tree = 6, seed = 7, feature_weights = NULL, verbose = FALSE)
  expect_null(a$options$feature_weights)
  expect_null(a$options$feature_screen)
  weighted <- ccforest(d$x, d$y, n_tree = 6, seed = 7, feature_weights = rep(1, 40),
                       verbose = FALSE)
  expect_false(identical(a$forest$trees, weighted$forest$trees))
})

test_that("the screen is each feature's R^2 with the outputs, squared", {
  # Classification: one-way ANOVA's R^2 of each feature on the classes.
  fit <- ccforest(Species ~ ., iris, n_tree = 2, seed = 8, feature_weights = "screen",
                  verbose = FALSE)
  r2 <- vapply(iris[1:4], function(v) summary(stats::lm(v ~ iris$Species))$r.squared, 0)
  expect_equal(fit$options$feature_weights, r2^2 / max(r2^2), tolerance = 1e-10)
  expect_true(fit$options$feature_screen)
  # One numeric output: the squared correlation; several: the R^2 on all of them.
  reg <- ccforest(mtcars[, -1], mtcars$mpg, n_tree = 2, seed = 8, feature_weights = "screen",
                  verbose = FALSE)
  r2 <- stats::cor(mtcars[, -1], mtcars$mpg)[, 1]^2
  expect_equal(reg$options$feature_weights, r2^2 / max(r2^2), tolerance = 1e-10)
  multi <- ccforest(mtcars[, 3:11], mtcars[, c("mpg", "cyl")], n_tree = 2, seed = 8,
                    feature_weights = "screen", verbose = FALSE)
  r2 <- vapply(mtcars[3:11], function(v) summary(stats::lm(v ~ mtcars$mpg + mtcars$cyl))$r.squared, 0)
  expect_equal(multi$options$feature_weights, r2^2 / max(r2^2), tolerance = 1e-10)
  # Units do not matter (R^2 is scale-free), and the outputs' coding does not either.
  scaled <- ccforest(mtcars[, -1] * 1000, mtcars$mpg * 3 + 1, n_tree = 2, seed = 8,
                     feature_weights = "screen", verbose = FALSE)
  expect_equal(scaled$options$feature_weights, reg$options$feature_weights, tolerance = 1e-10)
})

test_that("the screen finds a sparse signal among many features", {
  d <- wide_data(n = 300, p = 400)
  fit <- ccforest(d$x, d$y, n_tree = 30, seed = 9, feature_weights = "screen", verbose = FALSE)
  top <- names(sort(fit$options$feature_weights, decreasing = TRUE))[1:3]
  expect_setequal(top, c("g1", "g2", "g3"))
  roots <- vapply(seq_len(30), function(t) {
    any(tree_info(fit, t)$columns[[1L]] %in% c("g1", "g2", "g3"))
  }, logical(1))
  expect_gt(mean(roots), 0.9)
  # On held-out rows the screened forest beats uniform sampling.
  new <- wide_data(n = 300, p = 400, seed = 3803)
  plain <- ccforest(d$x, d$y, n_tree = 30, seed = 9, feature_weights = NULL, verbose = FALSE)
  err <- function(f) mean(predict(f, new$x) != new$y)
  expect_lt(err(fit), err(plain))
})

test_that("print() and summary() show the feature weights", {
  fit <- ccforest(Species ~ ., iris, n_tree = 2, seed = 10, feature_weights = "screen",
                  verbose = FALSE)
  expect_output(print(fit), "Feature weights: \"screen\" \\(R\\^2 with the outputs, squared; highest: Petal")
  expect_output(print(summary(fit)), "Feature weights:")
  given <- ccforest(Species ~ ., iris, n_tree = 2, seed = 10, feature_weights = c(1, 0, 1, 1),
                    verbose = FALSE)
  expect_output(print(given), "Feature weights: given, 3 of 4 positive")
  plain <- ccforest(Species ~ ., iris, n_tree = 2, seed = 10, verbose = FALSE)
  expect_false(any(grepl("Feature weights", capture.output(print(plain)))))
})

test_that("feature_weights survive saveRDS() and combine with the same screen", {
  d <- wide_data()
  a <- ccforest(d$x, d$y, n_tree = 4, seed = 11, feature_weights = "screen", verbose = FALSE)
  b <- ccforest(d$x, d$y, n_tree = 4, seed = 11, first_tree = 5, feature_weights = "screen",
                verbose = FALSE)
  whole <- ccforest(d$x, d$y, n_tree = 8, seed = 11, feature_weights = "screen", verbose = FALSE)
  expect_identical(c(a$forest$trees, b$forest$trees), whole$forest$trees)
  expect_identical(combine_forests(a, b)$forest$trees, whole$forest$trees)
  uniform <- ccforest(d$x, d$y, n_tree = 4, seed = 11, first_tree = 5, feature_weights = NULL,
                      verbose = FALSE)
  expect_error(combine_forests(a, uniform), "different options: feature_screen")
  path <- tempfile(fileext = ".rds")
  on.exit(unlink(path))
  saveRDS(a, path)
  expect_identical(predict(readRDS(path), d$x), predict(a, d$x))
})

test_that("bad feature_weights are refused with a message naming the value", {
  d <- wide_data(p = 5)
  fw <- function(w) ccforest(d$x, d$y, n_tree = 2, feature_weights = w, verbose = FALSE)
  expect_error(fw("rank"), "`feature_weights` must be one of \"auto\", \"screen\", not \"rank\"", fixed = TRUE)
  expect_error(fw(list(1, 2, 3, 4, 5)),
               "`feature_weights` must be \"auto\", \"screen\" or a numeric vector with one weight per feature, not an object of class <list>",
               fixed = TRUE)
  expect_error(fw(matrix(1, 5, 1)), "not a double matrix with dimensions 5 x 1", fixed = TRUE)
  expect_error(fw(c(1, 1)), "`feature_weights` has 2 weight(s) but `x` has 5 feature(s)",
               fixed = TRUE)
  expect_error(fw(c(1, -1, 1, 1, 1)), "must be finite and >= 0, but weight 2 is -1", fixed = TRUE)
  expect_error(fw(c(1, 1, NA, 1, 1)), "but weight 3 is NA", fixed = TRUE)
  expect_error(fw(c(1, 1, 1, Inf, 1)), "but weight 4 is Inf", fixed = TRUE)
  expect_error(fw(c(g1 = 1, g2 = 1, g3 = NaN, g4 = 1, g5 = 1)), "but weight 3 (`g3`) is NaN",
               fixed = TRUE)
  expect_error(fw(rep(0, 5)), "`feature_weights` are all 0", fixed = TRUE)
  expect_error(fw(c(g1 = 1, g2 = 1, g3 = 1, g4 = 1, h5 = 1)), "`h5` are not features",
               fixed = TRUE)
  expect_error(fw(c(g1 = 1, g2 = 1, g3 = 1, g4 = 1, g4 = 1)), "`g4` is named twice",
               fixed = TRUE)
  expect_error(ccforest(d$x, d$y, n_tree = 2, feature_weights = "screen", variant = "paper"),
               "`variant = \"paper\"` grows the paper's forest, which `feature_weights = \"screen\"` departs from",
               fixed = TRUE)
  skip_if_not_installed("survival")
  expect_error(
    ccforest(survival::Surv(time, status) ~ age + karno, data = survival::veteran, n_tree = 2,
             feature_weights = "screen", verbose = FALSE),
    "feature_weights = \"screen\" is for classification and regression", fixed = TRUE)
})

test_that("futures grow the same weighted forest as threads", {
  skip_if_not_installed("future", "1.49.0")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  d <- wide_data()
  threads <- ccforest(d$x, d$y, n_tree = 6, seed = 12, feature_weights = "screen",
                      verbose = FALSE)
  futures <- ccforest(d$x, d$y, n_tree = 6, seed = 12, feature_weights = "screen",
                      backend = "future", n_batch = 3, verbose = FALSE)
  expect_identical(futures$forest$trees, threads$forest$trees)
})

test_that("mlr3 and parsnip pass feature_weights on", {
  skip_if_not_installed("mlr3")
  skip_if_not_installed("parsnip")
  suppressPackageStartupMessages({
    loadNamespace("mlr3")
    loadNamespace("parsnip")
  })
  learner <- mlr3::lrn("classif.ccforest", n_tree = 5, seed = 13, feature_weights = "screen")
  learner$train(mlr3::tsk("iris"))
  expect_true(learner$model$options$feature_screen)
  given <- c(Petal.Length = 1, Petal.Width = 1, Sepal.Length = 0, Sepal.Width = 0)
  spec <- parsnip::set_mode(parsnip::set_engine(parsnip::rand_forest(trees = 5), "ccforest",
                                                feature_weights = given, seed = 13),
                            "classification")
  fitted <- parsnip::fit(spec, Species ~ ., data = iris)
  expect_setequal(split_features(fitted$fit), c("Petal.Length", "Petal.Width"))
})
