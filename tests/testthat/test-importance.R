# Variable importance: projection importance against a node-by-node R
# reference (split gains recomputed from the training rows reaching each node
# of tree_info()'s trees, as gains are not stored) and its conservation of the
# forest's total gain; permutation importance against a reference built from
# the public predict() on permuted data.frames; both rank the informative
# variables first.

#' Outputs depend on x1, x2 and a factor f; x3..x8 are noise.
make_informative <- function(n, task = c("classification", "regression")) {
  task <- match.arg(task)
  x <- as.data.frame(matrix(stats::rnorm(n * 8L), n, 8L, dimnames = list(NULL, paste0("x", 1:8))))
  f <- factor(sample(c("a", "b", "c"), n, replace = TRUE))
  score <- 2 * x$x1 - 2 * x$x2 + c(a = -2.5, b = 0, c = 2.5)[as.character(f)]
  x$f <- f
  if (task == "classification") {
    x$y <- factor(ifelse(score + stats::rnorm(n, sd = 0.3) > 0, "yes", "no"))
  } else {
    x$y <- score + stats::rnorm(n, sd = 0.3)
  }
  x
}

#' n times the impurity of one output over some rows: the entropy (in nats)
#' of a factor, or the variance of a numeric output.
n_impurity <- function(y) {
  if (length(y) == 0L) {
    return(0)
  }
  if (is.factor(y)) {
    p <- tabulate(y, nlevels(y)) / length(y)
    p <- p[p > 0]
    return(-length(y) * sum(p * log(p)))
  }
  length(y) * mean((y - mean(y))^2)
}

#' Projection importance per original variable, written node by node: each
#' split's gain (rows times impurity decrease of the training outputs,
#' numeric outputs standardised) recomputed from the training rows that
#' reach it, shared among its variables in proportion to the Euclidean norm
#' of each variable's coefficients (a factor's indicator columns together),
#' summed over the forest and divided by the number of trees. Without
#' bagging every tree is grown on every training row, so the rows reaching a
#' node are those the documented walk sends there.
reference_projection_importance <- function(fit, data) {
  stopifnot(identical(fit$options$sampling, "projection"), fit$response$n_output == 1L)
  z <- encode_data(fit, data)
  y <- data[[fit$response$names]]
  if (!is.factor(y)) y <- (y - fit$response$center) / fit$response$scale
  bp <- fit$blueprint
  feature_of_column <- stats::setNames(bp$feature_names[bp$column_feature], bp$column_names)
  out <- stats::setNames(numeric(length(bp$feature_names)), bp$feature_names)
  for (t in seq_len(n_trees_of(fit))) {
    info <- tree_info(fit, t)
    rows <- node_rows(info, z)
    for (j in which(!info$terminal)) {
      gain <- n_impurity(y[rows[[j]]]) - n_impurity(y[rows[[info$left[[j]] + 1L]]]) -
        n_impurity(y[rows[[info$right[[j]] + 1L]]])
      features <- feature_of_column[info$columns[[j]]]
      norm <- sqrt(tapply(info$coefficients[[j]]^2, features, sum))
      out[names(norm)] <- out[names(norm)] + gain * norm / sum(norm)
    }
  }
  out / n_trees_of(fit)
}

set.seed(101)
train_class <- make_informative(500, "classification")
test_class <- make_informative(400, "classification")
fit_class <- ccforest(y ~ ., data = train_class, n_tree = 60, n_thread = 1, seed = 11)

