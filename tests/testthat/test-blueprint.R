# Independent reference for the encoding: population z-scores over the
# non-missing rows, computed here without the package.
z_score <- function(v) {
  m <- mean(v, na.rm = TRUE)
  s <- sqrt(mean((v - m)^2, na.rm = TRUE))
  (v - m) / s
}

mixed_frame <- function() {
  data.frame(
    num = c(1.5, -2, 3.25, NA, 0, 10),
    int = c(4L, 8L, 15L, 16L, 23L, 42L),
    fac = factor(c("b", "a", "c", "a", NA, "b"), levels = c("a", "b", "c")),
    ord = factor(c("lo", "hi", "mid", "lo", "hi", NA),
                 levels = c("lo", "mid", "hi"), ordered = TRUE),
    lgl = c(TRUE, FALSE, TRUE, TRUE, NA, FALSE)
  )
}

reference_matrix <- function(df) {
  indicator <- function(level) {
    as.double(df$fac == level)
  }
  cbind(
    num = z_score(df$num),
    int = z_score(df$int),
    `fac=a` = z_score(indicator("a")),
    `fac=b` = z_score(indicator("b")),
    `fac=c` = z_score(indicator("c")),
    ord = z_score(as.double(as.integer(df$ord))),
    lgl = z_score(as.double(df$lgl))
  )
}

test_that("new_blueprint() records features, types, levels and column layout", {
  bp <- ccforest:::new_blueprint(mixed_frame())
  expect_s3_class(bp, "ccforest_blueprint")
  expect_identical(bp$feature_names, c("num", "int", "fac", "ord", "lgl"))
  expect_identical(
    bp$feature_type,
    c("numeric", "integer", "factor", "ordered", "logical")
  )
  expect_identical(
    bp$levels,
    list(character(0), character(0), c("a", "b", "c"), c("lo", "mid", "hi"), character(0))
  )
  expect_identical(
    bp$column_names,
    c("num", "int", "fac=a", "fac=b", "fac=c", "ord", "lgl")
  )
  expect_identical(bp$column_feature, c(1L, 2L, 3L, 3L, 3L, 4L, 5L))
  expect_identical(bp$feature_start, c(0L, 1L, 2L, 5L, 6L, 7L))
  expect_identical(bp$input, "data.frame")
  expect_true(bp$had_colnames)
})

test_that("feature_start gives each feature's 0-based block of columns", {
  bp <- ccforest:::new_blueprint(mixed_frame())
  for (d in seq_along(bp$feature_names)) {
    block <- seq(bp$feature_start[d], bp$feature_start[d + 1] - 1) + 1
    expect_true(all(bp$column_feature[block] == d))
  }
  expect_identical(bp$feature_start[length(bp$feature_start)], length(bp$column_names))
})

test_that("center and scale are population statistics over non-missing rows", {
  df <- mixed_frame()
  bp <- ccforest:::new_blueprint(df)
  num <- df$num[!is.na(df$num)]
  expect_equal(bp$center[1], mean(num))
  expect_equal(bp$scale[1], sqrt(sum((num - mean(num))^2) / length(num)))
  # Population, not sample, standard deviation.
  expect_false(isTRUE(all.equal(bp$scale[1], stats::sd(num))))
  observed <- df$fac[!is.na(df$fac)]
  share <- c(mean(observed == "a"), mean(observed == "b"), mean(observed == "c"))
  expect_equal(bp$center[3:5], share)
  expect_equal(bp$scale[3:5], sqrt(share * (1 - share)))
})

test_that("apply_blueprint() on the training data gives the z-scored matrix", {
  df <- mixed_frame()
  bp <- ccforest:::new_blueprint(df)
  out <- ccforest:::apply_blueprint(bp, df)
  expect_true(is.matrix(out))
  expect_identical(typeof(out), "double")
  expect_identical(dim(out), c(6L, 7L))
  expect_identical(colnames(out), bp$column_names)
  expect_equal(out, reference_matrix(df))
})

test_that("a missing factor value makes its whole indicator group missing", {
  df <- mixed_frame()
  bp <- ccforest:::new_blueprint(df)
  out <- ccforest:::apply_blueprint(bp, df)
  expect_true(all(is.na(out[5, c("fac=a", "fac=b", "fac=c")])))
  expect_false(anyNA(out[-5, c("fac=a", "fac=b", "fac=c")]))
  expect_identical(unname(out[4, "num"]), NA_real_)
})

