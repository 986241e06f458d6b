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
# per output (classification), or `values` an n x M numeric matrix.
run_split <- function(u, rule, min_leaf, labels = NULL, values = NULL, seed = 1) {
  if (!is.null(labels)) {
    n_class <- apply(labels, 2, max)
    offset <- c(0L, cumsum(n_class))[seq_len(ncol(labels))]
    global <- sweep(labels - 1L, 2L, offset, `+`)
    storage.mode(global) <- "integer"
    ccforest:::ccf_split_cpp(u, global, matrix(0, length(u), 0L), as.integer(sum(n_class)),
                             rule_code[[rule]], as.integer(min_leaf), seed)
  } else {
    ccforest:::ccf_split_cpp(u, matrix(0L, length(u), 0L), values, ncol(values),
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
  # The threshold lies strictly between two observed values.
  expect_true(any(u <= got$threshold) && any(u > got$threshold))
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
