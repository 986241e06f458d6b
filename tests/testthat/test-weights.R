# Case weights and class weights.

overlap_data <- function(n, seed) {
  set.seed(seed)
  y <- factor(sample(c("a", "b"), n, replace = TRUE, prob = c(0.5, 0.5)))
  x1 <- rnorm(n, ifelse(y == "a", 0, 1))
  x2 <- rnorm(n, ifelse(y == "a", 0, 0.5))
  data.frame(x1, x2, y)
}

test_that("rows of weight 0 take no part: the forest is the one grown without them", {
  d <- overlap_data(200, 1)
  w <- rep(1, 200)
  w[c(3, 50:60, 199)] <- 0
  kept <- w > 0
  for (sampling in c("projection", "bagging")) {
    weighted <- ccforest(y ~ ., d, case_weights = w, n_tree = 15, seed = 3, sampling = sampling)
    alone <- ccforest(y ~ ., d[kept, ], n_tree = 15, seed = 3, sampling = sampling)
    expect_identical(weighted$forest$trees, alone$forest$trees, label = sampling)
    expect_identical(weighted$blueprint$center, alone$blueprint$center)
  }
  # Unequal positive weights: rows of weight 0 still change nothing.
  v <- runif(200, 0.5, 2)
  v[!kept] <- 0
  expect_identical(ccforest(y ~ ., d, case_weights = v, n_tree = 10, seed = 4)$forest$trees,
                   ccforest(y ~ ., d[kept, ], case_weights = v[kept], n_tree = 10, seed = 4)$forest$trees)
  # Regression: the output's scaling ignores them too.
  r <- ccforest(x1 ~ x2, d, case_weights = w, n_tree = 10, seed = 5)
  expect_identical(r$forest$trees, ccforest(x1 ~ x2, d[kept, ], n_tree = 10, seed = 5)$forest$trees)
  expect_identical(r$response$center, mean(d$x1[kept]))
  # Bagged: rows of weight 0 are out of every bag, so every tree predicts them.
  bagged <- ccforest(y ~ ., d, case_weights = w, n_tree = 15, seed = 3, sampling = "bagging")
  expect_false(anyNA(bagged$predictions[!kept]))
  expect_identical(bagged$predictions[!kept], predict(bagged, d[!kept, ]))
})

test_that("a case weight acts like copies of the row, in distribution", {
  # Shallow trees, so that leaves are large and their class shares (which
  # weights change) matter, while leaf-size limits (which count rows, not
  # weights) do not.
  d <- overlap_data(400, 2)
  w <- ifelse(d$y == "b", 3, 1)
  copies <- d[rep(seq_len(nrow(d)), w), ]
  set.seed(9)
  grid <- data.frame(x1 = runif(2000, -1.5, 2.5), x2 = runif(2000, -1.5, 2))
  share_b <- function(fit) mean(predict(fit, grid, type = "prob")[, "b"])
  for (sampling in c("projection", "bagging")) {
    grow <- function(data, ...) {
      ccforest(y ~ ., data, n_tree = 150, seed = 1, sampling = sampling, max_depth = 2, ...)
    }
    weighted <- grow(d, case_weights = w)
    copied <- grow(copies)
    plain <- grow(d)
    label <- paste("sampling", sampling)
    # Weighting class b three times pushes its share well up, as copies do.
    expect_gt(share_b(weighted) - share_b(plain), 0.1, label = label)
    expect_lt(abs(share_b(weighted) - share_b(copied)), 0.02, label = label)
    agree <- mean(predict(weighted, grid) == predict(copied, grid))
    expect_gt(agree, 0.95, label = label)
  }
  # Regression: weighted leaf means, like copies.
  reg_w <- ifelse(d$x2 > 0, 4, 1)
  weighted <- ccforest(x1 ~ x2, d, case_weights = reg_w, n_tree = 100, seed = 1, max_depth = 2)
  copied <- ccforest(x1 ~ x2, d[rep(seq_len(nrow(d)), reg_w), ], n_tree = 100, seed = 1,
                     max_depth = 2)
  plain <- ccforest(x1 ~ x2, d, n_tree = 100, seed = 1, max_depth = 2)
  gap <- function(a, b) mean(abs(predict(a, grid) - predict(b, grid)))
  expect_lt(gap(weighted, copied), gap(plain, copied) / 2)
})

