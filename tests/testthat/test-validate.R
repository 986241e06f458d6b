test_that("check_count() returns whole numbers as integers", {
  expect_identical(ccforest:::check_count(3, "n_tree"), 3L)
  expect_identical(ccforest:::check_count(3L, "n_tree"), 3L)
  expect_identical(ccforest:::check_count(0, "k", min = 0L), 0L)
  expect_identical(ccforest:::check_count(10, "k", max = 10), 10L)
  expect_null(ccforest:::check_count(NULL, "k", allow_null = TRUE))
})

test_that("check_count() names the argument, the rule and the value", {
  expect_error(
    ccforest:::check_count(0, "n_tree"),
    "`n_tree` must be a single whole number >= 1, not 0.", fixed = TRUE
  )
  expect_error(
    ccforest:::check_count("a", "n_tree"),
    "`n_tree` must be a single whole number >= 1, not a character vector of length 1 (\"a\").",
    fixed = TRUE
  )
  expect_error(
    ccforest:::check_count(NA, "n_tree"),
    "`n_tree` must be a single whole number >= 1, not NA.", fixed = TRUE
  )
  expect_error(ccforest:::check_count(NA_real_, "n_tree"), "not NA.", fixed = TRUE)
  expect_error(ccforest:::check_count(NA_integer_, "n_tree"), "not NA.", fixed = TRUE)
  expect_error(
    ccforest:::check_count(c(1, 2, 3), "n_tree"),
    "`n_tree` must be a single whole number >= 1, not a double vector of length 3 (c(1, 2, 3)).",
    fixed = TRUE
  )
  expect_error(ccforest:::check_count(integer(0), "n_tree"), "not an integer vector of length 0.", fixed = TRUE)
  expect_error(ccforest:::check_count(2.5, "n_tree"), "not 2.5.", fixed = TRUE)
  expect_error(ccforest:::check_count(Inf, "n_tree"), "not Inf.", fixed = TRUE)
  expect_error(ccforest:::check_count(NaN, "n_tree"), "not NaN.", fixed = TRUE)
  expect_error(
    ccforest:::check_count(TRUE, "n_tree"),
    "not a logical vector of length 1 (TRUE).", fixed = TRUE
  )
  expect_error(
    ccforest:::check_count(factor("3"), "n_tree"),
    "not a <factor> of length 1", fixed = TRUE
  )
  expect_error(ccforest:::check_count(list(1), "n_tree"), "not an object of class <list>.", fixed = TRUE)
  expect_error(
    ccforest:::check_count(NULL, "n_tree"),
    "`n_tree` must be a single whole number >= 1, not NULL.", fixed = TRUE
  )
  expect_error(
    ccforest:::check_count(11, "mtry", max = 10),
    "`mtry` must be a single whole number between 1 and 10, not 11.", fixed = TRUE
  )
  expect_error(
    ccforest:::check_count(-1, "k", min = 0L, allow_null = TRUE),
    "`k` must be a single whole number >= 0 or NULL, not -1.", fixed = TRUE
  )
  expect_error(
    ccforest:::check_count(3e9, "n_tree"),
    "that fits in an integer (at most 2147483647), not 3e+09.", fixed = TRUE
  )
})

test_that("long offending values are shortened", {
  condition <- tryCatch(
    ccforest:::check_count(strrep("a", 500), "n_tree"),
    error = function(e) e
  )
  expect_s3_class(condition, "error")
  expect_match(conditionMessage(condition), "...", fixed = TRUE)
  expect_lt(nchar(conditionMessage(condition)), 150)
  expect_null(conditionCall(condition))
})

test_that("check_number() accepts numbers within the bounds", {
  expect_identical(ccforest:::check_number(0.5, "frac", 0, 1), 0.5)
  expect_identical(ccforest:::check_number(1L, "frac", 0, 1), 1)
  expect_identical(ccforest:::check_number(-3, "shift"), -3)
  expect_null(ccforest:::check_number(NULL, "frac", allow_null = TRUE))
})

