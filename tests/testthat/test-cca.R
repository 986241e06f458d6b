# The CCA kernel (Appendix A) against stats::cancor(), an independent
# implementation of the same quantities.

cca <- function(x, y, tolerance = 1e-4) {
  ccforest:::ccf_cca_cpp(as.matrix(x), as.matrix(y), tolerance)
}

cca_classes <- function(x, codes, n_class, tolerance = 1e-4) {
  ccforest:::ccf_cca_classes_cpp(as.matrix(x), as.integer(codes), as.integer(n_class), tolerance)
}

# Canonical variates of x (centred), whose direction does not depend on
# which of several dependent columns carries the coefficients.
variates <- function(x, a) {
  scale(x, scale = FALSE) %*% a
}

# Compare the k-th direction pair only where the k-th correlation is well
# separated from its neighbours (otherwise the direction is not unique).
separated <- function(cor, gap = 1e-3) {
  k <- length(cor)
  vapply(seq_len(k), function(j) {
    d <- abs(cor[j] - cor[-j])
    all(d > gap) && cor[j] > gap
  }, logical(1))
}

expect_cca_matches_cancor <- function(x, y, x_ref = x, y_ref = y, n_lead = 2L) {
  got <- cca(x, y)
  ref <- stats::cancor(x_ref, y_ref)
  n_dir <- min(qr(scale(x_ref, scale = FALSE))$rank, qr(scale(y_ref, scale = FALSE))$rank)
  expect_identical(ncol(got$directions), as.integer(n_dir))
  expect_identical(nrow(got$directions), ncol(x))
  expect_equal(as.vector(got$cor), ref$cor[seq_len(n_dir)], tolerance = 1e-8)
  ok <- which(separated(ref$cor[seq_len(n_dir)]))
  ok <- utils::head(ok, n_lead)
  expect_gt(length(ok), 0L)
  for (k in ok) {
    expect_equal(
      abs_cosine(variates(x, got$directions[, k]), variates(x_ref, ref$xcoef[, k])),
      1, tolerance = 1e-8
    )
  }
  invisible(got)
}

test_that("CCA matches cancor on random data", {
  set.seed(101)
  x <- matrix(stats::rnorm(60 * 5), 60, 5)
  y <- matrix(stats::rnorm(60 * 3), 60, 3)
  colnames(x) <- paste0("x", 1:5)
  got <- expect_cca_matches_cancor(x, y, n_lead = 3L)
  # Full rank: no zero rows, and the coefficients themselves (not just the
  # variates) match cancor's, up to sign and scale, once cancor's pivoting
  # is undone.
  ref <- stats::cancor(x, y)
  ref_coef <- ref$xcoef[colnames(x), , drop = FALSE]
  expect_true(all(rowSums(abs(got$directions)) > 0))
  for (k in which(separated(ref$cor))) {
    expect_equal(abs_cosine(got$directions[, k], ref_coef[, k]), 1, tolerance = 1e-8)
  }
})

test_that("CCA matches cancor on strongly correlated data", {
  set.seed(102)
  n <- 80
  z <- matrix(stats::rnorm(n * 2), n, 2)
  x <- cbind(z[, 1] + 0.1 * stats::rnorm(n), z[, 2] + 0.3 * stats::rnorm(n),
             stats::rnorm(n), stats::rnorm(n))
  y <- cbind(z[, 1] + 0.05 * stats::rnorm(n), z[, 2] - z[, 1] + 0.5 * stats::rnorm(n))
  got <- expect_cca_matches_cancor(x, y)
  expect_gt(got$cor[[1]], 0.95)
  # Correlations come sorted and within [0, 1].
  expect_true(all(diff(as.vector(got$cor)) <= 1e-12))
  expect_true(all(got$cor >= 0 & got$cor <= 1))
})

test_that("CCA correlations are those of the returned directions", {
  # Independent of cancor: the Pearson correlation between x a_k and the best
  # linear combination of y equals the k-th canonical correlation.
  set.seed(103)
  n <- 50
  x <- matrix(stats::rnorm(n * 4), n, 4)
  y <- cbind(x[, 1] + stats::rnorm(n), stats::rnorm(n))
  got <- cca(x, y)
  u1 <- x %*% got$directions[, 1]
  r2 <- summary(stats::lm(u1 ~ y))$r.squared
  expect_equal(sqrt(r2), got$cor[[1]], tolerance = 1e-8)
})

