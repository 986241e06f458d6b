# Factors with many levels: ordered by the outputs, one numeric column.

test_that("level scores are shrunk level means, or their principal axes", {
  set.seed(1)
  n <- 300
  codes <- sample(1:6, n, replace = TRUE)
  codes[codes == 6] <- 5L  # level 6 never occurs
  y <- rnorm(n) + codes
  response <- ccforest:::prepare_response(y, "y")
  got <- ccforest:::level_scores(codes, 6L, response, NULL, NULL, seed = 1)
  expect_identical(dim(got), c(6L, 1L))
  z <- response$values[, 1]
  expected <- vapply(1:6, function(l) {
    (sum(z[codes == l]) + mean(z)) / (sum(codes == l) + 1) - mean(z)
  }, numeric(1))
  expected[6] <- NA
  expect_equal(got[, 1], expected)
  # Each training row's own value comes from its level's rows in the other
  # two of three folds, each holding a third of the level's rows.
  fold <- ccforest:::level_folds(codes, 1, seq_len(n))
  for (l in 1:5) {
    sizes <- tabulate(fold[codes == l] + 1L, 3L)
    expect_lte(max(sizes) - min(sizes), 1L)
  }
  own <- vapply(seq_len(n), function(i) {
    other <- codes == codes[[i]] & fold != fold[[i]]
    (sum(z[other]) + mean(z)) / (sum(other) + 1) - mean(z)
  }, numeric(1))
  expect_equal(attr(got, "own")[, 1], own)
  # With weights: weighted means, weight 0 rows left out.
  w <- runif(n)
  w[1:20] <- 0
  got_w <- ccforest:::level_scores(codes, 6L, response, w, NULL, seed = 1)[, 1]
  keep <- w > 0
  overall <- sum(w[keep] * z[keep]) / sum(w[keep])
  expected_w <- vapply(1:5, function(l) {
    i <- keep & codes == l
    (sum(w[i] * z[i]) + overall) / (sum(w[i]) + 1) - overall
  }, numeric(1))
  expect_equal(got_w[1:5], expected_w)
  expect_true(is.na(attr(ccforest:::level_scores(codes, 6L, response, w, NULL, seed = 1), "own")[1, 1]))

  # Three classes: the levels' (shrunk) class shares on their two principal
  # axes (three shares summing to one vary in two dimensions), weighted by
  # the levels' sizes, each axis signed so its largest loading is positive.
  cls <- factor(sample(c("a", "b", "c"), n, replace = TRUE))
  response <- ccforest:::prepare_response(cls, "y")
  got <- ccforest:::level_scores(codes, 6L, response, NULL, NULL, seed = 1)
  expect_identical(dim(got), c(6L, 2L))
  onehot <- outer(as.integer(cls), 1:3, `==`) + 0
  overall <- colMeans(onehot)
  shares <- t(vapply(1:5, function(l) {
    (colSums(onehot[codes == l, , drop = FALSE]) + overall) / (sum(codes == l) + 1)
  }, numeric(3)))
  centred <- sweep(shares, 2, overall)
  sizes <- tabulate(codes, 5)
  axes <- eigen(crossprod(centred * sqrt(sizes)))$vectors[, 1:2]
  for (k in 1:2) if (axes[which.max(abs(axes[, k])), k] < 0) axes[, k] <- -axes[, k]
  expect_equal(got[1:5, ], centred %*% axes)
  expect_true(all(is.na(got[6, ])))
  # Nothing of the levels' class profiles is lost: the axes give them back.
  expect_equal(got[1:5, ] %*% t(axes), centred, ignore_attr = TRUE)
  # A row's own values come from its level's shares in the other folds.
  own <- attr(got, "own")
  for (i in c(1, 50, 300)) {
    other <- codes == codes[[i]] & fold != fold[[i]]
    shares <- (colSums(onehot[other, , drop = FALSE]) + overall) / (sum(other) + 1)
    expect_equal(own[i, ], as.vector((shares - overall) %*% axes))
  }
  # Two classes: their shares vary along one axis only.
  two <- ccforest:::prepare_response(factor(cls == "a"), "y")
  expect_identical(dim(ccforest:::level_scores(codes, 6L, two, NULL, NULL, seed = 1)), c(6L, 1L))
  # Never more than eight axes (here 11 classes could give ten).
  eleven <- ccforest:::prepare_response(factor(sample(letters[1:11], n, TRUE)), "y")
  many <- ccforest:::level_scores(sample(1:30, n, TRUE), 30L, eleven, NULL, NULL,
                                  seed = 1)
  expect_identical(dim(many), c(30L, 8L))
  expect_identical(dim(attr(many, "own")), c(as.integer(n), 8L))
  # Never more axes than levels present, less one (and always one).
  expect_identical(ncol(ccforest:::level_scores(c(1L, 1L, 2L, 2L), 3L,
                                                ccforest:::prepare_response(factor(c("a", "b", "c", "c")), "y"),
                                                NULL, NULL, seed = 1)), 1L)
  expect_identical(ncol(ccforest:::level_scores(rep(2L, 4), 3L,
                                                ccforest:::prepare_response(factor(c("a", "b", "c", "c")), "y"),
                                                NULL, NULL, seed = 1)), 1L)
})

