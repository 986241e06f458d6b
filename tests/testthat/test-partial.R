# partial_dependence() against pdp's algorithm written out by hand: for each
# grid point, set the feature(s) in every row, predict, average (or keep the
# rows, for ICE curves).

#' The reference: one predict() call per grid point.
pd_by_hand <- function(fit, data, points, type, ice = FALSE) {
  per_point <- lapply(seq_len(nrow(points)), function(g) {
    modified <- data
    for (f in names(points)) {
      modified[[f]] <- rep(points[[f]][[g]], nrow(data))
    }
    value <- predict(fit, modified, type = type)
    value <- if (is.matrix(value)) value else matrix(value, ncol = 1L)
    if (ice) value else matrix(colMeans(value), nrow = 1L)
  })
  do.call(rbind, per_point)
}

test_that("regression, one feature: the average prediction with the feature set", {
  fit <- ccforest(mpg ~ ., data = mtcars, n_tree = 30, seed = 1)
  pd <- partial_dependence(fit, mtcars, "wt", grid_size = 7)
  expect_s3_class(pd, "ccforest_pd")
  expect_named(pd, c("wt", "prediction"))
  expect_equal(pd$wt, seq(min(mtcars$wt), max(mtcars$wt), length.out = 7))
  expect_equal(pd$prediction, pd_by_hand(fit, mtcars, pd["wt"], "response")[, 1])
  # A grid given by hand, and the quantile grid.
  given <- partial_dependence(fit, mtcars, "hp", grid = c(60, 150, 300))
  expect_equal(given$prediction,
               pd_by_hand(fit, mtcars, data.frame(hp = c(60, 150, 300)), "response")[, 1])
  quantiles <- partial_dependence(fit, mtcars, "disp", grid_size = 5, grid_type = "quantile")
  expect_equal(quantiles$disp, unname(quantile(mtcars$disp, seq(0, 1, 0.25))))
  # Few distinct values: all of them.
  expect_equal(partial_dependence(fit, mtcars, "cyl")$cyl, c(4, 6, 8))
})

test_that("classification, one feature: one probability column per class", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 30, seed = 2)
  pd <- partial_dependence(fit, iris, "Petal.Width", grid_size = 6)
  expect_named(pd, c("Petal.Width", paste0("prob.", levels(iris$Species))))
  reference <- pd_by_hand(fit, iris, pd["Petal.Width"], "prob")
  expect_equal(unname(as.matrix(pd[, -1])), unname(reference))
  expect_equal(unname(rowSums(pd[, -1])), rep(1, 6))
  expect_error(partial_dependence(fit, iris, "Petal.Width", type = "response"),
               "type = \"response\" is for regression forests")
})

test_that("two features: every combination, the first varying fastest", {
  fit <- ccforest(mpg ~ ., data = mtcars, n_tree = 20, seed = 3)
  pd <- partial_dependence(fit, mtcars, c("wt", "hp"), grid_size = 4)
  expect_equal(nrow(pd), 16L)
  expect_equal(pd$wt, rep(seq(min(mtcars$wt), max(mtcars$wt), length.out = 4), 4))
  expect_equal(pd$prediction, pd_by_hand(fit, mtcars, pd[c("wt", "hp")], "response")[, 1])

  classes <- ccforest(Species ~ ., data = iris, n_tree = 20, seed = 3)
  grid <- list(Petal.Length = c(1.5, 4, 6), Sepal.Width = c(2.5, 3.5))
  pd2 <- partial_dependence(classes, iris, c("Petal.Length", "Sepal.Width"), grid = grid)
  expect_equal(pd2$Sepal.Width, rep(c(2.5, 3.5), each = 3))
  reference <- pd_by_hand(classes, iris, pd2[c("Petal.Length", "Sepal.Width")], "prob")
  expect_equal(unname(as.matrix(pd2[, 3:5])), unname(reference))
  # A data.frame grid gives its rows as they are.
  rows <- data.frame(Sepal.Width = c(3, 2.2), Petal.Length = c(1.4, 5.5))
  pd3 <- partial_dependence(classes, iris, c("Petal.Length", "Sepal.Width"), grid = rows)
  expect_equal(nrow(pd3), 2L)
  expect_equal(unname(as.matrix(pd3[, 3:5])),
               unname(pd_by_hand(classes, iris, rows[c("Petal.Length", "Sepal.Width")], "prob")))
})

