# Hostile arguments (issue #5, section 1): every tuning argument at and
# beyond its limits, wrong types, vectors for scalars, and misspelled names.
# At a limit the forest fits; beyond it the error names the argument, the
# rule and the offending value.

hostile_args_data <- function() {
  d <- hostile_signal_data(30)
  d$c <- stats::setNames(seq_len(30) / 7, NULL)
  d[c("a", "b", "c", "y")]
}

test_that("every argument beyond its limits is an error naming it", {
  d <- hostile_args_data()
  x <- d[c("a", "b", "c")]
  y <- d$y
  fit_with <- function(...) ccforest(x, y, n_tree = 3, seed = 1, ...)
  cases <- list(
    # argument, value, expected message
    list("mtry", 0, "`mtry` must be a single whole number between 1 and 3, not 0"),
    list("mtry", -1, "`mtry` must be .* not -1"),
    list("mtry", 4, "`mtry` must be a single whole number between 1 and 3, not 4"),
    list("mtry", 1e10, "`mtry` must be .* not 1e\\+10"),
    list("mtry", NA, "`mtry` must be .* not NA"),
    list("mtry", NA_integer_, "`mtry` must be .* not NA"),
    list("mtry", NaN, "`mtry` must be .* not NaN"),
    list("mtry", Inf, "`mtry` must be .* not Inf"),
    list("mtry", 1.5, "`mtry` must be .* not 1.5"),
    list("mtry", 1:2, "`mtry` must be .* not an integer vector of length 2 \\(1:2\\)"),
    list("mtry", integer(0), "`mtry` must be .* not an integer vector of length 0"),
    list("mtry", "2", "`mtry` must be .* not a character vector of length 1 \\(\"2\"\\)"),
    list("mtry", TRUE, "`mtry` must be .* not a logical vector"),
    list("mtry", factor(2), "`mtry` must be .* <factor>"),
    list("mtry", list(2), "`mtry` must be .* <list>"),
    list("mtry", function(D) 0, "`mtry\\(3\\)` must be .* not 0"),
    list("mtry", function(D) D + 1, "`mtry\\(3\\)` must be .* not 4"),
    list("mtry", function(D) sqrt(D), "`mtry\\(3\\)` must be a single whole number"),
    list("mtry", function(D) NULL, "`mtry\\(3\\)` must be .* not NULL"),
    list("mtry", function(D) stop("boom"), "`mtry` function failed for D = 3: boom"),
    list("mtry", function() 2, "`mtry` function failed for D = 3"),
    list("n_tree", 0, "`n_tree` must be a single whole number >= 1, not 0"),
    list("n_tree", -5, "`n_tree` must be .* not -5"),
    list("n_tree", NA, "`n_tree` must be .* not NA"),
    list("n_tree", NULL, "`n_tree` must be .* not NULL"),
    list("n_tree", 2.5, "`n_tree` must be .* not 2.5"),
    list("n_tree", Inf, "`n_tree` must be .* not Inf"),
    list("n_tree", c(5, 10), "`n_tree` must be .* not a double vector of length 2 \\(c\\(5, 10\\)\\)"),
    list("n_tree", "5", "`n_tree` must be .* not a character vector"),
    list("n_tree", 3e9, "`n_tree` must be .* fits in an integer"),
    list("min_split", 0, "`min_split` must be a single whole number >= 1, not 0"),
    list("min_split", NA, "`min_split` must be .* not NA"),
    list("min_split", "2", "`min_split` must be .* character"),
    list("min_leaf", 0, "`min_leaf` must be a single whole number >= 1, not 0"),
    list("min_leaf", 1:3, "`min_leaf` must be .* not an integer vector of length 3 \\(1:3\\)"),
    list("min_leaf", -1, "`min_leaf` must be .* not -1"),
    list("max_depth", 0, "`max_depth` must be a single whole number >= 1, not 0"),
    list("max_depth", -1, "`max_depth` must be .* not -1"),
    list("max_depth", NA, "`max_depth` must be .* not NA"),
    list("max_depth", Inf, "`max_depth` must be .* not Inf"),
    list("split_rule", "entropi", "`split_rule` must be one of .* Did you mean \"entropy\"\\?"),
    list("split_rule", NA, "`split_rule` must be one of .* not NA"),
    list("split_rule", c("gini", "entropy"), "`split_rule` must be one of .* vector of length 2"),
    list("split_rule", 1, "`split_rule` must be one of .* double vector"),
    list("split_rule", "variance", "split_rule = \"variance\" is for regression"),
    list("sampling", "boot", "`sampling` must be one of \"auto\", \"projection\", \"bagging\""),
    list("sampling", NULL, "`sampling` must be one of .* not NULL"),
    list("projection", "CCA", "`projection` must be one of \"cca\", \"rotation\", \"pca\", \"axis\""),
    list("projection", c("cca", "axis"), "`projection` must be one of .* vector of length 2"),
    list("importance", TRUE, "`importance` must be one of .* logical"),
    list("na_action", "na.omit", "`na_action` must be one of"),
    list("na_action", NA_character_, "`na_action` must be one of .* not NA"),
    list("na_action", stats::na.omit, "`na_action` must be one of .* a function"),
    list("n_thread", -1, "`n_thread` must be a single whole number >= 0, not -1"),
    list("n_thread", NA, "`n_thread` must be .* not NA"),
    list("n_thread", "2", "`n_thread` must be .* character"),
    list("n_thread", 1.5, "`n_thread` must be .* not 1.5"),
    list("seed", -1, "`seed` must be a single whole number between 0 and 2147483647, not -1"),
    list("seed", 2^31, "`seed` must be .* not 2147483648"),
    list("seed", NA, "`seed` must be .* not NA"),
    list("seed", "1", "`seed` must be .* character"),
    list("seed", 1.5, "`seed` must be .* not 1.5"),
    list("seed", 1:2, "`seed` must be .* vector of length 2"),
    list("verbose", NA, "`verbose` must be TRUE or FALSE, not NA"),
    list("verbose", "yes", "`verbose` must be TRUE or FALSE"),
    list("verbose", 1, "`verbose` must be TRUE or FALSE")
  )
  for (case in cases) {
    args <- stats::setNames(list(case[[2]]), case[[1]])
    if (case[[1]] %in% c("n_tree", "seed")) {
      call_args <- c(list(x, y), args, if (case[[1]] == "n_tree") list(seed = 1) else list(n_tree = 3))
      expect_error(do.call(ccforest, call_args), case[[3]],
                   label = sprintf("%s = %s", case[[1]], deparse(case[[2]])[1]))
    } else {
      expect_error(do.call(fit_with, args), case[[3]],
                   label = sprintf("%s = %s", case[[1]], deparse(case[[2]])[1]))
    }
  }
})

