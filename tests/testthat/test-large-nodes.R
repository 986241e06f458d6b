# Nodes of more than bootstrap_max_rows / exact_split_max_rows rows (1,024
# by default): the CCA on a bootstrap sample of at most that many rows, and
# cuts searched among 256 bins of each projection before the rows near the
# best boundary are searched exhaustively.

# n times a set's impurity (entropy or Gini of its labels, or its variance),
# averaged over the outputs (columns), from scratch.
set_impurity <- function(targets, rows, rule) {
  if (length(rows) == 0L) {
    return(0)
  }
  mean(vapply(seq_len(ncol(targets)), function(m) {
    column <- targets[rows, m]
    switch(rule,
      entropy = { p <- tabulate(column) / length(column); p <- p[p > 0]; -sum(p * log(p)) },
      gini = { p <- tabulate(column) / length(column); 1 - sum(p^2) },
      variance = mean((column - mean(column))^2)
    )
  }, numeric(1))) * length(rows)
}

# The gains of every cut between adjacent distinct values of u leaving
# min_leaf rows on each side, with the number of rows each sends left.
all_cut_gains <- function(u, targets, rule, min_leaf) {
  values <- sort(unique(u))
  parent <- set_impurity(targets, seq_along(u), rule)
  n_left <- vapply(values[-length(values)], function(v) sum(u <= v), integer(1))
  gains <- vapply(values[-length(values)], function(v) {
    left <- u <= v
    parent - set_impurity(targets, which(left), rule) - set_impurity(targets, which(!left), rule)
  }, numeric(1))
  ok <- n_left >= min_leaf & length(u) - n_left >= min_leaf
  list(value = values[-length(values)][ok], n_left = n_left[ok], gain = gains[ok])
}

# The binned search through the test hook: node rows, rule and outputs as in
# test-split.R, every node of more than exact_max_rows rows binned.
binned_split <- function(u, rule, min_leaf, targets, exact_max_rows) {
  codes <- c(entropy = 0L, gini = 1L, variance = 2L)[[rule]]
  if (rule == "variance") {
    ccforest:::ccf_split_cpp(u, matrix(0L, length(u), 0L), targets, integer(0), codes,
                             as.integer(min_leaf), 1, as.integer(exact_max_rows))
  } else {
    labels <- targets - 1L
    storage.mode(labels) <- "integer"
    ccforest:::ccf_split_cpp(u, labels, matrix(0, length(u), 0L),
                             as.integer(apply(targets, 2, max)), codes, as.integer(min_leaf), 1,
                             as.integer(exact_max_rows))
  }
}

# The bin of each value, as the search computes it: 256 equal bins over the range.
bin_of <- function(u) {
  scale <- 256 * (1 - 1e-9) / (max(u) - min(u))
  pmin(255, floor((u - min(u)) * scale))
}

test_that("the binned search makes a cut the exhaustive search could make, at least the best between bins", {
  set.seed(11)
  for (rule in c("entropy", "gini", "variance")) {
    for (width in 1:2) {
      for (trial in 1:3) {
        n <- 600
        u <- if (trial == 2) round(stats::rnorm(n), 1) else stats::rnorm(n)^3
        targets <- if (rule == "variance") {
          matrix(stats::rnorm(n * width), n) + sin(2 * u)
        } else {
          matrix(findInterval(u + stats::rnorm(n * width, sd = 0.8), c(-1, 0, 1)) + 1L, n)
        }
        min_leaf <- c(1L, 5L, 40L)[trial]
        cuts <- all_cut_gains(u, targets, rule, min_leaf)
        got <- binned_split(u, rule, min_leaf, targets, exact_max_rows = 100)
        expect_true(got$found)
        # A partition of the node the exhaustive search considers, with the
        # gain reported.
        at <- match(got$n_left, cuts$n_left)
        expect_false(is.na(at))
        left <- u <= got$threshold
        expect_identical(sum(left), got$n_left)
        expect_identical(max(u[left]), cuts$value[at])
        tol <- 1e-9 * max(1, abs(cuts$gain))
        expect_equal(got$gain, cuts$gain[at], tolerance = tol)
        # No worse than every cut between two bins, no better than the best cut.
        bins <- bin_of(u)
        between_bins <- vapply(cuts$value, function(v) {
          max(bins[u <= v]) < min(bins[u > v])
        }, logical(1))
        expect_gte(got$gain, max(cuts$gain[between_bins]) - tol)
        expect_lte(got$gain, max(cuts$gain) + tol)
      }
    }
  }
})

