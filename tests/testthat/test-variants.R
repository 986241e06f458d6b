# The paper's variants as options of one code base: projection modes and
# bagging with out-of-bag estimates.

spiral_data <- function(n, seed) {
  withr::with_seed(seed, {
    k <- sample(3L, n, replace = TRUE)
    t <- stats::runif(n, 0.1, 1)
    angle <- 3 * pi * t + 2 * pi * k / 3
    data.frame(
      x1 = t * cos(angle) + stats::rnorm(n, sd = 0.02),
      x2 = t * sin(angle) + stats::rnorm(n, sd = 0.02),
      x3 = stats::rnorm(n),
      y = factor(k)
    )
  })
}

test_that("every projection mode fits and predicts, with and without bagging", {
  train <- spiral_data(600, 1)
  test <- spiral_data(400, 2)
  for (projection in c("cca", "rotation", "pca", "axis")) {
    for (sampling in c("projection", "bagging")) {
      fit <- ccforest(y ~ ., data = train, n_tree = 30, projection = projection,
                      sampling = sampling, seed = 3)
      expect_identical(fit$options$projection, projection)
      pred <- predict(fit, test)
      expect_s3_class(pred, "factor")
      expect_length(pred, nrow(test))
      # Every mode learns the spiral far better than chance (2/3 error).
      expect_lt(mean(pred != test$y), 0.25, label = paste(projection, sampling))
    }
  }
})

# The coefficients of every split of every tree, from tree_info().
split_coefficients <- function(fit) {
  unlist(lapply(seq_len(n_trees_of(fit)), function(t) {
    info <- tree_info(fit, t)
    info$coefficients[!info$terminal]
  }), recursive = FALSE)
}

test_that("axis mode splits on one feature at a time", {
  fit <- ccforest(y ~ ., data = spiral_data(300, 4), n_tree = 10, projection = "axis", seed = 5)
  coefs <- split_coefficients(fit)
  expect_gt(length(coefs), 10L)
  expect_true(all(lengths(coefs) == 1L))
  # A lone coefficient is the largest, so exactly 1.
  expect_true(all(unlist(coefs) == 1))
})

test_that("oblique modes use several features per split, the largest coefficient 1", {
  d <- spiral_data(300, 6)
  for (projection in c("cca", "rotation", "pca")) {
    coefs <- split_coefficients(ccforest(y ~ ., data = d, n_tree = 10, projection = projection,
                                         mtry = 3, seed = 7))
    expect_gt(length(coefs), 10L)
    expect_true(mean(lengths(coefs) > 1L) > 0.5, label = projection)
    # Directions are scaled so that the largest coefficient is exactly +1.
    largest <- vapply(coefs, function(a) max(abs(a)), numeric(1))
    expect_identical(largest, rep(1, length(coefs)), label = projection)
    expect_true(all(vapply(coefs, function(a) 1 %in% a, logical(1))), label = projection)
    # Most splits keep 16-bit codes: at most 11 significant bits, and not
    # below 2^-31 in size; the others were stored more precisely because
    # rounding would have moved their projections (see test-precision.R).
    short <- vapply(coefs, function(a) {
      a <- abs(a)
      mantissa <- a * 2^(10 - floor(log2(a)))
      all(a >= 2^-31) && identical(mantissa, round(mantissa))
    }, logical(1))
    expect_gt(mean(short), 0.8, label = projection)
  }
})