test_that("projection importance matches a node-by-node reference", {
  expect_identical(fit_class$options$sampling, "projection")
  vi <- importance(fit_class, type = "projection")
  reference <- reference_projection_importance(fit_class, train_class)
  expect_equal(as.vector(vi), unname(reference[names(vi)]), tolerance = 1e-9)
  # The forest's total gain is shared out, nothing lost: recompute it.
  z <- encode_data(fit_class, train_class)
  total <- 0
  for (t in seq_len(n_trees_of(fit_class))) {
    info <- tree_info(fit_class, t)
    rows <- node_rows(info, z)
    for (j in which(!info$terminal)) {
      total <- total + n_impurity(train_class$y[rows[[j]]]) -
        n_impurity(train_class$y[rows[[info$left[[j]] + 1L]]]) -
        n_impurity(train_class$y[rows[[info$right[[j]] + 1L]]])
    }
  }
  expect_gt(total, 0)
  expect_equal(sum(vi), total / n_trees_of(fit_class), tolerance = 1e-9)
  # It is the stored per-variable sum over the trees, divided by their number.
  stored <- fit_class$forest$importance
  expect_length(stored, length(fit_class$blueprint$feature_names))
  expect_equal(as.vector(vi),
               stored[match(names(vi), fit_class$blueprint$feature_names)] / 60,
               tolerance = 1e-15)
})

test_that("a variable no split uses has projection importance 0, the others more", {
  # Stumps on one variable each: only the root variables share any gain.
  stumps <- ccforest(y ~ ., data = train_class, n_tree = 5, projection = "axis", max_depth = 1,
                     n_thread = 1, seed = 12)
  used <- unique(unlist(lapply(1:5, function(t) tree_info(stumps, t)$columns[[1]])))
  used <- unique(sub("=.*", "", used))
  vi <- importance(stumps, type = "projection")
  expect_true(length(used) < length(vi))
  expect_true(all(vi[setdiff(names(vi), used)] == 0))
  expect_true(all(vi[used] > 0))
  expect_equal(as.vector(vi), unname(reference_projection_importance(stumps, train_class)[names(vi)]),
               tolerance = 1e-9)
  # A constant variable is never split on.
  with_constant <- transform(train_class, k = 3)
  fit <- ccforest(y ~ ., data = with_constant, n_tree = 10, n_thread = 1, seed = 13)
  vi <- importance(fit)
  expect_identical(vi[["k"]], 0)
  expect_true(all(vi[names(vi) != "k"] > 0))
})

test_that("axis-aligned projection importance ranks the informative variables first", {
  fit <- ccforest(y ~ ., data = train_class, n_tree = 60, projection = "axis", n_thread = 1,
                  seed = 14)
  vi <- importance(fit)
  expect_setequal(names(vi)[1:3], c("x1", "x2", "f"))
  expect_equal(as.vector(vi), unname(reference_projection_importance(fit, train_class)[names(vi)]),
               tolerance = 1e-9)
})

test_that("projection importance is a sorted, classed vector per original variable", {
  vi <- importance(fit_class)
  expect_s3_class(vi, "ccforest_importance")
  expect_identical(attr(vi, "type"), "projection")
  expect_setequal(names(vi), c(paste0("x", 1:8), "f"))
  expect_false(is.unsorted(rev(as.vector(vi))))
  expect_true(all(vi >= 0))
  expect_setequal(names(vi)[1:3], c("x1", "x2", "f"))
})

test_that("a factor's indicator columns are grouped into one variable", {
  vi <- importance(fit_class)
  expect_false(any(grepl("=", names(vi), fixed = TRUE)))
  # Its share in a split is the norm of its columns' coefficients, not their
  # sum: a factor's credit must not grow with its number of levels.
  used <- unlist(lapply(seq_len(n_trees_of(fit_class)), function(t) {
    unlist(tree_info(fit_class, t)$columns)
  }))
  # (A node drops one indicator of the levels present, as they sum to one, so
  # not every column need be used.)
  expect_gte(length(intersect(used, c("f=a", "f=b", "f=c"))), 2L)
  expect_equal(vi[["f"]], reference_projection_importance(fit_class, train_class)[["f"]],
               tolerance = 1e-9)
})