test_that("a row of integer weight w grows the same trees as w copies of it", {
  # Trees grown on every row with axis-aligned candidates use the data only
  # through the splits' impurities and the leaves, where a weight of w is
  # exactly w copies (copies of a row are never split apart). The scaling
  # of the copies' z-scores differs, which axis-aligned splits ignore.
  set.seed(11)
  n <- 80
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n), x3 = rnorm(n))
  d$cls <- factor(ifelse(d$x1 - d$x2 + rnorm(n, sd = 0.5) > 0, "a", "b"))
  d$y <- d$x1 * d$x2 + rnorm(n, sd = 0.2)
  w <- sample(1:3, n, replace = TRUE)
  copies <- d[rep(seq_len(n), w), ]
  grow <- function(formula, data, ...) {
    ccforest(formula, data, n_tree = 10, seed = 4, projection = "axis", sampling = "projection",
             min_split = 2, min_leaf = 1, ...)
  }
  shapes <- function(fit) {
    lapply(1:10, function(t) tree_info(fit, t)[c("node", "left", "right", "terminal", "columns")])
  }
  weighted <- grow(cls ~ x1 + x2 + x3, d, case_weights = w)
  copied <- grow(cls ~ x1 + x2 + x3, copies)
  expect_identical(shapes(weighted), shapes(copied))
  expect_equal(predict(weighted, d, type = "prob"), predict(copied, d, type = "prob"),
               tolerance = 1e-12)
  weighted <- grow(y ~ x1 + x2 + x3, d, case_weights = w)
  copied <- grow(y ~ x1 + x2 + x3, copies)
  expect_identical(shapes(weighted), shapes(copied))
  expect_equal(predict(weighted, d), predict(copied, d), tolerance = 1e-10)
})

test_that("bagged trees draw a row of weight w as often as w copies", {
  # A bag of m draws from the weighted rows and one of m draws from the
  # copies pick each original row equally often in distribution; the
  # trees' rows are read from the leaf samples of quantile forests.
  set.seed(12)
  n <- 100
  d <- data.frame(x = rnorm(n), y = rnorm(n))
  w <- rep(c(1, 3), each = 50)
  copies <- d[rep(seq_len(n), w), ]
  origin <- rep(seq_len(n), w)
  rows_of <- function(fit, t) {
    n_leaf <- sum(tree_info(fit, t)$terminal)
    fit$quantile$samples[[t]][-seq_len(n_leaf)] + 1L
  }
  n_tree <- 200
  weighted <- ccforest(y ~ x, d, n_tree = n_tree, seed = 1, sampling = "bagging",
                       case_weights = w, quantiles = TRUE)
  copied <- ccforest(y ~ x, copies, n_tree = n_tree, seed = 1, sampling = "bagging",
                     sample_fraction = n / nrow(copies), quantiles = TRUE)
  count <- function(fit, map) {
    tabulate(map[unlist(lapply(seq_len(n_tree), function(t) rows_of(fit, t)))], nbins = n)
  }
  from_weights <- count(weighted, seq_len(n))
  from_copies <- count(copied, origin)
  expect_identical(sum(from_weights), sum(from_copies))
  # Expected draws per row: 200 x 100 x w / 200, so 100 and 300.
  expect_equal(c(mean(from_weights[1:50]), mean(from_weights[51:100])), c(100, 300),
               tolerance = 0.05)
  expect_equal(c(mean(from_copies[1:50]), mean(from_copies[51:100])), c(100, 300),
               tolerance = 0.05)
})