test_that("every argument at its limits fits", {
  d <- hostile_args_data()
  x <- d[c("a", "b", "c")]
  y <- d$y
  at_limits <- list(
    list(mtry = 1), list(mtry = 3), list(mtry = 3, sampling = "projection"),
    list(mtry = 1, sampling = "bagging"), list(mtry = 2.0),
    list(mtry = function(D) floor(sqrt(D))),
    list(mtry = function(D) ceiling(D / 2)),
    list(n_tree = 1), list(min_split = 1), list(min_split = 1000),
    list(min_split = .Machine$integer.max), list(min_leaf = 15), list(min_leaf = 1000),
    list(min_leaf = .Machine$integer.max), list(max_depth = 1),
    list(max_depth = .Machine$integer.max), list(seed = 0), list(seed = 2^31 - 1),
    list(n_thread = 0), list(n_thread = 1), list(projection = "rotation"),
    list(projection = "pca"), list(projection = "axis"), list(split_rule = "gini"),
    list(importance = "projection"),
    list(importance = "permutation", sampling = "bagging")
  )
  for (args in at_limits) {
    label <- paste(names(args), vapply(args, function(v) deparse(v)[1], ""), sep = " = ",
                   collapse = ", ")
    all_args <- utils::modifyList(list(x = x, y = y, n_tree = 3, seed = 1), args)
    if (!is.null(args$min_split) && args$min_split > nrow(x)) {
      # Allowed, but every tree is then a single leaf, which ccforest says.
      expect_warning(fit <- do.call(ccforest, all_args),
                     sprintf("is larger than the %d training rows", nrow(x)))
    } else {
      fit <- expect_no_error(do.call(ccforest, all_args), message = label)
    }
    prob <- predict(fit, x, type = "prob")
    hostile_expect_probabilities(prob, label)
  }
  # A leaf as large as the data is a root-only forest: class shares.
  fit <- ccforest(x, y, n_tree = 3, seed = 1, min_leaf = 1000, sampling = "projection")
  expect_equal(unname(predict(fit, x, type = "prob")[1, ]),
               as.vector(table(y)) / length(y))
})

