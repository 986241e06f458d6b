# Ranges of trees (ccforest(first_tree = k)) and combine_forests(). Tree k
# depends only on (data, options, seed, k): a range holds exactly the trees of
# the whole fit with the same numbers, and ranges joined in tree order are
# the whole fit, importance included.

combine_data <- function() {
  d <- iris
  d$Sepal.Width[c(3, 60, 140)] <- NA
  d$Petal.Width[c(10, 100)] <- NA
  d
}

# Everything but the call and the training time.
fit_body <- function(f) unclass(f)[setdiff(names(f), c("call", "train_time", "cache"))]

test_that("a range of trees holds the whole fit's trees with the same numbers", {
  d <- combine_data()
  whole <- ccforest(Species ~ ., data = d, n_tree = 12, seed = 4)
  part <- ccforest(Species ~ ., data = d, n_tree = 5, seed = 4, first_tree = 6)
  expect_identical(part$forest$trees, whole$forest$trees[6:10])
  expect_identical(part$forest$first_tree, 6L)
  expect_identical(part$forest$data_hash, whole$forest$data_hash)
  # predict(n_tree = k) uses the range's first k trees, with their own
  # (global) numbers for random imputation: trees 6 to 8.
  expect_identical(
    predict(part, d, type = "prob", n_tree = 3),
    predict(ccforest(Species ~ ., data = d, n_tree = 3, seed = 4, first_tree = 6), d,
            type = "prob")
  )
  expect_output(print(part), "Trees: +5 \\(trees 6 to 10 of the forest with this seed\\)")
  expect_output(print(summary(part)), "Trees: +5 \\(trees 6 to 10 of the forest with this seed\\)")
  expect_output(print(whole), "Trees: +12\n")
})

test_that("ranges combined in any order are the whole forest, importance included", {
  d <- combine_data()
  whole <- ccforest(Species ~ ., data = d, n_tree = 20, seed = 9, importance = "projection")
  a <- ccforest(Species ~ ., data = d, n_tree = 8, seed = 9, importance = "projection")
  b <- ccforest(Species ~ ., data = d, n_tree = 5, seed = 9, importance = "projection",
                first_tree = 9)
  c <- ccforest(Species ~ ., data = d, n_tree = 7, seed = 9, importance = "projection",
                first_tree = 14)
  for (combined in list(combine_forests(a, b, c), combine_forests(c, a, b),
                        combine_forests(list(b, c, a)))) {
    expect_identical(fit_body(combined), fit_body(whole))
    expect_identical(combined$call, whole$call)
    expect_identical(predict(combined, d, type = "prob"), predict(whole, d, type = "prob"))
    expect_equal(combined$train_time, a$train_time + b$train_time + c$train_time)
  }
  # Regression, x/y interface, and ranges that do not start at tree 1.
  x <- mtcars[, -1]
  x$wt[c(2, 7)] <- NA
  whole <- ccforest(x, mtcars$mpg, n_tree = 10L, seed = 3, first_tree = 101)
  parts <- lapply(c(101, 104, 105), function(k) {
    ccforest(x, mtcars$mpg, n_tree = c(`101` = 3L, `104` = 1L, `105` = 6L)[[format(k)]],
             seed = 3, first_tree = k)
  })
  combined <- combine_forests(parts)
  expect_identical(combined$forest, whole$forest)
  expect_identical(predict(combined, x), predict(whole, x))
  # Random axes draw their cuts from each tree's own stream, so ranges still add up.
  whole <- ccforest(x, mtcars$mpg, n_tree = 10L, seed = 4, axis_candidates = "random")
  combined <- combine_forests(
    ccforest(x, mtcars$mpg, n_tree = 4L, seed = 4, axis_candidates = "random"),
    ccforest(x, mtcars$mpg, n_tree = 6L, seed = 4, axis_candidates = "random", first_tree = 5)
  )
  expect_identical(combined$forest, whole$forest)
  searched <- ccforest(x, mtcars$mpg, n_tree = 6L, seed = 4, axis_candidates = "search",
                       first_tree = 5)
  expect_error(combine_forests(whole, searched),
               "different options: axis_candidates (\"search\" and \"random\")", fixed = TRUE)
})