test_that("factor and logical features get all their values; ICE keeps every row", {
  d <- transform(mtcars, cyl = factor(cyl), am = am == 1)
  fit <- ccforest(mpg ~ ., data = d, n_tree = 20, seed = 4)
  pd <- partial_dependence(fit, d, "cyl")
  expect_identical(pd$cyl, factor(c("4", "6", "8")))
  expect_equal(pd$prediction, pd_by_hand(fit, d, pd["cyl"], "response")[, 1])
  expect_identical(partial_dependence(fit, d, "am")$am, c(FALSE, TRUE))

  ice <- partial_dependence(fit, d, c("cyl", "wt"), grid = list(cyl = c("8", "4"), wt = 3),
                            ice = TRUE)
  expect_named(ice, c("cyl", "wt", ".row", "prediction"))
  expect_equal(nrow(ice), 2L * nrow(d))
  expect_identical(ice$.row, rep(seq_len(nrow(d)), 2))
  expect_identical(ice$cyl, factor(rep(c("8", "4"), each = nrow(d)), levels = c("4", "6", "8")))
  expect_equal(ice$prediction, pd_by_hand(fit, d, ice[c(1, nrow(d) + 1), c("cyl", "wt")],
                                          "response", ice = TRUE)[, 1])
  # The averages of the ICE curves are the partial dependence.
  mean_curve <- partial_dependence(fit, d, c("cyl", "wt"), grid = list(cyl = c("8", "4"), wt = 3))
  expect_equal(as.vector(tapply(ice$prediction, ice$cyl, mean)[c("8", "4")]),
               mean_curve$prediction)
})

test_that("transformed terms vary through the data's column; chunks change nothing", {
  fit <- ccforest(mpg ~ log(hp) + wt, data = mtcars, n_tree = 20, seed = 5)
  pd <- partial_dependence(fit, mtcars, "hp", grid_size = 5)
  expect_equal(pd$prediction, pd_by_hand(fit, mtcars, pd["hp"], "response")[, 1])
  expect_error(partial_dependence(fit, mtcars, "log(hp)"),
               "`log\\(hp\\)` is not used by the forest, whose variables are `hp`, `wt`")

  classes <- ccforest(Species ~ ., data = iris, n_tree = 10, seed = 5)
  points <- data.frame(Petal.Length = seq(1, 7, length.out = 9))
  whole <- pd_values(classes, iris, points, ice = FALSE, n_tree = 10, n_thread = 1,
                     chunk_rows = 1e6)
  one_copy_per_chunk <- pd_values(classes, iris, points, ice = FALSE, n_tree = 10,
                                  n_thread = 1, chunk_rows = 1)
  three_per_chunk <- pd_values(classes, iris, points, ice = TRUE, n_tree = 10, n_thread = 2,
                               chunk_rows = 3 * nrow(iris))
  expect_equal(one_copy_per_chunk, whole)
  expect_equal(three_per_chunk,
               unname(pd_by_hand(classes, iris, points, "prob", ice = TRUE)))
})

test_that("x/y fits on matrices and several outputs work too", {
  x <- as.matrix(mtcars[, -1])
  fit <- ccforest(x, mtcars$mpg, n_tree = 10, seed = 6)
  pd <- partial_dependence(fit, x, "wt", grid_size = 3)
  expect_equal(pd$prediction,
               pd_by_hand(fit, as.data.frame(x), pd["wt"], "response")[, 1])

  multi <- ccforest(cbind(mpg, qsec) ~ ., data = mtcars, n_tree = 10, seed = 6)
  pd2 <- partial_dependence(multi, mtcars, "wt", grid_size = 3)
  expect_named(pd2, c("wt", "prediction.mpg", "prediction.qsec"))
  reference <- t(vapply(pd2$wt, function(v) {
    d <- mtcars
    d$wt <- v
    colMeans(predict(multi, d))
  }, numeric(2)))
  expect_equal(unname(as.matrix(pd2[, 2:3])), unname(reference))
})

