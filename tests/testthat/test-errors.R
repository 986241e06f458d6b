# Every user-facing error of ccforest() and predict(): each message must name
# the argument (or column) and the offending value, so the regexes below
# check both.

fit_iris <- function() ccforest(Species ~ ., data = iris, n_tree = 5, seed = 1)
fit_cars <- function() ccforest(mpg ~ ., data = mtcars, n_tree = 5, seed = 1)

test_that("empty data is refused", {
  expect_error(ccforest(iris[0, 1:4], iris$Species[0], n_tree = 2),
               "`y` has length 0; at least one observation", fixed = TRUE)
  expect_error(ccforest(data.frame(), iris$Species, n_tree = 2),
               "`x` has 0 rows but `y` has 150", fixed = TRUE)
  expect_error(ccforest(iris[, 0], iris$Species, n_tree = 2),
               "`x` has no columns; at least one feature", fixed = TRUE)
  # A matrix without columns, too (was: "'names' attribute [1] must be the
  # same length as the vector [0]").
  expect_error(ccforest(matrix(0, 10, 0), rnorm(10)),
               "`x` has no columns; at least one feature is needed.", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris[, "Species", drop = FALSE], n_tree = 2),
               "`formula` has no features", fixed = TRUE)
  # With the formula interface the user gave `data`, not `y`: the message
  # should name what they passed.
  expect_error(ccforest(Species ~ ., data = iris[0, ], n_tree = 2),
               "`data` has no rows")
})

test_that("a single class is refused, naming the output and the class", {
  expect_error(ccforest(iris[1:50, 1:4], iris$Species[1:50], n_tree = 2),
               "`y` has only one class (`setosa`); classification needs at least two.",
               fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris[51:100, ], n_tree = 2),
               "`Species`.*only one class \\(`versicolor`\\)")
  df <- data.frame(x = 1:10, a = factor(rep(c("p", "q"), 5)), b = factor(rep("r", 10)))
  expect_error(ccforest(cbind(a, b) ~ x, data = df, n_tree = 2),
               "`b`.*only one class \\(`r`\\)")
})

test_that("an all-NA column, Inf and missing outputs are refused", {
  d <- iris
  d$Sepal.Length <- NA_real_
  expect_error(ccforest(Species ~ ., data = d, n_tree = 2),
               "Column `Sepal.Length` is entirely missing.", fixed = TRUE)
  d <- iris
  d$Petal.Width[c(3, 7)] <- c(Inf, -Inf)
  expect_error(ccforest(Species ~ ., data = d, n_tree = 2),
               "Column `Petal.Width` of `data` contains infinite values (rows 3, 7)", fixed = TRUE)
  y <- mtcars$mpg
  y[4] <- Inf
  expect_error(ccforest(mtcars[, -1], y, n_tree = 2),
               "`y` contains infinite values (row 4)", fixed = TRUE)
  d <- iris
  d$Species[c(2, 9)] <- NA
  expect_error(ccforest(Species ~ ., data = d, n_tree = 2),
               "missing values in 2 rows.*`Species`.*na_action = \"omit\"")
  expect_error(ccforest(iris[, 1:4], d$Species, n_tree = 2),
               "`y` has 2 missing values; remove those rows or use na_action = \"omit\".",
               fixed = TRUE)
  d <- iris
  d$Sepal.Width[5] <- NA
  expect_error(ccforest(Species ~ ., data = d, n_tree = 2, na_action = "fail"),
               "`data` has missing values in column(s) `Sepal.Width`", fixed = TRUE)
  all_na <- iris
  all_na$Sepal.Width[] <- NA
  all_na$Petal.Width[1] <- NA
  expect_error(ccforest(Species ~ ., data = all_na, n_tree = 2, na_action = "omit"),
               "No complete rows remain after na_action = \"omit\".", fixed = TRUE)
})

