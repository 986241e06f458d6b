# The integrity of fitted objects (issue 28): a fit is sealed with a checksum
# of what its readers use (R/checksum.R), checked by every function that
# reads it; objects of 0.2.0, which have none, keep working.

integrity_data <- function(n = 120, seed = 1) {
  withr::with_seed(seed, {
    d <- data.frame(x1 = rnorm(n), x2 = runif(n), g = factor(sample(letters[1:4], n, TRUE)))
    d$y <- d$x1 + as.integer(d$g) + rnorm(n)
    d$cls <- factor(ifelse(d$y > 2.5, "hi", "lo"))
    d
  })
}

#' A copy of `fit` with one bit of one tree flipped (a byte in its middle)
flip_tree_bit <- function(fit, tree = 1L, bit = 3L) {
  bytes <- fit$forest$trees[[tree]]
  at <- length(bytes) %/% 2L
  bytes[at] <- xor(bytes[at], as.raw(bitwShiftL(1L, bit)))
  fit$forest$trees[[tree]] <- bytes
  fit
}

test_that("fits are sealed: the same forest has the same checksum, call and time aside", {
  d <- integrity_data()
  a <- ccforest(y ~ x1 + x2 + g, d, n_tree = 6, seed = 1, n_thread = 1)
  b <- ccforest(y ~ x1 + x2 + g, d, n_tree = 6, seed = 1, n_thread = 2)
  expect_match(a$checksum, "^[0-9a-f]{16}$")
  expect_identical(a$checksum, b$checksum)
  xy <- ccforest(d[c("x1", "x2", "g")], d$y, n_tree = 6, seed = 1)
  expect_match(xy$checksum, "^[0-9a-f]{16}$")
  expect_false(identical(xy$checksum, a$checksum))  # no formula record
  # Records of how the fit was made are not sealed: update() replays `call`.
  changed <- a
  changed$call <- quote(ccforest(y ~ x1, d))
  changed$train_time <- 99
  expect_identical(predict(changed, d), predict(a, d))
  # Elements others add (caret stores xNames, problemType, ...) are not either.
  changed$xNames <- c("x1", "x2", "g")
  expect_identical(predict(changed, d), predict(a, d))
  # Anything sealed is.
  for (edit in list(
    function(f) { f$seed <- f$seed + 1; f },
    function(f) { f$blueprint$center[[1]] <- f$blueprint$center[[1]] * (1 + 2^-52); f },
    function(f) { f$options$na_action <- "impute_mean"; f },
    function(f) { f$forest$trees <- rev(f$forest$trees); f },
    function(f) { f$response$center <- f$response$center + 1; f },
    function(f) { names(f$blueprint$levels) <- letters[seq_along(f$blueprint$levels)]; f }
  )) {
    expect_error(predict(edit(a), d), "`object` is damaged: its contents do not match its checksum")
  }
  # An unreadable checksum is damage too.
  bad <- a
  bad$checksum <- "not hex"
  expect_error(predict(bad, d), "`object` is damaged: its checksum is unreadable")
})

test_that("every function that reads a fit refuses one with a damaged tree", {
  d <- integrity_data()
  reg <- ccforest(y ~ x1 + x2 + g, d, n_tree = 4, seed = 2, quantiles = TRUE,
                  sampling = "bagging")
  cls <- ccforest(cls ~ x1 + x2 + g, d, n_tree = 4, seed = 3)
  other <- ccforest(cls ~ x1 + x2 + g, d, n_tree = 4, seed = 3, first_tree = 5)
  bad_reg <- flip_tree_bit(reg)
  bad_cls <- flip_tree_bit(cls)
  damaged <- "is damaged: its contents do not match its checksum"
  expect_error(predict(bad_reg, d), damaged)
  expect_error(predict(bad_reg, d, type = "quantiles"), damaged)
  expect_error(predict(bad_cls, d, type = "prob"), damaged)
  expect_error(predict(bad_cls, d, chunk_size = 10), damaged)
  expect_error(importance(bad_cls, new_data = d), damaged)
  expect_error(importance(bad_cls, type = "projection"), damaged)
  expect_error(combine_forests(bad_cls, other), paste0("`bad_cls` ", damaged))
  expect_error(combine_forests(cls, flip_tree_bit(other, 2L)), damaged)
  expect_error(tree_info(bad_cls, 1), damaged)
  expect_error(partial_dependence(bad_reg, d, "x1"), damaged)
  expect_error(summary(bad_cls), damaged)
  expect_error(print(bad_cls), damaged)
  expect_error(fitted(bad_reg), damaged)
  expect_error(residuals(bad_reg), damaged)
  # Intact, they all work; combined ranges are sealed again.
  expect_length(predict(reg, d, type = "quantiles"), 3L * nrow(d))
  joined <- combine_forests(cls, other)
  expect_identical(joined$checksum,
                   ccforest(cls ~ x1 + x2 + g, d, n_tree = 8, seed = 3)$checksum)
  expect_s3_class(tree_info(joined, 8), "data.frame")
})