test_that("noise factors rank below the informative variables, however many levels they have", {
  skip_if_not_installed("mlbench")
  set.seed(7)
  s <- mlbench::mlbench.friedman1(1500)
  d <- data.frame(s$x, y = s$y)
  d$noise5 <- factor(sample(1:5, 1500, TRUE))
  d$noise50 <- factor(sample(1:50, 1500, TRUE))
  d$noise500 <- factor(sample(1:500, 1500, TRUE))
  vi <- importance(ccforest(y ~ ., d, n_tree = 100, seed = 1))
  # The reference ranking: ranger's permutation importance puts x4, x2, x1
  # and x5 first on friedman1 (and so does its definition: x3's effect is
  # U-shaped, which hyperplanes capture poorly, and x6..x10 are noise).
  expect_identical(names(vi)[1:4], c("X4", "X2", "X1", "X5"))
  if (requireNamespace("ranger", quietly = TRUE)) {
    rf <- ranger::ranger(y ~ ., d, importance = "permutation", num.trees = 200, seed = 1)
    expect_setequal(names(sort(rf$variable.importance, decreasing = TRUE))[1:4], names(vi)[1:4])
  }
  # Factors of many levels are one ordered column, valued without each row's
  # own output: no more credit than a numeric variable of noise.
  numeric_noise <- max(vi[paste0("X", 6:10)])
  expect_lt(vi[["noise50"]], 1.5 * numeric_noise)
  expect_lt(vi[["noise500"]], 1.5 * numeric_noise)
})

test_that("x/y fits give the same projection importance as formula fits", {
  fit_xy <- ccforest(train_class[setdiff(names(train_class), "y")], train_class$y,
                     n_tree = 60, n_thread = 1, seed = 11)
  expect_equal(importance(fit_xy), importance(fit_class))
})

test_that("permutation importance on held-out data ranks the informative variables first", {
  vi <- importance(fit_class, new_data = test_class, n_repeat = 2, seed = 3)
  expect_s3_class(vi, "ccforest_importance")
  expect_identical(attr(vi, "type"), "permutation")
  expect_setequal(names(vi)[1:3], c("x1", "x2", "f"))
  noise <- vi[paste0("x", 3:8)]
  expect_true(all(abs(noise) < 0.03))
  expect_true(min(vi[c("x1", "x2", "f")]) > 0.1)
})

test_that("permutation importance matches a reference built from predict()", {
  features <- setdiff(names(test_class), "y")
  error_of <- function(data) mean(predict(fit_class, data) != data$y)
  n_repeat <- 2L
  set.seed(42)
  baseline <- error_of(test_class)
  reference <- stats::setNames(numeric(length(features)), fit_class$blueprint$feature_names)
  for (r in seq_len(n_repeat)) {
    for (name in fit_class$blueprint$feature_names) {
      permuted <- test_class
      permuted[[name]] <- test_class[[name]][sample.int(nrow(test_class))]
      reference[[name]] <- reference[[name]] + error_of(permuted) - baseline
    }
  }
  reference <- reference / n_repeat
  vi <- importance(fit_class, new_data = test_class, n_repeat = n_repeat, seed = 42)
  expect_equal(as.vector(vi), unname(reference[names(vi)]))
})

test_that("n_repeat averages over shuffles", {
  one <- importance(fit_class, new_data = test_class, n_repeat = 1, seed = 5)
  five <- importance(fit_class, new_data = test_class, n_repeat = 5, seed = 5)
  expect_false(isTRUE(all.equal(one, five)))
  expect_setequal(names(five)[1:3], c("x1", "x2", "f"))
})

test_that("a seed makes permutation importance reproducible and leaves R's stream alone", {
  set.seed(9)
  before <- .Random.seed
  a <- importance(fit_class, new_data = test_class, seed = 7)
  expect_identical(.Random.seed, before)
  b <- importance(fit_class, new_data = test_class, seed = 7)
  expect_identical(a, b)
  # Without a seed, set.seed() governs the shuffles.
  set.seed(21)
  c1 <- importance(fit_class, new_data = test_class)
  set.seed(21)
  c2 <- importance(fit_class, new_data = test_class)
  expect_identical(c1, c2)
})