test_that("split rules must fit the task", {
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, split_rule = "variance"),
               "split_rule = \"variance\" is for regression, but `y` is categorical",
               fixed = TRUE)
  expect_error(ccforest(mpg ~ ., data = mtcars, n_tree = 2, split_rule = "entropy"),
               "split_rule = \"entropy\" is for classification, but `y` is numeric",
               fixed = TRUE)
  expect_error(ccforest(mpg ~ ., data = mtcars, n_tree = 2, split_rule = "gini"),
               "split_rule = \"gini\" is for classification", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, split_rule = "gin"),
               "`split_rule` must be one of \"entropy\", \"gini\", \"variance\", not \"gin\". Did you mean \"gini\"?",
               fixed = TRUE)
})

test_that("mtry must be a whole number in [1, D], or a function giving one", {
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, mtry = 0),
               "`mtry` must be a single whole number between 1 and 4, not 0.", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, mtry = 5),
               "`mtry` must be a single whole number between 1 and 4, not 5.", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, mtry = 2.5),
               "`mtry` must be a single whole number between 1 and 4, not 2.5.", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, mtry = function(D) "a"),
               "`mtry(4)` must be a single whole number between 1 and 4, not a character vector of length 1 (\"a\").",
               fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, mtry = function(D) D + 1),
               "`mtry(4)` must be a single whole number between 1 and 4, not 5.", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, mtry = function(D) NA),
               "`mtry(4)` must be a single whole number between 1 and 4, not NA.", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, mtry = function(D) 1:2),
               "`mtry(4)` must be a single whole number between 1 and 4, not an integer vector of length 2 (1:2).",
               fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, mtry = function(D) stop("boom")),
               "`mtry` function failed for D = 4: boom", fixed = TRUE)
})

test_that("n_tree, min_leaf and the other counts are checked", {
  expect_error(ccforest(Species ~ ., data = iris, n_tree = -1),
               "`n_tree` must be a single whole number >= 1, not -1.", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 0),
               "`n_tree` must be a single whole number >= 1, not 0.", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = NA),
               "`n_tree` must be a single whole number >= 1, not NA.", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = "a"),
               "`n_tree` must be a single whole number >= 1, not a character vector of length 1 (\"a\").",
               fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, min_leaf = 0),
               "`min_leaf` must be a single whole number >= 1, not 0.", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, min_split = 0),
               "`min_split` must be a single whole number >= 1, not 0.", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, max_depth = 0),
               "`max_depth` must be a single whole number >= 1, not 0.", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, seed = -1),
               "`seed` must be a single whole number between 0 and 2147483647, not -1.",
               fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, n_thread = -1),
               "`n_thread` must be a single whole number >= 0, not -1.", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, verbose = "yes"),
               "`verbose` must be TRUE or FALSE, not a character vector of length 1 (\"yes\").",
               fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, sampling = "bag"),
               "`sampling` must be one of \"auto\", \"projection\", \"bagging\", not \"bag\".",
               fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, n_tree = 2, na_action = "drop"),
               "`na_action` must be one of \"impute_random\", \"impute_mean\", \"fail\", \"omit\", not \"drop\".",
               fixed = TRUE)
  withr::with_envvar(c(CCFOREST_N_THREAD = "many"), {
    expect_error(ccforest(Species ~ ., data = iris, n_tree = 2),
                 "CCFOREST_N_THREAD must be a whole number >= 0, not \"many\".", fixed = TRUE)
  })
})

test_that("unknown arguments are errors with a suggestion", {
  expect_error(ccforest(Species ~ ., data = iris, n_trees = 10),
               "Unknown argument `n_trees` in ccforest(); did you mean `n_tree`?", fixed = TRUE)
  expect_error(ccforest(iris[, 1:4], iris$Species, min_leafs = 2),
               "Unknown argument `min_leafs` in ccforest(); did you mean `min_leaf`?",
               fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, ntree = 10, mtyr = 2),
               "`ntree` (did you mean `n_tree`?), `mtyr` (did you mean `mtry`?)", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, zzzzzzzz = 1),
               "Unknown argument `zzzzzzzz` in ccforest().", fixed = TRUE)
  fit <- fit_iris()
  expect_error(predict(fit, iris, ntree = 3),
               "Unknown argument `ntree` in predict(); did you mean `n_tree`?", fixed = TRUE)
})