test_that("constant columns and one-level factors get scale 1", {
  df <- data.frame(
    x = c(1, 2, 3, 4),
    k = c(7, 7, 7, 7),
    one = factor(c("only", "only", "only", "only"))
  )
  bp <- ccforest:::new_blueprint(df)
  expect_identical(bp$column_names, c("x", "k", "one=only"))
  expect_identical(bp$scale[2:3], c(1, 1))
  expect_identical(bp$center[2:3], c(7, 1))
  out <- ccforest:::apply_blueprint(bp, df)
  expect_identical(unname(out[, "k"]), c(0, 0, 0, 0))
  expect_identical(unname(out[, "one=only"]), c(0, 0, 0, 0))
})

test_that("character columns become factors with one message naming them", {
  df <- data.frame(a = c("q", "b", "Z", "b"), n = 1:4, b = c("y", "x", "y", "y"))
  messages <- character(0)
  bp <- withCallingHandlers(
    ccforest:::new_blueprint(df),
    message = function(m) {
      messages <<- c(messages, conditionMessage(m))
      invokeRestart("muffleMessage")
    }
  )
  expect_length(messages, 1L)
  expect_match(messages, "Treating character column(s) `a`, `b` as factors.", fixed = TRUE)
  expect_identical(bp$feature_type, c("factor", "integer", "factor"))
  expect_identical(bp$levels[[1]], levels(factor(df$a)))
  expect_identical(bp$levels[[3]], c("x", "y"))
  expect_message(ccforest:::new_blueprint(df["a"]), "`a`")
  expect_silent(ccforest:::new_blueprint(df["n"]))
})

test_that("NaN counts as missing", {
  df <- data.frame(x = c(1, NaN, 3, 5))
  bp <- ccforest:::new_blueprint(df)
  expect_equal(bp$center, 3)
  out <- ccforest:::apply_blueprint(bp, df)
  expect_true(is.na(out[2, 1]))
  expect_false(is.nan(out[2, 1]))
  expect_equal(out[c(1, 3, 4), 1], z_score(c(1, 3, 5)))
})

test_that("new_blueprint() rejects infinite values, naming column and row", {
  expect_error(
    ccforest:::new_blueprint(data.frame(a = 1:3, x = c(1, 2, Inf))),
    "Column `x` of `x` contains infinite values (row 3); remove or replace them.",
    fixed = TRUE
  )
  expect_error(
    ccforest:::new_blueprint(data.frame(w = c(-Inf, 1, -Inf)), arg = "data"),
    "Column `w` of `data` contains infinite values (rows 1, 3)", fixed = TRUE
  )
})

test_that("new_blueprint() rejects classes the core cannot use", {
  # Dates and times are numbers (see test-factors.R); other classes are not.
  bp <- ccforest:::new_blueprint(data.frame(x = 1:3, d = Sys.Date() + 0:2,
                                            dt = as.difftime(1:3, units = "secs")))
  expect_identical(bp$feature_type, c("integer", "date", "difftime"))
  expect_error(
    ccforest:::new_blueprint(data.frame(x = 1:3, m = I(structure(1:3, class = "money")))),
    "Column `m` has class <AsIs>; convert it to numeric first (e.g. as.numeric()).",
    fixed = TRUE
  )
  expect_error(
    ccforest:::new_blueprint(data.frame(z = complex(real = 1:3, imaginary = 1))),
    "Column `z` has class <complex>", fixed = TRUE
  )
  expect_error(
    ccforest:::new_blueprint(data.frame(z = complex(real = 1:3, imaginary = 1))),
    "Column `z` has class <complex>", fixed = TRUE
  )
})

