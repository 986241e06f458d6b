# Quiet defects of 0.1.0, each with the case that showed it.

test_that("a row's prediction does not depend on the rows predicted with it", {
  set.seed(1)
  d <- data.frame(a = rnorm(200, .1, 3), b = rnorm(200), c = rnorm(200))
  d$y <- factor(ifelse(d$a + d$b > 0, "p", "q"))
  fit <- ccforest(y ~ a + b + c, d, n_tree = 100, seed = 1)
  new <- d[1:50, ]
  new$b <- NA
  alone <- predict(fit, new, type = "prob")
  mixed <- predict(fit, rbind(new, transform(new[1, ], a = 1e200)), type = "prob")[1:50, ]
  expect_identical(mixed, alone)

  # Property: fixed rows keep their predictions inside random batches, in any
  # position, with extreme, tiny, missing and ordinary companions.
  reg <- ccforest(a ~ b + c, d, n_tree = 50, seed = 2)
  fixed <- d[1:12, ]
  fixed$b[c(2, 5, 9)] <- NA
  fixed$c[c(5, 7)] <- NA
  expected_class <- predict(fit, fixed, type = "prob")
  expected_value <- predict(reg, fixed)
  companions <- c(1e300, -1e300, 1e-300, -5e-324, 1e150, 0, NA)
  for (trial in 1:25) {
    k <- sample(1:30, 1)
    others <- d[sample(nrow(d), k, replace = TRUE), ]
    others$a <- sample(c(companions, rnorm(5)), k, replace = TRUE)
    others$b <- sample(c(companions, rnorm(5)), k, replace = TRUE)
    batch <- rbind(others, fixed)
    order <- sample(nrow(batch))
    batch <- batch[order, ]
    where <- match(k + seq_len(nrow(fixed)), order)
    expect_identical(unname(predict(fit, batch, type = "prob")[where, ]),
                     unname(expected_class), label = paste("trial", trial))
    expect_identical(predict(reg, batch)[where], unname(expected_value))
  }
})

test_that("a response level that is itself NA (addNA()) is kept as a class", {
  set.seed(2)
  d <- data.frame(x1 = rnorm(300), x2 = rnorm(300))
  d$y <- addNA(factor(ifelse(d$x1 > 0.5, "high", ifelse(d$x1 < -0.5, "low", NA))))
  expect_identical(levels(d$y), c("high", "low", NA))
  fit <- ccforest(y ~ ., d, n_tree = 30, seed = 1)
  p <- predict(fit, d)
  expect_identical(levels(p), c("high", "low", NA))
  expect_false(anyNA(p))
  expect_gt(mean(as.integer(p) == as.integer(d$y)), 0.95)
  expect_identical(colnames(predict(fit, d, type = "prob")), c("high", "low", NA))
  bagged <- ccforest(y ~ ., d, n_tree = 30, seed = 1, sampling = "bagging")
  expect_false(is.na(bagged$oob_error))
  expect_lt(bagged$oob_error, 0.1)
})

test_that("out-of-bag predictions line up with the data's rows under na_action = \"omit\"", {
  set.seed(3)
  d <- data.frame(x1 = rnorm(120), x2 = rnorm(120))
  d$y <- factor(d$x1 + d$x2 > 0)
  d$x1[c(3, 40)] <- NA
  d$y[77] <- NA
  fit <- ccforest(y ~ ., d, n_tree = 40, seed = 5, sampling = "bagging", na_action = "omit")
  expect_length(fit$predictions, nrow(d))
  expect_true(all(is.na(fit$predictions[c(3, 40, 77)])))
  complete <- ccforest(y ~ ., d[-c(3, 40, 77), ], n_tree = 40, seed = 5, sampling = "bagging")
  expect_identical(fit$predictions[-c(3, 40, 77)], complete$predictions)
  expect_identical(fit$oob_error, complete$oob_error)
  reg <- ccforest(x2 ~ x1, d, n_tree = 40, seed = 5, sampling = "bagging", na_action = "omit")
  expect_length(reg$predictions, nrow(d))
  expect_true(all(is.na(reg$predictions[c(3, 40)])))
})

test_that("a formula given as `x` is the formula interface", {
  fit <- ccforest(x = Species ~ ., data = iris, n_tree = 5, seed = 1)
  expect_identical(fit$forest, ccforest(Species ~ ., iris, n_tree = 5, seed = 1)$forest)
})

test_that("predict() takes na_action, as the message about missing values says", {
  fit <- ccforest(Species ~ ., iris, n_tree = 10, seed = 1, na_action = "fail")
  new <- iris[1:5, ]
  new$Sepal.Width[2] <- NA
  expect_error(predict(fit, new),
               "`new_data` has missing values in column\\(s\\) `Sepal.Width`; impute them with na_action = \"impute_random\" or \"impute_mean\" \\(an argument of ccforest\\(\\) and of predict\\(\\)\\)")
  random <- predict(fit, new, na_action = "impute_random", type = "prob")
  expect_false(anyNA(random))
  expect_identical(random[-2, ], predict(fit, new[-2, ], type = "prob"))
  mean_imputed <- predict(fit, new, na_action = "impute_mean")
  filled <- new
  filled$Sepal.Width[2] <- mean(iris$Sepal.Width)
  expect_identical(mean_imputed, predict(fit, filled))
  expect_error(predict(fit, new, na_action = "omit"),
               "`na_action` must be one of \"impute_random\", \"impute_mean\", \"fail\", not \"omit\"")
})

