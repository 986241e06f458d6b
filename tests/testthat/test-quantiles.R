# Quantile regression forests (Meinshausen, 2006).

hetero_data <- function(n, seed) {
  set.seed(seed)
  x1 <- runif(n, 0, 5)
  x2 <- rnorm(n)
  data.frame(x1, x2, y = x1 + rnorm(n, sd = 0.2 + 0.5 * x1))
}

test_that("quantiles equal Meinshausen's estimator written out by hand", {
  d <- hetero_data(80, 1)
  w <- runif(80, 0.5, 2)
  fit <- ccforest(y ~ ., d, quantiles = TRUE, case_weights = w, n_tree = 4, seed = 2,
                  sampling = "projection", min_leaf = 3)
  new <- hetero_data(6, 3)
  probs <- c(0, 0.1, 0.5, 0.77, 1)
  got <- predict(fit, new, type = "quantiles", quantiles = probs)
  z_train <- encode_numeric(fit, d)
  z_new <- encode_numeric(fit, new)
  # Every row is in every tree (projection bootstrapping): a tree's leaf
  # holds the training rows that reach it, weighted by their case weights.
  leaf_train <- lapply(1:4, function(t) route_rows(fit, t, z_train))
  leaf_new <- lapply(1:4, function(t) route_rows(fit, t, z_new))
  expected <- t(vapply(seq_len(nrow(new)), function(i) {
    mass <- numeric(nrow(d))
    for (t in 1:4) {
      here <- leaf_train[[t]] == leaf_new[[t]][[i]]
      mass[here] <- mass[here] + w[here] / sum(w[here]) / 4
    }
    o <- order(d$y)
    cumulative <- cumsum(mass[o])
    vapply(probs, function(p) d$y[o][which(cumulative >= p * sum(mass) - 1e-12 & mass[o] > 0)[1]],
           numeric(1))
  }, numeric(length(probs))))
  expect_equal(unname(got), expected)
  expect_identical(colnames(got), paste("quantile=", probs))
})

# Meinshausen's estimator from the trees' leaves (terminal nodes): each tree
# puts weight 1 / n_tree on the training rows of the new row's leaf, shared
# in proportion to their case weights; a quantile is the smallest training
# output whose cumulative weight reaches it (up to rounding).
weighted_leaf_quantiles <- function(fit, train, new, w, probs) {
  n_tree <- length(fit$forest$trees)
  leaf_train <- predict(fit, train, type = "terminal_nodes")
  leaf_new <- predict(fit, new, type = "terminal_nodes")
  o <- order(train$y)
  t(vapply(seq_len(nrow(new)), function(i) {
    mass <- numeric(nrow(train))
    for (t in seq_len(n_tree)) {
      here <- leaf_train[, t] == leaf_new[i, t]
      mass[here] <- mass[here] + w[here] / sum(w[here]) / n_tree
    }
    cumulative <- cumsum(mass[o])
    vapply(probs, function(p) train$y[o][which(cumulative >= p * sum(mass) - 1e-12 & mass[o] > 0)[1]],
           numeric(1))
  }, numeric(length(probs))))
}

test_that("quantiles are the estimator's whether read off the outputs' ranks or selected", {
  # A row's quantiles come from a pass over the training rows in output order
  # when there are few training rows for the leaves' entries, and from a
  # selection among the entries otherwise (here 2 trees of small leaves on
  # 6,000 rows); either way the estimator's, ties at the targets included.
  probs <- c(0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1)
  ranked <- hetero_data(400, 21)
  ranked$y <- round(ranked$y, 1)  # many ties
  w <- rep(c(1, 2, 0.5, 1), 100)
  fit <- ccforest(y ~ ., ranked, quantiles = TRUE, case_weights = w, n_tree = 40, seed = 5,
                  sampling = "projection", min_leaf = 4)
  new <- hetero_data(30, 22)
  expect_identical(unname(predict(fit, new, type = "quantiles", quantiles = probs)),
                   weighted_leaf_quantiles(fit, ranked, new, w, probs))
  many <- hetero_data(6000, 23)
  fit <- ccforest(y ~ ., many, quantiles = TRUE, n_tree = 2, seed = 6, sampling = "projection",
                  min_leaf = 2)
  new <- hetero_data(20, 24)
  expect_identical(unname(predict(fit, new, type = "quantiles", quantiles = probs)),
                   weighted_leaf_quantiles(fit, many, new, rep(1, 6000), probs))
})