test_that("new_blueprint() rejects list, matrix and data.frame columns", {
  df <- data.frame(x = 1:2)
  df$l <- list(1, "a")
  expect_error(ccforest:::new_blueprint(df), "Column `l` of `x` is a list column", fixed = TRUE)

  df <- data.frame(x = 1:2)
  df$m <- matrix(1:4, 2)
  expect_error(ccforest:::new_blueprint(df), "Column `m` of `x` is a matrix column", fixed = TRUE)

  df <- data.frame(x = 1:2)
  df$inner <- data.frame(a = 1:2, b = 3:4)
  expect_error(
    ccforest:::new_blueprint(df),
    "Column `inner` of `x` is a data.frame column", fixed = TRUE
  )
  nested <- tibble::tibble(x = 1:2, inner = tibble::tibble(a = 1:2))
  expect_error(
    ccforest:::new_blueprint(ccforest:::as_feature_frame(nested)),
    "Column `inner` of `x` is a data.frame column", fixed = TRUE
  )
})

test_that("new_blueprint() rejects empty shapes and bad names", {
  expect_error(
    ccforest:::new_blueprint(data.frame()),
    "`x` has no columns; at least one feature is needed.", fixed = TRUE
  )
  expect_error(
    ccforest:::new_blueprint(data.frame(a = numeric(0))),
    "`x` has no rows; at least one observation is needed.", fixed = TRUE
  )
  expect_error(
    ccforest:::new_blueprint(data.frame(a = 1, a = 2, check.names = FALSE)),
    "`x` has duplicated column name(s) `a`.", fixed = TRUE
  )
  expect_error(
    ccforest:::new_blueprint(stats::setNames(data.frame(1, 2), c("a", ""))),
    "`x` has empty column name(s) at position(s) 2", fixed = TRUE
  )
  expect_error(
    ccforest:::new_blueprint(data.frame(
      f = factor(c("a", "b")), `f=a` = 1:2, check.names = FALSE
    )),
    "duplicated column name(s) `f=a`", fixed = TRUE
  )
})

test_that("an entirely missing column is an error", {
  expect_error(
    ccforest:::new_blueprint(data.frame(x = 1:3, z = NA_real_)),
    "Column `z` is entirely missing.", fixed = TRUE
  )
  expect_error(
    ccforest:::new_blueprint(data.frame(z = c(NaN, NA))),
    "Column `z` is entirely missing.", fixed = TRUE
  )
  expect_error(
    ccforest:::new_blueprint(data.frame(f = factor(c(NA, NA), levels = "a"))),
    "Column `f` is entirely missing.", fixed = TRUE
  )
})

test_that("the column order of new data does not matter, extra columns are ignored", {
  df <- mixed_frame()
  bp <- ccforest:::new_blueprint(df)
  expected <- ccforest:::apply_blueprint(bp, df)
  shuffled <- df[, c(4, 1, 5, 3, 2)]
  shuffled$extra <- letters[1:6]
  expect_identical(ccforest:::apply_blueprint(bp, shuffled), expected)
})

test_that("new data is z-scored with the training statistics", {
  train <- data.frame(x = c(2, 4, 6, 8))
  bp <- ccforest:::new_blueprint(train)
  out <- ccforest:::apply_blueprint(bp, data.frame(x = c(5, 100)))
  expected <- (c(5, 100) - mean(train$x)) / sqrt(mean((train$x - mean(train$x))^2))
  expect_equal(unname(out[, 1]), expected)
})

test_that("missing columns are named all at once", {
  df <- data.frame(x1 = 1:3, x2 = 4:6, x3 = 7:9, x4 = 1:3, x5 = 3:1)
  bp <- ccforest:::new_blueprint(df)
  expect_error(
    ccforest:::apply_blueprint(bp, df[, c("x1", "x3", "x4")]),
    "`new_data` is missing column(s) `x2`, `x5` used to fit the forest.",
    fixed = TRUE
  )
  expect_error(
    ccforest:::apply_blueprint(bp, df[, c("x1", "x3", "x4")], arg = "test"),
    "`test` is missing column(s)", fixed = TRUE
  )
})

test_that("duplicated feature columns in new data are an error", {
  bp <- ccforest:::new_blueprint(data.frame(x = 1:3))
  new_data <- data.frame(x = 1:3, x = 4:6, check.names = FALSE)
  expect_error(
    ccforest:::apply_blueprint(bp, new_data),
    "`new_data` has duplicated column name(s) `x`", fixed = TRUE
  )
})

