# Hostile prediction (issue #5, section 1): new data that does not look like
# the training data, saved and damaged forests, and the guarantee that the
# user's data is never modified.

hostile_predict_fits <- function() {
  d <- hostile_mixed_data(60)
  list(
    data = d,
    formula = ccforest(y ~ ., data = d, n_tree = 5, seed = 1),
    xy = ccforest(d[names(d) != "y"], d$y, n_tree = 5, seed = 1),
    reg = ccforest(num ~ ., data = d, n_tree = 5, seed = 1)
  )
}

test_that("missing columns: an error listing every missing column", {
  f <- hostile_predict_fits()
  d <- f$data
  expect_error(predict(f$formula, d[names(d) != "num"]),
               "`new_data` is missing column\\(s\\) `num` used to fit the forest")
  expect_error(predict(f$xy, d[!names(d) %in% c("num", "ord")]),
               "`new_data` is missing column\\(s\\) `num`, `ord` used to fit the forest")
  expect_error(predict(f$formula, d[, 0]), "missing column\\(s\\) `num`, `int`, `fac`, `ord`, `lgl`")
  expr <- ccforest(y ~ log(abs(num)) + fac, data = d, n_tree = 3, seed = 1)
  expect_error(predict(expr, d["fac"]), "`new_data` is missing column\\(s\\) `num`")
})

test_that("extra columns are ignored, whatever they hold", {
  f <- hostile_predict_fits()
  d <- f$data
  extra <- d
  extra$zz <- 1
  extra$ll <- as.list(seq_len(nrow(d)))
  extra$dt <- as.Date("2020-01-01")
  for (fit in list(f$formula, f$xy)) {
    expect_identical(predict(fit, extra, type = "prob"), predict(fit, d, type = "prob"))
  }
  expect_identical(predict(f$reg, extra), predict(f$reg, d))
  # The response itself may be absent or hold anything.
  no_y <- d[names(d) != "y"]
  expect_identical(predict(f$formula, no_y), predict(f$formula, d))
  odd_y <- d
  odd_y$y <- "not a class"
  expect_identical(predict(f$formula, odd_y), predict(f$formula, d))
})

test_that("reordered columns give identical predictions", {
  f <- hostile_predict_fits()
  d <- f$data
  rev_d <- d[rev(names(d))]
  for (fit in list(f$formula, f$xy)) {
    expect_identical(predict(fit, rev_d, type = "prob"), predict(fit, d, type = "prob"))
  }
  m <- cbind(p = d$num, q = d$int, r = as.numeric(d$lgl))
  fm <- ccforest(m, d$y, n_tree = 5, seed = 1)
  expect_identical(predict(fm, m[, c("r", "p", "q")], type = "prob"),
                   predict(fm, m, type = "prob"))
})

test_that("duplicated feature columns in new data are an error", {
  f <- hostile_predict_fits()
  d <- f$data
  dup <- cbind(d, d["num"])
  expect_error(predict(f$xy, dup), "`new_data` has duplicated column name\\(s\\) `num`")
})

test_that("changed column types: compatible ones work, others name the column", {
  f <- hostile_predict_fits()
  d <- f$data
  fit <- f$formula
  base <- predict(fit, d, type = "prob")
  # Compatible: numeric <-> integer <-> logical, factor <-> character <-> ordered.
  expect_identical(predict(fit, transform(d, fac = as.character(fac)), type = "prob"), base)
  expect_identical(predict(fit, transform(d, int = as.numeric(int)), type = "prob"), base)
  expect_identical(predict(fit, transform(d, lgl = as.integer(lgl)), type = "prob"), base)
  expect_identical(predict(fit, transform(d, ord = as.character(ord)), type = "prob"), base)
  hostile_expect_probabilities(predict(fit, transform(d, num = num > 0), type = "prob"))
  # Incompatible: an error naming column, new type and fitted type.
  expect_error(predict(fit, transform(d, num = as.character(num))),
               "Column `num` of `new_data` has type <character>, but it had type <numeric>")
  expect_error(predict(fit, transform(d, num = factor(round(num)))),
               "Column `num` of `new_data` has type <factor>, but it had type <numeric>")
  expect_error(predict(fit, transform(d, fac = as.integer(fac))),
               "Column `fac` of `new_data` has type <integer>, but it had type <factor>")
  expect_error(predict(fit, transform(d, ord = as.integer(ord))),
               "Column `ord` of `new_data` has type <integer>, but it had type <ordered>")
  expect_error(predict(fit, transform(d, lgl = as.character(lgl))),
               "Column `lgl` of `new_data` has type <character>, but it had type <logical>")
  expect_error(predict(fit, transform(d, num = as.Date("2020-01-01") + seq_len(nrow(d)))),
               "Column `num` has class <Date>")
  listed <- d
  listed$num <- as.list(d$num)
  expect_error(predict(fit, listed), "Column `num` of `new_data` is a list column")
  inf <- d
  inf$num[2] <- Inf
  expect_error(predict(fit, inf), "Column `num` of `new_data` contains infinite values \\(row 2\\)")
})

