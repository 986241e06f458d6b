# The rows each tree is grown on: sampling, sample_fraction and replace.

sampling_data <- function(n, seed) {
  set.seed(seed)
  x1 <- rnorm(n)
  x2 <- rnorm(n)
  x3 <- rnorm(n)
  data.frame(x1, x2, x3, y = x1 + sin(2 * x2) + rnorm(n, sd = 0.3),
             cls = factor(ifelse(x1 + x2 + rnorm(n) > 1.2, "yes", "no"), c("no", "yes")))
}

# Tree t's rows (with repeats), read from the leaf samples quantile
# regression forests keep: the counts of rows per leaf, then the rows.
tree_rows <- function(fit, t) {
  n_leaf <- sum(tree_info(fit, t)$terminal)
  sample <- fit$quantile$samples[[t]]
  sample[-seq_len(n_leaf)] + 1L
}

test_that("the defaults are the explicit sample_fraction = 1, with replace = TRUE for bagging", {
  d <- sampling_data(120, 1)
  for (w in list(NULL, runif(120, 0.5, 2))) {
    proj <- ccforest(cls ~ x1 + x2 + x3, d, n_tree = 8, seed = 2, case_weights = w)
    expect_identical(proj$forest$trees,
                     ccforest(cls ~ x1 + x2 + x3, d, n_tree = 8, seed = 2, case_weights = w,
                              sample_fraction = 1, replace = FALSE)$forest$trees)
    expect_null(proj$oob_error)
    bag <- ccforest(y ~ x1 + x2 + x3, d, n_tree = 8, seed = 2, case_weights = w,
                    sampling = "bagging")
    explicit <- ccforest(y ~ x1 + x2 + x3, d, n_tree = 8, seed = 2, case_weights = w,
                         sampling = "bagging", sample_fraction = 1, replace = TRUE)
    expect_identical(bag$forest$trees, explicit$forest$trees)
    expect_identical(bag$predictions, explicit$predictions)
  }
  # ranger's default without replacement is 0.632 of the rows.
  expect_identical(
    ccforest(y ~ x1 + x2, d, n_tree = 3, seed = 1, sampling = "bagging", replace = FALSE)$forest,
    ccforest(y ~ x1 + x2, d, n_tree = 3, seed = 1, sampling = "bagging", replace = FALSE,
             sample_fraction = 0.632)$forest
  )
})

test_that("each tree is grown on round(sample_fraction x n) rows, drawn as `replace` says", {
  d <- sampling_data(200, 2)
  for (sampling in c("projection", "bagging")) {
    without <- ccforest(y ~ x1 + x2 + x3, d, n_tree = 6, seed = 3, sampling = sampling,
                        sample_fraction = 0.3, replace = FALSE, quantiles = TRUE)
    with <- ccforest(y ~ x1 + x2 + x3, d, n_tree = 6, seed = 3, sampling = sampling,
                     sample_fraction = 0.3, replace = TRUE, quantiles = TRUE)
    for (t in 1:6) {
      rows <- tree_rows(without, t)
      expect_length(rows, 60L)
      expect_false(anyDuplicated(rows) > 0)
      expect_length(tree_rows(with, t), 60L)
    }
    # Draws with replacement repeat rows (60 draws of 200: all distinct with
    # probability below 1e-4).
    expect_true(any(vapply(1:6, function(t) anyDuplicated(tree_rows(with, t)) > 0, logical(1))))
  }
  # Every row once is projection bootstrapping's default.
  every <- ccforest(y ~ x1 + x2 + x3, d, n_tree = 2, seed = 3, quantiles = TRUE)
  expect_identical(sort(tree_rows(every, 1)), 1:200)
  # Rows of weight 0 are never drawn, and sizes count the others.
  w <- rep(1, 200)
  w[1:100] <- 0
  half <- ccforest(y ~ x1 + x2 + x3, d, n_tree = 4, seed = 3, sample_fraction = 0.5,
                   case_weights = w, quantiles = TRUE)
  for (t in 1:4) {
    rows <- tree_rows(half, t)
    expect_length(rows, 50L)
    expect_true(all(rows > 100))
  }
})