test_that("a training row's own value carries nothing of its own output", {
  # Whatever a row's output, its value is the same: it comes from the other
  # folds of its level (leaving the row alone out made values within a level
  # differ by exactly the rows' own outputs). And the folds depend on the
  # seed, not on the outputs or the order of the levels' rows.
  set.seed(2)
  n <- 200
  codes <- sample(1:40, n, replace = TRUE)
  y <- factor(sample(c("a", "b"), n, replace = TRUE))
  own <- function(y) {
    attr(ccforest:::level_scores(codes, 40L, ccforest:::prepare_response(y, "y"), NULL, NULL,
                                 seed = 7), "own")
  }
  base <- own(y)
  fold <- ccforest:::level_folds(codes, 7, seq_len(n))
  for (i in c(1, 77, 200)) {
    flipped <- y
    flipped[i] <- setdiff(levels(y), as.character(y[i]))
    change <- abs(own(flipped)[, 1] - base[, 1])
    # The row's own value moves only as every row's does (the overall share
    # every level is shrunk toward moves by 1 / n), far less than the values
    # the row's output enters: those of the other folds of its level.
    elsewhere <- codes != codes[[i]]
    other_folds <- codes == codes[[i]] & fold != fold[[i]]
    expect_lte(change[[i]], max(change[elsewhere]) * (1 + 1e-9))
    expect_gt(min(change[other_folds]), 5 * change[[i]])
  }
  expect_identical(ccforest:::level_folds(codes, 7, seq_len(n)),
                   ccforest:::level_folds(codes, 7, seq_len(n)))
  expect_false(identical(ccforest:::level_folds(codes, 7, seq_len(n)),
                         ccforest:::level_folds(codes, 8, seq_len(n))))
})

test_that("out-of-bag error is within noise of test error with many-level factors", {
  # Two noise classes and a 40-level factor (levels of 2 to 100 rows): the
  # out-of-bag error must estimate the test error (about 0.5). Valuing each
  # row with its level's mean without it gave 0.000.
  skip_on_cran()
  gen <- function(n) {
    data.frame(f = factor(sample(sprintf("G%02d", 1:40), n, TRUE, prob = 1:40)),
               y = factor(sample(c("a", "b"), n, TRUE)))
  }
  set.seed(28)
  gaps <- vapply(1:3, function(r) {
    train <- gen(2000)
    test <- gen(5000)
    fit <- ccforest(y ~ ., train, sampling = "bagging", n_tree = 50, seed = r)
    fit$oob_error - mean(predict(fit, test) != test$y)
  }, numeric(1))
  # One fit's out-of-bag error has a standard deviation of about 0.02 here.
  expect_lt(abs(mean(gaps)), 0.03)
  # Real grouped data: students in 160 schools (nlme's MathAchieve), whether
  # their score is above the median; leaving one out gave 0.30 out of bag
  # against 0.39 on held-out students.
  skip_if_not_installed("nlme")
  m <- as.data.frame(nlme::MathAchieve)
  m <- data.frame(School = factor(as.character(m$School)), Minority = m$Minority, Sex = m$Sex,
                  SES = m$SES, y = factor(m$MathAch > stats::median(m$MathAch)))
  gaps <- vapply(1:2, function(r) {
    i <- sample(nrow(m), round(0.7 * nrow(m)))
    fit <- ccforest(y ~ ., m[i, ], sampling = "bagging", n_tree = 100, seed = r)
    fit$oob_error - mean(predict(fit, m[-i, ]) != m$y[-i])
  }, numeric(1))
  expect_lt(abs(mean(gaps)), 0.03)
})

