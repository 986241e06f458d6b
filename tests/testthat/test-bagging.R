# What bagged forests' bootstrap samples give: out-of-bag probabilities and
# error curve, and the infinitesimal jackknife's standard errors. The
# references are computed here in plain R from the per-tree predictions and
# the in-bag counts, whose out-of-bag complement is checked against the
# forest's stored out-of-bag predictions first.

in_bag <- function(fit) ccforest:::in_bag_counts(fit)

test_that("in-bag counts are each tree's bootstrap sample, as out-of-bag estimates use it", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 30, sampling = "bagging", seed = 5)
  counts <- in_bag(fit)
  expect_identical(dim(counts), c(150L, 30L))
  expect_equal(colSums(counts), rep(150, 30))
  # Out-of-bag classes rebuilt from them are the stored ones.
  all <- predict(fit, iris, type = "prob", predict_all = TRUE)
  oob <- counts == 0L
  prob <- sapply(1:3, function(k) rowSums(all[, k, ] * oob) / rowSums(oob))
  expect_equal(fitted(fit, type = "prob"), prob, ignore_attr = TRUE)
  expect_identical(colnames(fitted(fit, type = "prob")), levels(iris$Species))
  expect_identical(fitted(fit), factor(levels(iris$Species)[max.col(prob, "first")],
                                       levels(iris$Species)))
  # The error after k trees, from the first k trees' out-of-bag votes.
  for (k in c(1, 5, 30)) {
    o <- oob[, 1:k, drop = FALSE]
    seen <- rowSums(o) > 0
    votes <- sapply(1:3, function(j) rowSums(all[, j, 1:k, drop = FALSE][, 1, ] * o))
    predicted <- max.col(matrix(votes, 150), "first")
    expect_equal(fit$oob_error_curve[[k]],
                 mean(predicted[seen] != as.integer(iris$Species)[seen]))
  }
  expect_identical(fit$oob_error_curve[[30]], fit$oob_error)
})

test_that("out-of-bag probabilities follow the rows kept by na_action = \"omit\"", {
  d <- iris
  d$Sepal.Width[c(2, 7)] <- NA
  fit <- ccforest(Species ~ ., data = d, n_tree = 20, sampling = "bagging",
                  na_action = "omit", seed = 1)
  p <- fitted(fit, type = "prob")
  expect_identical(dim(p), c(150L, 3L))
  expect_true(all(is.na(p[c(2, 7), ])))
  expect_equal(rowSums(p[-c(2, 7), ])[!is.na(fitted(fit)[-c(2, 7)])],
               rep(1, sum(!is.na(fitted(fit)[-c(2, 7)]))))
})

test_that("regression out-of-bag error curve ends at oob_error, in the output's units", {
  fit <- ccforest(mpg ~ ., data = mtcars, n_tree = 40, sampling = "bagging", seed = 3)
  expect_length(fit$oob_error_curve, 40)
  expect_equal(fit$oob_error_curve[[40]], fit$oob_error)
  counts <- in_bag(fit)
  all <- predict(fit, mtcars, predict_all = TRUE)
  o <- counts[, 1:10] == 0L
  seen <- rowSums(o) > 0
  pred <- rowSums(all[, 1:10] * o)[seen] / rowSums(o)[seen]
  expect_equal(fit$oob_error_curve[[10]], mean((pred - mtcars$mpg[seen])^2))
  expect_error(fitted(fit, type = "prob"), "`type` must be one of \"response\"")
})

test_that("fitted(type = \"prob\") gives every output's probabilities", {
  d <- data.frame(x1 = iris$Sepal.Length, x2 = iris$Petal.Width, a = iris$Species,
                  b = factor(iris$Sepal.Width > 3))
  fit <- ccforest(cbind(a, b) ~ x1 + x2, data = d, n_tree = 30, sampling = "bagging", seed = 1)
  p <- fitted(fit, type = "prob")
  expect_named(p, c("a", "b"))
  expect_identical(colnames(p$b), c("FALSE", "TRUE"))
  expect_identical(max.col(p$a, "first"), as.integer(fitted(fit)$a))
  expect_error(fitted(fit, type = "prob", extra = 1), "`extra`")
})