test_that("combining bagged forests drops what needs the training data, and says so", {
  d <- combine_data()
  a <- ccforest(Species ~ ., data = d, n_tree = 6, seed = 2, sampling = "bagging",
                importance = "permutation")
  b <- ccforest(Species ~ ., data = d, n_tree = 6, seed = 2, sampling = "bagging",
                importance = "permutation", first_tree = 7)
  expect_false(is.null(a$predictions))
  expect_message(
    combined <- combine_forests(a, b),
    paste0("The combined forest has no out-of-bag predictions, error or permutation importance: ",
           "they need the training data. To have them, grow the whole forest in one call ",
           "(backend = \"future\" spreads it over workers)."),
    fixed = TRUE
  )
  expect_null(combined$predictions)
  expect_null(combined$oob_error)
  expect_null(combined$variable.importance)
  whole <- ccforest(Species ~ ., data = d, n_tree = 12, seed = 2, sampling = "bagging",
                    importance = "permutation")
  expect_identical(combined$forest, whole$forest)
  expect_identical(predict(combined, d), predict(whole, d))
  expect_output(print(combined), "Trees: +12")
  c <- ccforest(Species ~ ., data = d, n_tree = 6, seed = 2, sampling = "bagging",
                first_tree = 7)
  expect_message(combine_forests(ccforest(Species ~ ., data = d, n_tree = 6, seed = 2,
                                          sampling = "bagging"), c),
                 "has no out-of-bag predictions or error:", fixed = TRUE)
  # One forest alone is returned as it is.
  expect_identical(fit_body(combine_forests(a)), fit_body(a))
})

test_that("forests that are not ranges of one forest are refused, naming them", {
  d <- combine_data()
  a <- ccforest(Species ~ ., data = d, n_tree = 4, seed = 1)
  b <- ccforest(Species ~ ., data = d, n_tree = 4, seed = 1, first_tree = 5)
  expect_error(combine_forests(a, ccforest(Species ~ ., data = d, n_tree = 4, seed = 2,
                                           first_tree = 5)),
               paste0("`ccforest(Species ~ ., data = d, n_tre...` and `a` have different ",
                      "seeds (2 and 1), so they are not ranges of one forest: grow every range ",
                      "with the same `seed`."), fixed = TRUE)
  other_mtry <- ccforest(Species ~ ., data = d, n_tree = 4, seed = 1, first_tree = 5, mtry = 2)
  expect_error(combine_forests(a, other_mtry),
               paste0("`other_mtry` and `a` were fitted with different options: mtry (2 and 3), ",
                      "so they are not ranges of one forest: grow every range with the same ",
                      "options."), fixed = TRUE)
  # The same columns, summaries and size, rows in another order: other data.
  shuffled <- d[c(2, 1, 3:150), ]
  other_rows <- ccforest(Species ~ ., data = shuffled, n_tree = 4, seed = 1, first_tree = 5)
  expect_identical(other_rows$blueprint, a$blueprint)
  expect_error(combine_forests(a, other_rows),
               paste0("`other_rows` and `a` were fitted on different data, so they are not ",
                      "ranges of one forest: grow every range from the same rows, in the same ",
                      "order."), fixed = TRUE)
  regression <- ccforest(Sepal.Length ~ ., data = d, n_tree = 4, seed = 1, first_tree = 5)
  expect_error(combine_forests(a, regression),
               "`regression` and `a` have different outputs, so they are not ranges of one forest.",
               fixed = TRUE)
  older <- as_unsealed(b)
  older$version <- "0.1.9"
  expect_error(combine_forests(a, older),
               paste0("`older` and `a` were fitted with different versions of ccforest (0.1.9 and ",
                      as.character(utils::packageVersion("ccforest")), ")"), fixed = TRUE)
  expect_error(combine_forests(a, b, ccforest(Species ~ ., data = d, n_tree = 2, seed = 1,
                                              first_tree = 8)),
               paste0("`b` (trees 5 to 8) and `ccforest(Species ~ ., data = d, n_tre...` ",
                      "(trees 8 to 9) overlap: each tree must come from exactly one forest."),
               fixed = TRUE)
  expect_error(combine_forests(a, a),
               "`a` (trees 1 to 4) and `a` (trees 1 to 4) overlap", fixed = TRUE)
  late <- ccforest(Species ~ ., data = d, n_tree = 3, seed = 1, first_tree = 11)
  expect_error(combine_forests(late, a),
               paste0("Trees 5 to 10 are missing between `a` (trees 1 to 4) and `late` (trees 11 ",
                      "to 13): grow them with first_tree = 5, n_tree = 6 and combine them too."),
               fixed = TRUE)
  expect_error(combine_forests(), "combine_forests() needs at least one forest.", fixed = TRUE)
  extra <- b  # as a later version's fit might be: sealed, with more in its forest
  extra$forest$leaf_rows <- list(1:3)
  extra <- ccforest:::seal_ccforest(extra)
  expect_error(combine_forests(a, extra),
               paste0("The forests hold `leaf_rows`, which combine_forests() does not know how ",
                      "to join; update ccforest, or grow the whole forest in one call."),
               fixed = TRUE)
  expect_error(combine_forests(a, iris),
               "`iris` must be a ccforest fitted by ccforest(), not <data.frame>.", fixed = TRUE)
  fits <- list(first = a, second = "b")
  expect_error(combine_forests(fits), "`fits$second` must be a ccforest", fixed = TRUE)
  expect_error(do.call(combine_forests, list(a, 3)), "`..2` must be a ccforest", fixed = TRUE)
})