test_that("factor values are matched by label, whatever the level order", {
  df <- mixed_frame()
  bp <- ccforest:::new_blueprint(df)
  expected <- ccforest:::apply_blueprint(bp, df)

  relevelled <- df
  relevelled$fac <- factor(as.character(df$fac), levels = c("c", "b", "a", "unused"))
  expect_identical(ccforest:::apply_blueprint(bp, relevelled), expected)

  as_text <- df
  as_text$fac <- as.character(df$fac)
  as_text$ord <- as.character(df$ord)
  expect_identical(ccforest:::apply_blueprint(bp, as_text), expected)

  unordered <- df
  unordered$ord <- factor(as.character(df$ord), levels = c("mid", "hi", "lo"))
  expect_identical(ccforest:::apply_blueprint(bp, unordered), expected)
})

test_that("an unseen factor level gives an all-zero indicator group and a warning", {
  train <- data.frame(f = factor(c("a", "b", "c", "a")))
  bp <- ccforest:::new_blueprint(train)
  new_data <- data.frame(f = c("a", "d", "e", "d"))
  expect_warning(
    out <- ccforest:::apply_blueprint(bp, new_data),
    "Column `f` has level(s) `d`, `e` not seen when fitting; treated as none of the known levels.",
    fixed = TRUE
  )
  # Before z-scoring the group is all zero, so afterwards it is -center/scale.
  expect_equal(unname(out[2, ]), -bp$center / bp$scale)
  expect_equal(unname(out[3, ]), -bp$center / bp$scale)
  expect_equal(unname(out[1, ]), (c(1, 0, 0) - bp$center) / bp$scale)
  expect_false(anyNA(out))

  expect_silent(ccforest:::apply_blueprint(bp, data.frame(f = factor("a", levels = c("a", "zz")))))
})

test_that("an unseen ordered level becomes missing with a warning", {
  train <- data.frame(o = factor(c("lo", "mid", "hi"), levels = c("lo", "mid", "hi"), ordered = TRUE))
  bp <- ccforest:::new_blueprint(train)
  expect_warning(
    out <- ccforest:::apply_blueprint(bp, data.frame(o = c("mid", "extreme"))),
    "Column `o` has level(s) `extreme` not seen when fitting; treated as missing.",
    fixed = TRUE
  )
  expect_equal(unname(out[1, 1]), 0)
  expect_identical(unname(out[2, 1]), NA_real_)
})

test_that("numeric and factor columns cannot stand in for each other", {
  bp <- ccforest:::new_blueprint(data.frame(x = c(1, 2, 3), f = factor(c("a", "b", "a"))))
  expect_error(
    ccforest:::apply_blueprint(bp, data.frame(x = c(1, 2), f = c(1, 2))),
    "Column `f` of `new_data` has type <numeric>, but it had type <factor> when the forest was fitted.",
    fixed = TRUE
  )
  expect_error(
    ccforest:::apply_blueprint(bp, data.frame(x = factor(c("1", "2")), f = "a")),
    "Column `x` of `new_data` has type <factor>, but it had type <numeric> when the forest was fitted.",
    fixed = TRUE
  )
  expect_error(
    ccforest:::apply_blueprint(bp, data.frame(x = c("1", "2"), f = "a")),
    "Column `x` of `new_data` has type <character>, but it had type <numeric>",
    fixed = TRUE
  )
  expect_error(
    ccforest:::apply_blueprint(bp, data.frame(x = Sys.Date(), f = "a")),
    "Column `x` of `new_data` has type <Date>, but it had type <numeric> when the forest was fitted.",
    fixed = TRUE
  )
})

test_that("integer and logical columns stand in for numeric ones", {
  bp <- ccforest:::new_blueprint(data.frame(x = c(0.5, 1, 2), b = c(TRUE, FALSE, TRUE)))
  as_double <- ccforest:::apply_blueprint(bp, data.frame(x = c(1, 2), b = c(1, 0)))
  as_other <- ccforest:::apply_blueprint(bp, data.frame(x = c(1L, 2L), b = c(TRUE, FALSE)))
  expect_identical(as_other, as_double)
  expect_equal(unname(as_double[, "x"]), (c(1, 2) - bp$center[1]) / bp$scale[1])
})

