# print() and summary() show what was fitted. The figures are checked
# against the fitted object and the options given, not against snapshots.

test_that("print() shows the task, trees, mtry, sampling and training time", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 7, mtry = 2, seed = 1)
  expect_output(print(fit), "Canonical correlation forest")
  expect_output(print(fit), "Task:\\s+classification, 3 classes")
  expect_output(print(fit), "Trees:\\s+7\\b")
  expect_output(print(fit), "mtry:\\s+2 of 4 features")
  expect_output(print(fit), "Sampling:\\s+projection bootstrap")
  expect_output(print(fit), "Split rule:\\s+entropy")
  expect_output(print(fit), "Rows:\\s+150\\b")
  expect_output(print(fit), "Training time:\\s+[0-9.]+ (ms|s)")
  expect_output(print(fit), "Call:\\s+ccforest\\(formula = Species ~ \\.")
  utils::capture.output(shown <- withVisible(print(fit)))
  expect_false(shown$visible)
  expect_identical(shown$value, fit)
})

test_that("print() reports regression, bagging and several outputs", {
  reg <- ccforest(mpg ~ ., data = mtcars, n_tree = 3, sampling = "bagging", seed = 1)
  expect_output(print(reg), "Task:\\s+regression")
  expect_output(print(reg), "Trees:\\s+3\\b")
  expect_output(print(reg), "mtry:\\s+5 of 10 features")
  expect_output(print(reg), "Sampling:\\s+bagging")
  expect_output(print(reg), "Split rule:\\s+variance")
  multi <- ccforest(cbind(mpg, qsec) ~ ., data = mtcars, n_tree = 2, seed = 1)
  expect_output(print(multi), "multivariate regression, 2 outputs")
  df <- iris
  df$big <- factor(df$Sepal.Length > 6)
  mc <- ccforest(cbind(Species, big) ~ ., data = df, n_tree = 2, seed = 1)
  expect_output(print(mc), "multi-output classification, 2 outputs \\(3, 2 classes\\)")
  # Factors count as one feature but several encoded columns.
  expect_output(print(mc), "Features:\\s+4 \\(4 columns after encoding\\)")
  fac <- ccforest(Sepal.Length ~ ., data = iris, n_tree = 2, seed = 1)
  expect_output(print(fac), "Features:\\s+4 \\(6 columns after encoding\\)")
})

test_that("print() lists only the options beyond the paper that act on the fit", {
  beyond <- function(fit) {
    sub("^Beyond paper: +", "", grep("^Beyond paper:", utils::capture.output(print(fit)),
                                     value = TRUE))
  }
  # One numeric output, three classes or few columns: at most two directions,
  # and no factor with more than 32 levels.
  expect_identical(beyond(ccforest(mpg ~ ., mtcars, n_tree = 2, seed = 1)), "none")
  expect_identical(beyond(ccforest(Species ~ ., iris, n_tree = 2, seed = 1, direction_ratio = 0)),
                   "none")
  # Three classes: two canonical directions, the second searched only when
  # close to the first.
  expect_identical(beyond(ccforest(Species ~ ., iris, n_tree = 2, seed = 1)),
                   "direction_ratio = 0.9")
  expect_identical(beyond(ccforest(Species ~ ., iris, n_tree = 2, seed = 1, max_directions = 1)),
                   "max_directions = 1")
  set.seed(1)
  d <- data.frame(a = rnorm(200), b = rnorm(200), c = rnorm(200), e = rnorm(200),
                  y = factor(sample(letters[1:4], 200, TRUE)))
  # Four classes of noise: a node has three canonical directions, but the
  # second is never within 0.9 of the first, so the ratio, not the limit of
  # two, ends every search (the core counts which; see the next test).
  expect_identical(beyond(ccforest(y ~ ., d, n_tree = 2, seed = 1)), "direction_ratio = 0.9")
  expect_identical(beyond(ccforest(y ~ ., d, n_tree = 2, seed = 1, direction_ratio = 0)),
                   "max_directions = 2")
  expect_identical(beyond(ccforest(y ~ ., d, n_tree = 2, seed = 1, projection = "rotation")), "none")
  expect_identical(beyond(ccforest(y ~ a + b, d, n_tree = 2, seed = 1)), "direction_ratio = 0.9")
  # Principal components: as many as the sampled columns.
  expect_identical(beyond(ccforest(mpg ~ ., mtcars, n_tree = 2, seed = 1, projection = "pca")),
                   "max_directions = 2")
  # Several outputs, or output bins, give more canonical directions.
  expect_identical(beyond(ccforest(cbind(mpg, qsec, hp) ~ ., mtcars, n_tree = 2, seed = 1)),
                   "max_directions = 2")
  expect_identical(beyond(ccforest(mpg ~ ., mtcars, n_tree = 2, seed = 1, output_bins = 4)),
                   "max_directions = 2, output_bins = 4")
  d$f <- factor(sample(sprintf("L%02d", 1:40), 200, TRUE))
  expect_identical(beyond(ccforest(a ~ f + b, d, n_tree = 2, seed = 1)), "onehot_max_levels = 32")
  expect_output(print(summary(ccforest(a ~ f + b, d, n_tree = 2, seed = 1))),
                "Beyond paper: +onehot_max_levels = 32\n")
})