test_that("a seed leaves an unseeded session unseeded", {
  had <- exists(".Random.seed", envir = globalenv())
  if (had) {
    saved <- get(".Random.seed", envir = globalenv())
    on.exit(assign(".Random.seed", saved, envir = globalenv()))
    rm(".Random.seed", envir = globalenv())
  }
  importance(fit_class, new_data = test_class[1:50, ], seed = 1)
  expect_false(exists(".Random.seed", envir = globalenv()))
})

test_that("permutation importance works for x/y fits with `y`, and ignores missing outputs", {
  features <- setdiff(names(train_class), "y")
  fit_xy <- ccforest(train_class[features], train_class$y, n_tree = 60, n_thread = 1, seed = 11)
  vi <- importance(fit_xy, new_data = test_class[features], y = test_class$y, seed = 3)
  expect_identical(vi, importance(fit_class, new_data = test_class, seed = 3))
  y_missing <- test_class$y
  y_missing[1:10] <- NA
  vi_na <- importance(fit_xy, new_data = test_class[features], y = y_missing, seed = 3)
  vi_drop <- importance(fit_xy, new_data = test_class[-(1:10), features],
                        y = test_class$y[-(1:10)], seed = 3)
  expect_identical(vi_na, vi_drop)
})

test_that("regression importance ranks the informative variables first, in squared output units", {
  set.seed(202)
  train <- make_informative(500, "regression")
  test <- make_informative(300, "regression")
  fit <- ccforest(y ~ ., data = train, n_tree = 60, n_thread = 1, seed = 2)
  projection <- importance(fit)
  expect_setequal(names(projection)[1:3], c("x1", "x2", "f"))
  expect_identical(fit$options$sampling, "projection")
  expect_equal(as.vector(projection),
               unname(reference_projection_importance(fit, train)[names(projection)]),
               tolerance = 1e-9)
  permutation <- importance(fit, new_data = test, seed = 1, n_repeat = 2)
  expect_setequal(names(permutation)[1:3], c("x1", "x2", "f"))
  # Scaling the output by 10 scales the mean squared error by 100.
  train10 <- transform(train, y = 10 * y)
  test10 <- transform(test, y = 10 * y)
  fit10 <- ccforest(y ~ ., data = train10, n_tree = 60, n_thread = 1, seed = 2)
  expect_equal(as.vector(importance(fit10, new_data = test10, seed = 1, n_repeat = 2)),
               100 * as.vector(permutation), tolerance = 1e-6)
})

test_that("several outputs: errors are averaged over outputs", {
  set.seed(303)
  train <- make_informative(300, "regression")
  train$z <- train$x1 + stats::rnorm(300, sd = 0.1)
  test <- make_informative(200, "regression")
  test$z <- test$x1 + stats::rnorm(200, sd = 0.1)
  fit <- ccforest(cbind(y, z) ~ ., data = train, n_tree = 30, n_thread = 1, seed = 2)
  vi <- importance(fit, new_data = test, seed = 1)
  expect_identical(names(vi)[1], "x1")
  expect_identical(importance(fit, new_data = test[setdiff(names(test), c("y", "z"))],
                              y = test[c("z", "y")], seed = 1), vi)
})

test_that("stored importance is returned when there is one", {
  fit <- as_unsealed(fit_class)
  fit$variable.importance <- projection_importance(fit)
  expect_identical(importance(fit), fit$variable.importance)
  stored <- structure(c(b = 2, a = 1), type = "permutation",
                      class = c("ccforest_importance", "numeric"))
  fit$variable.importance <- stored
  expect_identical(importance(fit), stored)
  expect_identical(importance(fit, type = "permutation"), stored)
  expect_identical(attr(importance(fit, type = "projection"), "type"), "projection")
})