test_that("random rotations are orthonormal and uniformly distributed", {
  q <- ccforest:::ccf_rotation_cpp(5L, 1, 2)
  expect_equal(crossprod(q), diag(5), tolerance = 1e-12)
  expect_equal(tcrossprod(q), diag(5), tolerance = 1e-12)
  # Under the Haar measure in 2-D, the rotation angle of the first column is
  # uniform on (-pi, pi]: compare its distribution with the uniform one.
  angles <- vapply(seq_len(2000), function(i) {
    q <- ccforest:::ccf_rotation_cpp(2L, 3, i)
    atan2(q[2, 1], q[1, 1])
  }, numeric(1))
  expect_gt(suppressWarnings(stats::ks.test(angles, "punif", -pi, pi))$p.value, 0.001)
  # In 4-D each entry of a column has mean 0 and mean square 1/4.
  first <- t(vapply(seq_len(2000), function(i) ccforest:::ccf_rotation_cpp(4L, 5, i)[, 1],
                    numeric(4)))
  expect_equal(colMeans(first^2), rep(0.25, 4), tolerance = 0.08)
  expect_true(all(abs(colMeans(first)) < 0.06))
})

test_that("the out-of-bag error of a bagged forest is close to its held-out error", {
  train <- spiral_data(1500, 10)
  test <- spiral_data(3000, 11)
  for (projection in c("cca", "axis")) {
    fit <- ccforest(y ~ ., data = train, n_tree = 100, sampling = "bagging",
                    projection = projection, seed = 12)
    held_out <- mean(predict(fit, test) != test$y)
    expect_true(is.numeric(fit$oob_error) && length(fit$oob_error) == 1L)
    expect_lt(abs(fit$oob_error - held_out), 0.03, label = projection)
    expect_length(fit$predictions, nrow(train))
  }
  reg <- ccforest(mpg ~ ., data = mtcars, n_tree = 100, sampling = "bagging", seed = 13)
  oob_mse <- mean((reg$predictions - mtcars$mpg)^2, na.rm = TRUE)
  expect_equal(reg$oob_error, oob_mse)
  expect_output(print(reg), "OOB error")
})

test_that("projection-bootstrapped forests have no out-of-bag estimate", {
  fit <- ccforest(y ~ ., data = spiral_data(200, 14), n_tree = 5, seed = 15)
  expect_null(fit$oob_error)
  expect_null(fit$predictions)
})

test_that("an unknown projection mode is refused, naming the value", {
  expect_error(ccforest(y ~ ., data = spiral_data(50, 16), projection = "random"),
               "`projection`.*\"random\"")
})

test_that("max_directions limits the canonical directions searched, and only those", {
  set.seed(8)
  d <- make_spiral(600, n_class = 4L)
  # Four features and four classes: up to three canonical directions.
  d$x3 <- d$x1 + rnorm(600, sd = 0.1)
  d$x4 <- rnorm(600)
  all <- ccforest(class ~ ., d, n_tree = 5, seed = 1, max_directions = Inf)
  one <- ccforest(class ~ ., d, n_tree = 5, seed = 1, max_directions = 1)
  expect_false(identical(all$forest$trees, one$forest$trees))
  expect_identical(one$options$max_directions, 1L)
  expect_identical(all$options$max_directions, 0L)
  # The default searches two; as many as there are directions (3 for 4
  # classes) is the same as all.
  expect_identical(ccforest(class ~ ., d, n_tree = 5, seed = 1)$forest$trees,
                   ccforest(class ~ ., d, n_tree = 5, seed = 1, max_directions = 2,
                            direction_ratio = 0.9)$forest$trees)
  expect_false(identical(
    ccforest(class ~ ., d, n_tree = 5, seed = 1, direction_ratio = 0)$forest$trees,
    ccforest(class ~ ., d, n_tree = 5, seed = 1, direction_ratio = 0, max_directions = Inf)$forest$trees))
  expect_identical(ccforest(class ~ ., d, n_tree = 5, seed = 1, max_directions = 3)$forest$trees,
                   all$forest$trees)
  # Rotations and axes have no ranking of directions: no effect.
  for (projection in c("rotation", "axis")) {
    expect_identical(
      ccforest(class ~ ., d, n_tree = 3, seed = 1, projection = projection, max_directions = 1)$forest$trees,
      ccforest(class ~ ., d, n_tree = 3, seed = 1, projection = projection)$forest$trees
    )
  }
  expect_gt(mean(predict(one, d) == d$class), 0.95)
  expect_error(ccforest(class ~ ., d, max_directions = 0),
               "`max_directions` must be a single whole number >= 1, not 0.")
  expect_error(ccforest(class ~ ., d, max_directions = NULL),
               "`max_directions` must be a single whole number >= 1, not NULL.")
})

