# Classification forests end to end: accuracy against known-easy problems,
# tree structure against the options, and the data types the blueprint
# accepts. Predictions are checked against an R re-implementation of the
# documented tree walk over tree_info() (route_rows() in helper-data.R).

# The class proportions of leaf node `leaf` of a tree_info() table.
leaf_prob <- function(info, leaf, levels) {
  unlist(info[leaf + 1L, paste0("prob.", levels)], use.names = FALSE)
}

# Class probabilities from the documented walk: the mean over trees of each
# row's leaf proportions.
reference_prob <- function(fit, z, levels) {
  out <- matrix(0, nrow(z), length(levels))
  for (t in seq_len(n_trees_of(fit))) {
    info <- tree_info(fit, t)
    leaves <- route_rows(fit, t, z, info)
    for (i in seq_len(nrow(z))) {
      out[i, ] <- out[i, ] + leaf_prob(info, leaves[[i]], levels)
    }
  }
  out / n_trees_of(fit)
}

test_that("10-fold cross-validated error on iris is below 5%", {
  skip_on_cran()
  set.seed(301)
  folds <- sample(rep(1:10, length.out = nrow(iris)))
  wrong <- 0L
  for (k in 1:10) {
    fit <- ccforest(Species ~ ., data = iris[folds != k, ], n_tree = 100, seed = k)
    wrong <- wrong + sum(predict(fit, iris[folds == k, ]) != iris$Species[folds == k])
  }
  expect_lt(wrong / nrow(iris), 0.05)
})

test_that("a clean 3-class spiral of 2,000 points has held-out error below 2%", {
  set.seed(302)
  train <- make_spiral(2000)
  test <- make_spiral(1000)
  fit <- ccforest(class ~ ., data = train, n_tree = 50, seed = 1)
  expect_lt(mean(predict(fit, test) != test$class), 0.02)
})

test_that("an oblique boundary in 6-D is learned (simulated data)", {
  set.seed(303)
  make <- function(n) {
    x <- matrix(stats::rnorm(n * 6), n, 6, dimnames = list(NULL, paste0("v", 1:6)))
    data.frame(x, y = factor(ifelse(x[, 1] + x[, 2] - x[, 3] > 0, "pos", "neg")))
  }
  train <- make(600)
  test <- make(500)
  fit <- ccforest(y ~ ., data = train, n_tree = 50, seed = 2)
  error <- mean(predict(fit, test) != test$y)
  # Axis-aligned trees struggle here; CCA finds the oblique direction.
  expect_lt(error, 0.08)
  expect_identical(levels(predict(fit, test)), c("neg", "pos"))
})

test_that("predictions equal the documented walk over tree_info()", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 5, seed = 3)
  z <- encode_numeric(fit, iris)
  ref <- reference_prob(fit, z, levels(iris$Species))
  got <- predict(fit, iris, type = "prob")
  expect_identical(dim(got), c(150L, 3L))
  expect_identical(colnames(got), levels(iris$Species))
  expect_equal(unname(got), ref, tolerance = 1e-12)
  expect_equal(rowSums(got), rep(1, 150), tolerance = 1e-12)
  classes <- predict(fit, iris)
  expect_s3_class(classes, "factor")
  expect_identical(levels(classes), levels(iris$Species))
  expect_identical(as.character(classes), levels(iris$Species)[max.col(ref, ties.method = "first")])
})

test_that("tree_info()'s hyperplanes map back to the features' units as documented", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 3, seed = 8)
  bp <- fit$blueprint
  x <- as.matrix(iris[, bp$column_names])
  for (t in 1:3) {
    info <- tree_info(fit, t)
    for (node in which(!info$terminal)) {
      j <- match(info$columns[[node]], bp$column_names)
      w <- info$coefficients[[node]]
      # The documented formula in the columns' own units, against the z-scores.
      raw <- drop(x[, j, drop = FALSE] %*% (w / bp$scale[j]))
      bound <- info$threshold[[node]] + sum(w * bp$center[j] / bp$scale[j])
      z <- drop(sweep(sweep(x[, j, drop = FALSE], 2, bp$center[j]), 2, bp$scale[j], "/") %*% w)
      near <- abs(z - info$threshold[[node]]) < 1e-9
      expect_identical((raw <= bound)[!near], (z <= info$threshold[[node]])[!near])
    }
  }
})

