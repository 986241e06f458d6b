# oob_error = FALSE (ranger's oob.error): a forest grown on samples without
# its out-of-bag estimates. The reference for "the same forest" is the fit
# with oob_error = TRUE on the same data and seed; for "skipped", the core's
# out-of-bag entry points, which must not be called.

oob_fields <- c("predictions", "oob_error", "oob_error_curve", "oob_prob", "residuals",
                "oob_survival", "oob_c_index", "oob_ibs", "oob_ibs_null")

# Every element but the records of how the fit was made and its seal.
fit_body <- function(fit) {
  unclass(fit)[setdiff(names(fit), c("call", "train_time", "checksum", "sealed", "cache"))]
}

oob_data <- function() {
  set.seed(4)
  n <- 120
  x <- data.frame(a = rnorm(n), b = runif(n), f = factor(sample(letters[1:3], n, TRUE)))
  x$a[c(3, 9)] <- NA
  time <- rexp(n, exp(0.7 * x$b))
  status <- rbinom(n, 1, 0.75)
  list(x = x, new = x[1:25, ],
       class = factor(ifelse(x$b + rnorm(n, sd = 0.3) > 0.5, "yes", "no")),
       real = 2 * x$b + rnorm(n, sd = 0.2),
       multi_real = data.frame(u = x$b + rnorm(n, sd = 0.1), v = x$b^2),
       multi_class = data.frame(p = factor(x$b > 0.5), q = factor(x$f == "a")),
       surv = survival::Surv(time, status),
       competing = survival::Surv(time, factor(status * sample(1:2, n, TRUE), 0:2)),
       w = rexp(n))
}
d <- oob_data()

# Replace a function of the package until the calling test ends (testthat
# 3.1.6, which the machine has, predates local_mocked_bindings()).
local_replaced <- function(name, value, env = parent.frame()) {
  real <- get(name, envir = asNamespace("ccforest"))
  utils::assignInNamespace(name, value, ns = "ccforest")
  withr::defer(utils::assignInNamespace(name, real, ns = "ccforest"), envir = env)
}

grow <- function(y, ..., x = d$x) {
  ccforest(x, y, n_tree = 15, seed = 3, n_thread = 1, verbose = FALSE, ...)
}

# Every task and the options around the out-of-bag estimates: each with its
# type of prediction on new data.
oob_cases <- list(
  class = list(y = d$class, args = list(sampling = "bagging"), type = "prob"),
  class_fraction = list(y = d$class, args = list(sample_fraction = 0.7), type = "prob"),
  class_weights = list(y = d$class, args = list(sampling = "bagging", case_weights = d$w,
                                                na_action = "omit"), type = "prob"),
  regression = list(y = d$real, args = list(sampling = "bagging"), type = "response"),
  quantiles = list(y = d$real, args = list(sampling = "bagging", quantiles = TRUE),
                   type = "quantiles"),
  multi_class = list(y = d$multi_class, args = list(sampling = "bagging"), type = "prob"),
  multi_real = list(y = d$multi_real, args = list(sampling = "bagging"), type = "response"),
  survival = list(y = d$surv, args = list(), type = "survival"),
  survival_omit = list(y = d$surv, args = list(na_action = "omit", case_weights = d$w),
                       type = "risk"),
  competing = list(y = d$competing, args = list(), type = "cif")
)

test_that("oob_error = FALSE grows the same forest, predicts the same, and stores no estimate", {
  for (name in names(oob_cases)) {
    case <- oob_cases[[name]]
    with <- do.call(grow, c(list(case$y), case$args))
    without <- do.call(grow, c(list(case$y, oob_error = FALSE), case$args))
    expect_identical(without$forest, with$forest, label = name)
    expect_identical(predict(without, d$new, type = case$type, n_thread = 1),
                     predict(with, d$new, type = case$type, n_thread = 1), label = name)
    # What the estimates are: every task's own, and nothing else.
    expect_true(all(c("predictions", "oob_error") %in% names(with)), label = name)
    dropped <- setdiff(names(with), names(without))
    expect_setequal(dropped, intersect(oob_fields, names(with)))
    expect_identical(setdiff(names(without), names(with)), character(0), label = name)
    # The options record the choice, and nothing else differs.
    expect_false(without$options$oob_error, label = name)
    expect_null(with$options$oob_error, label = name)
    body_with <- fit_body(with)[setdiff(names(with), dropped)]
    body_without <- fit_body(without)
    body_without$options$oob_error <- NULL
    expect_identical(body_without[names(body_with)], body_with, label = name)
  }
})