test_that("the binned search finds the exhaustive search's cut where one threshold decides", {
  set.seed(12)
  n <- 2000
  u <- stats::rnorm(n)
  cut <- 0.37
  for (rule in c("entropy", "gini", "variance")) {
    targets <- if (rule == "variance") {
      matrix(ifelse(u > cut, 3, 0) + stats::rnorm(n, sd = 0.1), n)
    } else {
      matrix(ifelse(u > cut, 2L, 1L), n)
    }
    exact <- binned_split(u, rule, 1L, targets, exact_max_rows = 0)
    binned <- binned_split(u, rule, 1L, targets, exact_max_rows = 1000)
    expect_identical(binned$n_left, exact$n_left)
    expect_identical(binned$n_left, sum(u <= cut))
    expect_equal(binned$gain, exact$gain, tolerance = 1e-12)
    expect_identical(binned$threshold, exact$threshold)
  }
})

test_that("a node of at most the limits' rows grows as the paper grows it", {
  set.seed(13)
  n <- 800
  x <- data.frame(matrix(stats::rnorm(n * 5), n))
  y <- factor(ifelse(x$X1 + x$X2 * x$X3 + stats::rnorm(n, sd = 0.3) > 0, "a", "b"))
  exact <- ccforest(x, y, n_tree = 4, seed = 1, bootstrap_max_rows = Inf,
                    exact_split_max_rows = Inf)
  expect_identical(exact$options$bootstrap_max_rows, 0L)
  expect_identical(exact$options$exact_split_max_rows, 0L)
  # The defaults (1,024 rows) never act on 800 rows, nor limits of 800.
  expect_identical(ccforest(x, y, n_tree = 4, seed = 1)$forest$trees, exact$forest$trees)
  at_n <- ccforest(x, y, n_tree = 4, seed = 1, bootstrap_max_rows = n, exact_split_max_rows = n)
  expect_identical(at_n$forest$trees, exact$forest$trees)
  # Below the root's rows each one changes the trees.
  capped <- ccforest(x, y, n_tree = 4, seed = 1, bootstrap_max_rows = 100,
                     exact_split_max_rows = Inf)
  binned <- ccforest(x, y, n_tree = 4, seed = 1, bootstrap_max_rows = Inf,
                     exact_split_max_rows = 100)
  expect_identical(capped$options$bootstrap_max_rows, 100L)
  expect_identical(binned$options$exact_split_max_rows, 100L)
  expect_false(identical(capped$forest$trees, exact$forest$trees))
  expect_false(identical(binned$forest$trees, exact$forest$trees))
  # Bagging fits the CCA on all of a node's rows: no bootstrap to cap.
  bagged <- ccforest(x, y, n_tree = 4, seed = 1, sampling = "bagging", bootstrap_max_rows = 100,
                     exact_split_max_rows = Inf)
  expect_identical(bagged$forest$trees,
                   ccforest(x, y, n_tree = 4, seed = 1, sampling = "bagging",
                            bootstrap_max_rows = Inf, exact_split_max_rows = Inf)$forest$trees)
})

test_that("small limits keep the forests accurate on every task", {
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
    exact <- error(fit(y, bootstrap_max_rows = Inf, exact_split_max_rows = Inf), y_frame)
    small <- error(fit(y, bootstrap_max_rows = 64, exact_split_max_rows = 64), y_frame)
    expect_lt(small, 1.25 * exact)
  }
})

test_that("with weights, rows of weight 0 take no part at large nodes either", {
  set.seed(15)
  n <- 1500
  x <- data.frame(matrix(stats::rnorm(n * 4), n))
  y <- factor(ifelse(x$X1 + x$X2 > 0, "a", "b"))
  w <- rep(c(1, 3, 0, 2), length.out = n)
  for (limits in list(list(bootstrap_max_rows = 100, exact_split_max_rows = Inf),
                      list(bootstrap_max_rows = Inf, exact_split_max_rows = 100))) {
    all_rows <- do.call(ccforest, c(list(x, y, n_tree = 3, seed = 3, case_weights = w), limits))
    kept <- do.call(ccforest, c(list(x[w > 0, ], y[w > 0], n_tree = 3, seed = 3,
                                     case_weights = w[w > 0]), limits))
    expect_identical(all_rows$forest$trees, kept$forest$trees)
    unweighted <- do.call(ccforest, c(list(x, y, n_tree = 3, seed = 3), limits))
    expect_false(identical(all_rows$forest$trees, unweighted$forest$trees))
  }
})