test_that("split_rule = \"gini\" fits and predicts well", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 20, split_rule = "gini", seed = 4)
  expect_identical(fit$options$split_rule, "gini")
  expect_gt(mean(predict(fit, iris) == iris$Species), 0.97)
  entropy <- ccforest(Species ~ ., data = iris, n_tree = 20, seed = 4)
  expect_identical(entropy$options$split_rule, "entropy")
  # The rule matters somewhere in the forest: in its trees, and in the split
  # gains summed into the projection importance.
  expect_false(identical(fit$forest$trees, entropy$forest$trees))
  expect_false(identical(fit$forest$importance, entropy$forest$importance))
})

test_that("max_depth = 1 gives single-split trees", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 10, max_depth = 1, seed = 5)
  expect_identical(n_trees_of(fit), 10L)
  prob_columns <- paste0("prob.", levels(iris$Species))
  for (t in 1:10) {
    info <- tree_info(fit, t)
    # A root split and its two leaves.
    expect_identical(info$node, 0:2)
    expect_identical(info$terminal, c(FALSE, TRUE, TRUE))
    expect_identical(info$left, c(1L, NA, NA))
    expect_identical(info$right, c(2L, NA, NA))
    # Leaves hold class proportions summing to 1.
    sums <- rowSums(info[info$terminal, prob_columns])
    expect_equal(unname(sums), c(1, 1), tolerance = 1e-12)
  }
  expect_identical(ccforest:::tree_sizes(fit), list(leaves = rep(2L, 10), depth = rep(1L, 10)))
  deep <- ccforest(Species ~ ., data = iris, n_tree = 10, max_depth = 2, seed = 5)
  for (t in 1:10) {
    info <- tree_info(deep, t)
    expect_lte(nrow(info), 7L)
    expect_lte(max(node_depths(info)), 2L)
  }
  expect_true(all(ccforest:::tree_sizes(deep)$depth <= 2))
})

test_that("min_leaf is respected by every leaf", {
  set.seed(306)
  train <- make_spiral(300)
  for (min_leaf in c(5L, 17L)) {
    fit <- ccforest(class ~ ., data = train, n_tree = 4, min_leaf = min_leaf,
                    sampling = "projection", seed = 6)
    expect_identical(fit$options$min_leaf, min_leaf)
    z <- encode_numeric(fit, train)
    for (t in 1:4) {
      info <- tree_info(fit, t)
      counts <- tabulate(route_rows(fit, t, z, info) + 1L, nrow(info))
      # Every training row is in the root, so every leaf holds >= min_leaf of them.
      expect_true(all(counts[info$terminal] >= min_leaf))
      expect_identical(sum(counts), nrow(train))
    }
  }
  # Trees get smaller as min_leaf grows.
  n_nodes <- function(fit) sum(vapply(1:4, function(t) nrow(tree_info(fit, t)), integer(1)))
  small <- ccforest(class ~ ., data = train, n_tree = 4, min_leaf = 1, seed = 6)
  large <- ccforest(class ~ ., data = train, n_tree = 4, min_leaf = 40, seed = 6)
  expect_lt(n_nodes(large), n_nodes(small))
})

test_that("mtry may be a number or a function of D, and has the paper's default", {
  set.seed(307)
  df <- data.frame(matrix(stats::rnorm(100 * 10), 100, 10), y = factor(rep(c("a", "b"), 50)))
  expect_identical(ccforest(y ~ ., df, n_tree = 2, seed = 1)$options$mtry, 5L)
  expect_identical(ccforest(Species ~ ., iris, n_tree = 2, seed = 1)$options$mtry, 3L)
  expect_identical(ccforest(Species ~ Sepal.Length + Sepal.Width + Petal.Length, iris,
                            n_tree = 2, seed = 1)$options$mtry, 2L)
  fit <- ccforest(y ~ ., df, n_tree = 2, mtry = function(D) floor(sqrt(D)), seed = 1)
  expect_identical(fit$options$mtry, 3L)
  fit <- ccforest(y ~ ., df, n_tree = 2, mtry = function(D) D, seed = 1)
  expect_identical(fit$options$mtry, 10L)
  expect_identical(fit$options$sampling, "bagging")
  fit <- ccforest(y ~ ., df, n_tree = 2, mtry = 1, seed = 1)
  expect_identical(fit$options$mtry, 1L)
  # With mtry = 1 every split uses a single feature, with coefficient 1.
  for (t in 1:2) {
    info <- tree_info(fit, t)
    splits <- !info$terminal
    expect_true(any(splits))
    expect_true(all(lengths(info$columns[splits]) == 1L))
    expect_true(all(unlist(info$coefficients[splits]) == 1))
  }
})