test_that("direction_ratio searches a weaker direction only when its correlation is close", {
  # Three classes in two features: two canonical directions. The first
  # separates the small class a; the second, weaker, separates b from c,
  # which gives the better single cut.
  set.seed(1)
  n <- 400
  y <- factor(sample(c("a", "b", "c"), n, TRUE, prob = c(0.1, 0.45, 0.45)))
  centre <- rbind(a = c(6, 0), b = c(0, -1.5), c = c(0, 1.5))
  x <- centre[as.integer(y), ] + matrix(rnorm(2 * n), n)
  d <- data.frame(x1 = x[, 1], x2 = x[, 2], y = y)
  # A stump grown on every row (no bootstrap) with both features sees the
  # whole data's canonical correlations, as stats::cancor() finds them.
  rho <- stats::cancor(x, stats::model.matrix(~ y - 1)[, -1])$cor
  ratio <- rho[2] / rho[1]
  expect_gt(ratio, 0.85)
  expect_lt(ratio, 0.9)
  stump <- function(...) {
    ccforest(y ~ ., d, n_tree = 1, seed = 1, max_depth = 1, mtry = 2, sampling = "bagging",
             sample_fraction = 1, replace = FALSE, ...)$forest$trees
  }
  first <- stump(max_directions = 1)
  both <- stump(direction_ratio = 0)
  expect_false(identical(first, both))
  expect_identical(stump(direction_ratio = ratio + 0.001), first)
  expect_identical(stump(direction_ratio = ratio - 0.001), both)
  expect_identical(stump(), first)  # the default 0.9 is above the ratio
  # The cut of `both` is along the second canonical direction: mostly x2.
  info <- tree_info(ccforest(y ~ ., d, n_tree = 1, seed = 1, max_depth = 1, mtry = 2,
                             sampling = "bagging", sample_fraction = 1, replace = FALSE,
                             direction_ratio = 0), 1)
  expect_gt(abs(info$coefficients[[1]][2]), abs(info$coefficients[[1]][1]))

  # One canonical direction (two classes, one numeric output): no effect.
  two <- d[d$y != "a", ]
  two$y <- droplevels(two$y)
  expect_identical(ccforest(y ~ ., two, n_tree = 3, seed = 2, direction_ratio = 0)$forest$trees,
                   ccforest(y ~ ., two, n_tree = 3, seed = 2, direction_ratio = 1)$forest$trees)
  expect_identical(ccforest(mpg ~ ., mtcars, n_tree = 3, seed = 2, direction_ratio = 0)$forest$trees,
                   ccforest(mpg ~ ., mtcars, n_tree = 3, seed = 2)$forest$trees)
  # Regression and survival keep every direction: output bins are there for
  # the weaker ones, and a survival node's periods may differ.
  expect_identical(
    ccforest(mpg ~ ., mtcars, n_tree = 3, seed = 2, output_bins = 4, direction_ratio = 0)$forest$trees,
    ccforest(mpg ~ ., mtcars, n_tree = 3, seed = 2, output_bins = 4)$forest$trees)
  expect_identical(
    ccforest(cbind(mpg, qsec, hp) ~ ., mtcars, n_tree = 3, seed = 2, direction_ratio = 0)$forest$trees,
    ccforest(cbind(mpg, qsec, hp) ~ ., mtcars, n_tree = 3, seed = 2)$forest$trees)
  s <- data.frame(x1 = x[, 1], x2 = x[, 2], time = stats::rexp(n, exp(x[, 1] / 3)),
                  status = stats::rbinom(n, 1, 0.7))
  expect_identical(
    ccforest(survival::Surv(time, status) ~ ., s, n_tree = 2, seed = 2, direction_ratio = 0)$forest$trees,
    ccforest(survival::Surv(time, status) ~ ., s, n_tree = 2, seed = 2)$forest$trees)
  # Principal components carry no canonical correlation: no effect.
  expect_identical(
    ccforest(y ~ ., d, n_tree = 3, seed = 2, projection = "pca", direction_ratio = 0)$forest$trees,
    ccforest(y ~ ., d, n_tree = 3, seed = 2, projection = "pca")$forest$trees)
  expect_identical(ccforest(y ~ ., d, n_tree = 1, seed = 1)$options$direction_ratio, 0.9)

  for (bad in list(-0.1, 1.5, NA, NULL, "a", c(0.5, 0.6), Inf)) {
    expect_error(ccforest(y ~ ., d, direction_ratio = bad),
                 "`direction_ratio` must be a single finite number between 0 and 1, not ")
  }
  expect_error(ccforest(y ~ ., d, direction_ratio = 2),
               "`direction_ratio` must be a single finite number between 0 and 1, not 2.", fixed = TRUE)
  expect_error(ccforest(y ~ ., d, variant = "paper", direction_ratio = 0.5),
               paste0("`variant = \"paper\"` grows the paper's forest, which ",
                      "`direction_ratio = 0.5` departs from: drop `direction_ratio`, or use ",
                      "`variant = \"ccforest\"`."), fixed = TRUE)
  expect_identical(ccforest(y ~ ., d, n_tree = 1, seed = 1, variant = "paper",
                            direction_ratio = 0)$options$direction_ratio, 0)
  expect_identical(ccforest(y ~ ., d, n_tree = 1, seed = 1, variant = "paper",
                            direction_ratio = 0L)$options$direction_ratio, 0)
  expect_error(ccforest(y ~ ., d, variant = "paper", direction_ratio = NA),
               "`direction_ratio = NA` departs from", fixed = TRUE)
})

