# Hostile shapes (issue #5, section 1): for each case the outcome is either a
# correct fit and prediction, or a clear R error naming the argument and the
# problem; never a crash, a hang, an NaN prediction or a C++ message.

test_that("0 rows: formula interface errors naming `data`", {
  # The user gave `data`, not `y`; the message must point at what they gave.
  expect_error(
    ccforest(Species ~ ., data = iris[0, ], n_tree = 5, seed = 1),
    "`data`.*no rows|no rows.*`data`"
  )
  expect_error(
    ccforest(Sepal.Length ~ ., data = iris[0, ], n_tree = 5, seed = 1),
    "`data`.*no rows|no rows.*`data`"
  )
})

test_that("0 rows: x/y interface errors naming the argument", {
  expect_error(ccforest(iris[0, 1:4], iris$Species[0], n_tree = 5, seed = 1),
               "`y` has length 0")
  expect_error(ccforest(iris[0, 1:4], iris$Species, n_tree = 5, seed = 1),
               "`x` has 0 rows but `y` has 150")
  expect_error(ccforest(matrix(numeric(0), 0, 3), numeric(0), n_tree = 5, seed = 1),
               "`y` has length 0")
})

test_that("1 row: classification errors (one class), regression fits a constant", {
  expect_error(ccforest(Species ~ ., data = iris[1, ], n_tree = 5, seed = 1),
               "only one class.*`setosa`")
  fit <- ccforest(Sepal.Length ~ ., data = iris[1, ], n_tree = 5, seed = 1)
  pred <- predict(fit, iris[1:5, ])
  expect_equal(pred, rep(iris$Sepal.Length[1], 5))
})

test_that("2 rows: a fit that reproduces both rows", {
  two <- iris[c(1, 51), ]
  two$Species <- droplevels(two$Species)
  fit <- ccforest(Species ~ ., data = two, n_tree = 5, seed = 1,
                  sampling = "projection", mtry = 2)
  expect_identical(predict(fit, two), two$Species)
  hostile_expect_probabilities(predict(fit, iris, type = "prob"))

  reg <- ccforest(Sepal.Length ~ Petal.Width, data = two, n_tree = 5, seed = 1,
                  min_split = 2, min_leaf = 1, sampling = "projection")
  expect_equal(predict(reg, two), two$Sepal.Length)
  hostile_expect_finite(predict(reg, iris))
})

test_that("2 rows of the same class: one-class error", {
  expect_error(ccforest(Species ~ ., data = iris[1:2, ], n_tree = 5, seed = 1),
               "only one class")
})

test_that("1 feature: data.frame, named matrix and unnamed matrix all fit", {
  d <- hostile_signal_data()
  fit <- ccforest(y ~ a, data = d, n_tree = 5, seed = 1)
  hostile_expect_probabilities(predict(fit, d, type = "prob"))
  expect_gt(hostile_accuracy(fit, d, d$y), 0.6)

  m <- as.matrix(d[, "a", drop = FALSE])
  fm <- ccforest(m, d$y, n_tree = 5, seed = 1)
  expect_identical(predict(fm, m), predict(fit, d))

  mu <- unname(m)
  fu <- ccforest(mu, d$y, n_tree = 5, seed = 1)
  expect_identical(predict(fu, mu), predict(fit, d))
})

test_that("more features than rows (D = 2,000, n = 50) fits and predicts", {
  skip_on_cran()
  withr::local_seed(11)
  n <- 50
  x <- matrix(stats::rnorm(n * 2000), n)
  x[, 1] <- rep(c(-2, 2), length.out = n) + stats::rnorm(n, sd = 0.1)
  y <- factor(ifelse(x[, 1] > 0, "pos", "neg"))
  fit <- ccforest(x, y, n_tree = 5, seed = 1)
  prob <- predict(fit, x, type = "prob")
  hostile_expect_probabilities(prob)
  expect_identical(dim(prob), c(50L, 2L))
  # Projection bootstrapping: every tree sees every row and grows to purity.
  expect_gt(hostile_accuracy(fit, x, y), 0.95)

  reg <- ccforest(x, x[, 1] + stats::rnorm(n, sd = 0.1), n_tree = 5, seed = 1)
  hostile_expect_finite(predict(reg, x))
})

test_that("one class: an error naming the output and the class", {
  d <- hostile_signal_data()
  expect_error(ccforest(d[1:2], factor(rep("only", nrow(d))), n_tree = 5, seed = 1),
               "`y` has only one class \\(`only`\\)")
  # Unused extra levels do not count as classes.
  expect_error(
    ccforest(d[1:2], factor(rep("only", nrow(d)), levels = c("only", "other")),
             n_tree = 5, seed = 1),
    "only one class"
  )
})

test_that("a class with a single row is kept and predictable", {
  d <- hostile_signal_data()
  y <- as.character(d$y)
  y[1] <- "solo"
  y <- factor(y)
  fit <- ccforest(d[1:2], y, n_tree = 10, seed = 1, sampling = "projection", mtry = 1)
  prob <- predict(fit, d[1:2], type = "prob")
  hostile_expect_probabilities(prob)
  expect_identical(colnames(prob), levels(y))
  # Every tree sees every row and grows to purity, so the lone row is
  # recognised on the training data.
  expect_identical(as.character(predict(fit, d[1, 1:2])), "solo")
})

test_that("100 classes fit, with a probability column per class", {
  withr::local_seed(3)
  n <- 300
  x <- data.frame(a = stats::rnorm(n), b = stats::rnorm(n), c = stats::rnorm(n))
  y <- factor(sprintf("c%03d", rep_len(1:100, n)))
  fit <- ccforest(x, y, n_tree = 5, seed = 1)
  prob <- predict(fit, x, type = "prob")
  hostile_expect_probabilities(prob)
  expect_identical(dim(prob), c(300L, 100L))
  expect_identical(colnames(prob), levels(y))
  expect_identical(levels(predict(fit, x)), levels(y))
  expect_gt(hostile_accuracy(fit, x, y), 0.95)
})

test_that("an empty factor level in the response is kept with probability 0", {
  d <- hostile_signal_data()
  for (levels in list(c("empty", "hi", "lo", "mid"), c("hi", "lo", "mid", "empty"))) {
    y <- factor(as.character(d$y), levels = levels)
    fit <- ccforest(d[1:2], y, n_tree = 5, seed = 1)
    prob <- predict(fit, d, type = "prob")
    hostile_expect_probabilities(prob)
    expect_identical(colnames(prob), levels)
    expect_true(all(prob[, "empty"] == 0))
    expect_identical(levels(predict(fit, d)), levels)
    expect_false("empty" %in% as.character(predict(fit, d)))
  }
})

test_that("an empty level in a multi-output response is kept per output", {
  d <- hostile_signal_data()
  d$z <- factor(ifelse(d$a > 0, "yes", "no"), levels = c("no", "never", "yes"))
  fit <- ccforest(cbind(y, z) ~ a + b, data = d, n_tree = 5, seed = 1)
  prob <- predict(fit, d, type = "prob")
  expect_named(prob, c("y", "z"))
  lapply(prob, hostile_expect_probabilities)
  expect_true(all(prob$z[, "never"] == 0))
  cls <- predict(fit, d)
  expect_identical(levels(cls$z), c("no", "never", "yes"))
})