test_that("sampling = \"bagging\" and \"projection\" both work", {
  bag <- ccforest(Species ~ ., data = iris, n_tree = 20, sampling = "bagging", seed = 8)
  expect_identical(bag$options$sampling, "bagging")
  expect_gt(mean(predict(bag, iris) == iris$Species), 0.95)
  proj <- ccforest(Species ~ ., data = iris, n_tree = 20, sampling = "projection", seed = 8)
  expect_identical(proj$options$sampling, "projection")
  expect_false(identical(bag$forest, proj$forest))
  # "auto" bags when mtry = D and uses projection bootstrapping otherwise.
  expect_identical(ccforest(Species ~ ., iris, n_tree = 2, mtry = 4, seed = 1)$options$sampling,
                   "bagging")
  expect_identical(ccforest(Species ~ ., iris, n_tree = 2, mtry = 2, seed = 1)$options$sampling,
                   "projection")
  # Without bagging, each tree's root sees every row, so the leaves of a
  # single-split tree hold the class proportions of the rows routed there
  # (stored as float32: equal to about 7 significant digits, and classes
  # absent from a leaf exactly 0).
  stump <- ccforest(Species ~ ., iris, n_tree = 3, max_depth = 1, sampling = "projection",
                    seed = 1)
  z <- encode_numeric(stump, iris)
  for (t in 1:3) {
    info <- tree_info(stump, t)
    leaves <- route_rows(stump, t, z, info)
    expect_setequal(leaves, which(info$terminal) - 1L)
    for (leaf in unique(leaves)) {
      p <- leaf_prob(info, leaf, levels(iris$Species))
      observed <- as.vector(table(factor(iris$Species[leaves == leaf],
                                         levels = levels(iris$Species)))) / sum(leaves == leaf)
      expect_equal(p, observed, tolerance = 1e-6)
      expect_identical(p == 0, observed == 0)
      expect_identical(p == 1, observed == 1)
    }
  }
})

test_that("a one-level factor, ordered factors and logicals are usable features", {
  set.seed(309)
  n <- 120
  df <- data.frame(
    x = stats::rnorm(n),
    const = factor(rep("only", n)),
    grade = factor(sample(c("low", "mid", "high"), n, replace = TRUE),
                   levels = c("low", "mid", "high"), ordered = TRUE),
    flag = sample(c(TRUE, FALSE), n, replace = TRUE)
  )
  df$y <- factor(ifelse(as.integer(df$grade) + df$flag + 0.3 * df$x > 2, "yes", "no"))
  fit <- ccforest(y ~ ., data = df, n_tree = 20, seed = 9)
  expect_identical(fit$blueprint$feature_type, c("numeric", "factor", "ordered", "logical"))
  expect_gt(mean(predict(fit, df) == df$y), 0.9)
  # An ordered factor is its integer codes, a logical its 0/1 values: the
  # same data given that way gives the same forest.
  numeric_df <- df
  numeric_df$grade <- as.integer(df$grade)
  numeric_df$flag <- as.numeric(df$flag)
  refit <- ccforest(y ~ ., data = numeric_df, n_tree = 20, seed = 9)
  expect_identical(refit$forest, fit$forest)
  expect_identical(predict(fit, df[1, ]), predict(refit, numeric_df[1, ]))
})

test_that("character columns are treated as factors, with a message", {
  set.seed(310)
  n <- 90
  df <- data.frame(x = stats::rnorm(n), colour = sample(c("red", "green", "blue"), n, TRUE),
                   stringsAsFactors = FALSE)
  df$y <- factor(ifelse(df$colour == "red" | df$x > 1, "a", "b"))
  expect_message(
    fit <- ccforest(y ~ ., data = df, n_tree = 10, seed = 10),
    "character column\\(s\\) `colour` as factors"
  )
  factor_df <- df
  factor_df$colour <- factor(df$colour)
  expect_identical(ccforest(y ~ ., data = factor_df, n_tree = 10, seed = 10)$forest, fit$forest)
  expect_gt(mean(predict(fit, df) == df$y), 0.9)
  # A character response is a factor too.
  factor_df$label <- as.character(df$y)
  expect_message(ccforest(label ~ x + colour, data = factor_df, n_tree = 2, seed = 1),
                 "`label`.*as factors? \\(classification\\)")
})

