# Nodes of more than bootstrap_max_rows rows (1,024 by default) fit their
# CCA on a bootstrap sample of at most that many rows.

test_that("a node of at most bootstrap_max_rows rows grows as the paper grows it", {
  set.seed(13)
  n <- 800
  x <- data.frame(matrix(stats::rnorm(n * 5), n))
  y <- factor(ifelse(x$X1 + x$X2 * x$X3 + stats::rnorm(n, sd = 0.3) > 0, "a", "b"))
  exact <- ccforest(x, y, n_tree = 4, seed = 1, bootstrap_max_rows = Inf)
  expect_identical(exact$options$bootstrap_max_rows, 0L)
  # The default (1,024 rows) never acts on 800 rows, nor a limit of 800.
  expect_identical(ccforest(x, y, n_tree = 4, seed = 1)$forest$trees, exact$forest$trees)
  at_n <- ccforest(x, y, n_tree = 4, seed = 1, bootstrap_max_rows = n)
  expect_identical(at_n$forest$trees, exact$forest$trees)
  # Below the root's rows it changes the trees.
  capped <- ccforest(x, y, n_tree = 4, seed = 1, bootstrap_max_rows = 100)
  expect_identical(capped$options$bootstrap_max_rows, 100L)
  expect_false(identical(capped$forest$trees, exact$forest$trees))
  # Bagging fits the CCA on all of a node's rows: no bootstrap to cap.
  bagged <- ccforest(x, y, n_tree = 4, seed = 1, sampling = "bagging", bootstrap_max_rows = 100)
  expect_identical(bagged$forest$trees,
                   ccforest(x, y, n_tree = 4, seed = 1, sampling = "bagging",
                            bootstrap_max_rows = Inf)$forest$trees)
})

test_that("a small bootstrap_max_rows keeps the forests accurate on every task", {
  set.seed(14)
  n <- 3000
  x <- data.frame(matrix(stats::rnorm(n * 6), n))
  test <- 1:1000
  y_class <- factor(findInterval(x$X1 - x$X2 + 0.5 * x$X3^2 + stats::rnorm(n, sd = 0.3),
                                 c(-1, 0.5, 2)))
  y_value <- x$X1 - x$X2 + sin(2 * x$X3) + stats::rnorm(n, sd = 0.3)
  y_both <- data.frame(a = y_value, b = x$X4 * 2 + stats::rnorm(n, sd = 0.3))
  fit <- function(y, ...) {
    ccforest(x[-test, ], if (is.data.frame(y)) y[-test, ] else y[-test], n_tree = 30, seed = 2,
             ...)
  }
  error <- function(f, y) {
    p <- predict(f, x[test, ])
    if (is.factor(y)) mean(p != y[test]) else mean(as.matrix((p - y[test, , drop = FALSE])^2))
  }
  for (y in list(y_class, y_value, y_both)) {
    y_frame <- if (is.factor(y)) y else as.data.frame(y)
    exact <- error(fit(y, bootstrap_max_rows = Inf), y_frame)
    small <- error(fit(y, bootstrap_max_rows = 64), y_frame)
    expect_lt(small, 1.25 * exact)
  }
})

test_that("with weights, rows of weight 0 take no part at large nodes either", {
  set.seed(15)
  n <- 1500
  x <- data.frame(matrix(stats::rnorm(n * 4), n))
  y <- factor(ifelse(x$X1 + x$X2 > 0, "a", "b"))
  w <- rep(c(1, 3, 0, 2), length.out = n)
  for (limits in list(list(bootstrap_max_rows = 100))) {
    all_rows <- do.call(ccforest, c(list(x, y, n_tree = 3, seed = 3, case_weights = w), limits))
    kept <- do.call(ccforest, c(list(x[w > 0, ], y[w > 0], n_tree = 3, seed = 3,
                                     case_weights = w[w > 0]), limits))
    expect_identical(all_rows$forest$trees, kept$forest$trees)
    unweighted <- do.call(ccforest, c(list(x, y, n_tree = 3, seed = 3), limits))
    expect_false(identical(all_rows$forest$trees, unweighted$forest$trees))
  }
})

test_that("print() lists bootstrap_max_rows where a tree has more rows", {
  set.seed(16)
  beyond <- function(fit) {
    sub("^Beyond paper: +", "", grep("^Beyond paper:", utils::capture.output(print(fit)),
                                     value = TRUE))
  }
  n <- 1500
  d <- data.frame(a = stats::rnorm(n), b = stats::rnorm(n), c = stats::rnorm(n),
                  e = stats::rnorm(n))
  d$y <- factor(ifelse(d$a > d$b, "u", "v"))
  expect_identical(beyond(ccforest(y ~ ., d, n_tree = 2, seed = 1)), "bootstrap_max_rows = 1024")
  # Bagging fits the CCA on all of a node's rows; a tree on half the rows
  # has no node above the limit.
  expect_identical(beyond(ccforest(y ~ ., d, n_tree = 2, seed = 1, sampling = "bagging")), "none")
  expect_identical(beyond(ccforest(y ~ ., d, n_tree = 2, seed = 1, sample_fraction = 0.5)), "none")
  expect_identical(beyond(ccforest(y ~ ., d, n_tree = 2, seed = 1, bootstrap_max_rows = 2000)),
                   "none")
  expect_identical(beyond(ccforest(Species ~ ., iris, n_tree = 2, seed = 1)), "none")
})

test_that("bootstrap_max_rows is checked, and variant = \"paper\" refuses it", {
  d <- data.frame(a = 1:20, y = factor(rep(c("p", "q"), 10)))
  for (bad in list(0, -5, 2.5, "a", NA, NULL, c(100, 200), -Inf)) {
    expect_error(ccforest(y ~ ., d, bootstrap_max_rows = bad),
                 "`bootstrap_max_rows` must be a single whole number >= 2, not ")
  }
  expect_error(ccforest(y ~ ., d, bootstrap_max_rows = 1),
               "`bootstrap_max_rows` must be a single whole number >= 2, not 1.", fixed = TRUE)
  expect_error(ccforest(y ~ ., d, variant = "paper", bootstrap_max_rows = 1024),
               paste0("`variant = \"paper\"` grows the paper's forest, which ",
                      "`bootstrap_max_rows = 1024` departs from: drop `bootstrap_max_rows`, or ",
                      "use `variant = \"ccforest\"`."), fixed = TRUE)
  paper <- ccforest(y ~ ., d, n_tree = 2, seed = 1, variant = "paper", bootstrap_max_rows = Inf)
  expect_identical(paper$options$bootstrap_max_rows, 0L)
  expect_identical(ccforest(y ~ ., d, n_tree = 2, seed = 1, variant = "paper")$forest$trees,
                   paper$forest$trees)
})