test_that("fit-time importance is stored as variable.importance", {
  fit <- ccforest(y ~ ., data = train_class, n_tree = 30, n_thread = 1, seed = 4,
                  importance = "projection")
  expect_identical(fit$variable.importance, projection_importance(fit))
  expect_identical(importance(fit), fit$variable.importance)
  bagged <- ccforest(y ~ ., data = train_class, n_tree = 60, n_thread = 1, seed = 4,
                     sampling = "bagging", importance = "permutation")
  vi <- importance(bagged)
  expect_identical(attr(vi, "type"), "permutation")
  expect_setequal(names(vi)[1:3], c("x1", "x2", "f"))
})

test_that("importance() errors name the problem", {
  expect_error(importance(fit_class, type = "permutation"),
               "held-out data: call importance\\(fit, new_data = \\.\\.\\.\\)")
  expect_error(importance(fit_class, type = "permutation"), "projection bootstrapping")
  features <- setdiff(names(train_class), "y")
  fit_xy <- ccforest(train_class[features], train_class$y, n_tree = 5, n_thread = 1, seed = 1)
  expect_error(importance(fit_xy, type = "permutation"), "outputs in `y`")
  expect_error(importance(fit_xy, new_data = test_class[features]), "`y` is missing")
  expect_error(importance(fit_class, new_data = test_class[features]),
               "`new_data` has no output column `y`")
  expect_error(importance(fit_class, type = "gain"),
               "`type` must be one of \"projection\", \"permutation\", \"negation\", not \"gain\"")
  expect_error(importance(fit_class, new_data = test_class, n_repeat = 0),
               "`n_repeat` must be a single whole number >= 1, not 0")
  expect_error(importance(fit_class, new_data = test_class, seed = -1),
               "`seed` must be a single whole number between 0 and 2147483647 or NULL, not -1")
  expect_error(importance(fit_class, type = "projection", new_data = test_class),
               "only used by type = \"permutation\"")
  expect_error(importance(fit_class, n_repeats = 2), "did you mean `n_repeat`")
  expect_error(importance(fit_xy, new_data = test_class[features], y = test_class$y[1:10]),
               "`new_data` has 400 rows but `y` has 10")
  expect_error(importance(fit_xy, new_data = test_class[features], y = rep(NA, 400)),
               "Every row of the held-out outputs is missing")
  expect_error(importance(fit_xy, new_data = test_class[features], y = as.Date("2020-01-01") + 0:399),
               "must hold the class labels")
  expect_error(importance.ccforest(list()), "`x` must be a ccforest")
})

test_that("print and plot show the importance", {
  vi <- importance(fit_class)
  out <- capture.output(print(vi))
  expect_match(out[[1L]], "Variable importance: projection")
  expect_true(any(grepl("x1", out)))
  pdf(NULL)
  on.exit(dev.off())
  mids <- plot(vi)
  expect_length(mids, length(vi))
  mids <- plot(vi, n = 3)
  expect_length(mids, 3L)
  long <- structure(c(a_rather_long_variable_name_indeed = 2, b = 1), type = "permutation",
                    class = c("ccforest_importance", "numeric"))
  expect_silent(plot(long))
  expect_error(plot(vi, n = 0), "`n` must be a single whole number >= 1, not 0")
})

test_that("an importance that is NA or NaN keeps its variable, listed last (issue 36)", {
  # sort() drops NA and NaN: any undefined importance used to remove its
  # variable without a word, for any task.
  vi <- ccforest:::new_importance(c(0.1, NaN, 0.3, NA), c("a", "b", "c", "d"), "permutation")
  expect_identical(names(vi), c("c", "a", "b", "d"))
  expect_true(all(is.na(unclass(vi)[c("b", "d")])))
  expect_output(print(vi), "b\\s+NaN")
  expect_identical(names(head(vi, 3)), c("c", "a", "b"))
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_length(plot(vi), 4L)
})