test_that("weighted draws favour heavy rows, with and without replacement", {
  d <- sampling_data(200, 3)
  w <- rep(c(1, 4), each = 100)
  for (replace in c(TRUE, FALSE)) {
    fit <- ccforest(y ~ x1 + x2 + x3, d, n_tree = 40, seed = 4, case_weights = w,
                    sample_fraction = 0.25, replace = replace, quantiles = TRUE)
    counts <- tabulate(unlist(lapply(1:40, function(t) tree_rows(fit, t))), nbins = 200)
    light <- mean(counts[1:100])
    heavy <- mean(counts[101:200])
    if (replace) {
      # Expected 40 x 50 x 1/500 = 4 and 16 draws per row.
      expect_equal(c(light, heavy), c(4, 16), tolerance = 0.1)
    } else {
      # Successive draws without replacement: heavy rows are taken more often,
      # at most once per tree.
      expect_gt(heavy, 2.5 * light)
      expect_lte(max(counts), 40)
    }
  }
})

test_that("one sample_fraction per class fixes each tree's class counts", {
  d <- sampling_data(300, 4)
  n_yes <- sum(d$cls == "yes")
  # Single-leaf trees (min_split above the sample) hold their sample's shares.
  for (replace in c(TRUE, FALSE)) {
    fit <- ccforest(cls ~ x1 + x2 + x3, d, n_tree = 5, seed = 5, min_split = 300,
                    sample_fraction = c(yes = 0.1, no = 0.2), replace = replace)
    for (t in 1:5) {
      leaf <- tree_info(fit, t)
      expect_identical(nrow(leaf), 1L)
      expect_equal(leaf$prob.yes, 30 / 90, tolerance = 1e-6)
    }
  }
  # In the order of the levels, as ranger takes them; case weights act within
  # each class, and the tree on the sample is unweighted.
  by_order <- ccforest(cls ~ x1 + x2 + x3, d, n_tree = 3, seed = 5, min_split = 300,
                       sample_fraction = c(0.2, 0.1), case_weights = runif(300),
                       replace = TRUE)
  expect_equal(tree_info(by_order, 1)$prob.yes, 30 / 90, tolerance = 1e-6)
  expect_identical(by_order$options$sample_fraction, c(no = 0.2, yes = 0.1))
  # A balanced sample of an imbalanced output: out-of-bag predictions exist.
  balanced <- ccforest(cls ~ x1 + x2 + x3, d, n_tree = 30, seed = 6,
                       sample_fraction = c(no = n_yes / 300, yes = n_yes / 300), replace = TRUE)
  expect_false(is.null(balanced$oob_error))
  plain <- ccforest(cls ~ x1 + x2 + x3, d, n_tree = 30, seed = 6)
  expect_gt(mean(predict(balanced, d, type = "prob")[, "yes"]),
            mean(predict(plain, d, type = "prob")[, "yes"]) + 0.1)
})

test_that("trees grown on samples give out-of-bag predictions from the trees that left the row out", {
  d <- sampling_data(60, 5)
  fit <- ccforest(y ~ x1 + x2 + x3, d, n_tree = 3, seed = 7, sample_fraction = 0.5,
                  quantiles = TRUE)
  in_every <- Reduce(intersect, lapply(1:3, function(t) tree_rows(fit, t)))
  expect_identical(which(is.na(fit$predictions)), sort(in_every))
  expect_true(is.finite(fit$oob_error))
  # A row out of every tree's sample is predicted by the whole forest.
  out_all <- setdiff(1:60, unlist(lapply(1:3, function(t) tree_rows(fit, t))))
  expect_gt(length(out_all), 0L)
  expect_equal(fit$predictions[out_all], unname(predict(fit, d[out_all, ])))
  # Permutation importance at fit time needs those rows.
  perm <- ccforest(y ~ x1 + x2 + x3, d, n_tree = 10, seed = 7, sample_fraction = 0.6,
                   importance = "permutation")
  expect_setequal(names(perm$variable.importance), c("x1", "x2", "x3"))
  expect_error(ccforest(y ~ x1 + x2 + x3, d, n_tree = 2, importance = "permutation"),
               "needs out-of-bag rows, so trees grown on samples")
})

test_that("forests grown on samples do not depend on the number of threads", {
  d <- sampling_data(150, 6)
  grow <- function(n_thread) {
    ccforest(cls ~ x1 + x2 + x3, d, n_tree = 12, seed = 8, n_thread = n_thread,
             sample_fraction = c(no = 0.3, yes = 0.2), replace = FALSE,
             case_weights = seq(0.5, 2, length.out = 150))
  }
  one <- grow(1)
  expect_identical(one$forest$trees, grow(2)$forest$trees)
  expect_identical(one$predictions, grow(2)$predictions)
})

