# The split search (one sweep with incremental impurities) against a brute
# force that recomputes every candidate split's gain from scratch.

# Impurity of one output's labels / values, from scratch.
entropy_of <- function(labels) {
  p <- tabulate(labels) / length(labels)
  p <- p[p > 0]
  -sum(p * log(p))
}
gini_of <- function(labels) {
  p <- tabulate(labels) / length(labels)
  1 - sum(p^2)
}
variance_of <- function(values) {
  mean((values - mean(values))^2)
}

# n times the impurity of a set of rows, averaged over the outputs (columns).
node_impurity <- function(targets, rows, rule) {
  n <- length(rows)
  if (n == 0L) {
    return(0)
  }
  per_output <- vapply(seq_len(ncol(targets)), function(m) {
    column <- targets[rows, m]
    switch(rule,
      entropy = entropy_of(column),
      gini = gini_of(column),
      variance = variance_of(column)
    )
  }, numeric(1))
  n * mean(per_output)
}

partition_gain <- function(targets, left, rule) {
  all <- seq_len(nrow(targets))
  node_impurity(targets, all, rule) - node_impurity(targets, which(left), rule) -
    node_impurity(targets, which(!left), rule)
}

# Every midpoint between adjacent distinct values of u with both sides
# holding at least min_leaf rows.
brute_force_split <- function(u, targets, rule, min_leaf) {
  n <- length(u)
  values <- sort(unique(u))
  if (length(values) < 2L) {
    return(list(found = FALSE))
  }
  cuts <- (values[-1] + values[-length(values)]) / 2
  parent <- node_impurity(targets, seq_len(n), rule)
  gains <- vapply(cuts, function(t) {
    left <- u <= t
    if (sum(left) < min_leaf || sum(!left) < min_leaf) {
      return(NA_real_)
    }
    parent - node_impurity(targets, which(left), rule) - node_impurity(targets, which(!left), rule)
  }, numeric(1))
  if (all(is.na(gains))) {
    return(list(found = FALSE))
  }
  list(found = TRUE, gain = max(gains, na.rm = TRUE), base = parent)
}

rule_code <- c(entropy = 0L, gini = 1L, variance = 2L)

# Call the C++ search. `labels` is an n x M matrix of 1-based class labels
# per output (classification), or `values` an n x M numeric matrix. The hook
# takes each output's 0-based codes and its number of classes.
run_split <- function(u, rule, min_leaf, labels = NULL, values = NULL, seed = 1) {
  if (!is.null(labels)) {
    n_class <- as.integer(apply(labels, 2, max))
    codes <- labels - 1L
    storage.mode(codes) <- "integer"
    ccforest:::ccf_split_cpp(u, codes, matrix(0, length(u), 0L), n_class,
                             rule_code[[rule]], as.integer(min_leaf), seed)
  } else {
    ccforest:::ccf_split_cpp(u, matrix(0L, length(u), 0L), values, integer(0),
                             rule_code[[rule]], as.integer(min_leaf), seed)
  }
}

expect_split_matches <- function(u, rule, min_leaf, labels = NULL, values = NULL) {
  targets <- if (is.null(labels)) values else labels
  ref <- brute_force_split(u, targets, rule, min_leaf)
  got <- run_split(u, rule, min_leaf, labels = labels, values = values)
  expect_identical(got$found, ref$found)
  if (!ref$found) {
    return(invisible(got))
  }
  tol <- 1e-9 * max(1, ref$base)
  expect_equal(got$base, ref$base, tolerance = 1e-9)
  expect_equal(got$gain, ref$gain, tolerance = tol)
  # The threshold reproduces a partition achieving the maximum, of the
  # reported size, and respecting min_leaf.
  left <- u <= got$threshold
  expect_identical(sum(left), got$n_left)
  expect_gte(sum(left), min_leaf)
  expect_gte(sum(!left), min_leaf)
  expect_equal(partition_gain(targets, left, rule), ref$gain, tolerance = tol)
  # The threshold lies strictly between two adjacent observed values, in the
  # middle half of their gap.
  expect_true(any(u <= got$threshold) && any(u > got$threshold))
  lo <- max(u[left])
  hi <- min(u[!left])
  expect_gte(got$threshold, lo + (hi - lo) / 4)
  expect_lte(got$threshold, hi - (hi - lo) / 4)
  expect_lt(got$threshold, hi)
  invisible(got)
}

test_that("classification split search equals the brute force (one output)", {
  set.seed(201)
  for (rule in c("entropy", "gini")) {
    for (trial in 1:6) {
      n <- sample(20:40, 1)
      k <- sample(2:4, 1)
      labels <- matrix(sample.int(k, n, replace = TRUE), n, 1)
      labels[1:k, 1] <- seq_len(k)  # every class present
      # Ties in u: values on a coarse grid, and class-related so splits matter.
      u <- round(stats::rnorm(n) + 0.7 * labels[, 1], 1)
      for (min_leaf in c(1L, 3L, 7L)) {
        expect_split_matches(u, rule, min_leaf, labels = labels)
      }
    }
  }
})