test_that("output_bins runs the CCA against the output's quantile bins", {
  set.seed(9)
  n <- 400
  x <- matrix(rnorm(n * 3), n)
  # A U-shaped relation: the least-squares direction sees nothing of x1.
  y <- x[, 1]^2 + 0.1 * rnorm(n)
  d <- data.frame(x, y)
  paper <- ccforest(y ~ ., d, n_tree = 60, seed = 1)
  binned <- ccforest(y ~ ., d, n_tree = 60, seed = 1, output_bins = 4)
  expect_identical(binned$options$output_bins, 4L)
  expect_false(identical(paper$forest$trees, binned$forest$trees))
  test <- data.frame(matrix(rnorm(2000 * 3), 2000))
  truth <- test$X1^2
  rmse <- function(fit) sqrt(mean((predict(fit, test) - truth)^2))
  expect_lt(rmse(binned), rmse(paper))
  # With one bin per row there is no more than the output itself to see;
  # the option is checked and is for one numeric output only.
  expect_error(ccforest(y ~ ., d, output_bins = 1),
               "`output_bins` must be a single whole number >= 2, not 1.")
  expect_error(ccforest(Species ~ ., iris, output_bins = 4),
               "`output_bins` is for regression with one numeric output.")
})

test_that("axis_candidates adds the sampled features' axes to the search", {
  set.seed(10)
  n <- 500
  d <- data.frame(a = runif(n), b = runif(n), c = runif(n))
  # A step in one feature: an axis split is exact, an oblique one is not.
  d$y <- factor(ifelse(d$a > 0.5, "hi", "lo"))
  hybrid <- ccforest(y ~ ., d, n_tree = 5, seed = 1, axis_candidates = TRUE, max_depth = 1,
                     mtry = 3, sampling = "projection")
  info <- tree_info(hybrid, 1)
  expect_identical(unname(lengths(info$coefficients[!info$terminal])), 1L)
  expect_identical(info$columns[[1]], "a")
  expect_identical(hybrid$options$axis_candidates, "search")
  searched <- ccforest(y ~ ., d, n_tree = 3, seed = 1, axis_candidates = "search")
  expect_identical(searched$forest$trees,
                   ccforest(y ~ ., d, n_tree = 3, seed = 1, axis_candidates = TRUE)$forest$trees)
  expect_error(ccforest(y ~ ., d, axis_candidates = NA),
               "`axis_candidates` must be one of \"none\", \"random\", \"search\", not NA.",
               fixed = TRUE)
  expect_error(ccforest(y ~ ., d, axis_candidates = "all"),
               "`axis_candidates` must be one of \"none\", \"random\", \"search\", not \"all\".",
               fixed = TRUE)
  # max_directions limits the canonical directions, never the axes.
  few <- ccforest(y ~ ., d, n_tree = 3, seed = 1, axis_candidates = TRUE, max_directions = 1)
  expect_s3_class(few, "ccforest")
})