test_that("class weights raise the favoured class's probability where leaves or samples let them", {
  # The data of the report that class weights lowered P(yes): 3.6% "yes".
  set.seed(1)
  n <- 3000
  x <- data.frame(x1 = rnorm(n), x2 = rnorm(n), x3 = rnorm(n))
  y <- factor(ifelse(runif(n) < plogis(-4 + x$x1 + x$x2), "yes", "no"))
  train <- 1:2000
  test <- 2001:3000
  mean_yes <- function(...) {
    fit <- ccforest(x[train, ], y[train], n_tree = 100, seed = 1, ...)
    mean(predict(fit, x[test, ], type = "prob")[, "yes"])
  }
  settings <- list(list(sampling = "bagging"), list(sample_fraction = 0.632),
                   list(min_leaf = 5))
  for (setting in settings) {
    plain <- do.call(mean_yes, setting)
    weighted <- do.call(mean_yes, c(setting, list(class_weights = c(yes = 10))))
    expect_gt(weighted, 1.4 * plain, label = paste(names(setting), setting))
  }
  # At the default min_leaf = 1 trees grown on every row end in pure leaves:
  # weights move boundaries, not the leaves' probabilities (see ?ccforest).
  fit <- ccforest(x[train, ], y[train], n_tree = 5, seed = 1, class_weights = c(yes = 10))
  expect_identical(fit$options$sampling, "projection")
  leaves <- do.call(rbind, lapply(1:5, function(t) tree_info(fit, t)))
  leaves <- leaves[leaves$terminal, ]
  expect_true(all(leaves$prob.yes %in% c(0, 1)))
})

test_that("weights of any finite scale work: only their ratios matter", {
  d <- overlap_data(120, 7)
  w <- runif(120, 0.5, 2)
  for (sampling in c("projection", "bagging")) {
    base <- ccforest(y ~ ., d, case_weights = w, n_tree = 8, seed = 2, sampling = sampling)
    for (factor in c(2^-1000, 2^-20, 2^30, 2^1000)) {
      scaled <- ccforest(y ~ ., d, case_weights = w * factor, n_tree = 8, seed = 2,
                         sampling = sampling)
      expect_identical(scaled$forest, base$forest, label = paste(sampling, factor))
    }
    reg <- ccforest(x1 ~ x2, d, case_weights = w, n_tree = 8, seed = 2, sampling = sampling)
    expect_identical(
      ccforest(x1 ~ x2, d, case_weights = w * 2^1000, n_tree = 8, seed = 2,
               sampling = sampling)$forest$trees,
      reg$forest$trees
    )
  }
  # Huge weights used to overflow the sums: a "damaged" forest for classes,
  # single-leaf trees for values.
  # (Trees grown on every row: bagged trees would draw nothing but the heavy
  # rows.)
  huge <- c(1e14, 1e14, rep(1, 118))
  cls <- ccforest(y ~ ., d, case_weights = huge, n_tree = 5, seed = 1, sampling = "projection")
  expect_gt(mean(tree_sizes(cls)$leaves), 10)
  expect_true(all(abs(rowSums(predict(cls, d, type = "prob")) - 1) < 1e-6))
  reg <- ccforest(x1 ~ x2, d, case_weights = huge, n_tree = 5, seed = 1, min_leaf = 1,
                  sampling = "projection")
  expect_gt(mean(tree_sizes(reg)$leaves), 10)
  expect_true(all(is.finite(predict(reg, d))))
  # Their product would overflow; the ratios between rows are kept exactly.
  both <- ccforest(y ~ ., d, case_weights = rep(2^996, 120), class_weights = c(a = 2^40),
                   n_tree = 5, seed = 1)
  expect_identical(both$forest$trees,
                   ccforest(y ~ ., d, n_tree = 5, seed = 1, class_weights = c(a = 2^40))$forest$trees)
  expect_identical(
    ccforest(y ~ ., d, class_weights = c(a = 1e12), n_tree = 5, seed = 1)$forest$trees,
    ccforest(y ~ ., d, case_weights = ifelse(d$y == "a", 1e12, 1), n_tree = 5, seed = 1)$forest$trees
  )
})