test_that("na_action decides what happens to missing values", {
  df <- mixed_frame()
  bp <- ccforest:::new_blueprint(df)
  kept <- ccforest:::apply_blueprint(bp, df, na_action = "impute_random")
  expect_identical(kept, ccforest:::apply_blueprint(bp, df))
  expect_identical(sum(is.na(kept)), 6L)

  imputed <- ccforest:::apply_blueprint(bp, df, na_action = "impute_mean")
  expect_false(anyNA(imputed))
  expect_identical(imputed[is.na(kept)], rep(0, 6))
  expect_identical(imputed[!is.na(kept)], kept[!is.na(kept)])

  expect_error(
    ccforest:::apply_blueprint(bp, df, na_action = "fail"),
    "`new_data` has missing values in column(s) `num`, `fac`, `ord`, `lgl`; impute them with na_action = \"impute_random\" or \"impute_mean\" (an argument of ccforest() and of predict()).",
    fixed = TRUE
  )
  complete <- df[c(1, 2, 3), ]
  expect_identical(
    ccforest:::apply_blueprint(bp, complete, na_action = "fail"),
    kept[1:3, ]
  )
  expect_error(
    ccforest:::apply_blueprint(bp, df, na_action = "omit"),
    "`na_action` must be one of \"impute_random\", \"impute_mean\", \"fail\", not \"omit\".",
    fixed = TRUE
  )
})

test_that("infinite values in new data are an error", {
  bp <- ccforest:::new_blueprint(data.frame(x = c(1, 2, 3)))
  expect_error(
    ccforest:::apply_blueprint(bp, data.frame(x = c(1, -Inf))),
    "Column `x` of `new_data` contains infinite values (row 2); remove or replace them.",
    fixed = TRUE
  )
})

test_that("zero-row new data gives a 0 x p matrix", {
  df <- mixed_frame()
  bp <- ccforest:::new_blueprint(df)
  out <- ccforest:::apply_blueprint(bp, df[0, ])
  expect_identical(dim(out), c(0L, 7L))
  expect_identical(colnames(out), bp$column_names)
  expect_identical(typeof(out), "double")
})

test_that("new data must be a data.frame or a matrix", {
  bp <- ccforest:::new_blueprint(data.frame(x = c(1, 2, 3)))
  expect_error(
    ccforest:::apply_blueprint(bp, list(x = 1)),
    "`new_data` must be a data.frame or a matrix, not <list>.", fixed = TRUE
  )
  expect_error(
    ccforest:::apply_blueprint(bp, c(x = 1)),
    "`new_data` must be a data.frame or a matrix, not <numeric>.", fixed = TRUE
  )
})

test_that("tibbles work and give the same result as data.frames", {
  df <- mixed_frame()
  tb <- tibble::as_tibble(df)
  bp_df <- ccforest:::new_blueprint(ccforest:::as_feature_frame(df))
  bp_tb <- ccforest:::new_blueprint(ccforest:::as_feature_frame(tb))
  expect_identical(bp_tb, bp_df)
  expect_identical(
    ccforest:::apply_blueprint(bp_df, tb[, 5:1]),
    ccforest:::apply_blueprint(bp_df, df)
  )
})

test_that("the user's data is not modified", {
  df <- mixed_frame()
  df$chr <- c("u", "v", "u", "v", "u", "v")
  df_copy <- df
  tb <- tibble::as_tibble(df)
  tb_copy <- tb
  bp <- suppressMessages(ccforest:::new_blueprint(ccforest:::as_feature_frame(df)))
  ccforest:::apply_blueprint(bp, df, na_action = "impute_mean")
  suppressMessages(ccforest:::new_blueprint(ccforest:::as_feature_frame(tb)))
  ccforest:::apply_blueprint(bp, tb)
  expect_identical(df, df_copy)
  expect_identical(tb, tb_copy)
  expect_s3_class(tb, "tbl_df")

  m <- matrix(c(1, 2, 3, 4, 5, 7), 3)
  m_copy <- m
  bp_m <- ccforest:::new_blueprint(ccforest:::as_feature_frame(m))
  ccforest:::apply_blueprint(bp_m, m)
  expect_identical(m, m_copy)
})