test_that("check_number() errors name the rule and the value", {
  expect_error(
    ccforest:::check_number(1.5, "frac", 0, 1),
    "`frac` must be a single finite number between 0 and 1, not 1.5.", fixed = TRUE
  )
  expect_error(
    ccforest:::check_number(0, "frac", 0, 1, open_min = TRUE),
    "`frac` must be a single finite number > 0 and <= 1, not 0.", fixed = TRUE
  )
  expect_error(
    ccforest:::check_number(1, "frac", 0, 1, open_max = TRUE),
    "`frac` must be a single finite number >= 0 and < 1, not 1.", fixed = TRUE
  )
  expect_error(
    ccforest:::check_number(-1, "lambda", min = 0),
    "`lambda` must be a single finite number >= 0, not -1.", fixed = TRUE
  )
  expect_error(
    ccforest:::check_number(Inf, "shift"),
    "`shift` must be a single finite number, not Inf.", fixed = TRUE
  )
  expect_error(
    ccforest:::check_number("0.5", "frac", 0, 1),
    "not a character vector of length 1 (\"0.5\").", fixed = TRUE
  )
  expect_error(ccforest:::check_number(NA, "frac"), "not NA.", fixed = TRUE)
  expect_error(ccforest:::check_number(c(0.1, 0.2), "frac"),
               "not a double vector of length 2 (c(0.1, 0.2)).", fixed = TRUE)
  expect_error(
    ccforest:::check_number(NULL, "frac", 0, 1, allow_null = FALSE),
    "`frac` must be a single finite number between 0 and 1, not NULL.", fixed = TRUE
  )
})

test_that("check_flag() accepts only TRUE or FALSE", {
  expect_true(ccforest:::check_flag(TRUE, "verbose"))
  expect_false(ccforest:::check_flag(FALSE, "verbose"))
  expect_error(
    ccforest:::check_flag(NA, "verbose"),
    "`verbose` must be TRUE or FALSE, not NA.", fixed = TRUE
  )
  expect_error(
    ccforest:::check_flag("yes", "verbose"),
    "`verbose` must be TRUE or FALSE, not a character vector of length 1 (\"yes\").",
    fixed = TRUE
  )
  expect_error(
    ccforest:::check_flag(1, "verbose"),
    "not a double vector of length 1 (1).", fixed = TRUE
  )
  expect_error(
    ccforest:::check_flag(c(TRUE, FALSE), "verbose"),
    "not a logical vector of length 2 (c(TRUE, FALSE)).", fixed = TRUE
  )
})

test_that("check_string() accepts one non-missing string", {
  expect_identical(ccforest:::check_string("abc", "name"), "abc")
  expect_identical(ccforest:::check_string("", "name", allow_empty = TRUE), "")
  expect_null(ccforest:::check_string(NULL, "name", allow_null = TRUE))
  expect_error(
    ccforest:::check_string("", "name"),
    "`name` must be a single non-empty string, not \"\".", fixed = TRUE
  )
  expect_error(
    ccforest:::check_string(NA_character_, "name"),
    "`name` must be a single non-empty string, not NA.", fixed = TRUE
  )
  expect_error(
    ccforest:::check_string(3, "name"),
    "not a double vector of length 1 (3).", fixed = TRUE
  )
  expect_error(
    ccforest:::check_string(c("a", "b"), "name"),
    "not a character vector of length 2 (c(\"a\", \"b\")).", fixed = TRUE
  )
})

test_that("check_choice() needs an exact match", {
  choices <- c("gini", "entropy")
  expect_identical(ccforest:::check_choice("entropy", "split_rule", choices), "entropy")
  expect_identical(ccforest:::check_choice(choices, "split_rule", choices), "gini")
  expect_error(
    ccforest:::check_choice("gin", "split_rule", choices),
    "`split_rule` must be one of \"gini\", \"entropy\", not \"gin\". Did you mean \"gini\"?",
    fixed = TRUE
  )
  # A prefix is not silently taken as the choice it starts.
  expect_error(
    ccforest:::check_choice("ent", "split_rule", choices),
    "must be one of \"gini\", \"entropy\", not \"ent\".", fixed = TRUE
  )
  expect_error(
    ccforest:::check_choice("Gini", "split_rule", choices),
    "not \"Gini\"", fixed = TRUE
  )
  condition <- tryCatch(
    ccforest:::check_choice("variance", "split_rule", choices),
    error = function(e) conditionMessage(e)
  )
  expect_identical(
    condition,
    "`split_rule` must be one of \"gini\", \"entropy\", not \"variance\"."
  )
  expect_error(ccforest:::check_choice(NA_character_, "split_rule", choices), "not NA.", fixed = TRUE)
  expect_error(
    ccforest:::check_choice(1, "split_rule", choices),
    "not a double vector of length 1 (1).", fixed = TRUE
  )
  expect_error(
    ccforest:::check_choice(c("gini", "gini"), "split_rule", choices),
    "not a character vector of length 2 (c(\"gini\", \"gini\")).", fixed = TRUE
  )
})

test_that("check_dots() accepts valid named arguments", {
  dots <- list(n_tree = 10, mtry = 2)
  expect_identical(ccforest:::check_dots(dots, c("n_tree", "mtry"), "ccforest"), dots)
  expect_invisible(ccforest:::check_dots(list(), c("n_tree"), "ccforest"))
})

