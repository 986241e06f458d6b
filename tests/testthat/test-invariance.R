# Predictions must not depend on things that carry no information: the units
# and origin of a feature, the order of columns or rows, the interface used.

invariance_data <- function(n = 200) {
  set.seed(501)
  df <- data.frame(
    a = stats::rnorm(n),
    b = stats::runif(n, 0, 10),
    c = factor(sample(c("u", "v", "w"), n, replace = TRUE)),
    d = stats::rnorm(n, 50, 5)
  )
  df$cls <- factor(ifelse(df$a + df$b / 5 + (df$c == "v") > 1.5, "hi", "lo"))
  df$num <- df$a * df$b + (df$c == "w") + stats::rnorm(n, sd = 0.1)
  df
}

# Each tree's nodes (children, leaves) and the columns of its splits, from
# tree_info().
tree_shapes <- function(fit) {
  lapply(seq_len(n_trees_of(fit)), function(t) {
    tree_info(fit, t)[c("node", "left", "right", "terminal", "columns")]
  })
}

test_that("rescaling or shifting a numeric feature leaves predictions unchanged", {
  df <- invariance_data()
  new <- invariance_data(60)[, c("a", "b", "c", "d")]
  new$a <- new$a + 0.05  # not training rows
  fit <- ccforest(cls ~ a + b + c + d, data = df, n_tree = 25, seed = 1)
  base <- predict(fit, new, type = "prob")
  reg <- ccforest(num ~ a + b + c + d, data = df, n_tree = 25, seed = 1)
  base_reg <- predict(reg, new)
  transforms <- list(
    scale_a = function(x) within(x, a <- a * 3.7),
    scale_b = function(x) within(x, b <- b * 1e-3),
    shift_d = function(x) within(x, d <- d - 1000),
    both_b = function(x) within(x, b <- 25 * b + 7)
  )
  for (name in names(transforms)) {
    f <- transforms[[name]]
    moved <- ccforest(cls ~ a + b + c + d, data = f(df), n_tree = 25, seed = 1)
    expect_equal(predict(moved, f(new), type = "prob"), base, tolerance = 1e-8, label = name)
    moved_reg <- ccforest(num ~ a + b + c + d, data = f(df), n_tree = 25, seed = 1)
    expect_equal(predict(moved_reg, f(new)), base_reg, tolerance = 1e-8, label = name)
    # The tree shapes, and the columns of every split, are the same too.
    expect_identical(tree_shapes(moved), tree_shapes(fit), label = name)
    expect_identical(tree_shapes(moved_reg), tree_shapes(reg), label = name)
  }
})

test_that("the column order of new_data does not matter, and extra columns are ignored", {
  df <- invariance_data()
  fit <- ccforest(cls ~ a + b + c + d, data = df, n_tree = 15, seed = 2)
  new <- df[1:40, c("a", "b", "c", "d")]
  base <- predict(fit, new, type = "prob")
  expect_identical(predict(fit, new[, c("d", "c", "a", "b")], type = "prob"), base)
  expect_identical(predict(fit, cbind(junk = 1, new[, 4:1], more = "x"), type = "prob"), base)
  # The same holds for the x/y interface and for matrices with column names.
  xfit <- ccforest(as.matrix(df[, c("a", "b", "d")]), df$num, n_tree = 15, seed = 2)
  m <- as.matrix(df[1:30, c("a", "b", "d")])
  expect_identical(predict(xfit, m[, c(3, 1, 2)]), predict(xfit, m))
})

test_that("formula and x/y interfaces give identical forests", {
  df <- invariance_data()
  f1 <- ccforest(cls ~ a + b + c + d, data = df, n_tree = 10, seed = 3)
  f2 <- ccforest(df[, c("a", "b", "c", "d")], df$cls, n_tree = 10, seed = 3)
  expect_identical(f1$forest, f2$forest)
  expect_identical(predict(f1, df), predict(f2, df))
  r1 <- ccforest(num ~ a + b + d, data = df, n_tree = 10, seed = 3)
  r2 <- ccforest(as.matrix(df[, c("a", "b", "d")]), df$num, n_tree = 10, seed = 3)
  expect_identical(r1$forest, r2$forest)
  expect_identical(predict(r1, df), predict(r2, df[, c("a", "b", "d")]))
  # `.` expands to the same features.
  f3 <- ccforest(cls ~ . - num, data = df, n_tree = 10, seed = 3)
  expect_identical(f3$forest, f1$forest)
})