test_that("as_feature_frame() turns tibbles and matrices into plain data.frames", {
  tb <- tibble::tibble(a = 1:3, b = c("x", "y", "z"))
  frame <- ccforest:::as_feature_frame(tb)
  expect_identical(class(frame), "data.frame")
  expect_identical(names(frame), c("a", "b"))
  expect_identical(frame$b, tb$b)
  expect_identical(attr(frame, "ccforest_input"), "data.frame")

  m <- matrix(1:6, 3, dimnames = list(NULL, c("p", "q")))
  frame <- ccforest:::as_feature_frame(m)
  expect_identical(class(frame), "data.frame")
  expect_identical(frame$q, 4:6)
  expect_identical(attr(frame, "ccforest_input"), "matrix")
  expect_true(attr(frame, "ccforest_had_colnames"))

  unnamed <- ccforest:::as_feature_frame(matrix(c(TRUE, FALSE, TRUE, TRUE), 2))
  expect_identical(names(unnamed), c("X1", "X2"))
  expect_identical(unnamed$X2, c(TRUE, TRUE))
  expect_false(attr(unnamed, "ccforest_had_colnames"))
})

test_that("as_feature_frame() rejects other inputs", {
  expect_error(
    ccforest:::as_feature_frame(list(a = 1)),
    "`x` must be a data.frame or a matrix, not <list>.", fixed = TRUE
  )
  expect_error(
    ccforest:::as_feature_frame(1:3),
    "`x` must be a data.frame or a matrix, not <integer>.", fixed = TRUE
  )
  expect_error(
    ccforest:::as_feature_frame(matrix(letters[1:4], 2)),
    "`x` must be a data.frame or a numeric, integer or logical matrix, not <character matrix>.",
    fixed = TRUE
  )
})

test_that("a blueprint remembers matrix input and matches unnamed columns by position", {
  m <- matrix(c(1, 5, 2, 8, 3, 3, 0, 1, 4), 3)
  bp <- ccforest:::new_blueprint(ccforest:::as_feature_frame(m))
  expect_identical(bp$input, "matrix")
  expect_false(bp$had_colnames)
  expect_identical(bp$column_names, c("X1", "X2", "X3"))
  out <- ccforest:::apply_blueprint(bp, m)
  expect_equal(unname(out), unname(apply(m, 2, z_score)))

  expect_error(
    ccforest:::apply_blueprint(bp, m[, 1:2]),
    "`new_data` has 2 unnamed columns, but the forest was fitted on a matrix of 3 unnamed columns",
    fixed = TRUE
  )
  by_name <- data.frame(X3 = m[, 3], X1 = m[, 1], X2 = m[, 2])
  expect_identical(ccforest:::apply_blueprint(bp, by_name), out)
})

test_that("an unnamed matrix cannot be matched to named features", {
  m <- matrix(c(1, 5, 2, 8, 3, 3), 3, dimnames = list(NULL, c("a", "b")))
  bp <- ccforest:::new_blueprint(ccforest:::as_feature_frame(m))
  expect_true(bp$had_colnames)
  expect_error(
    ccforest:::apply_blueprint(bp, unname(m)),
    "`new_data` is a matrix without column names, so its columns cannot be matched to the features `a`, `b` used to fit the forest.",
    fixed = TRUE
  )
  reordered <- m[, c("b", "a")]
  expect_identical(ccforest:::apply_blueprint(bp, reordered), ccforest:::apply_blueprint(bp, m))

  bp_df <- ccforest:::new_blueprint(data.frame(X1 = 1:3, X2 = 3:1))
  expect_error(
    ccforest:::apply_blueprint(bp_df, matrix(1:6, 3)),
    "is a matrix without column names", fixed = TRUE
  )
})

test_that("a larger data.frame with several column kinds is encoded column by column", {
  withr::local_seed(7)
  n <- 20000
  df <- as.data.frame(matrix(stats::rnorm(n * 4), n))
  df$g <- factor(sample(c("u", "v", "w"), n, replace = TRUE))
  bp <- ccforest:::new_blueprint(df)
  out <- ccforest:::apply_blueprint(bp, df)
  expect_identical(dim(out), c(20000L, 7L))
  expect_equal(unname(out[, "V3"]), z_score(df$V3))
  expect_equal(unname(out[, "g=w"]), z_score(as.double(df$g == "w")))
})

# predictor_matrix()'s short path for rows of plain numbers (issue 35): the
# general path is the reference, value for value.
general_matrix <- function(fit, rows, na_action) {
  if (!is.null(fit$formula)) rows <- ccforest:::formula_new_data(fit$formula, rows)
  ccforest:::apply_blueprint(fit$blueprint, rows, na_action = na_action)
}