test_that("regression arguments at their limits fit", {
  d <- hostile_args_data()
  x <- d[c("a", "b", "c")]
  y <- d$a * 2 + d$b
  for (args in list(list(min_leaf = 1, min_split = 1), list(min_leaf = 100),
                    list(max_depth = 1), list(split_rule = "variance"))) {
    fit <- do.call(ccforest, c(list(x, y, n_tree = 3, seed = 1), args))
    pred <- predict(fit, x)
    hostile_expect_finite(pred)
    expect_true(all(pred >= min(y) - 1e-9 & pred <= max(y) + 1e-9))
  }
  expect_error(ccforest(x, y, n_tree = 3, split_rule = "gini"),
               "split_rule = \"gini\" is for classification")
})

test_that("misspelled arguments are errors with a suggestion", {
  d <- hostile_args_data()
  x <- d[c("a", "b", "c")]
  expect_error(ccforest(x, d$y, ntree = 5), "Unknown argument `ntree` in ccforest\\(\\); did you mean `n_tree`\\?")
  expect_error(ccforest(x, d$y, ntrees = 5), "did you mean `n_tree`")
  expect_error(ccforest(y ~ ., data = d, n_trees = 5), "did you mean `n_tree`")
  expect_error(ccforest(y ~ ., data = d, mtyr = 2), "did you mean `mtry`")
  expect_error(ccforest(x, d$y, sed = 1), "did you mean `seed`")
  expect_error(ccforest(x, d$y, min.node.size = 5), "Unknown argument `min.node.size`")
  expect_error(ccforest(x, d$y, num.trees = 5), "Unknown argument `num.trees`")
  expect_error(ccforest(x, d$y, weights = rep(1, 30)), "Unknown argument `weights`")
  expect_error(ccforest(x, d$y, mtri = 1, sed = 3),
               "Unknown arguments in ccforest\\(\\): `mtri` \\(did you mean `mtry`\\?\\), `sed`")
  expect_error(ccforest(x, d$y, data = d), "Unknown argument `data`")
  fit <- ccforest(x, d$y, n_tree = 3, seed = 1)
  expect_error(predict(fit, newdat = x), "Unknown argument `newdat` in predict\\(\\); did you mean `newdata`\\?")
  expect_error(predict(fit, x, ntree = 2), "did you mean `n_tree`")
})

test_that("misspelled arguments: a truncated name is not silently taken as another", {
  # R's partial matching turns `n_tr = 3` into n_tree and `max = 1` into
  # max_depth without a word, and `min = 2` (min_split or min_leaf?) into
  # "argument 4 matches multiple formal arguments", which names nothing the
  # user wrote. The package promises exact matching for choices
  # (check_choice); argument names deserve the same.
  d <- hostile_args_data()
  x <- d[c("a", "b", "c")]
  expect_error(ccforest(x, d$y, n_tr = 3, seed = 1), "`n_tr`")
  expect_error(ccforest(y ~ ., data = d, n_tree = 3, max = 1, seed = 1), "`max`")
  expect_error(ccforest(y ~ ., data = d, n_tree = 3, min = 2, seed = 1), "`min`")
})

test_that("an argument given twice is an error naming it", {
  d <- hostile_args_data()
  expect_error(ccforest(y ~ ., data = d, n_tree = 3, n_tree = 4), "n_tree")
})