test_that("new factor levels warn, name the level, and still predict", {
  f <- hostile_predict_fits()
  d <- f$data
  new <- d[1:4, ]
  new$fac <- factor(c("p", "NEW", "q", "NEW"))
  expect_warning(prob <- predict(f$formula, new, type = "prob"),
                 "Column `fac` has level\\(s\\) `NEW` not seen when fitting")
  hostile_expect_probabilities(prob)
  new_ord <- d[1:3, ]
  new_ord$ord <- factor(c("lo", "extreme", "hi"), levels = c("lo", "extreme", "hi"), ordered = TRUE)
  expect_warning(prob <- predict(f$formula, new_ord, type = "prob"),
                 "Column `ord` has level\\(s\\) `extreme` not seen when fitting; treated as missing")
  hostile_expect_probabilities(prob)
  new_chr <- d[1:3, ]
  new_chr$fac <- c("zzz", "p", "q")
  expect_warning(pred <- predict(f$reg, new_chr), "`zzz` not seen")
  hostile_expect_finite(pred)
  # A level that exists but was never observed at fit time is not "unseen".
  unused <- d[1:3, ]
  unused$fac <- factor(as.character(unused$fac), levels = c("p", "q", "r", "s"))
  expect_no_warning(predict(f$formula, unused))
})

test_that("zero-row new_data gives zero-length predictions of the right type", {
  f <- hostile_predict_fits()
  d <- f$data
  cls <- predict(f$formula, d[0, ])
  expect_s3_class(cls, "factor")
  expect_length(cls, 0L)
  expect_identical(levels(cls), levels(d$y))
  prob <- predict(f$xy, d[0, ], type = "prob")
  expect_identical(dim(prob), c(0L, 3L))
  expect_identical(colnames(prob), levels(d$y))
  expect_identical(predict(f$reg, d[0, ]), numeric(0))
  m <- cbind(p = d$num, q = d$int)
  fm <- ccforest(m, d$y, n_tree = 3, seed = 1)
  expect_length(predict(fm, m[0, , drop = FALSE]), 0L)
  multi <- ccforest(cbind(y, fac) ~ num + int, data = d, n_tree = 3, seed = 1)
  cls_multi <- predict(multi, d[0, ])
  expect_s3_class(cls_multi, "data.frame")
  expect_identical(dim(cls_multi), c(0L, 2L))
  prob_multi <- predict(multi, d[0, ], type = "prob")
  expect_identical(lapply(prob_multi, dim), list(y = c(0L, 3L), fac = c(0L, 3L)))
})