test_that("print() and summary() say how the rows were sampled", {
  d <- sampling_data(100, 7)
  expect_output(print(ccforest(y ~ x1 + x2 + x3, d, n_tree = 2, seed = 1)),
                "Sampling: +projection bootstrap\n")
  expect_output(print(ccforest(y ~ x1 + x2 + x3, d, n_tree = 2, seed = 1, sample_fraction = 0.5)),
                "projection bootstrap, each tree on 50% of the rows, without replacement")
  expect_output(print(ccforest(cls ~ x1 + x2 + x3, d, n_tree = 2, seed = 1, sampling = "bagging",
                               sample_fraction = c(no = 0.2, yes = 0.1))),
                "bagging, each tree on no 20%, yes 10% of the rows, with replacement")
  expect_output(print(summary(ccforest(y ~ x1 + x2 + x3, d, n_tree = 2, seed = 1,
                                       sampling = "bagging", replace = FALSE))),
                "bagging, each tree on 63.2% of the rows, without replacement")
})

test_that("bad sample_fraction and replace are refused with the argument and the value", {
  d <- sampling_data(50, 8)
  fit <- function(...) ccforest(cls ~ x1 + x2 + x3, d, n_tree = 2, seed = 1, ...)
  expect_error(fit(sample_fraction = 0), "`sample_fraction` must be a number in \\(0, 1\\], not 0.")
  expect_error(fit(sample_fraction = 1.5), "`sample_fraction` must be a number in \\(0, 1\\], not 1.5.")
  expect_error(fit(sample_fraction = "a"),
               "`sample_fraction` must be a number in \\(0, 1\\], or one per class, not a character")
  expect_error(fit(sample_fraction = NA_real_), "`sample_fraction` must be a number .* not NA.")
  expect_error(fit(sample_fraction = 0.001),
               "`sample_fraction = 0.001` draws no row: 0.001 of the 50 rows rounds to 0.")
  expect_error(fit(sample_fraction = c(0.1, 0.2, 0.3)),
               "`sample_fraction` has 3 values but the output has 2 classes \\(`no`, `yes`\\)")
  expect_error(fit(sample_fraction = c(no = 0.2, maybe = 0.1)),
               "`sample_fraction` names `maybe`, not classes of the output \\(`no`, `yes`\\).")
  expect_error(fit(sample_fraction = c(no = 0.2)),
               "`sample_fraction` has no value for class `yes`: give one per class")
  expect_error(fit(sample_fraction = c(no = 0.2, no = 0.1, yes = 0.1)),
               "`sample_fraction` names `no` more than once.")
  expect_error(fit(sample_fraction = c(no = 0.8, yes = 0.4)),
               "must be in \\[0, 1\\], the fractions of all rows drawn from each class, .*sum 1.2")
  expect_error(fit(sample_fraction = c(no = 0, yes = 0)), "sum to more than 0")
  n_yes <- sum(d$cls == "yes")
  expect_error(fit(sample_fraction = c(no = 0.1, yes = 0.9)),
               sprintf(paste0("`sample_fraction` asks for 45 rows of class `yes` \\(0.9 of the ",
                              "50 rows\\) without replacement, but the class has %d. Use ",
                              "replace = TRUE"), n_yes))
  expect_error(fit(sample_fraction = c(no = 0.3, yes = 0.3), class_weights = c(yes = 2)),
               "`class_weights` and one `sample_fraction` per class both set the classes' shares")
  expect_error(fit(sample_fraction = c(no = 0.3, yes = 0.3), replace = TRUE,
                   case_weights = ifelse(d$cls == "yes", 0, 1)),
               "`sample_fraction` draws rows of class `yes`, which has no row of positive weight.")
  expect_error(ccforest(y ~ x1 + x2, d, sample_fraction = c(0.2, 0.3)),
               "One `sample_fraction` per class is for classification with one output")
  expect_error(fit(replace = "yes"), "`replace` must be TRUE or FALSE, not a character vector")
  expect_error(fit(replace = NA), "`replace` must be TRUE or FALSE, not NA.")
})
