# Classification forests end to end: accuracy against known-easy problems,
# tree structure against the options, and the data types the blueprint
# accepts. Predictions are checked against an R re-implementation of the
# documented tree walk (route_rows() in helper-data.R).

leaf_payload <- function(forest, t, leaf) {
  g <- forest$node_start[[t]] + leaf + 1L
  entries <- seq_len(forest$payload_start[[g + 1L]] - forest$payload_start[[g]]) +
    forest$payload_start[[g]]
  list(index = forest$payload_index[entries], value = forest$payload_value[entries])
}

# Class probabilities from the flat arrays: the mean over trees of each
# row's leaf proportions.
reference_prob <- function(fit, z, n_value) {
  forest <- fit$forest
  out <- matrix(0, nrow(z), n_value)
  for (t in seq_len(n_trees_of(fit))) {
    leaves <- route_rows(forest, t, z)
    for (i in seq_len(nrow(z))) {
      p <- leaf_payload(forest, t, leaves[[i]])
      out[i, p$index + 1L] <- out[i, p$index + 1L] + p$value
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

test_that("predictions equal the documented walk over the flat forest arrays", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 5, seed = 3)
  z <- encode_numeric(fit, iris)
  ref <- reference_prob(fit, z, 3L)
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

test_that("split_rule = \"gini\" fits and predicts well", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 20, split_rule = "gini", seed = 4)
  expect_identical(fit$options$split_rule, "gini")
  expect_gt(mean(predict(fit, iris) == iris$Species), 0.97)
  entropy <- ccforest(Species ~ ., data = iris, n_tree = 20, seed = 4)
  expect_identical(entropy$options$split_rule, "entropy")
  # The rule matters somewhere in the forest.
  expect_false(identical(fit$forest$gain, entropy$forest$gain))
})

test_that("max_depth = 1 gives single-split trees", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 10, max_depth = 1, seed = 5)
  forest <- fit$forest
  expect_identical(diff(forest$node_start), rep(3L, 10))
  for (t in 1:10) {
    expect_identical(forest$child_left[tree_nodes(forest, t)], c(1L, 0L, 0L))
  }
  # Leaves hold class proportions summing to 1.
  leaves <- which(forest$child_left == 0L)
  sums <- vapply(leaves, function(g) {
    sum(forest$payload_value[seq_len(forest$payload_start[g + 1L] - forest$payload_start[g]) +
                               forest$payload_start[g]])
  }, numeric(1))
  expect_equal(sums, rep(1, length(leaves)), tolerance = 1e-12)
  deep <- ccforest(Species ~ ., data = iris, n_tree = 10, max_depth = 2, seed = 5)
  expect_lte(max(diff(deep$forest$node_start)), 7L)
  expect_true(all(ccforest:::tree_depths(deep$forest) <= 2))
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
      nodes <- tree_nodes(fit$forest, t)
      leaves <- which(fit$forest$child_left[nodes] == 0L) - 1L
      counts <- tabulate(route_rows(fit$forest, t, z) + 1L, length(nodes))
      # Every training row is in the root, so every leaf holds >= min_leaf of them.
      expect_true(all(counts[leaves + 1L] >= min_leaf))
      expect_identical(sum(counts), nrow(train))
    }
  }
  # Trees get smaller as min_leaf grows.
  small <- ccforest(class ~ ., data = train, n_tree = 4, min_leaf = 1, seed = 6)
  large <- ccforest(class ~ ., data = train, n_tree = 4, min_leaf = 40, seed = 6)
  expect_lt(length(large$forest$child_left), length(small$forest$child_left))
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
  # With mtry = 1 every split uses a single feature (one payload entry).
  splits <- which(fit$forest$child_left > 0L)
  expect_true(all(diff(fit$forest$payload_start)[splits] == 1L))
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
  # single-split tree hold the class proportions of the rows routed there.
  stump <- ccforest(Species ~ ., iris, n_tree = 3, max_depth = 1, sampling = "projection",
                    seed = 1)
  z <- encode_numeric(stump, iris)
  for (t in 1:3) {
    leaves <- route_rows(stump$forest, t, z)
    for (leaf in unique(leaves)) {
      p <- leaf_payload(stump$forest, t, leaf)
      observed <- table(factor(iris$Species[leaves == leaf], levels = levels(iris$Species))) /
        sum(leaves == leaf)
      expect_equal(p$value, as.vector(observed)[p$index + 1L], tolerance = 1e-12)
      expect_true(all(observed[-(p$index + 1L)] == 0))
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

test_that("each root split is the best threshold along its direction, with the stored gain", {
  # Without bagging the root holds every training row; recompute along the
  # stored projection the entropy gain (in nats, times n) of every midpoint
  # and check the stored threshold and gain against the brute-force best.
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
    g <- fit$forest$node_start[[t]] + 1L
    entries <- seq_len(fit$forest$payload_start[[g + 1L]] - fit$forest$payload_start[[g]]) +
      fit$forest$payload_start[[g]]
    coef <- fit$forest$payload_value[entries]
    expect_equal(sum(coef^2), 1, tolerance = 1e-12)  # unit-norm directions
    u <- numeric(nrow(z))
    for (e in seq_along(entries)) {
      u <- u + coef[[e]] * z[, fit$forest$payload_index[entries[[e]]] + 1L]
    }
    values <- sort(unique(u))
    cuts <- (values[-1] + values[-length(values)]) / 2
    gains <- vapply(cuts, function(cut) {
      left <- u <= cut
      if (sum(left) < 4 || sum(!left) < 4) return(NA_real_)
      n_entropy(labels) - n_entropy(labels[left]) - n_entropy(labels[!left])
    }, numeric(1))
    best <- max(gains, na.rm = TRUE)
    expect_equal(fit$forest$gain[[g]], best, tolerance = 1e-9)
    left <- u <= fit$forest$threshold[[g]]
    expect_equal(n_entropy(labels) - n_entropy(labels[left]) - n_entropy(labels[!left]), best,
                 tolerance = 1e-9)
    expect_gte(min(sum(left), sum(!left)), 4L)
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