test_that("print() lists the limits where a tree has more rows", {
  set.seed(16)
  beyond <- function(fit) {
    sub("^Beyond paper: +", "", grep("^Beyond paper:", utils::capture.output(print(fit)),
                                     value = TRUE))
  }
  n <- 1500
  d <- data.frame(a = stats::rnorm(n), b = stats::rnorm(n), c = stats::rnorm(n),
                  e = stats::rnorm(n))
  d$y <- factor(ifelse(d$a > d$b, "u", "v"))
  expect_identical(beyond(ccforest(y ~ ., d, n_tree = 2, seed = 1)),
                   "bootstrap_max_rows = 1024, exact_split_max_rows = 1024")
  # Bagging fits the CCA on all of a node's rows; a tree on half the rows
  # has no node above the limits.
  expect_identical(beyond(ccforest(y ~ ., d, n_tree = 2, seed = 1, sampling = "bagging")),
                   "exact_split_max_rows = 1024")
  expect_identical(beyond(ccforest(y ~ ., d, n_tree = 2, seed = 1, sample_fraction = 0.5)), "none")
  expect_identical(beyond(ccforest(y ~ ., d, n_tree = 2, seed = 1, bootstrap_max_rows = Inf,
                                   exact_split_max_rows = 2000)), "none")
  expect_identical(beyond(ccforest(Species ~ ., iris, n_tree = 2, seed = 1)), "direction_ratio = 0.9")
  # The log-rank rule searches every node exhaustively, whatever its size.
  s <- d[c("a", "b", "c", "e")]
  s$time <- stats::rexp(n, exp(s$a))
  s$status <- stats::rbinom(n, 1, 0.7)
  surv_fit <- ccforest(survival::Surv(time, status) ~ ., s, n_tree = 2, seed = 1,
                       sampling = "projection")
  expect_identical(beyond(surv_fit), "max_directions = 2, bootstrap_max_rows = 1024")
})

test_that("the limits are checked, and variant = \"paper\" refuses them", {
  d <- data.frame(a = 1:20, y = factor(rep(c("p", "q"), 10)))
  for (bad in list(0, -5, 2.5, "a", NA, NULL, c(100, 200), -Inf)) {
    expect_error(ccforest(y ~ ., d, bootstrap_max_rows = bad),
                 "`bootstrap_max_rows` must be a single whole number >= 2, not ")
  }
  expect_error(ccforest(y ~ ., d, bootstrap_max_rows = 1),
               "`bootstrap_max_rows` must be a single whole number >= 2, not 1.", fixed = TRUE)
  for (bad in list(0, -5, 2.5, "a", NA, NULL, c(100, 200), -Inf)) {
    expect_error(ccforest(y ~ ., d, exact_split_max_rows = bad),
                 "`exact_split_max_rows` must be a single whole number >= 1, not ")
  }
  expect_error(ccforest(y ~ ., d, variant = "paper", bootstrap_max_rows = 1024),
               paste0("`variant = \"paper\"` grows the paper's forest, which ",
                      "`bootstrap_max_rows = 1024` departs from: drop `bootstrap_max_rows`, or ",
                      "use `variant = \"ccforest\"`."), fixed = TRUE)
  expect_error(ccforest(y ~ ., d, variant = "paper", exact_split_max_rows = 50),
               "`exact_split_max_rows = 50` departs from", fixed = TRUE)
  paper <- ccforest(y ~ ., d, n_tree = 2, seed = 1, variant = "paper", bootstrap_max_rows = Inf,
                    exact_split_max_rows = Inf)
  expect_identical(paper$options$bootstrap_max_rows, 0L)
  expect_identical(paper$options$exact_split_max_rows, 0L)
  expect_identical(ccforest(y ~ ., d, n_tree = 2, seed = 1, variant = "paper")$forest$trees,
                   paper$forest$trees)
})