test_that("axis_candidates chooses no axes, randomly cut axes or searched ones", {
  mode_of <- function(...) ccforest(..., n_tree = 2, seed = 1)$options$axis_candidates
  expect_identical(mode_of(mpg ~ ., mtcars), "none")
  expect_identical(mode_of(mpg ~ ., mtcars, axis_candidates = FALSE), "none")
  expect_identical(mode_of(mpg ~ ., mtcars, axis_candidates = TRUE), "search")
  expect_identical(mode_of(Species ~ ., iris, axis_candidates = "random"), "random")
  expect_identical(mode_of(cbind(mpg, qsec) ~ ., mtcars, axis_candidates = "random"), "random")
  # Fits saved before the modes stored a flag, and earlier ones nothing.
  searched <- ccforest(mpg ~ ., mtcars, n_tree = 3, seed = 1, axis_candidates = "search")
  legacy <- as_unsealed(searched)
  legacy$options$axis_candidates <- TRUE
  expect_output(print(legacy), "axis_candidates = \"search\"")
  legacy$options$axis_candidates <- NULL
  expect_identical(ccforest:::axis_mode(legacy$options$axis_candidates), "none")
  expect_identical(ccforest:::axis_mode(FALSE), "none")
  trees_of <- function(...) ccforest(mpg ~ ., mtcars, n_tree = 20, seed = 3, ...)$forest$trees
  default <- trees_of()
  random <- trees_of(axis_candidates = "random")
  expect_identical(trees_of(axis_candidates = "none"), default)
  expect_false(identical(random, default))
  expect_false(identical(random, trees_of(axis_candidates = "search")))
  # The cuts are drawn from each tree's own stream: threads do not change them.
  expect_identical(trees_of(axis_candidates = "random", n_thread = 1),
                   trees_of(axis_candidates = "random", n_thread = 2))
  # Case weights weight the random cuts' impurities too.
  weighted <- ccforest(Species ~ ., iris, n_tree = 20, seed = 1, axis_candidates = "random",
                       case_weights = rep(c(1, 2, 3), 50))
  expect_gt(mean(predict(weighted, iris) == iris$Species), 0.9)
  # (No factor here, and one output: the other options beyond the paper do
  # not act, and are not listed.)
  expect_output(print(ccforest(mpg ~ ., mtcars, n_tree = 3, seed = 1, axis_candidates = "random")),
                "Beyond paper: +axis_candidates = \"random\"\n")
})