test_that("weights too far apart to keep are refused, naming the argument", {
  d <- overlap_data(30, 8)
  expect_error(ccforest(y ~ ., d, case_weights = c(1e308, 1e308, rep(1, 28))),
               paste0("`case_weights` span too wide a range: row 3's weight, 1, is less than ",
                      "1e-15 times the largest, 1e\\+308. Give the row weight 0"))
  expect_error(ccforest(y ~ ., d, case_weights = c(1e-320, rep(1, 29))),
               "`case_weights` span too wide a range: row 1's weight, 9.99[0-9]*e-321, is less")
  first_b <- which(d$y == "b")[[1L]]
  for (heavy in c(1e16, 1e308)) {
    expect_error(ccforest(y ~ ., d, class_weights = c(a = heavy)),
                 sprintf(paste0("`case_weights` times `class_weights` span too wide a range: ",
                                "row %d \\(class `b`\\) weighs less than 1e-15 times the ",
                                "heaviest row."), first_b))
  }
})

test_that("a weighted stump splits where the weighted impurity says", {
  set.seed(3)
  n <- 60
  x <- sort(runif(n))
  y <- factor(ifelse(x + rnorm(n, sd = 0.3) > 0.5, "b", "a"))
  w <- runif(n, 0.2, 3)
  fit <- ccforest(data.frame(x = x), y, case_weights = w, n_tree = 1, max_depth = 1,
                  projection = "axis", sampling = "projection", seed = 1)
  info <- tree_info(fit, 1)
  z <- (x - fit$blueprint$center) / fit$blueprint$scale
  weighted_entropy <- function(rows) {
    total <- sum(w[rows])
    p <- tapply(w[rows], y[rows], sum, default = 0) / total
    p <- p[p > 0]
    -total * sum(p * log(p))
  }
  cuts <- seq_len(n - 1)
  gains <- vapply(cuts, function(k) {
    weighted_entropy(seq_len(n)) - weighted_entropy(seq_len(k)) - weighted_entropy((k + 1):n)
  }, numeric(1))
  best <- which.max(gains)
  expect_identical(sum(z <= info$threshold[[1]]), best)
  # The leaves hold weighted class shares.
  left <- z <= info$threshold[[1]]
  share <- sum(w[left & y == "b"]) / sum(w[left])
  expect_equal(info$prob.b[[info$left[[1]] + 1L]], share, tolerance = 1e-6)
})

test_that("class weights multiply case weights", {
  d <- overlap_data(150, 4)
  by_class <- ccforest(y ~ ., d, class_weights = c(b = 2.5), n_tree = 10, seed = 1)
  by_row <- ccforest(y ~ ., d, case_weights = ifelse(d$y == "b", 2.5, 1), n_tree = 10, seed = 1)
  expect_identical(by_class$forest$trees, by_row$forest$trees)
  both <- ccforest(y ~ ., d, class_weights = c(a = 2, b = 0.5), case_weights = rep(2, 150),
                   n_tree = 10, seed = 1)
  rows <- ccforest(y ~ ., d, case_weights = ifelse(d$y == "a", 4, 1), n_tree = 10, seed = 1)
  expect_identical(both$forest$trees, rows$forest$trees)
  expect_identical(both$options$class_weights, c(a = 2, b = 0.5))
  # A class of weight 0 is left out; with two classes that leaves one, which
  # is refused (it grew single-leaf trees predicting `a` everywhere).
  expect_error(ccforest(y ~ ., d, class_weights = c(b = 0), n_tree = 5, seed = 1,
                        sampling = "bagging"),
               "`class_weights` gives class `b` weight 0 leaves output `y` with rows of only one class")
})

