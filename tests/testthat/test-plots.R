# plot() and autoplot(): they draw (on a null device) what the results hold,
# and refuse what they cannot draw with a message.

off_screen <- function(env = parent.frame()) {
  grDevices::pdf(NULL)
  withr::defer(grDevices::dev.off(), envir = env)
}

bag_fit <- function() ccforest(Species ~ ., data = iris, n_tree = 30, sampling = "bagging",
                               seed = 1)

test_that("plot() of a forest draws its out-of-bag error curve or its importance", {
  off_screen()
  bag <- bag_fit()
  expect_invisible(plot(bag))
  expect_invisible(plot(bag, which = "importance"))
  proj <- ccforest(Species ~ ., data = iris, n_tree = 10, seed = 1)
  expect_invisible(plot(proj))
  expect_error(plot(proj, which = "error"), paste0(
    "which = \"error\" plots the out-of-bag error against the number of trees, which only ",
    "forests grown on samples of the rows \\(sampling = \"bagging\"\\) have; this one was grown ",
    "with projection bootstrapping"))
  # Each forest without a curve is told its own reason (issue 36: a bagged
  # survival forest was said to be grown with projection bootstrapping).
  surv <- ccforest(survival::Surv(time, status) ~ age + karno, survival::veteran, n_tree = 10,
                   seed = 1, sampling = "bagging")
  expect_error(plot(surv, which = "error"), sprintf(paste0(
    "which survival forests do not keep: their out-of-bag error, 1 - Harrell's C \\(%.3f here\\), ",
    "is a ranking of the whole forest's risks"), surv$oob_error))
  expect_invisible(plot(surv))  # importance, by default
  joined <- suppressMessages(combine_forests(
    bag, ccforest(Species ~ ., data = iris, n_tree = 5, sampling = "bagging", seed = 1,
                  first_tree = 31)))
  older <- as_unsealed(bag)
  older$oob_error_curve <- NULL
  expect_error(plot(older, which = "error"),
               "which this forest \\(fitted with ccforest 0.2.0\\) did not keep; refit it")
  expect_error(plot(joined, which = "error"),
               "which this forest no longer has: a combined forest \\(combine_forests\\(\\)\\)")
  expect_error(plot(proj, which = "votes"), "`which` must be one of \"error\", \"importance\"")
})

test_that("plot() of a multi-class partial dependence shares one panel, or lays panels out", {
  off_screen()
  fit <- ccforest(Species ~ ., data = iris, n_tree = 10, seed = 1)
  pd <- partial_dependence(fit, iris, "Petal.Width", grid_size = 5)
  expect_invisible(plot(pd))
  # One panel: the device keeps a single figure region.
  expect_identical(graphics::par("mfrow"), c(1L, 1L))
  expect_invisible(plot(partial_dependence(fit, iris, "Petal.Width", grid_size = 5,
                                           ice = TRUE)))
  expect_invisible(plot(partial_dependence(fit, iris, c("Petal.Width", "Petal.Length"),
                                           grid_size = 4)))
  # Three panels: side by side on a wide device, 2 x 2 on a square one.
  grDevices::pdf(NULL, width = 9, height = 3)
  expect_equal(ccforest:::panel_grid(3), c(1, 3))
  grDevices::dev.off()
  grDevices::pdf(NULL, width = 7, height = 7)
  expect_equal(ccforest:::panel_grid(3), c(2, 2))
  grDevices::dev.off()
})

test_that("plot() of intervals marks the observed outputs they cover", {
  off_screen()
  set.seed(1)
  reg <- ccforest(mpg ~ ., data = mtcars[1:24, ], n_tree = 30, sampling = "bagging", seed = 1)
  iv <- predict(reg, mtcars[25:32, ], type = "interval", level = 0.8)
  expect_invisible(plot(iv, y = mtcars$mpg[25:32]))
  expect_invisible(plot(iv))
  expect_error(plot(iv, y = 1:3), "`y` must be the 8 observed outputs of the intervals' rows")
})

test_that("autoplot() gives ggplots of forests, importance, partial dependence and intervals", {
  skip_if_not_installed("ggplot2")
  bag <- bag_fit()
  p <- ggplot2::autoplot(bag)
  expect_s3_class(p, "ggplot")
  expect_equal(p$data$error, bag$oob_error_curve)
  p <- ggplot2::autoplot(importance(bag))
  expect_setequal(as.character(p$data$variable), names(iris)[1:4])
  p <- ggplot2::autoplot(bag, which = "importance", n = 2)
  expect_identical(nrow(p$data), 2L)

  fit <- ccforest(Species ~ ., data = iris, n_tree = 10, seed = 1)
  pd <- partial_dependence(fit, iris, "Petal.Width", grid_size = 5)
  p <- ggplot2::autoplot(pd)
  expect_identical(levels(p$data$.class), levels(iris$Species))
  expect_equal(p$data$.value[p$data$.class == "virginica"], pd$prob.virginica)
  ice <- ggplot2::autoplot(partial_dependence(fit, iris[1:10, ], "Petal.Width", grid_size = 4,
                                              ice = TRUE))
  expect_s3_class(ice$facet, "FacetWrap")
  two <- ggplot2::autoplot(partial_dependence(fit, iris, c("Petal.Width", "Petal.Length"),
                                              grid_size = 4))
  expect_s3_class(two$layers[[1]]$geom, "GeomRaster")
  reg <- ccforest(mpg ~ ., data = transform(mtcars, cyl = factor(cyl)), n_tree = 10, seed = 1)
  mixed <- ggplot2::autoplot(partial_dependence(reg, transform(mtcars, cyl = factor(cyl)),
                                                c("wt", "cyl"), grid_size = 4))
  expect_s3_class(mixed$layers[[1]]$geom, "GeomLine")

  reg <- ccforest(mpg ~ ., data = mtcars[1:24, ], n_tree = 30, sampling = "bagging", seed = 1)
  iv <- predict(reg, mtcars[25:32, ], type = "interval", level = 0.8)
  p <- ggplot2::autoplot(iv, y = mtcars$mpg[25:32])
  expect_identical(p$data$rank, 1:8)
  expect_equal(sort(p$data$prediction), sort(iv$prediction))
  # Every plot builds.
  for (plot in list(ggplot2::autoplot(bag), ice, two, mixed, p)) {
    expect_s3_class(ggplot2::ggplot_build(plot), "ggplot_built")
  }
  expect_error(ggplot2::autoplot(pd[1:2, c("Petal.Width", "prob.setosa")]),
               "lost the attributes of partial_dependence\\(\\)'s result")
})