test_that("first_tree is checked", {
  d <- combine_data()
  expect_error(ccforest(Species ~ ., data = d, n_tree = 3, first_tree = 0),
               "`first_tree` must be a single whole number >= 1, not 0.", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = d, n_tree = 3, first_tree = 2.5),
               "`first_tree` must be a single whole number >= 1, not 2.5.", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = d, n_tree = 3, first_tree = "4"),
               "`first_tree` must be a single whole number >= 1", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = d, n_tree = 3, first_tree = .Machine$integer.max - 1),
               paste0("`first_tree` + `n_tree` - 1 (the last tree's number) must be at most ",
                      "2147483647, not 2147483648 (first_tree = 2147483646, n_tree = 3)."),
               fixed = TRUE)
  # The last possible range: its last tree is number 2147483647.
  last <- ccforest(Species ~ ., data = d, n_tree = 2, seed = 1,
                   first_tree = .Machine$integer.max - 1)
  expect_identical(last$forest$first_tree, .Machine$integer.max - 1L)
  expect_length(predict(last, d), 150L)
})

test_that("exact row sums are correctly rounded and do not depend on order or grouping", {
  exact <- function(m) ccforest:::exact_row_sums(rbind(m))
  # Cancellation a floating-point sum gets wrong: 1e100 + 1 - 1e100 is 1.
  expect_identical(exact(c(1e100, 1, -1e100))$sum, 1)
  expect_identical(sum(c(1e100, 1, -1e100)), 0)
  # Ties round to even; anything beyond the tie decides it.
  expect_identical(exact(c(1, 2^-53))$sum, 1)
  expect_identical(exact(c(1, 2^-53, 2^-100))$sum, 1 + 2^-52)
  expect_identical(exact(c(1 + 2^-52, 2^-53))$sum, 1 + 2^-51)
  expect_identical(exact(c(1, 2^-53, -2^-100))$sum, 1)
  # The tail holds the rest exactly: 1 + 2^-60 is 1 with a tail of 2^-60.
  expect_identical(exact(c(1, 2^-60)), list(sum = 1, tail = matrix(2^-60, 1, 1)))
  expect_identical(exact(numeric(0)), list(sum = 0, tail = matrix(0, 1, 0)))
  # Integers below 2^53 add exactly in any arithmetic: a reference.
  withr::with_seed(3, {
    ints <- matrix(as.double(sample(-2^40:2^40, 3000, replace = TRUE)), 3)
    expect_identical(exact(ints)$sum, rowSums(ints))
    # Values over many magnitudes: shuffled and regrouped, the same sums.
    v <- matrix(stats::rnorm(3 * 400) * 10^stats::runif(3 * 400, -12, 12), 3)
    whole <- exact(v)
    shuffled <- exact(v[, sample(400)])
    expect_identical(shuffled, whole)
    halves <- cbind(exact(v[, 1:150])$sum, exact(v[, 1:150])$tail,
                    exact(v[, 151:400])$sum, exact(v[, 151:400])$tail)
    expect_identical(exact(halves), whole)
  })
  expect_error(exact(c(1, Inf)), "exact sums need finite values")
})