test_that("missing features work with every na_action", {
  set.seed(311)
  df <- iris
  holes <- cbind(sample(150, 30), sample(4, 30, replace = TRUE))
  for (h in seq_len(nrow(holes))) df[holes[h, 1], holes[h, 2]] <- NA
  complete <- stats::complete.cases(df)
  new_rows <- df[c(which(!complete)[1:5], which(complete)[1:5]), ]

  random <- ccforest(Species ~ ., data = df, n_tree = 20, seed = 11)
  expect_identical(random$options$na_action, "impute_random")
  pred <- predict(random, new_rows)
  expect_length(pred, 10L)
  expect_false(anyNA(pred))
  expect_gt(mean(predict(random, df) == df$Species), 0.9)

  mean_fit <- ccforest(Species ~ ., data = df, n_tree = 20, na_action = "impute_mean", seed = 11)
  prob <- predict(mean_fit, new_rows, type = "prob")
  expect_false(anyNA(prob))
  # A missing value is the training mean.
  filled <- new_rows
  for (j in 1:4) {
    filled[is.na(filled[[j]]), j] <- mean(df[[j]], na.rm = TRUE)
  }
  expect_equal(predict(mean_fit, filled, type = "prob"), prob, tolerance = 1e-12)

  expect_error(ccforest(Species ~ ., data = df, n_tree = 2, na_action = "fail"),
               "missing values in column\\(s\\)")
  fail_fit <- ccforest(Species ~ ., data = iris, n_tree = 5, na_action = "fail", seed = 1)
  expect_error(predict(fail_fit, new_rows), "`new_data` has missing values")
  expect_length(predict(fail_fit, iris[1:3, ]), 3L)

  omit <- ccforest(Species ~ ., data = df, n_tree = 20, na_action = "omit", seed = 11)
  expect_identical(omit$n_obs, sum(complete))
  # Dropping rows is the same as fitting on the complete rows.
  dropped <- ccforest(Species ~ ., data = df[complete, ], n_tree = 20, seed = 11)
  expect_identical(omit$forest, dropped$forest)
  # Prediction still answers rows with missing values.
  expect_false(anyNA(predict(omit, new_rows)))
})

test_that("a single row can be predicted", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 10, seed = 12)
  one <- predict(fit, iris[101, ])
  expect_s3_class(one, "factor")
  expect_length(one, 1L)
  expect_identical(as.character(one), "virginica")
  prob <- predict(fit, iris[101, ], type = "prob")
  expect_identical(dim(prob), c(1L, 3L))
  expect_equal(prob, predict(fit, iris, type = "prob")[101, , drop = FALSE], tolerance = 1e-12)
  # A fit on a matrix predicts a one-row matrix.
  mfit <- ccforest(as.matrix(iris[, 1:4]), iris$Species, n_tree = 10, seed = 12)
  expect_length(predict(mfit, as.matrix(iris[101, 1:4])), 1L)
})

test_that("multi-output classification via cbind() and via a data.frame y", {
  df <- iris
  df$size <- factor(ifelse(df$Petal.Length * df$Petal.Width > 5, "big", "small"))
  df$wide <- factor(df$Sepal.Width > 3)
  fit <- ccforest(cbind(Species, size) ~ ., data = df, n_tree = 20, seed = 13)
  expect_identical(fit$response$names, c("Species", "size"))
  expect_identical(fit$blueprint$feature_names,
                   c("Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width", "wide"))
  pred <- predict(fit, df)
  expect_s3_class(pred, "data.frame")
  expect_identical(names(pred), c("Species", "size"))
  expect_identical(levels(pred$size), c("big", "small"))
  expect_gt(mean(pred$Species == df$Species), 0.95)
  expect_gt(mean(pred$size == df$size), 0.95)
  prob <- predict(fit, df[1:7, ], type = "prob")
  expect_type(prob, "list")
  expect_identical(names(prob), c("Species", "size"))
  expect_identical(dim(prob$Species), c(7L, 3L))
  expect_identical(dim(prob$size), c(7L, 2L))
  expect_equal(rowSums(prob$size), rep(1, 7), tolerance = 1e-12)
  # A data.frame y gives the same forest as cbind() in a formula.
  xy <- ccforest(df[, c("Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width", "wide")],
                 df[, c("Species", "size")], n_tree = 20, seed = 13)
  expect_identical(xy$forest, fit$forest)
  expect_identical(predict(xy, df), pred)
})

test_that("an unseen factor level warns with column and level, and still predicts", {
  set.seed(315)
  n <- 100
  df <- data.frame(x = stats::rnorm(n), colour = factor(sample(c("red", "blue"), n, TRUE)))
  df$y <- factor(ifelse(df$colour == "red" & df$x > 0, "a", "b"))
  fit <- ccforest(y ~ ., data = df, n_tree = 10, seed = 15)
  new <- data.frame(x = c(0.5, 1), colour = factor(c("purple", "red")))
  expect_warning(pred <- predict(fit, new), "`colour`.*`purple`")
  expect_length(pred, 2L)
  expect_false(anyNA(pred))
  # The known row is unaffected by its unseen neighbour.
  expect_identical(pred[2], suppressWarnings(predict(fit, new[2, ])))
})