test_that("ranger's argument names point to ccforest's", {
  expect_error(ccforest(Species ~ ., data = iris, num.trees = 10),
               "Unknown argument `num.trees` in ccforest(): ranger's `num.trees` is `n_tree` in ccforest.",
               fixed = TRUE)
  expect_error(ccforest(iris[, 1:4], iris$Species, min.node.size = 5),
               "ranger's `min.node.size` is `min_split` in ccforest (the smallest node that is split",
               fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, probability = TRUE),
               paste0("ranger's `probability` has no counterpart in ccforest: a classification ",
                      "forest always estimates class probabilities"), fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, num.threads = 2, sample.fraction = 0.5),
               paste0("Unknown arguments in ccforest(): `num.threads` (ranger's `num.threads` is ",
                      "`n_thread` in ccforest), `sample.fraction` (ranger's `sample.fraction` is ",
                      "`sample_fraction` in ccforest)."), fixed = TRUE)
  for (name in c("case.weights", "class.weights", "splitrule", "max.depth", "min.bucket",
                 "quantreg", "keep.inbag", "holdout", "write.forest",
                 "respect.unordered.factors", "dependent.variable.name")) {
    args <- stats::setNames(list(NULL), name)
    expect_error(do.call(ccforest, c(list(Species ~ ., data = iris), args)),
                 sprintf("ranger's `%s` ", name), fixed = TRUE)
  }
  expect_error(ccforest(Species ~ ., data = iris, oob.error = FALSE),
               "Unknown argument `oob.error` in ccforest(): ranger's `oob.error` is `oob_error` in ccforest.",
               fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = iris, importance = "impurity"),
               "importance = \"impurity\" is ranger's; ccforest's split-gain importance is \"projection\"")
  expect_error(ccforest(Species ~ ., data = iris, split_rule = "extratrees"),
               "split_rule = \"extratrees\" is ranger's; in ccforest, axis_candidates = \"random\"")
  fit <- fit_iris()
  expect_error(predict(fit, data = iris),
               "Unknown argument `data` in predict(): ranger's `data` is `new_data` in ccforest's predict().",
               fixed = TRUE)
  expect_error(predict(fit, iris, num.trees = 3),
               "ranger's `num.trees` is `n_tree` in ccforest's predict().", fixed = TRUE)
  # Through parsnip's set_engine(), where ranger users meet them first.
  skip_if_not_installed("parsnip")
  suppressPackageStartupMessages(loadNamespace("parsnip"))
  spec <- parsnip::set_engine(parsnip::set_mode(parsnip::rand_forest(trees = 5), "classification"),
                              "ccforest", num.threads = 2)
  expect_error(parsnip::fit(spec, Species ~ ., data = iris),
               "ranger's `num.threads` is `n_thread` in ccforest", fixed = TRUE)
})

test_that("x and y must match, and both must be given", {
  expect_error(ccforest(iris[, 1:4], iris$Species[1:100], n_tree = 2),
               "`x` has 150 rows but `y` has 100; they must match.", fixed = TRUE)
  expect_error(ccforest(iris[, 1:4]),
               "`y` is missing: give the outputs, or use the formula interface.", fixed = TRUE)
  expect_error(ccforest(Species ~ .),
               "`data` is missing: the formula interface needs a data.frame.", fixed = TRUE)
  expect_error(ccforest(list(a = 1:3), 1:3),
               "`x` must be a data.frame or a matrix, not <list>.", fixed = TRUE)
  expect_error(ccforest(Species ~ Nope, data = iris, n_tree = 2),
               "Feature `Nope` in `formula` is not a column of `data`.", fixed = TRUE)
})

