# Per-tree predictions (ranger's predict.all) and terminal nodes, against the
# documented walk of tree_info() (route_rows() in helper-data.R) and the
# forest's own average.

test_that("terminal nodes are the documented walk's leaves, numbered as tree_info()", {
  set.seed(1)
  train <- make_spiral(200)
  fit <- ccforest(class ~ ., data = train, n_tree = 5, seed = 3)
  test <- make_spiral(40)
  nodes <- predict(fit, test, type = "terminal_nodes")
  expect_true(is.integer(nodes))
  expect_identical(dim(nodes), c(40L, 5L))
  z <- encode_numeric(fit, test)
  for (t in 1:5) {
    expect_identical(nodes[, t], route_rows(fit, t, z))
  }
  # Only the first n_tree trees.
  expect_identical(predict(fit, test, type = "terminal_nodes", n_tree = 2), nodes[, 1:2])
})

test_that("per-tree class probabilities are the leaves' and average to the forest's", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 7, seed = 2)
  all <- predict(fit, iris, type = "prob", predict_all = TRUE)
  expect_identical(dim(all), c(150L, 3L, 7L))
  expect_identical(dimnames(all)[[2]], levels(iris$Species))
  expect_equal(apply(all, c(1, 2), mean), predict(fit, iris, type = "prob"), ignore_attr = TRUE)
  nodes <- predict(fit, iris, type = "terminal_nodes")
  info <- tree_info(fit, 4)
  leaf <- as.matrix(info[nodes[, 4] + 1L, paste0("prob.", levels(iris$Species))])
  expect_equal(all[, , 4], leaf, ignore_attr = TRUE)
  classes <- predict(fit, iris, predict_all = TRUE)
  expect_identical(attr(classes, "levels"), levels(iris$Species))
  expect_identical(classes[, 4], max.col(leaf, ties.method = "first"))
})

test_that("per-tree regression values are in the output's units", {
  fit <- ccforest(mpg ~ ., data = mtcars, n_tree = 6, seed = 2)
  all <- predict(fit, mtcars, predict_all = TRUE)
  expect_identical(dim(all), c(32L, 6L))
  expect_equal(rowMeans(all), unname(predict(fit, mtcars)))
  info <- tree_info(fit, 2)
  nodes <- predict(fit, mtcars, type = "terminal_nodes")
  expect_equal(all[, 2], info$prediction[nodes[, 2] + 1L])
  multi <- ccforest(cbind(mpg, qsec) ~ ., data = mtcars, n_tree = 4, seed = 2)
  all <- predict(multi, mtcars, predict_all = TRUE)
  expect_identical(dimnames(all)[[2]], c("mpg", "qsec"))
  expect_equal(apply(all, c(1, 2), mean), as.matrix(predict(multi, mtcars)), ignore_attr = TRUE)
})

test_that("several class outputs give one per-tree result per output", {
  d <- data.frame(x1 = iris$Sepal.Length, x2 = iris$Petal.Width, a = iris$Species,
                  b = factor(iris$Sepal.Width > 3))
  fit <- ccforest(cbind(a, b) ~ x1 + x2, data = d, n_tree = 4, seed = 1)
  all <- predict(fit, d[1:5, ], type = "prob", predict_all = TRUE)
  expect_named(all, c("a", "b"))
  expect_equal(apply(all$b, c(1, 2), mean), predict(fit, d[1:5, ], type = "prob")$b,
               ignore_attr = TRUE)
})

test_that("missing values are imputed per tree as the forest imputes them", {
  train <- iris
  train$Sepal.Width[c(3, 50, 90)] <- NA
  fit <- ccforest(Species ~ ., data = train, n_tree = 8, seed = 4)
  all <- predict(fit, train[c(3, 50, 90, 1), ], type = "prob", predict_all = TRUE)
  expect_equal(apply(all, c(1, 2), mean), predict(fit, train[c(3, 50, 90, 1), ], type = "prob"),
               ignore_attr = TRUE)
})

test_that("per-tree results too large for memory are refused with their size", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 10, seed = 1)
  withr::local_options(ccforest.memory_limit = 10000)
  expect_error(predict(fit, iris, type = "prob", predict_all = TRUE),
               "Per-tree predictions for 150 rows and 10 trees take 35.2 KB, but only 9.8 KB is available\\. Predict fewer rows at a time")
  withr::local_options(ccforest.memory_limit = 5000)
  expect_error(predict(fit, iris, type = "terminal_nodes"),
               "Terminal node numbers for 150 rows and 10 trees take 5.9 KB, but only 4.9 KB")
  expect_identical(dim(predict(fit, iris[1:5, ], type = "terminal_nodes")), c(5L, 10L))
})

test_that("per-tree predictions refuse what they cannot do", {
  fit <- ccforest(mpg ~ ., data = mtcars, n_tree = 5, seed = 1, quantiles = TRUE)
  expect_error(predict(fit, mtcars, type = "quantiles", predict_all = TRUE),
               "predict_all = TRUE gives each tree's \"class\", \"prob\" or \"response\", not type = \"quantiles\"")
  expect_error(predict(fit, mtcars, predict_all = TRUE, chunk_size = 10),
               "predict_all = TRUE predicts `new_data` in one piece")
  expect_error(predict(fit, mtcars, type = "terminal_nodes", chunk_size = 10),
               "type = \"terminal_nodes\" predicts `new_data` in one piece")
  expect_error(predict(fit, mtcars, predict_all = NA), "`predict_all`")
  expect_error(predict(fit, mtcars, type = "terminal_nodes", calibration = mtcars),
               "`calibration`, `calibration_y` and `interval` are for type = \"interval\"")
})