# The infinitesimal jackknife written out: covariances over the trees of the
# in-bag counts and the trees' predictions.
ij_reference <- function(counts, trees) {
  B <- ncol(counts)
  centred_n <- counts - rowMeans(counts)
  centred_t <- trees - rowMeans(trees)
  cov <- centred_n %*% t(centred_t) / B
  raw <- colSums(cov^2)
  var_n <- rowMeans(centred_n^2)
  bias <- sum(var_n) * rowMeans(centred_t^2) / B
  list(raw = raw, corrected = raw - bias)
}

test_that("standard errors are the bias-corrected infinitesimal jackknife", {
  set.seed(2)
  d <- make_smooth(120, noise = 0.3)
  fit <- ccforest(y ~ ., data = d, n_tree = 300, sampling = "bagging", seed = 7)
  new <- make_smooth(30)
  trees <- predict(fit, new, predict_all = TRUE)
  ref <- ij_reference(in_bag(fit), trees)
  se <- suppressWarnings(predict(fit, new, type = "se"))
  expect_equal(as.vector(se), sqrt(pmax(ref$corrected, 0)))
  expect_identical(attr(se, "clamped"), ref$corrected < 0)
  # Class probabilities: one standard error per class.
  cls <- ccforest(Species ~ ., data = iris, n_tree = 200, sampling = "bagging", seed = 1)
  trees <- predict(cls, iris[c(20, 71, 120, 134), ], type = "prob", predict_all = TRUE)
  se <- suppressWarnings(predict(cls, iris[c(20, 71, 120, 134), ], type = "se"))
  expect_identical(colnames(se), levels(iris$Species))
  for (k in 1:3) {
    ref <- ij_reference(in_bag(cls), trees[, k, ])
    expect_equal(unname(se[, k]), sqrt(pmax(ref$corrected, 0)))
  }
})

test_that("standard errors shrink with more training rows and match the spread over refits", {
  # The sampling standard deviation of a bagged forest's prediction over
  # independent training sets, against the infinitesimal jackknife's mean
  # estimate: the same order (Wager et al. report IJ-U within a factor of
  # about 1.5 at these sizes).
  x0 <- data.frame(x1 = 0.5, x2 = -0.5)
  draws <- vapply(1:20, function(r) {
    set.seed(100 + r)
    d <- make_smooth(150, noise = 0.5)
    fit <- ccforest(y ~ ., data = d, n_tree = 400, sampling = "bagging", seed = r)
    c(predict(fit, x0), suppressWarnings(predict(fit, x0, type = "se")))
  }, numeric(2))
  ratio <- mean(draws[2, ]) / sd(draws[1, ])
  expect_gt(ratio, 0.5)
  expect_lt(ratio, 2)
})

test_that("negative bias-corrected variances are clamped at 0, with a warning", {
  set.seed(3)
  d <- make_smooth(200, noise = 0.3)
  fit <- ccforest(y ~ ., data = d, n_tree = 20, sampling = "bagging", seed = 1)
  expect_warning(se <- predict(fit, make_smooth(50), type = "se"),
                 "For [0-9]+ of 50 predictions the bias-corrected infinitesimal jackknife variance was negative: with 20 trees")
  expect_true(any(attr(se, "clamped")))
  expect_true(all(se[attr(se, "clamped")] == 0))
})