test_that("new_data of the wrong kind is an error naming `new_data`", {
  f <- hostile_predict_fits()
  d <- f$data
  expect_error(predict(f$formula), "`new_data` is missing")
  expect_error(predict(f$formula, NULL), "`new_data` must be a data.frame or a matrix, not <NULL>")
  expect_error(predict(f$formula, as.list(d)), "`new_data` must be .* not <list>")
  expect_error(predict(f$formula, d$num), "`new_data` must be .* not <numeric>")
  expect_error(predict(f$formula, d, type = "probability"), "`type` must be one of")
  expect_error(predict(f$formula, d, type = "response"), "type = \"response\" is for regression")
  expect_error(predict(f$reg, d, type = "prob"), "type = \"prob\" is for classification")
  expect_error(predict(f$formula, d, n_tree = 0), "`n_tree` must be .* between 1 and 5, not 0")
  expect_error(predict(f$formula, d, n_tree = 6), "`n_tree` must be .* not 6")
  expect_error(predict(f$formula, d, n_tree = NA), "`n_tree` must be .* not NA")
  expect_error(predict(f$formula, d, n_thread = -1), "`n_thread` must be")
  mu <- unname(as.matrix(d[c("num", "int")]))
  fu <- ccforest(mu, d$y, n_tree = 3, seed = 1)
  expect_error(predict(fu, mu[, 1, drop = FALSE]), "`new_data` has 1 unnamed columns")
  expect_error(predict(f$formula, as.matrix(d[c("num", "int")])), "missing column\\(s\\) `fac`")
})

test_that("a forest saved with saveRDS() and read back predicts identically", {
  f <- hostile_predict_fits()
  d <- f$data
  multi <- ccforest(cbind(y, fac) ~ num + int + lgl, data = d, n_tree = 3, seed = 1)
  expr <- ccforest(y ~ log(abs(num) + 1) + fac, data = d, n_tree = 3, seed = 1)
  m <- as.matrix(d[c("num", "int")])
  fm <- ccforest(unname(m), d$num + d$int, n_tree = 3, seed = 1)
  d_na <- d
  d_na$num[1:5] <- NA
  fits <- list(formula = f$formula, xy = f$xy, reg = f$reg, multi = multi, expr = expr)
  path <- tempfile(fileext = ".rds")
  on.exit(unlink(path))
  for (name in names(fits)) {
    saveRDS(fits[[name]], path)
    back <- readRDS(path)
    expect_identical(predict(back, d_na), predict(fits[[name]], d_na), label = name)
    # ASCII serialization writes doubles with 16 significant digits, so it
    # is not bit-exact: compare on complete rows, with a tolerance. (Rows
    # with missing values are imputed from a hash of their z-scores' bits,
    # which a last-digit change in the stored statistics alters.)
    ascii <- unserialize(serialize(fits[[name]], NULL, ascii = TRUE))
    expect_equal(predict(ascii, d), predict(fits[[name]], d), label = name)
  }
  saveRDS(fm, path)
  expect_identical(predict(readRDS(path), unname(m)), predict(fm, unname(m)))
})

test_that("a saved forest predicts identically in a fresh R process", {
  skip_on_cran()
  f <- hostile_predict_fits()
  d <- f$data
  d$num[1:3] <- NA
  path <- tempfile(fileext = ".rds")
  on.exit(unlink(path))
  saveRDS(f$formula, path)
  outcome <- hostile_isolated(function(path, d) {
    stats::predict(readRDS(path), d, type = "prob")
  }, list(path = path, d = d))
  hostile_expect_isolated_ok(outcome, "predicting in a fresh process")
  expect_identical(outcome$value, predict(f$formula, d, type = "prob"))
})