test_that("predict() refuses new_data of the wrong kind or shape", {
  fit <- fit_iris()
  expect_error(predict(fit, as.list(iris)),
               "`new_data` must be a data.frame or a matrix, not <list>.", fixed = TRUE)
  expect_error(predict(fit_cars(), "a"),
               "`new_data` must be a data.frame or a matrix, not <character>.", fixed = TRUE)
  expect_error(predict(fit, iris[, -1]),
               "`new_data` is missing column(s) `Sepal.Length` used to fit the forest.",
               fixed = TRUE)
  xy <- ccforest(iris[, 1:4], iris$Species, n_tree = 3, seed = 1)
  expect_error(predict(xy, iris[, -c(2, 3)]),
               "`new_data` is missing column(s) `Sepal.Width`, `Petal.Length`", fixed = TRUE)
  expect_error(predict(fit), "`new_data` is missing: give the data to predict.", fixed = TRUE)
  expect_error(predict(fit, unname(as.matrix(iris[, 1:4]))),
               "`new_data` is a matrix without column names", fixed = TRUE)
  d <- iris
  d$Sepal.Length <- as.character(d$Sepal.Length)
  expect_error(predict(fit, d),
               "Column `Sepal.Length` of `new_data` has type <character>, but it had type <numeric>",
               fixed = TRUE)
  d <- iris
  d$Sepal.Length[2] <- Inf
  expect_error(predict(fit, d),
               "Column `Sepal.Length` of `new_data` contains infinite values (row 2)", fixed = TRUE)
})

test_that("predict() types must fit the task", {
  expect_error(predict(fit_cars(), mtcars, type = "prob"),
               "type = \"prob\" is for classification forests; this one is a regression forest",
               fixed = TRUE)
  expect_error(predict(fit_cars(), mtcars, type = "class"),
               "type = \"class\" is for classification forests", fixed = TRUE)
  expect_error(predict(fit_iris(), iris, type = "response"),
               "type = \"response\" is for regression forests; this one is a classifier",
               fixed = TRUE)
  expect_error(predict(fit_iris(), iris, type = "probs"),
               paste("`type` must be one of \"class\", \"prob\", \"response\", \"quantiles\", \"interval\",",
                     "\"se\", \"terminal_nodes\", not \"probs\". Did you mean \"prob\"?"),
               fixed = TRUE)
})

test_that("predict(n_tree) cannot exceed the forest's trees", {
  fit <- fit_iris()
  expect_error(predict(fit, iris, n_tree = 6),
               "`n_tree` must be a single whole number between 1 and 5, not 6.", fixed = TRUE)
  expect_error(predict(fit, iris, n_tree = 0),
               "`n_tree` must be a single whole number between 1 and 5, not 0.", fixed = TRUE)
  expect_error(predict(fit, iris, n_tree = NA),
               "`n_tree` must be a single whole number between 1 and 5, not NA.", fixed = TRUE)
})

test_that("errors are reported without the internal call", {
  condition <- tryCatch(ccforest(Species ~ ., data = iris, n_tree = 0), error = function(e) e)
  expect_null(conditionCall(condition))
  condition <- tryCatch(predict(fit_iris(), iris, type = "response"), error = function(e) e)
  expect_null(conditionCall(condition))
})

# Messages that named another cause than the real one (issue 28).

test_that("fitted() of combined bagged forests says they were combined", {
  a <- ccforest(mpg ~ ., mtcars, n_tree = 3, seed = 1, sampling = "bagging")
  b <- ccforest(mpg ~ ., mtcars, n_tree = 3, seed = 1, sampling = "bagging", first_tree = 4)
  both <- suppressMessages(combine_forests(a, b))
  expect_error(fitted(both), paste0(
    "fitted\\(\\) needs out-of-bag predictions, which `object` does not have: it joins ",
    "forests grown apart \\(combine_forests\\(\\)\\)"))
  expect_error(residuals(both), "residuals\\(\\) needs out-of-bag predictions.*combine_forests")
})