test_that("held-out intervals cover about their level and widen with the noise", {
  d <- hetero_data(3000, 4)
  train <- 1:2000
  test <- 2001:3000
  fit <- ccforest(y ~ ., d[train, ], quantiles = TRUE, n_tree = 150, seed = 1)
  q <- predict(fit, d[test, ], type = "quantiles", quantiles = c(0.05, 0.5, 0.95))
  covered <- mean(d$y[test] >= q[, 1] & d$y[test] <= q[, 3])
  expect_gt(covered, 0.8)
  expect_lt(covered, 0.97)
  expect_gt(cor(q[, 3] - q[, 1], d$x1[test]), 0.8)
  expect_true(all(q[, 1] <= q[, 2] & q[, 2] <= q[, 3]))
  skip_if_not_installed("ranger")
  rf <- ranger::ranger(y ~ ., d[train, ], quantreg = TRUE, num.trees = 150, seed = 1)
  qr <- predict(rf, d[test, ], type = "quantiles", quantiles = c(0.05, 0.5, 0.95))$predictions
  expect_gt(cor(q[, 3] - q[, 1], qr[, 3] - qr[, 1]), 0.8)
  expect_gt(cor(q[, 2], qr[, 2]), 0.9)
})

test_that("quantile forests: bagging, subsets of trees, saving, weights of 0", {
  d <- hetero_data(300, 5)
  fit <- ccforest(y ~ ., d, quantiles = TRUE, n_tree = 20, seed = 1, sampling = "bagging")
  q <- predict(fit, d[1:10, ], type = "quantiles", quantiles = 0.5)
  expect_identical(dim(q), c(10L, 1L))
  expect_false(isTRUE(all.equal(predict(fit, d[1:10, ], type = "quantiles", n_tree = 5),
                                predict(fit, d[1:10, ], type = "quantiles"))))
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(fit, path)
  expect_identical(predict(readRDS(path), d, type = "quantiles"),
                   predict(fit, d, type = "quantiles"))
  w <- rep(1, 300)
  w[1:30] <- 0
  a <- ccforest(y ~ ., d, quantiles = TRUE, case_weights = w, n_tree = 10, seed = 2)
  b <- ccforest(y ~ ., d[-(1:30), ], quantiles = TRUE, n_tree = 10, seed = 2)
  expect_identical(predict(a, d, type = "quantiles"), predict(b, d, type = "quantiles"))
  # Missing values are imputed as for the mean prediction.
  new <- d[1:5, ]
  new$x2[2] <- NA
  expect_false(anyNA(predict(fit, new, type = "quantiles")))
})

test_that("quantile requests are checked", {
  d <- hetero_data(50, 6)
  plain <- ccforest(y ~ ., d, n_tree = 3, seed = 1)
  expect_error(predict(plain, d, type = "quantiles"),
               "type = \"quantiles\" needs a forest fitted with quantiles = TRUE")
  fit <- ccforest(y ~ ., d, n_tree = 3, seed = 1, quantiles = TRUE)
  expect_error(predict(fit, d, type = "quantiles", quantiles = 1.5),
               "`quantiles` must be numbers between 0 and 1, not 1.5.")
  expect_error(predict(fit, d, type = "quantiles", quantiles = c(0.1, NA)),
               "`quantiles` must be numbers between 0 and 1")
  expect_error(ccforest(Species ~ ., iris, quantiles = TRUE),
               "quantiles = TRUE is for regression with one numeric output.")
  expect_error(ccforest(y ~ ., d, quantiles = "yes"), "`quantiles` must be TRUE or FALSE")
  cls <- ccforest(Species ~ ., iris, n_tree = 2, seed = 1)
  expect_error(predict(cls, iris, type = "quantiles"),
               "type = \"quantiles\" is for regression forests; this one is a classifier")
  damaged <- as_unsealed(fit)
  damaged$quantile$samples[[1]] <- damaged$quantile$samples[[1]][-1]
  expect_error(predict(damaged, d, type = "quantiles"), "`object` is damaged")
  damaged <- as_unsealed(fit)
  damaged$quantile$samples[[2]][length(damaged$quantile$samples[[2]])] <- 10000L
  expect_error(predict(damaged, d, type = "quantiles"),
               "`object` is damaged: its quantile data refer to a training row out of range")
})

test_that("quantile forests grown in ranges combine into the whole forest", {
  d <- hetero_data(300, 7)
  whole <- ccforest(y ~ ., d, n_tree = 10, seed = 3, quantiles = TRUE, sampling = "projection")
  first <- ccforest(y ~ ., d, n_tree = 4, seed = 3, quantiles = TRUE, sampling = "projection")
  rest <- ccforest(y ~ ., d, n_tree = 6, first_tree = 5, seed = 3, quantiles = TRUE,
                   sampling = "projection")
  joined <- combine_forests(first, rest)
  expect_identical(joined$quantile, whole$quantile)
  # Sealed again, with the checksum of the forest grown at once.
  expect_identical(joined$checksum, whole$checksum)
  expect_identical(predict(joined, d, type = "quantiles"), predict(whole, d, type = "quantiles"))
  plain <- ccforest(y ~ ., d, n_tree = 6, first_tree = 5, seed = 3, sampling = "projection")
  expect_error(combine_forests(first, plain), "differ in their quantile data")
  # Quantiles are predicted in one piece.
  expect_error(predict(whole, d, type = "quantiles", chunk_size = 10),
               "type = \"quantiles\" predicts `new_data` in one piece in this session")
})