test_that("a factor with thousands of levels costs one column", {
  set.seed(2)
  n <- 5000
  effect <- rnorm(3000)
  d <- data.frame(f = factor(sample(sprintf("l%04d", 1:3000), n, TRUE), levels = sprintf("l%04d", 1:3000)),
                  a = rnorm(n))
  d$y <- factor(ifelse(effect[as.integer(d$f)] + d$a + rnorm(n, sd = 0.5) > 0, "p", "q"))
  fit <- ccforest(y ~ ., d, n_tree = 20, seed = 1)
  expect_identical(fit$blueprint$feature_type, c("scored", "numeric"))
  expect_identical(fit$blueprint$column_names, c("f", "a"))
  expect_identical(ncol(ccforest:::predictor_matrix(fit, d)), 2L)
  # The levels' order carries their effect; the training rows' own values
  # are not stored.
  expect_gt(abs(cor(fit$blueprint$scores[[1]], effect, use = "complete.obs")), 0.5)
  expect_null(attr(fit$blueprint, "own_scores"))
  expect_lt(length(serialize(fit$blueprint, NULL)), 1e5)
  # New data: known levels as at fit, unseen ones missing (with a warning).
  new <- d[1:4, c("f", "a")]
  new$f <- as.character(new$f)
  new$f[2] <- "never seen"
  expect_warning(p <- predict(fit, new, type = "prob"),
                 "Column `f` has level\\(s\\) `never seen` not seen when fitting; treated as missing.")
  expect_false(anyNA(p))
  expect_identical(p[-2, ], predict(fit, d[c(1, 3, 4), ], type = "prob"))
  # The paper's encoding stays available, and is the default for few levels.
  few <- ccforest(Species ~ ., transform(iris, g = factor(rep(letters[1:10], 15))), n_tree = 3,
                  seed = 1)
  expect_identical(few$blueprint$feature_type[5], "factor")
  expect_length(few$blueprint$column_names, 14L)
  small <- d[1:300, ]
  small$f <- droplevels(small$f)
  paper <- ccforest(y ~ ., small, n_tree = 3, seed = 1, onehot_max_levels = Inf)
  expect_identical(paper$blueprint$feature_type, c("factor", "numeric"))
  expect_length(paper$blueprint$column_names, nlevels(small$f) + 1L)
})

test_that("a noisy factor with many levels hurts a regression forest less ordered than one-hot", {
  skip_if_not_installed("mlbench")
  rmse <- function(onehot) {
    mean(vapply(1:2, function(r) {
      set.seed(r)
      make <- function(n) {
        s <- mlbench::mlbench.friedman1(n)
        data.frame(s$x, y = s$y, noise = factor(sample(1:50, n, TRUE)))
      }
      train <- make(800)
      test <- make(2000)
      fit <- ccforest(y ~ ., train, n_tree = 150, seed = r, onehot_max_levels = onehot)
      sqrt(mean((predict(fit, test) - test$y)^2))
    }, numeric(1)))
  }
  expect_lt(rmse(32), 0.95 * rmse(Inf))
})

test_that("onehot_max_levels is checked", {
  expect_error(ccforest(Species ~ ., iris, onehot_max_levels = 0),
               "`onehot_max_levels` must be a single whole number >= 1, not 0.")
  expect_error(ccforest(Species ~ ., iris, onehot_max_levels = "many"),
               "`onehot_max_levels` must be a single whole number >= 1")
  expect_identical(ccforest(Species ~ ., iris, n_tree = 1, onehot_max_levels = Inf)$options$onehot_max_levels,
                   Inf)
})

test_that("dates, date-times and time differences are numbers, checked by class", {
  set.seed(3)
  n <- 200
  d <- data.frame(day = as.Date("2020-01-01") + sample(0:365, n, TRUE),
                  at = as.POSIXct("2021-06-01", tz = "UTC") + runif(n, 0, 86400 * 30),
                  lag = as.difftime(runif(n, 0, 48), units = "hours"))
  d$y <- as.numeric(d$day) / 100 + as.numeric(d$lag) + rnorm(n)
  fit <- ccforest(y ~ ., d, n_tree = 10, seed = 1)
  expect_identical(fit$blueprint$feature_type, c("date", "datetime", "difftime"))
  numbers <- data.frame(day = as.numeric(d$day), at = as.numeric(d$at),
                        lag = as.numeric(d$lag, units = "hours"), y = d$y)
  expect_identical(fit$forest$trees, ccforest(y ~ ., numbers, n_tree = 10, seed = 1)$forest$trees)
  # Other units and POSIXlt mean the same instants and durations.
  other <- d
  other$lag <- as.difftime(as.numeric(d$lag) * 60, units = "mins")
  other$at <- as.POSIXlt(d$at, tz = "America/New_York")
  expect_equal(predict(fit, other), predict(fit, d))
  expect_error(predict(fit, transform(d, day = as.numeric(day))),
               "Column `day` of `new_data` has type <numeric>, but it had type <Date> when the forest was fitted.")
  expect_error(predict(fit, transform(d, at = as.Date(at))),
               "Column `at` of `new_data` has type <Date>, but it had type <POSIXct> when the forest was fitted.")
})