test_that("random axes cut anywhere in the range, and help where single features matter", {
  set.seed(12)
  make <- function(n) {
    x <- matrix(runif(n * 10), n, 10, dimnames = list(NULL, paste0("x", 1:10)))
    # Friedman 1: a product, a parabola and two linear terms in five of ten features.
    y <- 10 * sin(pi * x[, 1] * x[, 2]) + 20 * (x[, 3] - 0.5)^2 + 10 * x[, 4] + 5 * x[, 5]
    data.frame(x, y = y + rnorm(n))
  }
  train <- make(400)
  test <- make(400)
  mse <- function(mode) {
    fit <- ccforest(y ~ ., train, n_tree = 100, seed = 4, axis_candidates = mode)
    mean((predict(fit, test) - test$y)^2)
  }
  # bench/results/regression-options.md: random axes lower Friedman 1's error by about a tenth.
  expect_lt(mse("random"), 0.97 * mse("none"))
  # Stumps on an output that is high in both tails of `a`: the canonical
  # direction sees no linear trend, so the roots cut `a`, a searched axis at
  # its best point in every tree, a random one anywhere inside its range.
  n <- 400
  d <- data.frame(a = runif(n), b = runif(n), c = runif(n))
  d$y <- 4 * (abs(d$a - 0.5) > 0.25) + rnorm(n, sd = 0.1)
  root_cuts <- function(mode) {
    stumps <- ccforest(y ~ ., d, n_tree = 50, seed = 5, max_depth = 1, mtry = 3,
                       sampling = "projection", axis_candidates = mode)
    roots <- do.call(rbind, lapply(1:50, function(t) tree_info(stumps, t)[1, ]))
    roots$threshold[vapply(roots$columns, identical, logical(1), "a")]
  }
  searched <- root_cuts("search")
  random <- root_cuts("random")
  expect_length(searched, 50L)
  expect_lte(length(unique(searched)), 2L)
  expect_gt(length(random), 25L)
  expect_gt(length(unique(random)), 20L)
  z <- (d$a - mean(d$a)) / sd(d$a)
  expect_true(all(random > min(z) & random < max(z)))
})

test_that("variant = \"paper\" is the paper's forest: all directions, every factor one-hot", {
  set.seed(11)
  d <- make_spiral(400, n_class = 4L)
  d$x3 <- d$x1 + rnorm(400, sd = 0.1)
  # 40 levels: above onehot_max_levels' default, so the default values them.
  d$f <- factor(sample(sprintf("l%02d", 1:40), 400, replace = TRUE))
  paper <- ccforest(class ~ ., d, n_tree = 5, seed = 1, variant = "paper")
  explicit <- ccforest(class ~ ., d, n_tree = 5, seed = 1, max_directions = Inf,
                       direction_ratio = 0, onehot_max_levels = Inf)
  default <- ccforest(class ~ ., d, n_tree = 5, seed = 1)
  # The same options, but the authors' rules for the details (midpoint
  # thresholds, ties, tolerances, double-precision directions; see
  # test-paper-rules.R).
  expect_false(identical(paper$forest$trees, explicit$forest$trees))
  expect_false(identical(paper$forest$trees, default$forest$trees))
  expect_identical(paper$options$variant, "paper")
  expect_identical(default$options$variant, "ccforest")
  expect_identical(paper$options$max_directions, 0L)
  expect_identical(paper$options$onehot_max_levels, Inf)
  # The factor is 40 indicator columns in the paper's encoding, otherwise one
  # column per principal axis of its levels' shares of the 4 classes.
  expect_identical(length(paper$blueprint$column_names), 3L + 40L)
  expect_identical(length(default$blueprint$column_names), 3L + 3L)
  # Giving the paper's own values explicitly is allowed; the other variants
  # of the paper (here the random rotation forest) combine with it.
  expect_identical(
    ccforest(class ~ ., d, n_tree = 5, seed = 1, variant = "paper", max_directions = Inf,
             onehot_max_levels = Inf)$forest$trees,
    paper$forest$trees)
  rrf <- ccforest(class ~ ., d, n_tree = 3, seed = 1, variant = "paper", projection = "rotation")
  expect_identical(rrf$options$projection, "rotation")
  # print() says which options depart from the paper.
  expect_output(print(paper), "Beyond paper:\\s+none \\(variant = \"paper\"\\)")
  expect_output(print(explicit), "Beyond paper:\\s+none\n")
  expect_output(print(default),
                "Beyond paper:\\s+max_directions = 2, direction_ratio = 0.9, onehot_max_levels = 32")
  reg <- ccforest(mpg ~ ., mtcars, n_tree = 3, seed = 1, axis_candidates = TRUE, output_bins = 3)
  expect_output(print(reg), "output_bins = 3, axis_candidates = \"search\"")
  # update() switches a fit to the paper's variant.
  expect_identical(update(default, variant = "paper")$forest$trees, paper$forest$trees)
})