test_that("classification split search equals the brute force (several outputs)", {
  set.seed(202)
  for (rule in c("entropy", "gini")) {
    for (trial in 1:5) {
      n <- sample(20:40, 1)
      labels <- cbind(sample.int(3, n, replace = TRUE), sample.int(2, n, replace = TRUE),
                      sample.int(4, n, replace = TRUE))
      labels[1:4, ] <- cbind(c(1:3, 1), c(1:2, 1:2), 1:4)
      u <- sample(1:12, n, replace = TRUE) + 0.5 * labels[, 1]
      for (min_leaf in c(1L, 2L, 5L)) {
        expect_split_matches(u, rule, min_leaf, labels = labels)
      }
    }
  }
})

test_that("variance split search equals the brute force (one and several outputs)", {
  set.seed(203)
  for (width in c(1L, 3L)) {
    for (trial in 1:6) {
      n <- sample(20:40, 1)
      u <- round(stats::runif(n, 0, 3), 1)
      values <- matrix(stats::rnorm(n * width), n, width) + 2 * (u > 1.5) + 10
      for (min_leaf in c(1L, 3L, 8L)) {
        expect_split_matches(u, "variance", min_leaf, values = values)
      }
    }
  }
})

test_that("the best split is found when it is unique and obvious", {
  u <- c(1, 2, 3, 4, 5, 6, 7, 8)
  labels <- matrix(c(1L, 1L, 1L, 2L, 2L, 2L, 2L, 2L), ncol = 1)
  got <- run_split(u, "entropy", 1L, labels = labels)
  expect_true(got$found)
  expect_identical(got$n_left, 3L)
  expect_true(got$threshold >= 3 && got$threshold < 4)
  # A pure split removes all the impurity: gain = n H(parent) in nats.
  expect_equal(got$gain, 8 * entropy_of(labels[, 1]), tolerance = 1e-12)
  got <- run_split(u, "gini", 1L, labels = labels)
  expect_equal(got$gain, 8 * gini_of(labels[, 1]), tolerance = 1e-12)
  values <- matrix(c(0, 0, 0, 0, 0, 5, 5, 5))
  got <- run_split(u, "variance", 1L, values = values)
  expect_identical(got$n_left, 5L)
  expect_equal(got$gain, 8 * variance_of(values[, 1]), tolerance = 1e-12)
})

test_that("min_leaf forces the split away from the best unconstrained one", {
  u <- 1:10
  labels <- matrix(c(1L, 2L, 2L, 2L, 2L, 2L, 2L, 2L, 2L, 2L), ncol = 1)
  free <- run_split(u, "gini", 1L, labels = labels)
  expect_identical(free$n_left, 1L)
  constrained <- expect_split_matches(u, "gini", 3L, labels = labels)
  expect_gte(constrained$n_left, 3L)
  expect_lt(constrained$gain, free$gain)
})

test_that("no valid split gives found = FALSE", {
  set.seed(204)
  n <- 25
  labels <- matrix(sample.int(3, n, replace = TRUE), n, 1)
  labels[1:3, 1] <- 1:3
  values <- matrix(stats::rnorm(n), n, 1)
  same_u <- rep(0.3, n)
  for (rule in c("entropy", "gini")) {
    expect_false(run_split(same_u, rule, 1L, labels = labels)$found)
    # min_leaf too large for any split
    expect_false(run_split(stats::rnorm(n), rule, 13L, labels = labels)$found)
  }
  expect_false(run_split(same_u, "variance", 1L, values = values)$found)
  expect_false(run_split(stats::rnorm(n), "variance", 13L, values = values)$found)
  # Ties leave no cut with both sides >= min_leaf, although 2 * min_leaf <= n.
  u_tied <- c(rep(1, 20), rep(2, 5))
  expect_false(run_split(u_tied, "variance", 6L, values = values)$found)
  expect_true(run_split(u_tied, "variance", 5L, values = values)$found)
  # Exactly 2 * min_leaf rows: one valid split.
  u_even <- as.double(1:26)
  got <- run_split(u_even, "variance", 13L, values = rbind(values, 0))
  expect_true(got$found)
  expect_identical(got$n_left, 13L)
})