test_that("number of directions is min(rank x, rank y)", {
  set.seed(104)
  n <- 40
  x5 <- matrix(stats::rnorm(n * 5), n, 5)
  y2 <- matrix(stats::rnorm(n * 2), n, 2)
  expect_identical(ncol(cca(x5, y2)$directions), 2L)
  expect_identical(length(cca(x5, y2)$cor), 2L)
  x2 <- matrix(stats::rnorm(n * 2), n, 2)
  y4 <- matrix(stats::rnorm(n * 4), n, 4)
  expect_identical(ncol(cca(x2, y4)$directions), 2L)
  expect_identical(nrow(cca(x2, y4)$directions), 2L)
  # rank x = 3 (two dependent columns), rank y = 5
  x_def <- cbind(x5[, 1:3], x5[, 1], x5[, 2] - 2 * x5[, 3])
  y5 <- matrix(stats::rnorm(n * 5), n, 5)
  expect_identical(ncol(cca(x_def, y5)$directions), 3L)
  # rank y = 1 (a duplicated column of y)
  y_def <- cbind(y2[, 1], 3 * y2[, 1] + 1)
  expect_identical(ncol(cca(x5, y_def)$directions), 1L)
})

test_that("duplicated columns of x get zero coefficients and cancor still matches", {
  set.seed(105)
  n <- 60
  x <- matrix(stats::rnorm(n * 3), n, 3)
  y <- cbind(x[, 1] - x[, 2] + stats::rnorm(n), x[, 3] + stats::rnorm(n), stats::rnorm(n))
  x_dup <- cbind(x, x[, 2])          # column 4 duplicates column 2
  got <- expect_cca_matches_cancor(x_dup, y, x_ref = x, y_ref = y)
  zero_rows <- which(rowSums(abs(got$directions)) == 0)
  # Exactly one of the two copies is dropped, and its coefficients are 0.
  expect_length(zero_rows, 1L)
  expect_true(zero_rows %in% c(2L, 4L))
  expect_identical(ncol(got$directions), 3L)
})

test_that("collinear columns of x get zero coefficients and cancor still matches", {
  set.seed(106)
  n <- 70
  x <- matrix(stats::rnorm(n * 4), n, 4)
  y <- cbind(x[, 1] + x[, 4] + stats::rnorm(n), x[, 2] + stats::rnorm(n))
  x_col <- cbind(x[, 1:2], 2 * x[, 1] - 0.5 * x[, 2] + 3, x[, 3:4])  # column 3 dependent
  got <- expect_cca_matches_cancor(x_col, y, x_ref = x, y_ref = y)
  zero_rows <- which(rowSums(abs(got$directions)) == 0)
  expect_length(zero_rows, 1L)
  expect_true(zero_rows %in% 1:3)
  # A constant column is dependent on the intercept: it must be dropped too.
  x_const <- cbind(x, 5)
  got_const <- expect_cca_matches_cancor(x_const, y, x_ref = x, y_ref = y)
  expect_true(all(got_const$directions[5, ] == 0))
})

test_that("the class CCA equals the general CCA on the 1-of-K indicators", {
  set.seed(107)
  n <- 90
  codes <- sample(0:3, n, replace = TRUE)
  x <- matrix(stats::rnorm(n * 5), n, 5) + 0.8 * codes
  x[, 2] <- x[, 2] + (codes == 1)
  y <- indicator_matrix(codes, 4L)
  general <- cca(x, y)
  classes <- cca_classes(x, codes, 4L)
  expect_identical(ncol(classes$directions), 3L)
  expect_equal(as.vector(classes$cor), as.vector(general$cor), tolerance = 1e-8)
  for (k in which(separated(as.vector(general$cor)))) {
    expect_equal(abs_cosine(x %*% classes$directions[, k], x %*% general$directions[, k]),
                 1, tolerance = 1e-8)
  }
  # And both equal cancor against the indicators without one column.
  ref <- stats::cancor(x, y[, -1])
  expect_equal(as.vector(classes$cor), ref$cor, tolerance = 1e-8)
  for (k in which(separated(ref$cor))) {
    expect_equal(abs_cosine(variates(x, classes$directions[, k]), variates(x, ref$xcoef[, k])),
                 1, tolerance = 1e-8)
  }
})