test_that("rows of plain numbers take a short path to the general path's matrix", {
  withr::local_seed(35)
  df <- data.frame(a = stats::rnorm(60), b = stats::rnorm(60) * 1e3,
                   c = sample(1:5, 60, replace = TRUE), d = stats::rnorm(60) > 0)
  y <- factor(df$a + df$c > 3)
  fits <- list(
    formula = ccforest(y ~ ., data = cbind(df, y = y), n_tree = 3, seed = 1, verbose = FALSE),
    x_y = ccforest(df, y, n_tree = 3, seed = 1, verbose = FALSE)
  )
  rows <- df[c(3, 1, 7, 9), c("d", "c", "b", "a")]  # another order, and more
  rows$extra <- "not a feature"
  rows$b[2] <- NA
  rows$a[3] <- NaN
  rows$b[4] <- -1e308  # its z-score overflows: computed the general path's way
  rows$c <- as.double(rows$c)   # integer fitted, double given
  rows$d <- as.integer(rows$d)  # logical fitted, integer given
  rows$d[2] <- NA
  as_given <- df[c(5, 6), ]
  as_given$d[1] <- NA           # logical NA
  as_given$c[2] <- NA           # integer NA
  for (fit in fits) {
    for (na_action in c("impute_random", "impute_mean")) {
      short <- ccforest:::plain_rows_matrix(fit, rows, na_action)
      expect_false(is.null(short))
      expect_identical(short, general_matrix(fit, rows, na_action))
      expect_identical(ccforest:::predictor_matrix(fit, rows, na_action), short)
      expect_identical(ccforest:::plain_rows_matrix(fit, tibble::as_tibble(rows), na_action),
                       short)
      expect_identical(ccforest:::plain_rows_matrix(fit, as_given, na_action),
                       general_matrix(fit, as_given, na_action))
    }
    expect_identical(ccforest:::plain_rows_matrix(fit, rows[4, ], "fail"),
                     general_matrix(fit, rows[4, ], "fail"))
    expect_identical(predict(fit, rows, type = "prob"),
                     predict(fit, rows[c(1, 2, 3, 4), names(df)], type = "prob"))
  }
})

test_that("anything but plain numbers by name leaves the short path to the general one", {
  withr::local_seed(36)
  df <- data.frame(a = stats::rnorm(40), b = stats::rnorm(40))
  y <- df$a + df$b
  fit <- ccforest(y ~ ., data = cbind(df, y = y), n_tree = 3, seed = 1, verbose = FALSE)
  short <- function(rows, na_action = "impute_random") {
    ccforest:::plain_rows_matrix(fit, rows, na_action)
  }
  expect_false(is.null(short(df[1:2, ])))
  expect_null(short(as.matrix(df[1:2, ])))
  expect_null(short(df[0, ]))
  expect_null(short(df[1:2, "a", drop = FALSE]))
  expect_null(short(transform(df[1:2, ], b = as.character(b))))
  expect_null(short(transform(df[1:2, ], b = factor(b))))
  expect_null(short(transform(df[1:2, ], b = as.Date("2024-01-01"))))
  expect_null(short(transform(df[1:2, ], b = c(1, Inf))))
  expect_null(short(transform(df[1:2, ], b = c(1, NA)), "fail"))
  dup <- cbind(df[1:2, ], df[1:2, "a", drop = FALSE])
  expect_null(short(dup))
  expect_null(short(cbind(df[1:2, ], x = 1, x = 2)))  # a repeated name, not a feature's
  # Only ASCII names are matched on the short path (as R's cached strings);
  # the general path matches others across encodings.
  accented <- stats::setNames(df, c("a", "gr\u00f6\u00dfe"))
  fit_accented <- ccforest(y ~ ., data = cbind(accented, y = y), n_tree = 3, seed = 1,
                           verbose = FALSE)
  latin1 <- accented[1:2, ]
  names(latin1) <- iconv(names(latin1), "UTF-8", "latin1")
  expect_identical(Encoding(names(latin1))[[2]], "latin1")
  expect_null(ccforest:::plain_rows_matrix(fit_accented, latin1, "impute_random"))
  expect_null(ccforest:::plain_rows_matrix(fit_accented, accented[1:2, ], "impute_random"))
  expect_identical(predict(fit_accented, latin1), predict(fit, df[1:2, ]))
  one_column <- df[1:2, ]
  one_column$b <- matrix(df$b[1:2], 2, 1)
  expect_null(short(one_column))
  # ... and the general path still refuses what it refuses, with its messages.
  expect_error(predict(fit, transform(df[1:2, ], b = c(1, Inf))), "infinite", fixed = TRUE)
  expect_error(predict(fit, transform(df[1:2, ], b = c(1, NA)), na_action = "fail"),
               "has missing values in column(s) `b`", fixed = TRUE)
  expect_error(predict(fit, df[1:2, "a", drop = FALSE]), "is missing column(s) `b`",
               fixed = TRUE)

  logged <- ccforest(y ~ a + log(abs(b)), data = cbind(df, y = y), n_tree = 3, seed = 1,
                     verbose = FALSE)
  expect_null(ccforest:::plain_rows_matrix(logged, df[1:2, ], "impute_random"))
  dated <- ccforest(y ~ ., data = cbind(df, when = as.Date("2024-01-01") + 1:40, y = y),
                    n_tree = 3, seed = 1, verbose = FALSE)
  expect_null(ccforest:::plain_rows_matrix(dated, cbind(df, when = as.Date("2024-01-01"))[1:2, ],
                                              "impute_random"))
})