test_that("check_dots() suggests the nearest valid name for a typo", {
  expect_error(
    ccforest:::check_dots(list(n_trees = 5), c("n_tree", "mtry", "min_leaf"), "ccforest"),
    "Unknown argument `n_trees` in ccforest(); did you mean `n_tree`?", fixed = TRUE
  )
  expect_error(
    ccforest:::check_dots(list(minleaf = 5), c("n_tree", "mtry", "min_leaf"), "ccforest"),
    "did you mean `min_leaf`?", fixed = TRUE
  )
  message <- tryCatch(
    ccforest:::check_dots(list(zzzzzzzz = 5), c("n_tree", "mtry"), "ccforest"),
    error = function(e) conditionMessage(e)
  )
  expect_identical(message, "Unknown argument `zzzzzzzz` in ccforest().")
  expect_error(
    ccforest:::check_dots(list(n_trees = 1, zzzzzzzz = 2), c("n_tree", "mtry"), "ccforest"),
    "Unknown arguments in ccforest(): `n_trees` (did you mean `n_tree`?), `zzzzzzzz`.",
    fixed = TRUE
  )
})

test_that("check_dots() rejects unnamed and repeated arguments", {
  expect_error(
    ccforest:::check_dots(list(5), c("n_tree"), "ccforest"),
    "ccforest() got an unnamed argument in `...` (value 5): all arguments after the data must be named.",
    fixed = TRUE
  )
  expect_error(
    ccforest:::check_dots(list(n_tree = 5, "a"), c("n_tree"), "ccforest"),
    "(value \"a\")", fixed = TRUE
  )
  expect_error(
    ccforest:::check_dots(list(n_tree = 5, iris), c("n_tree"), "predict"),
    "predict() got an unnamed argument in `...` (value a data.frame with 5 column(s))",
    fixed = TRUE
  )
  expect_error(
    ccforest:::check_dots(list(n_tree = 5, n_tree = 6), c("n_tree"), "ccforest"),
    "Argument(s) `n_tree` given more than once in ccforest().", fixed = TRUE
  )
})

test_that("resolve_n_thread() follows argument > option > environment > 2", {
  withr::local_options(ccforest.n_thread = NULL)
  withr::local_envvar(CCFOREST_N_THREAD = NA)
  expect_identical(ccforest:::resolve_n_thread(NULL), 2L)
  expect_identical(ccforest:::resolve_n_thread(3), 3L)

  withr::local_envvar(CCFOREST_N_THREAD = "5")
  expect_identical(ccforest:::resolve_n_thread(NULL), 5L)
  expect_identical(ccforest:::resolve_n_thread(1L), 1L)

  withr::local_options(ccforest.n_thread = 4)
  expect_identical(ccforest:::resolve_n_thread(NULL), 4L)
  expect_identical(ccforest:::resolve_n_thread(1L), 1L)
})

test_that("resolve_n_thread() maps 0 to all cores", {
  withr::local_options(ccforest.n_thread = NULL)
  withr::local_envvar(CCFOREST_N_THREAD = NA)
  all_cores <- max(1L, as.integer(RcppParallel::defaultNumThreads()))
  expect_identical(ccforest:::resolve_n_thread(0), all_cores)
  withr::local_envvar(CCFOREST_N_THREAD = "0")
  expect_identical(ccforest:::resolve_n_thread(NULL), all_cores)
})

test_that("resolve_n_thread() errors name where the bad value came from", {
  withr::local_options(ccforest.n_thread = NULL)
  withr::local_envvar(CCFOREST_N_THREAD = NA)
  expect_error(
    ccforest:::resolve_n_thread(-1),
    "`n_thread` must be a single whole number >= 0, not -1.", fixed = TRUE
  )
  expect_error(ccforest:::resolve_n_thread(1.5), "`n_thread` must be", fixed = TRUE)
  expect_error(ccforest:::resolve_n_thread("2"), "`n_thread` must be", fixed = TRUE)

  withr::local_envvar(CCFOREST_N_THREAD = "abc")
  expect_error(
    ccforest:::resolve_n_thread(NULL),
    "Environment variable CCFOREST_N_THREAD must be a whole number >= 0, not \"abc\".",
    fixed = TRUE
  )
  withr::local_envvar(CCFOREST_N_THREAD = "-2")
  expect_error(ccforest:::resolve_n_thread(NULL), "CCFOREST_N_THREAD", fixed = TRUE)
  withr::local_envvar(CCFOREST_N_THREAD = "1.5")
  expect_error(ccforest:::resolve_n_thread(NULL), "CCFOREST_N_THREAD", fixed = TRUE)

  withr::local_options(ccforest.n_thread = "many")
  expect_error(
    ccforest:::resolve_n_thread(NULL),
    "`options(ccforest.n_thread)` must be a single whole number >= 0",
    fixed = TRUE
  )
})