test_that("oob_error = FALSE acts on forests grown on samples only", {
  with <- grow(d$class)
  without <- grow(d$class, oob_error = FALSE)
  expect_identical(with$options$sampling, "projection")
  expect_null(without$options$oob_error)
  expect_identical(fit_body(without), fit_body(with))
  expect_false(any(grepl("not computed", utils::capture.output(print(without)))))
})

test_that("oob_error = FALSE calls none of the core's out-of-bag computations", {
  refuse <- function(...) stop("an out-of-bag computation was called")
  for (name in c("ccf_oob_cpp", "ccf_oob_survival_cpp", "ccf_oob_negation_cpp")) {
    local_replaced(name, refuse)
  }
  for (name in names(oob_cases)) {
    case <- oob_cases[[name]]
    expect_no_error(do.call(grow, c(list(case$y, oob_error = FALSE), case$args)))
    expect_error(do.call(grow, c(list(case$y), case$args)), "an out-of-bag computation")
  }
})

test_that("oob_error = FALSE sets no memory aside for out-of-bag estimates", {
  asked <- list()
  local_replaced("memory_for_trees", function(extra, limit = Inf) {
    asked[[length(asked) + 1L]] <<- extra
    1e15
  })
  grow(d$surv)
  grow(d$surv, oob_error = FALSE)
  grow(d$class, sampling = "bagging")
  grow(d$class, sampling = "bagging", oob_error = FALSE)
  expect_gt(asked[[1L]][["oob"]], 0)
  expect_identical(asked[[2L]][["oob"]], 0)
  expect_gt(asked[[3L]][["oob"]], 0)
  expect_identical(asked[[4L]][["oob"]], 0)
})

test_that("oob_error must be TRUE or FALSE", {
  expect_error(grow(d$surv, oob_error = NA), "`oob_error` must be TRUE or FALSE, not NA.",
               fixed = TRUE)
  expect_error(grow(d$surv, oob_error = "no"),
               "`oob_error` must be TRUE or FALSE, not a character vector of length 1 (\"no\").",
               fixed = TRUE)
  expect_error(grow(d$surv, oob_error = 0), "`oob_error` must be TRUE or FALSE, not",
               fixed = TRUE)
  expect_error(grow(d$surv, oob_error = c(TRUE, FALSE)),
               "`oob_error` must be TRUE or FALSE, not a logical vector of length 2",
               fixed = TRUE)
  expect_error(grow(d$surv, oob_error = logical(0)),
               "`oob_error` must be TRUE or FALSE, not a logical vector of length 0.",
               fixed = TRUE)
  expect_error(grow(d$surv, oob_error = NULL), "`oob_error` must be TRUE or FALSE, not NULL.",
               fixed = TRUE)
  # Checked before the data are read.
  expect_error(ccforest(d$x[0, ], d$class[0], oob_error = NA), "`oob_error`", fixed = TRUE)
})

test_that("importance measured out of bag at fit time is refused with oob_error = FALSE", {
  for (type in c("permutation", "negation")) {
    expect_error(grow(d$class, sampling = "bagging", importance = type, oob_error = FALSE),
                 sprintf(paste0(
                   "importance = \"%s\" at fit time is measured on the out-of-bag rows, whose ",
                   "estimates oob_error = FALSE skips: drop oob_error = FALSE, or measure it on ",
                   "held-out data with importance(fit, type = \"%s\", new_data = <held-out ",
                   "data>)."), type, type), fixed = TRUE)
    expect_error(grow(d$surv, importance = type, oob_error = FALSE),
                 sprintf("importance = \"%s\" at fit time", type), fixed = TRUE)
  }
  # Projection importance needs no out-of-bag rows.
  with <- grow(d$class, sampling = "bagging", importance = "projection")
  without <- grow(d$class, sampling = "bagging", importance = "projection", oob_error = FALSE)
  expect_identical(importance(without), importance(with))
})