# Damage a saved iris forest in a child process, one way per name, and
# report what predict() did: "error: <message>", "ok: finite" or
# "ok: NON-FINITE predictions". only = "" lists the names.
hostile_run_damage <- function(path, only = NULL) {
  fit <- readRDS(path)
  fl <- fit$forest
  internal <- which(fl$child_left != 0L)[1]
  leaf <- which(fl$child_left == 0L)[1]
  leaf_entry <- fl$payload_start[leaf] + 1L
  split_entry <- fl$payload_start[internal] + 1L
  damage <- list(
    leaf_value_na = function(f) { f$forest$payload_value[leaf_entry] <- NA_real_; f },
    leaf_value_nan = function(f) { f$forest$payload_value[leaf_entry] <- NaN; f },
    leaf_value_inf = function(f) { f$forest$payload_value[leaf_entry] <- Inf; f },
    all_values_na = function(f) { f$forest$payload_value[] <- NA_real_; f },
    split_coef_na = function(f) { f$forest$payload_value[split_entry] <- NA_real_; f },
    split_coef_inf = function(f) { f$forest$payload_value[split_entry] <- Inf; f },
    thresholds_na = function(f) { f$forest$threshold[] <- NA_real_; f },
    node_start_plus_one = function(f) { f$forest$node_start[2] <- f$forest$node_start[2] + 1L; f },
    node_start_minus_one = function(f) { f$forest$node_start[2] <- f$forest$node_start[2] - 1L; f },
    node_start_zero = function(f) { f$forest$node_start[] <- 0L; f },
    node_start_na = function(f) { f$forest$node_start[2] <- NA_integer_; f },
    node_start_first_na = function(f) { f$forest$node_start[1] <- NA_integer_; f },
    node_start_empty = function(f) { f$forest$node_start <- integer(0); f },
    node_start_double = function(f) { f$forest$node_start <- as.double(f$forest$node_start); f },
    payload_start_na = function(f) { f$forest$payload_start[3] <- NA_integer_; f },
    payload_start_empty = function(f) { f$forest$payload_start <- integer(0); f },
    payload_index_na = function(f) { f$forest$payload_index[1] <- NA_integer_; f },
    payload_index_negative = function(f) { f$forest$payload_index[1] <- -1L; f },
    child_left_empty = function(f) { f$forest$child_left <- integer(0); f },
    child_left_int_min = function(f) { f$forest$child_left[1] <- -.Machine$integer.max; f },
    all_arrays_empty = function(f) { f$forest[] <- lapply(f$forest, function(v) v[0]); f },
    payload_truncated_both = function(f) {
      k <- length(f$forest$payload_value) - 2L
      f$forest$payload_value <- f$forest$payload_value[seq_len(k)]
      f$forest$payload_index <- f$forest$payload_index[seq_len(k)]
      f
    },
    last_tree_nodes_dropped = function(f) {
      k <- f$forest$node_start[length(f$forest$node_start) - 1L]
      for (v in c("child_left", "threshold", "gain")) f$forest[[v]] <- f$forest[[v]][seq_len(k)]
      f
    },
    forest_unnamed = function(f) { f$forest <- unname(f$forest); f },
    forest_environment = function(f) { f$forest <- as.environment(f$forest); f },
    forest_data_frame = function(f) {
      f$forest <- as.data.frame(lapply(f$forest, function(v) v[1:2]))
      f
    },
    payload_value_integer = function(f) { f$forest$payload_value <- as.integer(f$forest$payload_value); f },
    threshold_character = function(f) { f$forest$threshold <- as.character(f$forest$threshold); f },
    seed_na = function(f) { f$seed <- NA_real_; f },
    seed_negative = function(f) { f$seed <- -5; f },
    seed_huge = function(f) { f$seed <- 1e30; f },
    seed_character = function(f) { f$seed <- "abc"; f },
    seed_empty = function(f) { f$seed <- numeric(0); f },
    seed_vector = function(f) { f$seed <- c(1, 2); f },
    seed_list = function(f) { f$seed <- list(1); f },
    task_unknown = function(f) { f$task <- "survival"; f },
    task_number = function(f) { f$task <- 1; f },
    options_na_action_null = function(f) { f$options$na_action <- NULL; f },
    options_na_action_unknown = function(f) { f$options$na_action <- "zzz"; f },
    options_character = function(f) { f$options <- "x"; f },
    response_more_classes = function(f) { f$response$n_class <- 5L; f },
    response_n_class_character = function(f) { f$response$n_class <- "3"; f },
    response_levels_short = function(f) { f$response$levels <- list(c("a", "b")); f },
    response_levels_null = function(f) { f$response$levels <- NULL; f },
    response_two_outputs = function(f) { f$response$n_output <- 2L; f },
    response_empty = function(f) { f$response <- list(); f },
    blueprint_center_short = function(f) { f$blueprint$center <- f$blueprint$center[-1]; f },
    blueprint_scale_na = function(f) { f$blueprint$scale[1] <- NA_real_; f },
    blueprint_scale_zero = function(f) { f$blueprint$scale[1] <- 0; f },
    blueprint_feature_start_short = function(f) {
      f$blueprint$feature_start <- f$blueprint$feature_start[-2]
      f
    },
    blueprint_feature_names_short = function(f) {
      f$blueprint$feature_names <- f$blueprint$feature_names[-1]
      f
    },
    blueprint_column_names_short = function(f) {
      f$blueprint$column_names <- f$blueprint$column_names[-1]
      f
    },
    blueprint_type_unknown = function(f) { f$blueprint$feature_type[1] <- "weird"; f },
    blueprint_empty = function(f) { f$blueprint <- list(); f },
    blueprint_character = function(f) { f$blueprint <- "x"; f },
    formula_character = function(f) { f$formula <- "Species ~ ."; f },
    formula_garbage = function(f) { f$formula <- list(a = 1); f },
    version_vector = function(f) { f$version <- c("0.1.0", "0.2.0"); f }
  )
  if (identical(only, "")) return(names(damage))
  if (!is.null(only)) damage <- damage[only]
  new <- datasets::iris[c(1, 51, 101), ]
  vapply(names(damage), function(name) {
    broken <- damage[[name]](fit)
    tryCatch({
      pred <- stats::predict(broken, new, type = "prob")
      if (all(is.finite(unlist(pred)))) "ok: finite" else "ok: NON-FINITE predictions"
    }, error = function(e) paste("error:", conditionMessage(e)))
  }, character(1))
}