test_that("prediction with zero rows returns an empty result", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 3, seed = 16)
  empty <- predict(fit, iris[0, ])
  expect_length(empty, 0L)
  expect_s3_class(empty, "factor")
  expect_identical(dim(predict(fit, iris[0, ], type = "prob")), c(0L, 3L))
})

test_that("each root split is the best threshold along its direction", {
  # Without bagging the root holds every training row; recompute along the
  # stored projection (with the stored, rounded coefficients) the entropy
  # gain (in nats, times n) of every midpoint, and check that the stored
  # threshold splits the rows as a brute-force best cut does. Split gains are
  # not stored.
  set.seed(317)
  fit <- ccforest(Species ~ ., data = iris, n_tree = 5, max_depth = 1, min_leaf = 4,
                  sampling = "projection", seed = 17)
  z <- encode_numeric(fit, iris)
  labels <- as.integer(iris$Species)
  n_entropy <- function(l) {
    if (length(l) == 0L) return(0)
    p <- tabulate(l, 3L) / length(l)
    p <- p[p > 0]
    -length(l) * sum(p * log(p))
  }
  for (t in 1:5) {
    info <- tree_info(fit, t)
    expect_false(info$terminal[[1]])
    coef <- info$coefficients[[1]]
    # The largest coefficient is exactly 1, and every coefficient has at most
    # 11 significant bits (a 16-bit code).
    expect_identical(max(abs(coef)), 1)
    expect_true(1 %in% coef)
    expect_true(all(coef != 0))
    mantissa <- abs(coef) * 2^(10 - floor(log2(abs(coef))))
    expect_identical(mantissa, round(mantissa))
    expect_identical(info$columns[[1]], colnames(z)[sort(match(info$columns[[1]], colnames(z)))])
    u <- project_rows(info, 1L, z)
    values <- sort(unique(u))
    cuts <- (values[-1] + values[-length(values)]) / 2
    gains <- vapply(cuts, function(cut) {
      left <- u <= cut
      if (sum(left) < 4 || sum(!left) < 4) return(NA_real_)
      n_entropy(labels) - n_entropy(labels[left]) - n_entropy(labels[!left])
    }, numeric(1))
    best <- max(gains, na.rm = TRUE)
    best_cuts <- cuts[!is.na(gains) & abs(gains - best) <= 1e-9 * best]
    threshold <- info$threshold[[1]]
    left <- u <= threshold
    # The stored threshold's partition is a brute-force best one ...
    expect_true(any(vapply(best_cuts, function(cut) identical(left, u <= cut), logical(1))))
    expect_equal(n_entropy(labels) - n_entropy(labels[left]) - n_entropy(labels[!left]), best,
                 tolerance = 1e-9)
    expect_gte(min(sum(left), sum(!left)), 4L)
    # ... and it lies strictly between the two projected values either side,
    # within the middle half of their gap (give or take the last bits of the
    # projections, which the package sums in another order).
    lo <- max(u[left])
    hi <- min(u[!left])
    expect_lt(lo, threshold)
    expect_lt(threshold, hi)
    expect_gte(threshold, lo + (0.25 - 1e-9) * (hi - lo))
    expect_lte(threshold, hi - (0.25 - 1e-9) * (hi - lo))
  }
})

test_that("an unseen level of an ordered factor warns and is treated as missing", {
  set.seed(318)
  n <- 90
  df <- data.frame(x = stats::rnorm(n),
                   size = factor(sample(c("S", "M", "L"), n, TRUE), levels = c("S", "M", "L"),
                                 ordered = TRUE))
  df$y <- factor(ifelse(df$size == "L", "big", "small"))
  fit <- ccforest(y ~ ., data = df, n_tree = 10, seed = 18)
  new <- data.frame(x = 0.1, size = factor("XL", levels = c("S", "M", "L", "XL"), ordered = TRUE))
  expect_warning(pred <- predict(fit, new), "`size`.*`XL`.*missing")
  expect_length(pred, 1L)
  as_missing <- data.frame(x = 0.1, size = factor(NA, levels = c("S", "M", "L"), ordered = TRUE))
  expect_identical(pred, predict(fit, as_missing))
})