test_that("row order of new_data does not change any row's prediction", {
  df <- invariance_data()
  fit <- ccforest(cls ~ a + b + c + d, data = df, n_tree = 20, seed = 4)
  new <- df[1:80, c("a", "b", "c", "d")]
  set.seed(504)
  perm <- sample(80)
  base <- predict(fit, new, type = "prob")
  shuffled <- predict(fit, new[perm, ], type = "prob")
  expect_identical(unname(shuffled), unname(base[perm, ]))
})

test_that("rows with missing values get the same prediction alone and in any batch", {
  df <- invariance_data()
  df$a[c(3, 9, 40)] <- NA
  df$c[c(5, 9)] <- NA
  fit <- ccforest(cls ~ a + b + c + d, data = df, n_tree = 30, seed = 5)
  expect_identical(fit$options$na_action, "impute_random")
  reg <- ccforest(num ~ a + b + c + d, data = df, n_tree = 30, seed = 5)
  new <- df[1:50, c("a", "b", "c", "d")]
  new$b[c(1, 2)] <- NA
  new$d[2] <- NA
  has_na <- which(!stats::complete.cases(new))
  expect_gte(length(has_na), 5L)
  batch <- predict(fit, new, type = "prob")
  batch_reg <- predict(reg, new)
  set.seed(505)
  perm <- sample(50)
  expect_identical(unname(predict(fit, new[perm, ], type = "prob")), unname(batch[perm, ]))
  expect_identical(predict(reg, new[perm, ]), batch_reg[perm])
  for (i in has_na) {
    expect_identical(predict(fit, new[i, ], type = "prob"), batch[i, , drop = FALSE])
    expect_identical(predict(reg, new[i, ]), batch_reg[[i]])
    # With other rows around it, in another position.
    mixed <- new[c(10, i, 20), ]
    expect_identical(predict(reg, mixed)[[2]], batch_reg[[i]])
  }
  # Repeated calls give the same answer.
  expect_identical(predict(fit, new, type = "prob"), batch)
  # Identical rows with missing values get identical predictions.
  twins <- new[c(1, 1, 1), ]
  expect_identical(length(unique(predict(reg, twins))), 1L)
})

test_that("the number of threads used for prediction does not matter", {
  df <- invariance_data()
  df$b[7] <- NA
  fit <- ccforest(num ~ a + b + c + d, data = df, n_tree = 20, seed = 6)
  new <- df[rep(1:200, 3), ]  # more rows than one block
  p1 <- predict(fit, new, n_thread = 1)
  expect_identical(predict(fit, new, n_thread = 2), p1)
  expect_identical(predict(fit, new, n_thread = 4), p1)
})

test_that("a training row with missing values is imputed alike at fit and at predict", {
  # Fully grown classification trees without bagging separate every training
  # row; each row, with its missing cells imputed again at prediction, must
  # land in the pure leaf it was grown into.
  set.seed(507)
  d <- iris[-143, ]  # drop the one duplicated row
  for (j in 1:4) d[sample(nrow(d), 20), j] <- NA
  fit <- ccforest(Species ~ ., data = d, n_tree = 10, sampling = "projection", seed = 7)
  prob <- predict(fit, d, type = "prob")
  expect_true(all(prob[cbind(seq_len(nrow(d)), as.integer(d$Species))] == 1))
  # The same holds row by row and in reverse order.
  rows <- which(!stats::complete.cases(d))[1:5]
  for (i in rows) {
    expect_identical(as.character(predict(fit, d[i, ])), as.character(d$Species[i]))
  }
  expect_identical(predict(fit, d[rev(seq_len(nrow(d))), ]), rev(d$Species))
})