test_that("quantiles are the weighted distribution's exactly: ties at the target included", {
  # Outputs with many ties and case weights of 1 and 2: cumulative weights
  # hit the targets exactly. A quantile is the smallest training output
  # whose cumulative weight reaches the target (up to rounding, as in exact
  # arithmetic), and is that output itself: a 0 stays 0.
  set.seed(11)
  d <- data.frame(x1 = rnorm(120), x2 = rnorm(120))
  d$y <- round(d$x1 + rnorm(120), 0)
  w <- rep(c(1, 2, 1), 40)
  fit <- ccforest(y ~ ., d, quantiles = TRUE, case_weights = w, n_tree = 5, seed = 3,
                  sampling = "projection", min_leaf = 10)
  expect_identical(fit$quantile$y, d$y)
  new <- data.frame(x1 = rnorm(40), x2 = rnorm(40))
  probs <- c(0, 0.1, 0.2, 0.25, 0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1)
  got <- predict(fit, new, type = "quantiles", quantiles = probs)
  z_train <- encode_numeric(fit, d)
  z_new <- encode_numeric(fit, new)
  leaf_train <- lapply(1:5, function(t) route_rows(fit, t, z_train))
  leaf_new <- lapply(1:5, function(t) route_rows(fit, t, z_new))
  expected <- t(vapply(seq_len(nrow(new)), function(i) {
    mass <- numeric(nrow(d))
    for (t in 1:5) {
      here <- leaf_train[[t]] == leaf_new[[t]][[i]]
      mass[here] <- mass[here] + w[here] / sum(w[here]) / 5
    }
    o <- order(d$y)
    cumulative <- cumsum(mass[o])
    vapply(probs, function(p) d$y[o][which(cumulative >= p * sum(mass) - 1e-12 & mass[o] > 0)[1]],
           numeric(1))
  }, numeric(length(probs))))
  expect_identical(unname(got), expected)
})

test_that("leaf samples stored by row (forests fitted before 0.3.0) give the same quantiles", {
  # Fits now store each leaf's rows by output; 0.2.0 stored them by row.
  d <- hetero_data(400, 12)
  for (sampling in c("bagging", "projection")) {
    fit <- ccforest(y ~ ., d, quantiles = TRUE, n_tree = 6, seed = 4, sampling = sampling,
                    case_weights = rep(c(1, 0.5), 200), max_depth = 4)
    old <- as_unsealed(fit)
    old$quantile$samples <- lapply(seq_along(fit$quantile$samples), function(t) {
      s <- fit$quantile$samples[[t]]
      n_leaf <- sum(tree_info(fit, t)$terminal)
      counts <- s[seq_len(n_leaf)]
      rows <- s[-seq_len(n_leaf)]
      leaf <- rep(seq_len(n_leaf), counts)
      c(counts, rows[order(leaf, rows)])
    })
    expect_false(identical(old$quantile$samples, fit$quantile$samples))
    probs <- c(0, 0.05, 0.5, 0.95, 1)
    expect_identical(predict(old, d[1:50, ], type = "quantiles", quantiles = probs),
                     predict(fit, d[1:50, ], type = "quantiles", quantiles = probs))
  }
})

test_that("damaged quantile data are refused: rows of weight 0, outputs that are not finite", {
  d <- hetero_data(100, 13)
  w <- rep(1:2, 50)
  fit <- as_unsealed(ccforest(y ~ ., d, quantiles = TRUE, case_weights = w, n_tree = 3,
                             seed = 1))
  zero <- fit
  zero$quantile$weights[fit$quantile$samples[[1]][[length(fit$quantile$samples[[1]])]] + 1] <- 0
  expect_error(predict(zero, d, type = "quantiles"),
               "`object` is damaged: its quantile data refer to a row without positive weight")
  nan <- fit
  nan$quantile$y[fit$quantile$samples[[2]][[length(fit$quantile$samples[[2]])]] + 1] <- NaN
  expect_error(predict(nan, d, type = "quantiles"),
               "`object` is damaged: its training outputs are not finite")
})

test_that("quantile columns are labelled by the probabilities of each call", {
  # Labels are kept for the last probabilities (a served model is asked for
  # the same ones every call): other probabilities must give other labels.
  fit <- ccforest(mpg ~ ., data = mtcars, n_tree = 10, quantiles = TRUE, seed = 1)
  labels <- function(q) colnames(predict(fit, mtcars[1:2, ], type = "quantiles", quantiles = q))
  expect_identical(labels(c(0.1, 0.5, 0.9)), c("quantile= 0.1", "quantile= 0.5", "quantile= 0.9"))
  expect_identical(labels(c(0.9, 0.1)), c("quantile= 0.9", "quantile= 0.1"))
  expect_identical(labels(1 / 3), paste("quantile=", 1 / 3))
  expect_identical(labels(c(0.1, 0.5, 0.9)), c("quantile= 0.1", "quantile= 0.5", "quantile= 0.9"))
})