test_that("bad features, grids and arguments are refused with clear messages", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 5, seed = 7)
  expect_error(partial_dependence(fit, iris, "Petal.Widht"),
               "`Petal.Widht` is not used by the forest.*Did you mean `Petal.Width`")
  expect_error(partial_dependence(fit, iris, c("Sepal.Length", "Sepal.Width", "Petal.Width")),
               "`features` has 3 names .*one or two features")
  expect_error(partial_dependence(fit, iris, c("Sepal.Length", "Sepal.Length")),
               "`features` names `Sepal.Length` twice")
  expect_error(partial_dependence(fit, iris, 1), "`features` must be the names of one or two")
  expect_error(partial_dependence(fit, iris), "`features` is missing")
  expect_error(partial_dependence(fit, features = "Sepal.Length"), "`data` is missing")
  expect_error(partial_dependence(fit, iris[, -1], "Sepal.Length"),
               "`data` has no column `Sepal.Length`")
  expect_error(partial_dependence(fit, list(a = 1), "Sepal.Length"),
               "`data` must be a data.frame or a matrix, not <list>")
  expect_error(partial_dependence(fit, iris[0, ], "Sepal.Length"), "`data` has no rows")
  expect_error(partial_dependence(fit, iris, "Sepal.Length", grid_size = 1),
               "`grid_size` must be a single whole number >= 2, not 1")
  expect_error(partial_dependence(fit, iris, "Sepal.Length", grid_type = "evenly"),
               "`grid_type` must be one of \"even\", \"quantile\"")
  expect_error(partial_dependence(fit, iris, "Sepal.Length", ice = "yes"),
               "`ice` must be TRUE or FALSE")
  expect_error(partial_dependence(fit, iris, "Sepal.Length", gird = 1),
               "Unknown argument `gird` in partial_dependence\\(\\); did you mean `grid`")
  expect_error(partial_dependence(fit, iris, "Sepal.Length", n_tree = 6),
               "`n_tree` must be a single whole number between 1 and 5")

  expect_error(partial_dependence(fit, iris, "Sepal.Length", grid = list(Sepal.Width = 1:3)),
               "`grid` must have exactly one element \\(or column\\) per feature, named `Sepal.Length`")
  expect_error(partial_dependence(fit, iris, c("Sepal.Length", "Sepal.Width"), grid = 1:3),
               "`grid` must be a named list .* not <integer>")
  expect_error(partial_dependence(fit, iris, "Sepal.Length", grid = numeric(0)),
               "`grid` for `Sepal.Length` must be a non-empty vector")
  expect_error(partial_dependence(fit, iris, "Sepal.Length", grid = c(1, NA)),
               "`grid` for `Sepal.Length` has missing values")
  expect_error(partial_dependence(fit, iris, "Sepal.Length", grid = c("a", "b")),
               "`grid` for `Sepal.Length` must be finite numbers")
  expect_error(partial_dependence(fit, iris, "Sepal.Length", grid = data.frame(Sepal.Length = numeric(0))),
               "`grid` has no rows")

  d <- transform(mtcars, cyl = factor(cyl), am = am == 1, name = rownames(mtcars))
  expect_message(reg <- ccforest(mpg ~ cyl + am + wt + name, data = d, n_tree = 5, seed = 7),
                 "Treating character column")
  expect_error(partial_dependence(reg, d, "cyl", grid = c("4", "5")),
               "`grid` for `cyl` has `5`, not among the levels `4`, `6`, `8`")
  expect_error(partial_dependence(reg, d, "cyl", grid = 4),
               "`grid` for `cyl` must give levels of the factor")
  expect_error(partial_dependence(reg, d, "am", grid = 1), "`grid` for `am` must be TRUE or FALSE")
  expect_error(partial_dependence(reg, d, "name", grid = 1), "`grid` for `name` must be strings")
  expect_error(partial_dependence(reg, d, "wt", type = "prob"),
               "type = \"prob\" is for classification forests")
  expect_equal(partial_dependence(reg, d, "name", grid = c("Valiant", "Fiat 128"))$name,
               c("Valiant", "Fiat 128"))
  empty <- d
  empty$wt <- NA_real_
  expect_error(partial_dependence(reg, empty, "wt"),
               "`wt` has no non-missing values in `data` to make a grid from")

  # Errors about the rows averaged over name `data`, the argument that holds them.
  strict <- ccforest(mpg ~ wt + hp, data = mtcars, n_tree = 5, seed = 7, na_action = "fail")
  holed <- mtcars
  holed$hp[3] <- NA
  expect_error(partial_dependence(strict, holed, "wt"),
               "^`data` has missing values in column\\(s\\) `hp`")
  expect_error(partial_dependence(strict, mtcars[c("wt", "mpg")], "wt"),
               "`data` is missing column\\(s\\) `hp` used to fit the forest")
})

test_that("plot() draws every kind of result and returns it", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 10, seed = 8)
  d <- transform(mtcars, cyl = factor(cyl))
  reg <- ccforest(mpg ~ ., data = d, n_tree = 10, seed = 8)
  results <- list(
    partial_dependence(fit, iris, "Petal.Width", grid_size = 5),
    partial_dependence(fit, iris, "Petal.Width", grid_size = 5, ice = TRUE),
    partial_dependence(fit, iris, c("Petal.Width", "Petal.Length"), grid_size = 4),
    partial_dependence(reg, d, "cyl"),
    partial_dependence(reg, d, "cyl", ice = TRUE),
    partial_dependence(reg, d, c("wt", "cyl"), grid_size = 4),
    partial_dependence(reg, d, c("cyl", "wt"), grid_size = 3),
    partial_dependence(reg, d, c("wt", "hp"), grid = data.frame(wt = 2:3, hp = c(100, 200)))
  )
  file <- tempfile(fileext = ".pdf")
  grDevices::pdf(file)
  on.exit({
    grDevices::dev.off()
    unlink(file)
  })
  for (pd in results) {
    expect_identical(plot(pd), pd)
  }
  expect_error(plot(results[[1]][, 1:2]), "`x` has lost the attributes")
})