test_that("the class CCA matches cancor on well and badly conditioned x", {
  # Well-conditioned blocks take the Cholesky factor of the Gram matrix,
  # badly conditioned ones (here a column within 1e-3 of another: still full
  # rank at the tolerance 1e-4, but below the Gram route's 16 times that) the
  # pivoted QR: both must agree with cancor.
  set.seed(111)
  n <- 200
  codes <- sample(0:4, n, replace = TRUE)
  base <- matrix(stats::rnorm(n * 4), n, 4) + 0.5 * codes
  for (spread in c(1, 1e-3)) {
    x <- cbind(base, base[, 1] + spread * stats::rnorm(n) + 0.1 * (codes == 2) * spread)
    got <- cca_classes(x, codes, 5L)
    ref <- stats::cancor(x, indicator_matrix(codes, 5L)[, -1])
    expect_identical(ncol(got$directions), 4L)
    expect_equal(as.vector(got$cor), ref$cor, tolerance = 1e-7)
    for (k in which(separated(ref$cor))) {
      expect_equal(abs_cosine(variates(x, got$directions[, k]), variates(x, ref$xcoef[, k])),
                   1, tolerance = 1e-7)
    }
  }
  # A block with as many rows as columns, or fewer, takes the QR as well.
  few <- cca_classes(base[1:4, ], c(0L, 1L, 0L, 1L), 2L)
  expect_identical(ncol(few$directions), 1L)
})

test_that("the class CCA matches cancor with rank-deficient x", {
  set.seed(108)
  n <- 60
  codes <- sample(0:2, n, replace = TRUE)
  x <- matrix(stats::rnorm(n * 3), n, 3) + codes
  x_dup <- cbind(x, x[, 1] + x[, 3])
  got <- cca_classes(x_dup, codes, 3L)
  ref <- stats::cancor(x, indicator_matrix(codes, 3L)[, -3])
  expect_identical(ncol(got$directions), 2L)
  expect_equal(as.vector(got$cor), ref$cor, tolerance = 1e-8)
  expect_length(which(rowSums(abs(got$directions)) == 0), 1L)
  for (k in which(separated(ref$cor))) {
    expect_equal(abs_cosine(variates(x_dup, got$directions[, k]), variates(x, ref$xcoef[, k])),
                 1, tolerance = 1e-8)
  }
})

test_that("K classes give at most K - 1 directions", {
  set.seed(109)
  n <- 50
  x <- matrix(stats::rnorm(n * 6), n, 6)
  two <- sample(0:1, n, replace = TRUE)
  expect_identical(ncol(cca_classes(x, two, 2L)$directions), 1L)
  three <- sample(0:2, n, replace = TRUE)
  expect_identical(ncol(cca_classes(x, three, 3L)$directions), 2L)
  # Empty classes do not count: 3 classes present out of 5 declared.
  sparse <- c(0L, 2L, 4L)[sample(1:3, n, replace = TRUE)]
  got <- cca_classes(x, sparse, 5L)
  expect_identical(ncol(got$directions), 2L)
  ref <- stats::cancor(x, indicator_matrix(sparse, 5L)[, c(1, 3)])
  expect_equal(as.vector(got$cor), ref$cor, tolerance = 1e-8)
  # Fewer features than classes: rank x limits the number of directions.
  x1 <- x[, 1, drop = FALSE]
  expect_identical(ncol(cca_classes(x1, three, 3L)$directions), 1L)
})

test_that("a single class or constant x gives zero directions, not an error", {
  set.seed(110)
  n <- 30
  x <- matrix(stats::rnorm(n * 3), n, 3)
  one <- rep(1L, n)
  got <- cca_classes(x, one, 3L)
  expect_identical(dim(got$directions), c(3L, 0L))
  expect_length(got$cor, 0L)
  constant_x <- matrix(2.5, n, 3)
  codes <- sample(0:2, n, replace = TRUE)
  got <- cca_classes(constant_x, codes, 3L)
  expect_identical(dim(got$directions), c(3L, 0L))
  got <- cca(constant_x, indicator_matrix(codes, 3L))
  expect_identical(dim(got$directions), c(3L, 0L))
  got <- cca(x, matrix(1, n, 2))
  expect_identical(dim(got$directions), c(3L, 0L))
  expect_length(got$cor, 0L)
})

test_that("CCA results do not depend on the scale or shift of the columns", {
  set.seed(111)
  n <- 40
  x <- matrix(stats::rnorm(n * 3), n, 3)
  y <- cbind(x[, 1] + stats::rnorm(n), stats::rnorm(n))
  base <- cca(x, y)
  scale_by <- c(10, 0.1, 3)
  moved_x <- sweep(sweep(x, 2, scale_by, `*`), 2, c(100, -5, 0), `+`)
  moved <- cca(moved_x, y)
  expect_equal(as.vector(moved$cor), as.vector(base$cor), tolerance = 1e-8)
  expect_equal(abs_cosine(variates(moved_x, moved$directions[, 1]),
                          variates(x, base$directions[, 1])), 1, tolerance = 1e-8)
})