test_that("the split hook checks each output's classes against its own n_class", {
  u <- as.double(1:6)
  codes <- cbind(c(0L, 0L, 1L, 1L, 2L, 2L), c(0L, 1L, 0L, 1L, 0L, 1L))
  none <- matrix(0, 6, 0L)
  ok <- ccforest:::ccf_split_cpp(u, codes, none, c(3L, 2L), 0L, 1L, 1)
  expect_true(ok$found)
  # The second output has only 2 classes: code 2 is out of its range, even
  # though the outputs have 5 classes in all.
  bad <- codes
  bad[1, 2] <- 2L
  expect_error(ccforest:::ccf_split_cpp(u, bad, none, c(3L, 2L), 0L, 1L, 1),
               "`classes` must lie in \\[0, n_class\\)")
  expect_error(ccforest:::ccf_split_cpp(u, codes, none, 5L, 0L, 1L, 1),
               "number of classes of each column")
  expect_error(ccforest:::ccf_split_cpp(u, codes, none, c(3L, NA), 0L, 1L, 1), "n_class")
  # Regression ignores n_class.
  values <- matrix(c(0, 0, 0, 5, 5, 5))
  expect_identical(
    ccforest:::ccf_split_cpp(u, matrix(0L, 6, 0L), values, integer(0), 2L, 1L, 1)$n_left, 3L)
  expect_identical(
    ccforest:::ccf_split_cpp(u, matrix(0L, 6, 0L), values, c(7L, 1L), 2L, 1L, 1)$n_left, 3L)
})

# Significant bits of a non-zero double: from its leading bit to its last 1.
significant_bits <- function(x) {
  x <- abs(x)
  e <- floor(log2(x))
  bits <- 1L
  m <- x / 2^e - 1  # fractional part of the mantissa, in [0, 1)
  while (m != 0) {
    m <- 2 * m
    if (m >= 1) m <- m - 1
    bits <- bits + 1L
  }
  bits
}

# The fewest significant bits of any number in [from, to] (0 < from <= to):
# the multiple of the largest power of two that lies there.
fewest_bits <- function(from, to) {
  q <- floor(log2(to))
  while (ceiling(from / 2^q) * 2^q > to) q <- q - 1
  significant_bits(ceiling(from / 2^q) * 2^q)
}

test_that("short thresholds lie in the middle half of the gap with the fewest bits", {
  set.seed(205)
  for (i in 1:300) {
    lo <- stats::rnorm(1) * 10^stats::runif(1, -3, 3)
    hi <- lo + abs(lo) * 10^stats::runif(1, -8, 0.5)
    if (lo < 0 && hi > 0) next  # see below for a gap around 0
    t <- ccforest:::ccf_short_threshold_cpp(lo, hi)
    from <- lo + (hi - lo) / 4
    to <- hi - (hi - lo) / 4
    expect_true(lo <= t && t < hi)
    expect_true(from <= t && t <= to)
    expect_identical(significant_bits(t),
                     if (lo > 0) fewest_bits(from, to) else fewest_bits(-to, -from))
    expect_lte(significant_bits(t), significant_bits((lo + hi) / 2))
  }
  # Round numbers come out round, and u <= t separates lo from hi.
  expect_identical(ccforest:::ccf_short_threshold_cpp(2.9, 4.1), 3.5)
  expect_identical(ccforest:::ccf_short_threshold_cpp(0.3, 1.7), 1)
  expect_identical(ccforest:::ccf_short_threshold_cpp(-1, 1), 0)
  t <- ccforest:::ccf_short_threshold_cpp(-0.2, 5)
  expect_true(-0.2 + 5.2 / 4 <= t && t <= 5 - 5.2 / 4)
  # Adjacent doubles: no room for anything but lo itself.
  lo <- 1
  hi <- 1 + .Machine$double.eps
  t <- ccforest:::ccf_short_threshold_cpp(lo, hi)
  expect_true(lo <= t && t < hi)
  expect_error(ccforest:::ccf_short_threshold_cpp(1, 1), "lo < hi")
  expect_error(ccforest:::ccf_short_threshold_cpp(NaN, 1), "finite")
})

test_that("coefficients are rounded to 11 significant bits, down to 2^-31", {
  set.seed(206)
  # Round-to-nearest at 11 significant bits, written without the package.
  reference <- function(c) {
    a <- abs(c)
    e <- floor(log2(a))
    r <- round(a / 2^(e - 10)) * 2^(e - 10)
    r <- pmin(r, 2 - 2^-10)  # the largest code below 2
    ifelse(a < 2^-31, 0, sign(c) * r)
  }
  c <- c(stats::runif(500, -2, 2), stats::rnorm(500) * 2^-stats::runif(500, 0, 34),
         1, -1, 0.5, 2^-31, -2^-31, 2^-32, 1.9999, 2^-31 * (1 + 2^-11) * 1.0001)
  got <- ccforest:::ccf_round_coefficients_cpp(c)
  expect_identical(got, reference(c))
  kept <- got != 0
  expect_true(all(abs(got[kept] - c[kept]) <= abs(c[kept]) * 2^-11))
  expect_error(ccforest:::ccf_round_coefficients_cpp(2), "\\|c\\| < 2")
  expect_error(ccforest:::ccf_round_coefficients_cpp(NA_real_), "finite")
})