test_that("standard errors need bagging, and say why", {
  fit <- ccforest(mpg ~ ., data = mtcars, n_tree = 10, sampling = "projection", seed = 1)
  expect_error(predict(fit, mtcars, type = "se"),
               "type = \"se\" needs a forest whose trees are grown on samples.*every tree is grown on every row")
  cls <- ccforest(Species ~ ., data = iris, n_tree = 10, sampling = "projection", seed = 1)
  expect_error(predict(cls, iris, type = "se"), "needs a forest whose trees are grown on samples")
  bag <- ccforest(mpg ~ ., data = mtcars, n_tree = 10, sampling = "bagging", seed = 1)
  withr::local_options(ccforest.memory_limit = 100)
  expect_error(predict(bag, mtcars, type = "se"),
               "redraws the trees' samples, whose counts take 640.0 bytes for 32 training rows and 10 trees, but only 100.0 bytes")
})

test_that("weighted and na_action = \"omit\" forests redraw the samples they were grown on", {
  d <- mtcars
  d$wt[c(4, 9)] <- NA
  w <- rep(c(1, 3), 16)
  fit <- ccforest(mpg ~ ., data = d, n_tree = 50, sampling = "bagging", na_action = "omit",
                  case_weights = w, seed = 4)
  counts <- in_bag(fit)
  expect_identical(nrow(counts), 30L)
  all <- predict(fit, d[-c(4, 9), ], predict_all = TRUE)
  o <- counts == 0L
  seen <- rowSums(o) > 0
  expect_equal(unname(fitted(fit)[-c(4, 9)][seen]), rowSums(all * o)[seen] / rowSums(o)[seen])
  expect_length(suppressWarnings(predict(fit, d[1:3, ], type = "se")), 3)
  # A fit of an older version, which did not keep the weights, is refused.
  old <- as_unsealed(fit)
  old$bagging <- NULL
  expect_error(predict(old, d[1:3, ], type = "se"),
               "needs the case weights and kept rows of the training data, which `object`")
})

test_that("combined forests keep no out-of-bag results but still give standard errors", {
  parts <- lapply(c(1, 21), function(first) {
    ccforest(mpg ~ ., data = mtcars, n_tree = 20, sampling = "bagging", seed = 9,
             first_tree = first)
  })
  whole <- ccforest(mpg ~ ., data = mtcars, n_tree = 40, sampling = "bagging", seed = 9)
  combined <- suppressMessages(combine_forests(parts))
  expect_null(combined$oob_error_curve)
  expect_equal(suppressWarnings(predict(combined, mtcars[1:4, ], type = "se")),
               suppressWarnings(predict(whole, mtcars[1:4, ], type = "se")))
})

test_that("out-of-bag scores of every task do not depend on the units (issue 36 audit)", {
  # Powers of two rescale exactly, so the forests are the same and the scores
  # exact: errors and importance in the output's units scale by its square,
  # and nothing else moves.
  d <- mtcars
  small <- d
  small$mpg <- d$mpg * 2^-30
  for (type in c("permutation", "negation")) {
    a <- ccforest(mpg ~ ., d, n_tree = 10, seed = 1, sampling = "bagging", importance = type)
    b <- ccforest(mpg ~ ., small, n_tree = 10, seed = 1, sampling = "bagging", importance = type)
    expect_identical(b$forest$trees, a$forest$trees)
    expect_identical(b$oob_error, a$oob_error * 2^-60)
    expect_identical(b$oob_error_curve, a$oob_error_curve * 2^-60)
    expect_identical(unclass(b$variable.importance), unclass(a$variable.importance) * 2^-60)
    expect_identical(b$residuals, a$residuals * 2^-30)
  }
  tiny <- iris
  tiny[1:4] <- tiny[1:4] * 2^-40
  a <- ccforest(Species ~ ., iris, n_tree = 10, seed = 1, sampling = "bagging",
                importance = "permutation")
  b <- ccforest(Species ~ ., tiny, n_tree = 10, seed = 1, sampling = "bagging",
                importance = "permutation")
  for (name in c("oob_error", "oob_prob", "oob_error_curve", "variable.importance")) {
    expect_identical(b[[name]], a[[name]], label = name)
  }
})