test_that("a forest saved by 0.2.0 (no checksum) loads and predicts as it did", {
  old <- readRDS(test_path("fixtures", "forests-0.2.0.rds"))
  expect_identical(old$reg$version, "0.2.0")
  expect_null(old$reg$checksum)
  expect_identical(old$reg$forest$format, 2L)
  new <- old$new
  expect_identical(predict(old$reg, new), old$expected$reg)
  # Quantiles: 0.2.0 summed weights in output order, which could miss a
  # target met exactly (tied cumulative weights) by a rounding; these now
  # give the smaller output, as the weighted distribution written out here.
  keep <- which(stats::complete.cases(new))  # routed here without imputation
  complete <- new[keep, ]
  got <- predict(old$reg, complete, type = "quantiles")
  fit <- old$reg
  z <- ccforest:::predictor_matrix(fit, complete)
  colnames(z) <- fit$blueprint$column_names
  y <- fit$quantile$y
  w <- fit$quantile$weights
  leaf_rows <- lapply(seq_len(5), function(t) {
    info <- tree_info(fit, t)
    leaf <- cumsum(info$terminal)[route_rows(fit, t, z, info) + 1L]
    s <- fit$quantile$samples[[t]]
    n_leaf <- sum(info$terminal)
    start <- n_leaf + c(0, cumsum(s[seq_len(n_leaf)]))
    lapply(leaf, function(l) s[(start[[l]] + 1):start[[l + 1]]] + 1L)
  })
  cdf <- function(i, v) {
    sum(vapply(leaf_rows, function(tree) {
      rows <- tree[[i]]
      sum(w[rows][y[rows] <= v]) / sum(w[rows])
    }, numeric(1)))
  }
  probs <- c(0.1, 0.5, 0.9)
  expected <- t(vapply(seq_len(nrow(complete)), function(i) {
    candidates <- sort(unique(y[unlist(lapply(leaf_rows, `[[`, i))]))
    vapply(probs, function(p) {
      candidates[which(vapply(candidates, function(v) cdf(i, v), 0) >= 5 * p - 1e-12)[[1]]]
    }, numeric(1))
  }, numeric(3)))
  expect_identical(unname(got), expected)
  differ <- which(got != old$expected$quantiles[keep, ], arr.ind = TRUE)
  for (k in seq_len(nrow(differ))) {
    i <- differ[k, 1]
    expect_equal(cdf(i, got[i, differ[k, 2]]), 5 * probs[[differ[k, 2]]], tolerance = 1e-12)
  }
  expect_identical(predict(old$cls, new, type = "prob"), old$expected$prob)
  expect_identical(predict(old$cls, new), old$expected$class)
  expect_identical(fitted(old$reg), old$expected$fitted)
  expect_identical(importance(old$cls), old$expected$importance)
  expect_output(print(old$cls), "Trees:\\s+5")
  # Without a checksum the structural checks and the core's checks of every
  # tree still refuse damage they can see.
  bad <- old$cls
  bad$forest$trees[[1]] <- bad$forest$trees[[1]][-1]
  expect_error(predict(bad, new), "`object` is damaged: a tree")
})
