# One random stream per tree, derived from one seed: forests depend on the
# seed only, never on threads, and seed = NULL follows set.seed().

repro_data <- function() {
  set.seed(601)
  df <- make_spiral(300, noise = 0.05)
  df$x3 <- stats::rnorm(300)
  df$x4 <- factor(sample(letters[1:3], 300, replace = TRUE))
  df$x1[c(4, 50, 77)] <- NA
  df$y <- df$x1 + df$x2 + stats::rnorm(300)
  df$y[is.na(df$y)] <- 0
  df
}

# Fresh rows: fully grown classification trees without bagging fit their
# training rows exactly, so predictions there cannot tell forests apart.
repro_new <- function() {
  set.seed(602)
  new <- make_spiral(200, noise = 0.2)
  new$x3 <- stats::rnorm(200)
  new$x4 <- factor(sample(letters[1:3], 200, replace = TRUE))
  new$x2[c(1, 9)] <- NA
  new
}

test_that("the same seed gives identical forests, different seeds different ones", {
  df <- repro_data()
  a <- ccforest(class ~ . - y, data = df, n_tree = 10, seed = 42)
  b <- ccforest(class ~ . - y, data = df, n_tree = 10, seed = 42)
  expect_identical(a$forest, b$forest)
  expect_identical(a$seed, 42)
  expect_identical(predict(a, df, type = "prob"), predict(b, df, type = "prob"))
  c <- ccforest(class ~ . - y, data = df, n_tree = 10, seed = 43)
  expect_false(identical(a$forest, c$forest))
  new <- repro_new()
  expect_false(identical(predict(a, new, type = "prob"), predict(c, new, type = "prob")))
  r1 <- ccforest(y ~ . - class, data = df, n_tree = 10, seed = 7)
  r2 <- ccforest(y ~ . - class, data = df, n_tree = 10, seed = 7)
  r3 <- ccforest(y ~ . - class, data = df, n_tree = 10, seed = 8)
  expect_identical(r1$forest, r2$forest)
  expect_false(identical(r1$forest, r3$forest))
  # The forest is plain data: identical lists of raw vectors.
  expect_type(a$forest$trees, "list")
  expect_true(all(vapply(a$forest$trees, is.raw, logical(1))))
  # Trees within a forest differ from one another (independent streams).
  expect_identical(length(unique(a$forest$trees)), 10L)
  roots <- lapply(1:10, function(t) tree_info(a, t)[1L, ])
  sizes <- vapply(1:10, function(t) nrow(tree_info(a, t)), integer(1))
  expect_gt(length(unique(vapply(roots, function(r) r$threshold, numeric(1)))), 1L)
  expect_gt(length(unique(sizes)) + length(unique(lapply(roots, function(r) r$coefficients[[1]]))),
            2L)
})

test_that("n_thread 1, 2 and 4 give identical forests and predictions", {
  df <- repro_data()
  for (sampling in c("projection", "bagging")) {
    fits <- lapply(c(1L, 2L, 4L), function(k) {
      ccforest(class ~ . - y, data = df, n_tree = 12, n_thread = k, seed = 9,
               sampling = sampling)
    })
    expect_identical(fits[[2]]$forest, fits[[1]]$forest)
    expect_identical(fits[[3]]$forest, fits[[1]]$forest)
    p <- lapply(seq_along(fits), function(i) {
      predict(fits[[i]], repro_new(), type = "prob", n_thread = c(1L, 2L, 4L)[[i]])
    })
    expect_identical(p[[2]], p[[1]])
    expect_identical(p[[3]], p[[1]])
  }
  regs <- lapply(c(1L, 2L, 4L), function(k) {
    ccforest(y ~ . - class, data = df, n_tree = 12, n_thread = k, seed = 9)
  })
  expect_identical(regs[[2]]$forest, regs[[1]]$forest)
  expect_identical(regs[[3]]$forest, regs[[1]]$forest)
  expect_identical(predict(regs[[3]], df, n_thread = 4), predict(regs[[1]], df, n_thread = 1))
})

test_that("the thread count can come from the option and the environment variable", {
  df <- repro_data()
  base <- ccforest(class ~ . - y, data = df, n_tree = 6, n_thread = 1, seed = 10)
  withr::with_options(list(ccforest.n_thread = 2), {
    expect_identical(ccforest(class ~ . - y, data = df, n_tree = 6, seed = 10)$forest,
                     base$forest)
  })
  withr::with_envvar(c(CCFOREST_N_THREAD = "2"), {
    expect_identical(ccforest(class ~ . - y, data = df, n_tree = 6, seed = 10)$forest,
                     base$forest)
  })
})

test_that("seed = NULL follows set.seed() and the stored seed reproduces the forest", {
  df <- repro_data()
  set.seed(2024)
  a <- ccforest(class ~ . - y, data = df, n_tree = 8)
  set.seed(2024)
  b <- ccforest(class ~ . - y, data = df, n_tree = 8)
  expect_identical(a$forest, b$forest)
  expect_identical(a$seed, b$seed)
  expect_true(is.numeric(a$seed) && a$seed >= 0 && a$seed <= 2^31 - 1 && a$seed == round(a$seed))
  again <- ccforest(class ~ . - y, data = df, n_tree = 8, seed = a$seed)
  expect_identical(again$forest, a$forest)
  set.seed(2025)
  c <- ccforest(class ~ . - y, data = df, n_tree = 8)
  expect_false(identical(c$forest, a$forest))
  # Fitting draws exactly one number from R's stream, and never resets it.
  set.seed(7)
  invisible(ccforest(class ~ . - y, data = df, n_tree = 2))
  after_fit <- stats::runif(1)
  set.seed(7)
  invisible(stats::runif(1))
  expect_identical(after_fit, stats::runif(1))
  # Fitting with an explicit seed leaves R's stream alone.
  set.seed(8)
  invisible(ccforest(class ~ . - y, data = df, n_tree = 2, seed = 1))
  with_seed <- stats::runif(1)
  set.seed(8)
  expect_identical(with_seed, stats::runif(1))
  # Prediction does not touch R's stream either.
  set.seed(9)
  invisible(predict(a, df))
  after_predict <- stats::runif(1)
  set.seed(9)
  expect_identical(after_predict, stats::runif(1))
})

test_that("predict(n_tree = k) uses the first k trees", {
  df <- repro_data()
  big <- ccforest(class ~ . - y, data = df, n_tree = 20, seed = 11)
  small <- ccforest(class ~ . - y, data = df, n_tree = 5, seed = 11)
  # The first trees of a larger forest are the trees of a smaller one.
  expect_identical(n_trees_of(big), 20L)
  expect_identical(big$forest$trees[1:5], small$forest$trees)
  expect_identical(big$forest$first_tree, small$forest$first_tree)
  expect_false(identical(big$forest$trees[6:10], small$forest$trees))
  expect_identical(predict(big, df, type = "prob", n_tree = 5),
                   predict(small, df, type = "prob"))
  expect_identical(predict(big, df, n_tree = 5), predict(small, df))
  new <- repro_new()
  expect_identical(predict(big, new, type = "prob", n_tree = 5),
                   predict(small, new, type = "prob"))
  expect_false(identical(predict(big, new, type = "prob"), predict(small, new, type = "prob")))
  expect_identical(predict(big, df, type = "prob", n_tree = 20), predict(big, df, type = "prob"))
  rbig <- ccforest(y ~ . - class, data = df, n_tree = 10, seed = 12)
  rsmall <- ccforest(y ~ . - class, data = df, n_tree = 1, seed = 12)
  expect_identical(predict(rbig, df, n_tree = 1), predict(rsmall, df))
})