test_that("print() and summary() say the estimates were not computed", {
  cases <- list(list(d$class, "OOB error:"), list(d$real, "OOB error:"),
                list(d$surv, "Out of bag:"), list(d$competing, "Out of bag:"))
  for (case in cases) {
    fit <- grow(case[[1L]], sampling = "bagging", oob_error = FALSE)
    line <- sprintf("^%s +not computed \\(oob_error = FALSE\\)$", case[[2L]])
    expect_match(utils::capture.output(print(fit)), line, all = FALSE)
    expect_match(utils::capture.output(print(summary(fit))), line, all = FALSE)
    expect_false(any(grepl("NA", utils::capture.output(print(fit)), fixed = TRUE)))
    expect_identical(summary(fit)$oob, "not computed (oob_error = FALSE)")
  }
})

test_that("summary() shows the out-of-bag estimates print() shows", {
  bagged <- grow(d$class, sampling = "bagging")
  expect_match(utils::capture.output(print(summary(bagged))),
               sprintf("^OOB error: +%.2f%% misclassified \\(out of bag\\)$",
                       100 * bagged$oob_error), all = FALSE)
  surv <- grow(d$surv)
  expect_match(utils::capture.output(print(summary(surv))),
               sprintf("^Out of bag: +C-index %.3f;", surv$oob_c_index), all = FALSE)
  # Forests without out-of-bag rows have no row.
  expect_false(any(grepl("^OOB error:", utils::capture.output(print(summary(grow(d$class)))))))
})

test_that("what needs the out-of-bag estimates says oob_error = FALSE skipped them", {
  reg <- grow(d$real, sampling = "bagging", oob_error = FALSE)
  skipped <- paste0("`object` was fitted with oob_error = FALSE, which skips the out-of-bag ",
                    "estimates: refit it without oob_error = FALSE (the trees are the same)")
  expect_error(fitted(reg), paste0("fitted() gives out-of-bag predictions, but ", skipped,
                                   ", or use predict(object, <held-out data>)."), fixed = TRUE)
  expect_error(residuals(reg), paste0("residuals() gives out-of-bag predictions, but ",
                                      skipped), fixed = TRUE)
  surv <- grow(d$surv, oob_error = FALSE)
  expect_error(fitted(surv), "fitted() gives out-of-bag predictions, but", fixed = TRUE)
  for (fit in list(reg, surv)) {
    expect_error(plot(fit, which = "error"), paste0(
      "which = \"error\" plots the out-of-bag error against the number of trees, which this ",
      "forest does not have: it was fitted with oob_error = FALSE, which skips the ",
      "out-of-bag estimates (refit without it to have the curve). Use which = ",
      "\"importance\"."), fixed = TRUE)
  }
  jackknife <- paste0(
    "interval = \"jackknife+\" (a bagged forest's default without `calibration`) builds ",
    "intervals from the out-of-bag residuals, but ", skipped, ", or use interval = \"cqr\" ",
    "with a calibration set and quantiles = TRUE.")
  expect_error(predict(reg, d$new, type = "interval"), jackknife, fixed = TRUE)
  expect_error(predict(reg, d$new, type = "interval", interval = "jackknife+"), jackknife,
               fixed = TRUE)
  expect_error(importance(reg, type = "permutation"), paste0(
    "Permutation importance needs held-out data: call importance(fit, new_data = ...) with ",
    "data not used to fit the forest and its outputs in `y`. `x` was fitted with ",
    "oob_error = FALSE, so it has no out-of-bag importance (importance = \"permutation\" at ",
    "fit time needs out-of-bag estimates)."), fixed = TRUE)
  expect_error(importance(reg, type = "negation"),
               "call importance(fit, new_data = ..., type = \"negation\")", fixed = TRUE)
})

test_that("the plot of a forest without estimates shows its importance", {
  fit <- grow(d$class, sampling = "bagging", oob_error = FALSE)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(fit), fit)
  skip_if_not_installed("ggplot2")
  expect_s3_class(ggplot2::autoplot(fit), "ggplot")
  expect_error(ggplot2::autoplot(fit, which = "error"), "oob_error = FALSE", fixed = TRUE)
})