test_that("sparse matrices from the Matrix package are accepted", {
  skip_if_not_installed("Matrix")
  set.seed(4)
  x <- Matrix::rsparsematrix(150, 6, density = 0.3)
  colnames(x) <- paste0("v", 1:6)
  y <- factor(as.matrix(x)[, 1] + as.matrix(x)[, 2] > 0)
  fit <- ccforest(x, y, n_tree = 10, seed = 1)
  # Read where it lies, scaled without centring (issue 38; test-sparse.R
  # compares it with the same cells given dense).
  expect_identical(fit$blueprint$center, numeric(6))
  expect_identical(predict(fit, x), predict(fit, as.matrix(x)))
})

test_that("sparse new data are read column by column, after the memory guard (issue 36)", {
  skip_if_not_installed("Matrix")
  set.seed(5)
  x <- Matrix::rsparsematrix(120, 5, density = 0.4)
  y <- as.matrix(x)[, 1] - as.matrix(x)[, 3] + rnorm(120, sd = 0.1)
  dense <- ccforest(as.matrix(x), y, n_tree = 5, seed = 1)
  expect_identical(predict(dense, x[1:7, ]), predict(dense, as.matrix(x)[1:7, ]))
  # Survival forests read a sparse x dense: the guard counts the dense
  # columns and the training matrix before allocating either (a 12.7 MB
  # sparse matrix took +6.26 GB, past the limit).
  big <- Matrix::sparseMatrix(i = 1:3, j = 1:3, x = 1, dims = c(20000, 10000))
  withr::with_options(list(ccforest.memory_limit = 5e8), {
    expect_error(ccforest(big, survival::Surv(rexp(20000), rep(1, 20000)), n_tree = 1),
                 paste0("`x` is a sparse 20000 x 10000 matrix, which ccforest reads dense .*",
                        "needs about 3.0 GB \\(its 1.5 GB of columns and as much again for the ",
                        "matrix the trees read\\), but only 476.8 MB is available"))
    # Predictions of every tree read new data whole; predicted responses
    # read them a batch at a time (test-sparse.R).
    expect_error(predict(dense, Matrix::sparseMatrix(i = 1, j = 1, x = 1, dims = c(8e6, 5)),
                         predict_all = TRUE),
                 "`new_data` is a sparse 8000000 x 5 matrix, which ccforest reads dense")
  })
  expect_error(ccforest(x[, 0], y), "`x` has no columns")
})