test_that("factors and strings for one-hot factors take the short path too", {
  withr::local_seed(37)
  n <- 80
  df <- data.frame(a = stats::rnorm(n), g = factor(sample(c("u", "v", "w"), n, replace = TRUE)),
                   h = sample(c("p", "q"), n, replace = TRUE), stringsAsFactors = FALSE)
  y <- df$a + (df$g == "v") + (df$h == "q")
  # (character columns are treated as factors, with a message tested elsewhere)
  fit <- suppressMessages(ccforest(y ~ ., data = cbind(df, y = y), n_tree = 3, seed = 1,
                                   verbose = FALSE))
  expect_identical(fit$blueprint$feature_type, c("numeric", "factor", "factor"))
  rows <- df[c(2, 9, 4, 7), ]
  rows$g <- factor(as.character(rows$g), levels = c("w", "v", "u", "unused"))  # other levels
  rows$h[3] <- NA
  rows$g[2] <- NA
  as_strings <- transform(rows, g = as.character(g))
  as_factor <- transform(rows, h = factor(h))
  for (na_action in c("impute_random", "impute_mean")) {
    for (given in list(rows, as_strings, as_factor)) {
      short <- ccforest:::plain_rows_matrix(fit, given, na_action)
      expect_false(is.null(short))
      expect_identical(short, general_matrix(fit, given, na_action))
    }
  }
  expect_identical(predict(fit, rows), predict(fit, as_strings))
  # A level not seen when fitting, a missing level with na_action = "fail", a
  # factor of many levels (valued by the outputs) or an ordered one: the
  # general path, with its warnings and messages.
  unseen <- transform(rows, h = c("p", "q", "z", "p"))
  expect_null(ccforest:::plain_rows_matrix(fit, unseen, "impute_random"))
  expect_warning(predict(fit, unseen), "level(s) `z` not seen when fitting", fixed = TRUE)
  expect_null(ccforest:::plain_rows_matrix(fit, rows, "fail"))
  expect_error(predict(fit, rows, na_action = "fail"), "has missing values", fixed = TRUE)
  expect_null(ccforest:::plain_rows_matrix(fit, transform(rows, g = as.integer(g)),
                                              "impute_random"))
  many <- suppressMessages(ccforest(y ~ ., data = cbind(df, y = y), n_tree = 3, seed = 1,
                                    verbose = FALSE, onehot_max_levels = 2))
  expect_identical(many$blueprint$feature_type[[2]], "scored")
  expect_null(ccforest:::plain_rows_matrix(many, rows, "impute_random"))
  ordered_fit <- suppressMessages(ccforest(
    y ~ ., data = cbind(transform(df, g = factor(g, ordered = TRUE)), y = y), n_tree = 3,
    seed = 1, verbose = FALSE))
  expect_null(ccforest:::plain_rows_matrix(ordered_fit, rows, "impute_random"))
})