# Run the named kinds of damage; each must stop with an error saying the
# object is damaged. A crash of the batch reruns each case alone so that the
# crashing ones are named.
hostile_damage_cache <- new.env(parent = emptyenv())

hostile_expect_damage_refused <- function(cases) {
  fit <- ccforest(Species ~ ., data = iris, n_tree = 4, seed = 1)
  path <- tempfile(fileext = ".rds")
  on.exit(unlink(path))
  saveRDS(fit, path)
  # One child process runs every case once; later tests reuse its answers.
  if (is.null(hostile_damage_cache$outcome)) {
    hostile_damage_cache$outcome <- hostile_isolated(hostile_run_damage, list(path = path))
  }
  outcome <- hostile_damage_cache$outcome
  if (identical(outcome$status, "ok")) {
    outcome$value <- outcome$value[intersect(cases, names(outcome$value))]
  }
  if (identical(outcome$status, "crash")) {
    single <- lapply(cases, function(case) {
      hostile_isolated(hostile_run_damage, list(path = path, only = case))
    })
    for (i in seq_along(cases)) {
      hostile_expect_isolated_ok(single[[i]], cases[[i]])
    }
    outcome$value <- unlist(lapply(single, `[[`, "value"))
    outcome$stderr <- paste(vapply(single, `[[`, "", "stderr"), collapse = "\n")
  }
  expect_setequal(names(outcome$value), cases)
  for (name in names(outcome$value)) {
    # Not an R internal message ("subscript out of bounds", "$ operator is
    # invalid") nor an Rcpp conversion message ("Not compatible with
    # requested type"), and never a prediction.
    expect_match(outcome$value[[name]], "^error: .*damaged", label = name)
  }
  expect_false(grepl("TBB|terminate called", outcome$stderr))
}

test_that("corrupted forest arrays: bad offsets, truncation and types are refused", {
  # Cases beyond those of test-serialize.R; these pass today and guard the
  # validation in src/serialize.cpp.
  skip_on_cran()
  hostile_expect_damage_refused(c(
    "thresholds_na", "node_start_plus_one", "node_start_minus_one", "node_start_zero",
    "node_start_na", "node_start_first_na", "node_start_empty", "node_start_double",
    "payload_start_na", "payload_start_empty", "payload_index_na", "payload_index_negative",
    "child_left_empty", "child_left_int_min", "all_arrays_empty", "payload_truncated_both",
    "last_tree_nodes_dropped", "forest_unnamed", "forest_environment", "forest_data_frame",
    "payload_value_integer", "threshold_character"
  ))
})