test_that("variant = \"paper\" refuses the options that depart from the paper", {
  d <- spiral_data(60, 17)
  expect_error(ccforest(y ~ ., d, variant = "paper", max_directions = 2),
               paste0("`variant = \"paper\"` grows the paper's forest, which `max_directions = 2` ",
                      "departs from: drop `max_directions`, or use `variant = \"ccforest\"`."),
               fixed = TRUE)
  expect_error(ccforest(y ~ ., d, variant = "paper", onehot_max_levels = 32),
               "`onehot_max_levels = 32` departs from", fixed = TRUE)
  expect_error(ccforest(y ~ ., d, variant = "paper", axis_candidates = TRUE),
               "`axis_candidates = TRUE` departs from", fixed = TRUE)
  expect_error(ccforest(y ~ ., d, variant = "paper", axis_candidates = "random"),
               "`axis_candidates = \"random\"` departs from", fixed = TRUE)
  expect_identical(ccforest(mpg ~ ., mtcars, n_tree = 2, seed = 1, variant = "paper",
                            axis_candidates = "none")$options$axis_candidates, "none")
  expect_error(ccforest(mpg ~ ., mtcars, variant = "paper", output_bins = 4),
               "`output_bins = 4` departs from", fixed = TRUE)
  expect_error(ccforest(y ~ ., d, variant = "paper", axis_candidates = NA),
               "`axis_candidates` must be one of \"none\", \"random\", \"search\", not NA.",
               fixed = TRUE)
  expect_error(ccforest(y ~ ., d, variant = "Paper"),
               "`variant` must be one of \"ccforest\", \"paper\", not \"Paper\".", fixed = TRUE)
  expect_error(ccforest(y ~ ., d, variant = NA),
               "`variant` must be one of \"ccforest\", \"paper\", not NA.", fixed = TRUE)
})

test_that("variant = \"paper\" refuses a factor of thousands of levels unless told", {
  # One-hot, every canonical correlation analysis that samples the factor
  # works on all its columns: minutes a tree for thousands of levels (0.2.0
  # took 145 s of CPU for 5 trees of a 2,000-level factor, without a word).
  set.seed(1)
  levels <- sprintf("L%04d", 1:1001)
  d <- data.frame(f = factor(sample(levels, 1200, TRUE), levels = levels), x = rnorm(1200))
  d$y <- factor(sample(c("a", "b"), 1200, TRUE))
  expect_error(ccforest(y ~ ., d, n_tree = 1, variant = "paper"), paste0(
    "`variant = \"paper\"` expands every factor to indicator columns, and `f` has 1,001 ",
    "levels: every canonical correlation analysis that samples it would work on 1,001 ",
    "columns, which takes minutes a tree."), fixed = TRUE)
  # Characters become factors too: their values are the levels.
  chr <- transform(d, f = as.character(f))
  chr$f[seq_along(levels)] <- levels
  expect_error(ccforest(y ~ ., chr, n_tree = 1, variant = "paper"), "`f` has 1,001 levels")
  # Said explicitly, the paper's forest is grown.
  fit <- ccforest(y ~ ., d, n_tree = 1, max_depth = 1, variant = "paper",
                  onehot_max_levels = Inf, seed = 1)
  expect_identical(fit$blueprint$feature_type[[1]], "factor")
  # 1,000 levels or fewer: no question asked.
  few <- d[d$f %in% levels(d$f)[1:900], ]
  few$f <- droplevels(few$f)
  expect_s3_class(ccforest(y ~ ., few, n_tree = 1, max_depth = 1, variant = "paper", seed = 1),
                  "ccforest")
})