test_that("with several classes a many-level factor keeps its levels' class structure", {
  # Five classes, each with its own profile over 40 levels: one order of the
  # levels cannot show all of it, one column per axis (four here) can.
  make <- function(seed, K = 5, L = 40) {
    set.seed(seed)
    profile <- matrix(stats::rexp(L * K), K)
    mu <- matrix(stats::rnorm(K * 4, sd = 0.5), K)
    function(m) {
      cl <- sample(K, m, TRUE)
      x <- as.data.frame(mu[cl, ] + matrix(stats::rnorm(m * 4), m))
      x$f <- factor(vapply(cl, function(k) sample(L, 1, prob = profile[k, ]), 1L), levels = seq_len(L))
      x$y <- factor(cl)
      x
    }
  }
  fits <- lapply(1:2, function(r) {
    gen <- make(r)
    train <- gen(800)
    test <- gen(2000)
    error <- function(formula, onehot) {
      fit <- ccforest(formula, train, n_tree = 100, seed = r, onehot_max_levels = onehot)
      list(fit = fit, error = 100 * mean(predict(fit, test) != test$y))
    }
    list(valued = error(y ~ ., 32), onehot = error(y ~ ., Inf), without = error(y ~ . - f, 32))
  })
  fit <- fits[[1]]$valued$fit
  expect_identical(fit$blueprint$feature_type, c(rep("numeric", 4), "scored"))
  expect_identical(fit$blueprint$column_names, c(paste0("V", 1:4), paste0("f[", 1:4, "]")))
  expect_identical(dim(fit$blueprint$scores[[5]]), c(40L, 4L))
  # Every axis reaches the splits (the core leaves out one column of a
  # one-hot factor at each node, never one of these).
  used <- unlist(lapply(1:10, function(t) tree_info(fit, t)$columns))
  expect_true(all(paste0("f[", 1:4, "]") %in% used))
  error <- function(kind) mean(vapply(fits, function(f) f[[kind]]$error, numeric(1)))
  # Seeded: 48.6% against one-hot's 49.5% and 61.2% without the factor; the
  # earlier encoding, one order of the levels, gave 54.7%.
  expect_lt(error("valued"), error("onehot") + 1.5)
  expect_lt(error("valued"), error("without") - 8)
  # New data: a level unseen at fit is missing on every axis.
  new <- make(1)(3)
  new$f <- as.character(new$f)
  new$f[2] <- "never seen"
  expect_warning(m <- ccforest:::predictor_matrix(fit, new, na_action = "impute_random"),
                 "Column `f` has level\\(s\\) `never seen` not seen when fitting; treated as missing.")
  expect_true(all(is.na(m[2, paste0("f[", 1:4, "]")])))
  expect_false(anyNA(m[-2, ]))
  expect_warning(p <- predict(fit, new, type = "prob"), "never seen")
  expect_equal(rowSums(p), rep(1, 3))
  # Values that do not match the levels or the columns are damage.
  for (bad in list(fit$blueprint$scores[[5]][, 1:3], fit$blueprint$scores[[5]][1:39, ])) {
    broken <- as_unsealed(fit)
    broken$blueprint$scores[[5]] <- bad
    expect_error(predict(broken, new[-2, ]),
                 "damaged: its blueprint's factor scores do not match its levels")
  }
})

test_that("fits that stored a one-column factor's values as a vector still predict", {
  set.seed(3)
  d <- data.frame(f = factor(sample(sprintf("l%02d", 1:40), 300, TRUE)), a = rnorm(300))
  d$y <- d$a + as.integer(d$f) %% 3 + rnorm(300)
  fit <- ccforest(y ~ ., d, n_tree = 5, seed = 1)
  expect_identical(dim(fit$blueprint$scores[[1]]), c(40L, 1L))
  old <- as_unsealed(fit)
  old$blueprint$scores[[1]] <- as.vector(fit$blueprint$scores[[1]])
  expect_identical(predict(old, d), predict(fit, d))
})

test_that("with several outputs a many-level factor gets an axis per output dimension", {
  set.seed(9)
  n <- 400
  f <- factor(sample(sprintf("l%02d", 1:40), n, TRUE))
  e1 <- rnorm(40)
  e2 <- rnorm(40)
  a <- rnorm(n)
  d <- data.frame(f, a, y1 = e1[as.integer(f)] + a + rnorm(n, sd = 0.3),
                  y2 = e2[as.integer(f)] - a + rnorm(n, sd = 0.3))
  d$c1 <- cut(d$y1, 3, labels = c("lo", "mid", "hi"))
  d$c2 <- factor(d$y2 > 0)
  # Two numeric outputs: two axes, which together hold both level effects.
  reg <- ccforest(cbind(y1, y2) ~ f + a, d, n_tree = 10, seed = 1)
  expect_identical(reg$blueprint$column_names, c("f[1]", "f[2]", "a"))
  scores <- reg$blueprint$scores[[1]]
  # (The level means carry noise: about ten rows per level.)
  expect_gt(summary(lm(e1 ~ scores))$r.squared, 0.8)
  expect_gt(summary(lm(e2 ~ scores))$r.squared, 0.8)
  one_axis <- c(summary(lm(e1 ~ scores[, 1]))$r.squared, summary(lm(e2 ~ scores[, 1]))$r.squared)
  expect_lt(min(one_axis), 0.5)
  expect_identical(dim(predict(reg, d[1:3, ])), c(3L, 2L))
  # Three classes and two classes: (3 - 1) + (2 - 1) axes.
  cls <- ccforest(cbind(c1, c2) ~ f + a, d, n_tree = 10, seed = 1)
  expect_identical(cls$blueprint$column_names, c("f[1]", "f[2]", "f[3]", "a"))
  expect_identical(names(predict(cls, d[1:2, ])), c("c1", "c2"))
})