test_that("corrupted forest arrays: non-finite leaf values and coefficients are refused", {
  # NA/NaN/Inf in payload_value pass src/serialize.cpp's checks: a leaf
  # value gives NaN or Inf probabilities, a split coefficient silently sends
  # every row right.
  skip_on_cran()
  hostile_expect_damage_refused(c(
    "leaf_value_na", "leaf_value_nan", "leaf_value_inf", "all_values_na",
    "split_coef_na", "split_coef_inf"
  ))
})

test_that("a corrupted seed is refused, not cast or converted by Rcpp", {
  # NA, negative and huge seeds reach static_cast<uint64_t>(double) in
  # src/bindings.cpp (undefined behaviour); character, list or length != 1
  # seeds give Rcpp's "Not compatible with requested type" or "Expecting a
  # single value".
  skip_on_cran()
  hostile_expect_damage_refused(c(
    "seed_na", "seed_negative", "seed_huge", "seed_character", "seed_empty",
    "seed_vector", "seed_list"
  ))
})

test_that("corrupted R-side parts (task, options, response, blueprint, formula, version) are refused", {
  skip_on_cran()
  hostile_expect_damage_refused(c(
    "task_unknown", "task_number", "options_na_action_null", "options_na_action_unknown",
    "options_character", "response_more_classes", "response_n_class_character",
    "response_levels_short", "response_levels_null", "response_two_outputs", "response_empty",
    "blueprint_center_short", "blueprint_scale_na", "blueprint_scale_zero",
    "blueprint_feature_start_short", "blueprint_feature_names_short",
    "blueprint_column_names_short", "blueprint_type_unknown", "blueprint_empty",
    "blueprint_character", "formula_character", "formula_garbage", "version_vector"
  ))
})

test_that("the user's data is never modified: data.frame, matrix, tibble, data.table", {
  d <- hostile_mixed_data(50)
  d$num[c(2, 9)] <- NA
  d$chr <- sample(c("a", "b"), nrow(d), replace = TRUE)
  attr(d, "note") <- "user attribute"
  inputs <- list(data.frame = d)
  if (requireNamespace("tibble", quietly = TRUE)) inputs$tibble <- tibble::as_tibble(d)
  if (requireNamespace("data.table", quietly = TRUE)) inputs$data.table <- data.table::as.data.table(d)
  for (kind in names(inputs)) {
    data <- inputs[[kind]]
    copy <- hostile_deep_copy(data)
    x <- data[names(data) != "y"]
    y <- data[["y"]]
    x_copy <- hostile_deep_copy(x)
    y_copy <- hostile_deep_copy(y)
    for (na_action in c("impute_random", "impute_mean", "omit")) {
      fit <- suppressMessages(ccforest(y ~ ., data = data, n_tree = 3, seed = 1, na_action = na_action))
      suppressWarnings(predict(fit, data))
      fit_xy <- suppressMessages(ccforest(x, y, n_tree = 3, seed = 1, na_action = na_action))
      suppressWarnings(predict(fit_xy, x, type = "prob"))
    }
    expect_identical(data, copy, label = kind)
    expect_identical(x, x_copy, label = paste(kind, "x"))
    expect_identical(y, y_copy, label = paste(kind, "y"))
  }
  m <- cbind(a = stats::rnorm(30), b = stats::rnorm(30))
  m[3, 1] <- NA
  attr(m, "note") <- "user attribute"
  m_copy <- hostile_deep_copy(m)
  yv <- stats::rnorm(30)
  yv_copy <- hostile_deep_copy(yv)
  fit <- ccforest(m, yv, n_tree = 3, seed = 1)
  predict(fit, m)
  fit <- ccforest(m, yv, n_tree = 3, seed = 1, na_action = "omit")
  predict(fit, m)
  expect_identical(m, m_copy)
  expect_identical(yv, yv_copy)
  # Multi-output y as a data.frame.
  ydf <- data.frame(p = factor(m[, 2] > 0), q = factor(rep(c("s", "t"), 15)))
  ydf_copy <- hostile_deep_copy(ydf)
  predict(ccforest(m, ydf, n_tree = 3, seed = 1), m)
  expect_identical(ydf, ydf_copy)
})