test_that("a matrix output gives one named output per column", {
  d <- mtcars[1:6]
  d$m <- cbind(mtcars$qsec, mtcars$drat)
  fit <- ccforest(m ~ cyl + disp, d, n_tree = 5, seed = 1)
  expect_identical(fit$response$names, c("m1", "m2"))
  named <- d
  named$m <- cbind(q = mtcars$qsec, r = mtcars$drat)
  expect_identical(ccforest(cbind(mpg, m) ~ cyl + disp, named, n_tree = 5, seed = 1)$response$names,
                   c("mpg", "q", "r"))
  expect_named(predict(fit, d[1:3, ]), c("m1", "m2"))
})

test_that("a transformed formula keeps what prediction needs, not its caller's frame", {
  fit_inside <- function() {
    big <- rnorm(2e6)
    offset <- 1
    square <- function(v) v^2 + offset
    ccforest(mpg ~ square(wt) + log(hp), mtcars, n_tree = 5, seed = 1)
  }
  fit <- fit_inside()
  expect_lt(length(serialize(fit, NULL)), 1e5)
  expect_setequal(ls(fit$formula$env), c("square", "offset"))
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(fit, path)
  expect_identical(predict(readRDS(path), mtcars), predict(fit, mtcars))
  manual <- ccforest(data.frame(`square(wt)` = mtcars$wt^2 + 1, `log(hp)` = log(mtcars$hp),
                                check.names = FALSE), mtcars$mpg, n_tree = 5, seed = 1)
  expect_identical(manual$forest$trees, fit$forest$trees)
})

test_that("principal components of wide nodes come from the narrow side", {
  set.seed(4)
  n <- 30
  x <- matrix(rnorm(n * 400), n)
  y <- factor(x[, 1] > 0)
  fit <- ccforest(x, y, n_tree = 3, projection = "pca", mtry = 400, sampling = "projection",
                  seed = 1)
  # Fully grown trees fit their training rows; every split is oblique.
  expect_identical(predict(fit, x), y)
  info <- tree_info(fit, 1)
  expect_true(all(lengths(info$coefficients[!info$terminal]) > 1L))
})

test_that("the split hook reads each output's codes within its own classes", {
  # Two outputs whose codes overlap (0..2 and 0..1): 0.1.0 read them as one
  # range and could index past its counts.
  set.seed(5)
  n <- 40
  u <- rnorm(n)
  classes <- cbind(sample(0:2, n, TRUE), as.integer(u > 0))
  out <- ccforest:::ccf_split_cpp(u, classes, matrix(0, n, 0), c(3L, 2L), 0L, 1L, 1)
  expect_true(out$found)
  left <- u <= out$threshold
  expect_identical(sum(left), out$n_left)
  expect_error(ccforest:::ccf_split_cpp(u, classes, matrix(0, n, 0), c(2L, 2L), 0L, 1L, 1),
               "`classes` must lie in \\[0, n_class\\) in each column")
  expect_error(ccforest:::ccf_split_cpp(u, classes, matrix(0, n, 0), 3L, 0L, 1L, 1),
               "`n_class` must give the number of classes of each column of `classes`")
})

test_that("the decoded forest kept between predictions changes no result", {
  set.seed(11)
  d <- make_spiral(400)
  fit <- ccforest(class ~ ., d, n_tree = 20, seed = 1)
  # The fit decodes its trees for the first prediction; a copy read back from
  # disk has other addresses and is decoded afresh; both must agree, in any
  # order, with subsets of trees in between.
  first <- predict(fit, d, type = "prob")
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(fit, path)
  back <- readRDS(path)
  expect_identical(predict(back, d, type = "prob"), first)
  expect_identical(predict(fit, d, type = "prob", n_tree = 7),
                   predict(back, d, type = "prob", n_tree = 7))
  expect_identical(predict(fit, d, type = "prob"), first)
  # Another forest with the same shape does not reuse the first one's trees.
  other <- ccforest(class ~ ., d, n_tree = 20, seed = 2)
  expect_false(identical(predict(other, d, type = "prob"), first))
  expect_identical(predict(fit, d, type = "prob"), first)
  # Damaged bytes are noticed even right after predicting with the original.
  damaged <- fit
  damaged$forest$trees[[3]] <- damaged$forest$trees[[3]][-length(damaged$forest$trees[[3]])]
  expect_error(predict(damaged, d), "`object` is damaged")
  expect_identical(predict(fit, d, type = "prob"), first)
})