test_that("bad weights are refused with the argument and the value", {
  d <- overlap_data(20, 5)
  expect_error(ccforest(y ~ ., d, case_weights = "a"),
               "`case_weights` must be a numeric vector with one weight per row, not a character vector of length 1 \\(\"a\"\\).")
  expect_error(ccforest(y ~ ., d, case_weights = rep(1, 19)),
               "`case_weights` has 19 values but the data has 20 rows; give one weight per row.")
  expect_error(ccforest(y ~ ., d, case_weights = c(-1, rep(1, 19))),
               "`case_weights` must be finite and >= 0, but row 1 has -1.")
  expect_error(ccforest(y ~ ., d, case_weights = c(rep(1, 19), NA)),
               "`case_weights` must be finite and >= 0, but row 20 has NA.")
  expect_error(ccforest(y ~ ., d, case_weights = c(Inf, rep(1, 19))),
               "`case_weights` must be finite and >= 0, but row 1 has Inf.")
  expect_error(ccforest(y ~ ., d, case_weights = rep(0, 20)),
               "Every row has weight 0")
  expect_error(ccforest(y ~ ., d, case_weights = matrix(1, 20, 1)),
               "`case_weights` must be a numeric vector")
  expect_error(ccforest(y ~ ., d, class_weights = c(2, 3)),
               "`class_weights` must be a numeric vector named by classes of the output \\(`a`, `b`\\)")
  expect_error(ccforest(y ~ ., d, class_weights = c(c = 2)),
               "`class_weights` names `c`, not classes of the output \\(`a`, `b`\\).")
  expect_error(ccforest(y ~ ., d, class_weights = c(a = 1, a = 2)),
               "`class_weights` names `a` more than once.")
  expect_error(ccforest(y ~ ., d, class_weights = c(a = -1)),
               "`class_weights` must be finite and >= 0, but class `a` has -1.")
  expect_error(ccforest(x1 ~ x2, d, class_weights = c(a = 1)),
               "`class_weights` is for classification with one output")
  # With na_action = "omit", weights follow their rows.
  d$x1[2] <- NA
  w <- c(5, 5, rep(1, 18))
  omitted <- ccforest(y ~ ., d, case_weights = w, na_action = "omit", n_tree = 5, seed = 1)
  expect_identical(omitted$forest$trees,
                   ccforest(y ~ ., d[-2, ], case_weights = w[-2], n_tree = 5, seed = 1)$forest$trees)
})

test_that("one class left by weights or sampling is refused as one class in the data is (issue 36)", {
  d <- withr::with_seed(1, data.frame(x1 = rnorm(80), x2 = rnorm(80)))
  d$y <- factor(ifelse(d$x1 > 0, "yes", "no"))
  expect_error(ccforest(y ~ ., d[d$y == "no", ], n_tree = 2), "has only one class")
  only <- "leaves output `y` with rows of only one class \\(`no`\\) to learn from"
  expect_error(ccforest(y ~ ., d, n_tree = 2, case_weights = as.numeric(d$y == "no")),
               paste0("`case_weights` are 0 for every row of class `yes` ", only))
  expect_error(ccforest(y ~ ., d, n_tree = 2, class_weights = c(yes = 0)),
               paste0("`class_weights` gives class `yes` weight 0 ", only))
  expect_error(ccforest(y ~ ., d, n_tree = 2, sampling = "bagging",
                        sample_fraction = c(no = 0.5, yes = 0)),
               paste0("`sample_fraction` draws no row of class `yes` ", only))
  # Two classes left of three are enough; so is one row of the second.
  d$z <- factor(ifelse(d$x2 > 1, "c", as.character(d$y)))
  fit <- ccforest(z ~ x1 + x2, d, n_tree = 2, class_weights = c(c = 0), seed = 1)
  expect_identical(levels(predict(fit, d)), c("c", "no", "yes"))
  w <- as.numeric(d$y == "no")
  w[which(d$y == "yes")[1]] <- 1
  expect_s3_class(ccforest(y ~ x1 + x2, d, n_tree = 2, case_weights = w, seed = 1), "ccforest")
  # Each output of several.
  d$w <- factor(ifelse(d$x2 > 0, "up", "down"))
  expect_error(ccforest(cbind(y, w) ~ x1 + x2, d, n_tree = 2,
                        case_weights = as.numeric(d$w == "up")),
               "`case_weights` are 0 for every row of class `down` leaves output `w`")
})