test_that("what needs only the trees' samples works without the estimates", {
  with <- grow(d$real, sampling = "bagging", quantiles = TRUE)
  without <- grow(d$real, sampling = "bagging", quantiles = TRUE, oob_error = FALSE)
  # Standard errors redraw the samples from the seed.
  expect_identical(suppressWarnings(predict(without, d$new, type = "se", n_thread = 1)),
                   suppressWarnings(predict(with, d$new, type = "se", n_thread = 1)))
  cls_with <- grow(d$class, sampling = "bagging")
  cls_without <- grow(d$class, sampling = "bagging", oob_error = FALSE)
  expect_identical(suppressWarnings(predict(cls_without, d$new, type = "se", n_thread = 1)),
                   suppressWarnings(predict(cls_with, d$new, type = "se", n_thread = 1)))
  # Conformalised quantile intervals use a calibration set.
  calibration <- d$x[26:60, ]
  expect_identical(
    predict(without, d$new, type = "interval", calibration = calibration,
            calibration_y = d$real[26:60]),
    predict(with, d$new, type = "interval", calibration = calibration,
            calibration_y = d$real[26:60]))
  # Held-out importance.
  expect_identical(
    importance(without, new_data = d$x[26:60, ], y = d$real[26:60], seed = 1),
    importance(with, new_data = d$x[26:60, ], y = d$real[26:60], seed = 1))
  surv_with <- grow(d$surv)
  surv_without <- grow(d$surv, oob_error = FALSE)
  expect_identical(
    importance(surv_without, type = "negation", new_data = d$x[26:60, ], y = d$surv[26:60]),
    importance(surv_with, type = "negation", new_data = d$x[26:60, ], y = d$surv[26:60]))
})

test_that("saved and reloaded, a forest without estimates is still one", {
  fit <- grow(d$surv, oob_error = FALSE)
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(fit, path)
  again <- readRDS(path)
  expect_identical(predict(again, d$new, type = "risk"), predict(fit, d$new, type = "risk"))
  expect_error(fitted(again), "oob_error = FALSE", fixed = TRUE)
})

test_that("ranges grown with and without estimates combine into one forest", {
  whole <- grow(d$class, sampling = "bagging", oob_error = FALSE)
  first <- ccforest(d$x, d$class, n_tree = 7, seed = 3, n_thread = 1, verbose = FALSE,
                    sampling = "bagging", oob_error = FALSE)
  second <- ccforest(d$x, d$class, n_tree = 8, seed = 3, n_thread = 1, verbose = FALSE,
                     sampling = "bagging", oob_error = FALSE, first_tree = 8)
  expect_silent(both <- combine_forests(first, second))
  expect_identical(both$forest, whole$forest)
  expect_false(both$options$oob_error)
  expect_match(utils::capture.output(print(both)),
               "^OOB error: +not computed \\(oob_error = FALSE\\)$", all = FALSE)
  # oob_error does not change the trees, so ranges may differ in it; the
  # combination has no estimates either way, and is not said to have skipped them.
  first_with <- ccforest(d$x, d$class, n_tree = 7, seed = 3, n_thread = 1, verbose = FALSE,
                         sampling = "bagging")
  second_with <- ccforest(d$x, d$class, n_tree = 8, seed = 3, n_thread = 1, verbose = FALSE,
                          sampling = "bagging", first_tree = 8)
  for (mixed in list(combine_forests(first, second_with),
                     suppressMessages(combine_forests(second, first_with)))) {
    expect_identical(mixed$forest, whole$forest)
    expect_null(mixed$options$oob_error)
    expect_null(mixed$oob_error)
  }
  # The message says what the first range had and the combination drops.
  expect_message(combine_forests(second, first_with), "has no out-of-bag predictions")
  # Other options still have to agree.
  other <- ccforest(d$x, d$class, n_tree = 8, seed = 3, n_thread = 1, verbose = FALSE,
                    sampling = "bagging", oob_error = FALSE, first_tree = 8, max_depth = 3)
  expect_error(combine_forests(first, other), "were fitted with different options: max_depth",
               fixed = TRUE)
})

test_that("backend = \"future\" skips the estimates too", {
  skip_if_not_installed("future")
  future::plan(future::sequential)
  on.exit(future::plan(future::sequential), add = TRUE)
  threads <- grow(d$surv, oob_error = FALSE)
  futures <- grow(d$surv, oob_error = FALSE, backend = "future", n_batch = 2)
  expect_identical(futures$forest, threads$forest)
  expect_false(futures$options$oob_error)
  expect_null(futures$oob_error)
})

test_that("update() turns the estimates on and off", {
  fit <- ccforest(mpg ~ ., mtcars, n_tree = 10, sampling = "bagging", seed = 1,
                  oob_error = FALSE)
  on <- update(fit, oob_error = TRUE)
  expect_identical(on$forest, fit$forest)
  expect_length(fitted(on), nrow(mtcars))
})