test_that("wrong types for x, y, formula and data are errors naming them", {
  d <- hostile_args_data()
  x <- d[c("a", "b", "c")]
  expect_error(ccforest(x), "`y` is missing")
  expect_error(ccforest(d$a, d$y), "`x` must be a data.frame or a matrix, not <numeric>")
  expect_error(ccforest(as.list(x), d$y), "`x` must be .* not <list>")
  expect_error(ccforest(NULL, d$y), "`x` must be .* not <NULL>")
  expect_error(ccforest(matrix("a", 30, 2), d$y), "`x` must be .* <character matrix>")
  expect_error(ccforest(x, NULL), "`y`")
  expect_error(ccforest(x, as.list(d$y)), "`y` must be a factor, character, logical or numeric")
  expect_error(ccforest(x, d$y[-1]), "`x` has 30 rows but `y` has 29")
  expect_error(ccforest(x, as.Date("2020-01-01") + 1:30), "`y` must be .* not <Date>")
  expect_error(ccforest(x, data.frame(p = d$y, q = d$a)),
               "`y` mixes categorical outputs \\(`p`\\) and numeric outputs \\(`q`\\)")
  expect_error(ccforest(~ ., d), "`formula` must be a two-sided formula")
  expect_error(ccforest(y ~ .), "`data` is missing")
  expect_error(ccforest(y ~ ., as.matrix(x)), "`data` must be a data.frame, not <double matrix>")
  expect_error(ccforest(y ~ ., as.list(d)), "`data` must be a data.frame, not <list>")
  expect_error(ccforest(y ~ zz, d), "Feature `zz` in `formula` is not a column of `data`")
  expect_error(ccforest(y ~ a * b, d), "Interaction terms")
  expect_error(ccforest(y ~ ., d["y"]), "no features")
})

test_that("a formula given as y (arguments swapped) is named as the problem", {
  # ccforest(iris, Species ~ .) currently says "`x` has 150 rows but `y` has
  # 3", counting the formula's parts as rows.
  d <- hostile_args_data()
  expect_error(ccforest(d, y ~ .), "`y`.*formula|formula.*`y`")
})

test_that("n_thread above the core count prints no C++ library warning", {
  # TBB prints "TBB Warning: The number of workers is currently limited ..."
  # straight to the process's stderr when more threads are requested than it
  # allows; R users should see nothing, or an R warning.
  skip_on_cran()
  outcome <- hostile_isolated(function() {
    d <- data.frame(a = stats::rnorm(600), b = stats::rnorm(600))
    d$y <- factor(d$a > 0)
    n <- RcppParallel::defaultNumThreads() + 2L
    fit <- ccforest::ccforest(y ~ ., data = d, n_tree = 8, seed = 1, n_thread = n)
    p <- stats::predict(fit, d, n_thread = n)
    length(p)
  })
  hostile_expect_isolated_ok(outcome, "n_thread above the core count")
  expect_false(grepl("TBB", outcome$stderr), label = "stderr mentions TBB")
})

test_that("n_tree at the integer limit with unknown memory gives an R error", {
  # On systems without /proc/meminfo the memory check is skipped and the
  # request reaches C++, which fails with the bare message "std::bad_alloc".
  # Linux-only (address-space limit through the shell) and in a child.
  skip_on_cran()
  skip_on_os(c("windows", "mac", "solaris"))
  skip_if(nzchar(Sys.getenv("CCFOREST_SANITIZE")),
          "an address-space limit leaves no room for AddressSanitizer's shadow memory")
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script))
  writeLines(c(
    sprintf(".libPaths(%s)", paste(deparse(.libPaths()), collapse = "")),
    "suppressMessages(library(ccforest))",
    "utils::assignInNamespace('available_memory', function() NA_real_, 'ccforest')",
    "msg <- tryCatch({ccforest(iris[1:4], iris$Species, n_tree = .Machine$integer.max,",
    "  seed = 1, n_thread = 1); 'no error'}, error = function(e) conditionMessage(e))",
    "cat('MESSAGE:', msg, '\\n')"
  ), script)
  out <- suppressWarnings(system2(
    "bash", c("-c", shQuote(sprintf("ulimit -v 4000000; timeout 120 '%s' '%s'",
                                    file.path(R.home("bin"), "Rscript"), script))),
    stdout = TRUE, stderr = TRUE
  ))
  line <- grep("^MESSAGE:", out, value = TRUE)
  expect_length(line, 1L)
  expect_match(line, "n_tree|memory", label = "the error message")
  expect_no_match(line, "std::", label = "the error message")
})

test_that("an explicit seed leaves the user's random stream untouched", {
  d <- hostile_args_data()
  set.seed(42)
  before <- .Random.seed
  fit <- ccforest(y ~ ., data = d, n_tree = 3, seed = 7)
  p <- predict(fit, d)
  expect_identical(.Random.seed, before)
  # seed = NULL takes its seed from set.seed().
  set.seed(3)
  a <- ccforest(y ~ ., data = d, n_tree = 3)
  set.seed(3)
  b <- ccforest(y ~ ., data = d, n_tree = 3)
  expect_identical(a$forest, b$forest)
})