test_that("a limit print() leaves out did not act: without it the forest is the same", {
  set.seed(1)
  d <- data.frame(a = rnorm(200), b = rnorm(200), c = rnorm(200), e = rnorm(200),
                  y = factor(sample(letters[1:4], 200, TRUE)))
  paper_value <- list(max_directions = Inf, direction_ratio = 0, bootstrap_max_rows = Inf,
                      exact_split_max_rows = Inf)
  cases <- list(
    list(formula = mpg ~ ., data = mtcars, option = "max_directions", value = 2L),
    list(formula = y ~ ., data = d, option = "direction_ratio", value = 0.9),
    list(formula = Species ~ ., data = iris, option = "max_directions", value = 1L),
    list(formula = mpg ~ ., data = mtcars, option = "direction_ratio", value = 0.9),
    list(formula = Species ~ ., data = iris, option = "bootstrap_max_rows", value = 1024L),
    list(formula = Species ~ ., data = iris, option = "bootstrap_max_rows", value = 40L),
    list(formula = y ~ ., data = d, option = "exact_split_max_rows", value = 1024L),
    list(formula = y ~ ., data = d, option = "exact_split_max_rows", value = 50L)
  )
  acted <- logical(length(cases))
  for (i in seq_along(cases)) {
    case <- cases[[i]]
    grow <- function(value) {
      args <- list(case$formula, data = case$data, n_tree = 3, seed = 4)
      args[[case$option]] <- value
      do.call(ccforest, args)
    }
    fit <- grow(case$value)
    counts <- fit$forest$limits
    expect_named(counts, c("max_directions", "direction_ratio", "bootstrap_max_rows",
                           "exact_split_max_rows"))
    acted[[i]] <- counts[[case$option]] > 0
    shown <- grepl(case$option, beyond_paper_label(fit$options, acting_options(fit)), fixed = TRUE)
    expect_identical(shown, acted[[i]], label = paste(case$option, "shown"))
    if (!acted[[i]]) {
      expect_identical(fit$forest$trees, grow(paper_value[[case$option]])$forest$trees,
                       label = paste(case$option, "=", case$value, "on", i))
    }
  }
  # Each limit acts in some case above and not in another.
  expect_identical(acted, c(FALSE, TRUE, TRUE, FALSE, FALSE, TRUE, FALSE, TRUE))
})

test_that("a forest grown before the core counted its limits shows every limit it sets", {
  fit <- ccforest(Species ~ ., iris, n_tree = 2, seed = 1, direction_ratio = 0)
  expect_identical(beyond_paper_label(fit$options, acting_options(fit)), "none")
  old <- as_unsealed(fit)
  old$forest$limits <- NULL
  expect_identical(beyond_paper_label(old$options, acting_options(old)),
                   "max_directions = 2, bootstrap_max_rows = 1024, exact_split_max_rows = 1024")
  # Combined with such a forest, the counts are unknown, not those of one part.
  second <- ccforest(Species ~ ., iris, n_tree = 2, seed = 1, direction_ratio = 0, first_tree = 3)
  expect_null(combine_forests(old, as_unsealed(second))$forest$limits)
  both <- combine_forests(as_unsealed(fit), as_unsealed(second))
  expect_identical(both$forest$limits, fit$forest$limits + second$forest$limits)
})

test_that("the mean tree size printed matches the forest arrays", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 4, max_depth = 1, seed = 2)
  # Four stumps: two leaves and depth one each.
  expect_output(print(fit), "Mean tree size:\\s+2\\.0 leaves, depth 1\\.0")
})

test_that("summary() shows the options, the task and the training time", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 6, mtry = 3, min_leaf = 2,
                  max_depth = 4, split_rule = "gini", seed = 123)
  s <- summary(fit)
  expect_s3_class(s, "summary.ccforest")
  expect_identical(s$n_tree, 6L)
  # Leaves and depth per tree, from tree_info().
  leaves <- vapply(1:6, function(t) sum(tree_info(fit, t)$terminal), integer(1))
  depth <- vapply(1:6, function(t) max(node_depths(tree_info(fit, t))), integer(1))
  expect_equal(s$leaves, leaves)
  expect_equal(s$depth, depth)
  expect_true(all(s$depth <= 4))
  expect_output(print(s), "classification, 3 classes")
  expect_output(print(s), "Outputs:\\s+Species")
  expect_output(print(s), "Trees:\\s+6\\b")
  expect_output(print(s), "mtry:\\s+3\\b")
  expect_output(print(s), "Sampling:\\s+projection bootstrap")
  expect_output(print(s), "Split rule:\\s+gini")
  expect_output(print(s), "min_split, min_leaf:\\s+2, 2")
  expect_output(print(s), "max_depth:\\s+4\\b")
  expect_output(print(s), "na_action:\\s+impute_random")
  expect_output(print(s), "Seed:\\s+123\\b")
  expect_output(print(s), sprintf("Leaves per tree:\\s+min %d,", min(leaves)))
  expect_output(print(s), "Training time:\\s+[0-9.]+ (ms|s)")
  expect_output(print(summary(fit)), "Canonical correlation forest: classification")
  reg <- ccforest(mpg ~ ., data = mtcars, n_tree = 2, seed = 1)
  expect_output(print(summary(reg)), "max_depth:\\s+unlimited")
  expect_output(print(summary(reg)), "Sampling:\\s+projection bootstrap")
})

test_that("a slow fit prints its time in seconds", {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 2, seed = 1)
  fit$train_time <- 12.345
  expect_output(print(fit), "Training time:\\s+12\\.35 s")
  expect_output(print(summary(fit)), "Training time:\\s+12\\.35 s")
  fit$train_time <- 0.25
  expect_output(print(fit), "Training time:\\s+250 ms")
})