test_that("combine_forests() names the weights when only they differ", {
  d <- mtcars
  w <- rep(1:2, 16)
  a <- ccforest(mpg ~ ., d, n_tree = 3, seed = 1, case_weights = w)
  b <- ccforest(mpg ~ ., d, n_tree = 3, seed = 1, first_tree = 4, case_weights = rev(w))
  expect_error(combine_forests(a, b),
               paste0("`b` and `a` were fitted with different case weights, so they are not ranges ",
                      "of one forest: grow every range with the same `case_weights`, row for row."),
               fixed = TRUE)
  plain <- ccforest(mpg ~ ., d, n_tree = 3, seed = 1, first_tree = 4)
  expect_error(combine_forests(a, plain), "were fitted with different case weights")
  y <- factor(ifelse(d$mpg > 20, "hi", "lo"))
  x <- d[-1]
  k <- ccforest(x, y, n_tree = 3, seed = 1, class_weights = c(hi = 2))
  l <- ccforest(x, y, n_tree = 3, seed = 1, first_tree = 4, class_weights = c(hi = 3))
  expect_error(combine_forests(k, l), "`l` and `k` were fitted with different class_weights")
  # Different rows are still different data.
  other <- ccforest(mpg ~ ., d[32:1, ], n_tree = 3, seed = 1, first_tree = 4,
                    case_weights = w)
  expect_error(combine_forests(a, other), "were fitted on different data")
})

test_that("levels of a valued factor without training values are named, not called missing", {
  set.seed(1)
  levels <- sprintf("L%02d", 1:41)
  d <- data.frame(f = factor(sample(levels[1:40], 300, TRUE), levels = levels), x = rnorm(300))
  d$y <- d$x + rnorm(300)
  w <- ifelse(d$f == "L01", 0, 1)
  # L01 is held only by rows of weight 0, and L41 by no row: neither has a
  # value. Fitting with na_action = "fail" is no problem (the rows of L01
  # take no part).
  fit <- ccforest(y ~ ., d, case_weights = w, n_tree = 3, seed = 1, na_action = "fail")
  expect_identical(fit$blueprint$feature_type[[1]], "scored")
  new <- data.frame(f = factor(c("L01", "L41", "L02"), levels = levels), x = 0)
  expect_error(predict(fit, new), paste0(
    "Column `f` of `new_data` has level(s) `L01`, `L41` that no training row of positive weight ",
    "had, which the forest has no value for; na_action = \"fail\" does not impute them"),
    fixed = TRUE)
  unseen <- data.frame(f = c("L99", "L02"), x = 0)
  expect_error(predict(fit, unseen),
               "has level(s) `L99` not seen when fitting, which the forest has no value for",
               fixed = TRUE)
  # Imputing, they are treated as missing, with a warning naming the cause.
  expect_warning(p <- predict(fit, new, na_action = "impute_mean"),
                 "level(s) `L01`, `L41` that no training row of positive weight had", fixed = TRUE)
  expect_identical(p[[1]], p[[2]])
  expect_false(anyNA(p))
})

test_that("class_weights can name the NA class of an addNA() response", {
  set.seed(2)
  y <- addNA(factor(sample(c("a", "b", NA), 120, TRUE)))
  x <- data.frame(x = rnorm(120))
  fit <- ccforest(x, y, class_weights = c("NA" = 5), n_tree = 2, seed = 1)
  expect_identical(unname(fit$options$class_weights), c(1, 1, 5))
  expect_true(is.na(names(fit$options$class_weights)[[3]]))
  expect_error(ccforest(x, y, class_weights = c(c = 5), n_tree = 2),
               "`class_weights` names `c`, not classes of the output (`a`, `b`, `NA`).",
               fixed = TRUE)
})