test_that("resolve_seed() keeps a given seed as a whole double", {
  expect_identical(ccforest:::resolve_seed(42), 42)
  expect_identical(ccforest:::resolve_seed(42L), 42)
  expect_identical(ccforest:::resolve_seed(0), 0)
  expect_identical(ccforest:::resolve_seed(2^31 - 1), 2^31 - 1)
})

test_that("resolve_seed(NULL) takes one draw from R's generator", {
  withr::local_seed(2024)
  expected <- as.double(as.integer(stats::runif(1, 0, .Machine$integer.max)))
  next_draw <- stats::runif(1)

  set.seed(2024)
  seed <- ccforest:::resolve_seed(NULL)
  expect_identical(seed, expected)
  expect_true(seed >= 0 && seed <= 2^31 - 1 && seed == trunc(seed))
  # The user's stream continues where one runif() draw would leave it, so
  # the package neither re-seeds nor skips ahead.
  expect_identical(stats::runif(1), next_draw)

  set.seed(1)
  first <- ccforest:::resolve_seed(NULL)
  second <- ccforest:::resolve_seed(NULL)
  expect_false(identical(first, second))
})

test_that("resolve_seed() rejects values outside [0, 2^31 - 1]", {
  expect_error(
    ccforest:::resolve_seed(-1),
    "`seed` must be a single whole number between 0 and 2147483647, not -1.",
    fixed = TRUE
  )
  expect_error(ccforest:::resolve_seed(2^31), "`seed` must be", fixed = TRUE)
  expect_error(ccforest:::resolve_seed(1.5), "not 1.5.", fixed = TRUE)
  expect_error(ccforest:::resolve_seed(NA), "not NA.", fixed = TRUE)
  expect_error(ccforest:::resolve_seed("1"), "not a character vector", fixed = TRUE)
})

test_that("a vector of the right length says what is wrong with it, not its length (issue 36)", {
  describe <- ccforest:::describe_value
  expect_identical(describe(c(0.1, NA, 0.9), TRUE), "a double vector of length 3 (c(0.1, NA, 0.9)), NA at element 2")
  expect_identical(describe(c(1, NaN), TRUE), "a double vector of length 2 (c(1, NaN)), NaN at element 2")
  expect_identical(describe(c("a", "b"), FALSE), "a character vector of length 2 (c(\"a\", \"b\"))")
  expect_identical(describe(matrix(1, 3, 2), FALSE), "a double matrix with dimensions 3 x 2")
  expect_identical(describe(factor(c("a", "b")), FALSE), "a <factor> of length 2 (c(\"a\", \"b\"))")
  expect_identical(describe(integer(0), TRUE), "an integer vector of length 0")
  # The hunt's cases, through the functions that take them.
  x <- iris[1:4]
  y <- iris$Species
  expect_error(ccforest(x, y, n_tree = 2, sample_fraction = c(0.5, NA, 0.2)),
               "not a double vector of length 3 (c(0.5, NA, 0.2)), NA at element 2.", fixed = TRUE)
  expect_error(ccforest(x, y, n_tree = 2, case_weights = rep("a", 150)),
               "not a character vector of length 150 (c(\"a\",", fixed = TRUE)
  expect_error(ccforest(x, y, n_tree = 2, case_weights = rep(TRUE, 150)),
               "not a logical vector of length 150 (c(TRUE,", fixed = TRUE)
  expect_error(ccforest(x, y, n_tree = 2, case_weights = matrix(1, 150, 1)),
               "not a double matrix with dimensions 150 x 1.", fixed = TRUE)
  reg <- ccforest(mtcars[-1], mtcars$mpg, n_tree = 3, quantiles = TRUE, seed = 1)
  expect_error(predict(reg, mtcars, type = "quantiles", quantiles = c(0.1, NA)),
               "`quantiles` must be numbers between 0 and 1, not a double vector of length 2 (c(0.1, NA)), NA at element 2.",
               fixed = TRUE)
  expect_error(predict(reg, mtcars, type = "quantiles", quantiles = c(0.1, 1.5)),
               "`quantiles` must be numbers between 0 and 1, but element 2 is 1.5.", fixed = TRUE)
  expect_error(predict(reg, mtcars, type = "quantiles", quantiles = matrix(0.5, 2, 2)),
               "not a double matrix with dimensions 2 x 2.", fixed = TRUE)
  surv <- ccforest(survival::Surv(time, status) ~ age + karno, survival::veteran, n_tree = 3,
                   seed = 1)
  expect_error(predict(surv, survival::veteran, type = "survival", times = c("1", "2")),
               "`times` must be a numeric vector of times >= 0, not a character vector of length 2 (c(\"1\", \"2\")).",
               fixed = TRUE)
  expect_error(predict(surv, survival::veteran, type = "survival", times = matrix(1:4, 2)),
               "not an integer matrix with dimensions 2 x 2.", fixed = TRUE)
})
