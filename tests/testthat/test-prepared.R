# What a fit prepares for its predictions (src/prepared.h): its verification
# and its decoded trees, kept once per fit while the fit lives, released with
# it, rebuilt after a round trip through serialization, and never trusted
# after the fit was edited.

held <- function(fit = NULL) {
  bytes <- utils::getFromNamespace("ccf_cache_bytes_cpp", "ccforest")
  if (is.null(fit)) bytes() else bytes(fit$cache)
}

prepared_fit <- function(n_tree = 20) {
  set.seed(3)
  d <- make_spiral(600)
  list(fit = ccforest(class ~ ., d, n_tree = n_tree, seed = 1), data = d)
}

test_that("a fit keeps its decoded trees across collections, and only one copy", {
  s <- prepared_fit()
  fit <- s$fit
  bytes <- held(fit)
  expect_gt(bytes, 0)  # decoded when it was fitted
  p <- predict(fit, s$data, type = "prob")
  invisible(gc())
  invisible(gc(full = TRUE))
  expect_identical(held(fit), bytes)
  for (i in 1:20) expect_identical(predict(fit, s$data[i, ], type = "prob"), p[i, , drop = FALSE])
  # Predicting never adds to what is kept, whatever the rows and types.
  predict(fit, s$data, n_tree = 5)
  predict(fit, s$data, predict_all = TRUE)
  predict(fit, s$data, type = "terminal_nodes")
  expect_identical(held(fit), bytes)
  # Decoded trees are words; a few times their stored bytes.
  stored <- sum(lengths(fit$forest$trees))
  expect_gt(bytes, stored)
  expect_lt(bytes, 4 * stored)
})

test_that("a quantile forest's prepared samples are counted with its trees, once", {
  set.seed(4)
  x <- data.frame(a = rnorm(300), b = rnorm(300))
  y <- x$a + rnorm(300)
  plain <- ccforest(x, y, n_tree = 10, seed = 1)
  fit <- ccforest(x, y, n_tree = 10, seed = 1, quantiles = TRUE)
  expect_identical(fit$forest$trees, plain$forest$trees)
  q <- predict(fit, x[1:3, ], type = "quantiles", quantiles = c(0.1, 0.9))
  counted <- held(fit)
  # Beyond the same trees: at least each tree's leaf starts (8 bytes a leaf).
  leaves <- vapply(seq_len(10), function(t) sum(tree_info(fit, t)$terminal), integer(1))
  expect_gte(counted - held(plain), 8 * sum(leaves + 1L))
  predict(fit, x, type = "quantiles", quantiles = 0.5)
  invisible(gc())
  expect_identical(held(fit), counted)
  expect_identical(predict(fit, x[1:3, ], type = "quantiles", quantiles = c(0.1, 0.9)), q)
})

test_that("what a fit prepared is released when the fit is collected", {
  invisible(gc())
  before <- held()
  s <- prepared_fit()
  fit <- s$fit
  predict(fit, s$data[1:3, ])
  copy <- fit  # a copy shares the fit's preparation: no second decoding
  predict(copy, s$data[1:3, ])
  expect_identical(held(), before + held(fit))
  rm(fit, copy, s)
  invisible(gc())
  expect_identical(held(), before)
})

test_that("a fit whose formula environment refers to the fit is still released", {
  # The verified elements are kept through a weak reference keyed on the
  # handle, so a cycle through the formula's environment cannot keep them.
  invisible(gc())
  before <- held()
  local({
    d <- make_spiral(300)
    fit <- ccforest(class ~ log(abs(x1) + 1) + x2, d, n_tree = 10, seed = 1)
    predict(fit, d[1:2, ])
    expect_gt(held(fit), 0)
    NULL
  })
  invisible(gc())
  expect_identical(held(), before)
})

test_that("a fit read back or unserialized is prepared again on first use", {
  s <- prepared_fit()
  p <- predict(s$fit, s$data, type = "prob")
  path <- tempfile(fileext = ".rds")
  on.exit(unlink(path))
  saveRDS(s$fit, path)
  back <- readRDS(path)
  expect_identical(held(back), 0)
  expect_identical(predict(back, s$data, type = "prob"), p)
  expect_identical(held(back), held(s$fit))
  worker <- unserialize(serialize(s$fit, NULL))
  expect_identical(predict(worker, s$data[5, ], type = "prob"), p[5, , drop = FALSE])
  # The handle adds nothing to what is written.
  no_handle <- s$fit
  no_handle$cache <- NULL
  expect_lt(length(serialize(s$fit, NULL)) - length(serialize(no_handle, NULL)), 100)
})

test_that("a fit edited between two predictions is refused, its original is not", {
  s <- prepared_fit()
  fit <- s$fit
  p <- predict(fit, s$data[1:4, ], type = "prob")
  edited <- fit
  edited$blueprint$center[[1]] <- 9
  expect_error(predict(edited, s$data[1:4, ]), "`object` is damaged: its contents do not match")
  expect_identical(predict(fit, s$data[1:4, ], type = "prob"), p)
  # A byte of a tree, in place, however it is reached.
  tree <- fit
  tree$forest$trees[[3]][40] <- as.raw(bitwXor(as.integer(tree$forest$trees[[3]][40]), 1L))
  expect_error(predict(tree, s$data[1:4, ]), "`object` is damaged")
  # Elements outside the seal (the call) may change; the seal may not go.
  called <- fit
  called$call <- quote(anything())
  expect_identical(predict(called, s$data[1:4, ], type = "prob"), p)
  unsealed <- fit
  unsealed$options$na_action <- "fail"
  expect_error(predict(unsealed, s$data[1:4, ]), "`object` is damaged")
  expect_identical(predict(fit, s$data[1:4, ], type = "prob"), p)
  # The same in every entry point that reads the trees.
  expect_error(importance(edited), "is damaged")
  expect_error(predict(edited, s$data[1:4, ], predict_all = TRUE), "is damaged")
})

test_that("a forest too large for its memory limit predicts the same without being kept", {
  s <- prepared_fit(n_tree = 30)
  p <- predict(s$fit, s$data, type = "prob")
  p7 <- predict(s$fit, s$data, type = "prob", n_tree = 7)
  stored <- sum(lengths(s$fit$forest$trees))
  # Verified again (after a round trip) under a limit the stored trees fit
  # in but their decoded form does not.
  back <- unserialize(serialize(s$fit, NULL))
  withr::with_options(list(ccforest.memory_limit = 2 * stored),
                      expect_identical(predict(back, s$data, type = "prob"), p))
  expect_identical(predict(back, s$data, type = "prob", n_tree = 7), p7)
  expect_identical(held(back), 0)
})

test_that("objects without a handle (older fits) predict as before", {
  s <- prepared_fit()
  p <- predict(s$fit, s$data, type = "prob")
  old <- s$fit
  old$cache <- NULL
  expect_identical(predict(old, s$data, type = "prob"), p)
  old$blueprint$center[[1]] <- 9
  expect_error(predict(old, s$data), "is damaged")
})

test_that("every prediction type is the same from a prepared fit as from a fresh one", {
  set.seed(4)
  n <- 400
  x <- data.frame(a = rnorm(n), b = rnorm(n), f = factor(sample(letters[1:3], n, TRUE)))
  y <- x$a - x$b + rnorm(n)
  reg <- ccforest(x, y, n_tree = 15, quantiles = TRUE, seed = 2, sampling = "bagging")
  # Verified under a limit nothing fits in: decoded per call from then on.
  unprepared <- function(fit) {
    withr::local_options(ccforest.memory_limit = 1)
    back <- unserialize(serialize(fit, NULL))
    check_ccforest <- utils::getFromNamespace("check_ccforest", "ccforest")
    check_ccforest(back)
  }
  cold <- unprepared(reg)
  new_x <- x[1:30, ]
  new_x$a[3] <- NA
  for (args in list(list(), list(n_tree = 4L), list(type = "quantiles"),
                    list(predict_all = TRUE), list(type = "terminal_nodes"),
                    list(type = "se"))) {
    hot_p <- suppressWarnings(do.call(predict, c(list(reg, new_x), args)))
    cold_p <- suppressWarnings(do.call(predict, c(list(cold, new_x), args)))
    expect_identical(hot_p, cold_p)
  }
  expect_identical(held(cold), 0)
  expect_gt(held(reg), 0)
  sv <- ccforest(survival::Surv(time, status) ~ age + sex + ph.ecog, data = survival::lung,
                 n_tree = 15, seed = 1)
  cold_sv <- unprepared(sv)
  for (type in c("risk", "survival", "time")) {
    expect_identical(predict(sv, survival::lung[1:9, ], type = type, n_tree = 9),
                     predict(cold_sv, survival::lung[1:9, ], type = type, n_tree = 9))
  }
})

test_that("copies stripped of their seal record are checked in full on every call", {
  # Such a copy shares its original's handle; a verified copy without a
  # record of what its seal covers must not let the next one through.
  s <- prepared_fit()
  strip <- function(f) {
    f$version <- "0.2.0"
    f$checksum <- NULL
    f$sealed <- NULL
    f
  }
  p <- predict(s$fit, s$data[1:3, ], type = "prob")
  expect_identical(predict(strip(s$fit), s$data[1:3, ], type = "prob"), p)
  bad <- strip(s$fit)
  bad$seed <- NA_real_
  expect_error(predict(bad, s$data[1:3, ]), "`object` is damaged: its seed is not a whole number")
  bad$seed <- s$fit$seed
  bad$blueprint$scale[[1]] <- 0
  expect_error(predict(bad, s$data[1:3, ]), "`object` is damaged: its blueprint is inconsistent")
  expect_identical(predict(s$fit, s$data[1:3, ], type = "prob"), p)
})

test_that("one row from prepared trees in huge-page blocks is the same as from a fresh decode", {
  skip_on_cran()
  # Prepared trees of more than 2 MB lie in blocks of whole huge pages, and
  # requests of at most 4 rows walk 16 trees at once: compared with the same
  # fit decoded per call, for more trees than one group, with a missing value.
  set.seed(6)
  n <- 3000
  x <- data.frame(a = rnorm(n), b = rnorm(n), c = runif(n), d = rnorm(n))
  y <- x$a * x$b + sin(3 * x$c) + rnorm(n, sd = 0.3)
  reg <- ccforest(x, y, n_tree = 50, quantiles = TRUE, seed = 3)
  expect_gt(held(reg), 2 * 2^20)
  unprepared <- function(fit) {
    withr::local_options(ccforest.memory_limit = 1)
    back <- unserialize(serialize(fit, NULL))
    utils::getFromNamespace("check_ccforest", "ccforest")(back)
  }
  cold <- unprepared(reg)
  new_x <- x[1:6, ]
  new_x$b[2] <- NA
  for (i in 1:6) {
    for (args in list(list(), list(n_tree = 37L), list(type = "quantiles"),
                      list(type = "quantiles", quantiles = c(0.9, 0.2, 0.2)))) {
      expect_identical(do.call(predict, c(list(reg, new_x[i, ]), args)),
                       do.call(predict, c(list(cold, new_x[i, ]), args)))
    }
  }
  expect_identical(held(cold), 0)
  sv <- ccforest(survival::Surv(time, status) ~ age + sex + ph.ecog, data = survival::lung,
                 n_tree = 40, seed = 1)
  cold_sv <- unprepared(sv)
  rows <- survival::lung[c(1, 14, 2, 3), ]  # row 14 lacks ph.ecog
  for (i in seq_len(nrow(rows))) {
    for (type in c("risk", "survival", "chf", "time")) {
      for (n_tree in list(NULL, 21L)) {
        expect_identical(predict(sv, rows[i, ], type = type, n_tree = n_tree),
                         predict(cold_sv, rows[i, ], type = type, n_tree = n_tree))
      }
    }
  }
  # Rows one at a time give the rows' predictions of one call.
  all_rows <- predict(sv, rows, type = "survival", times = c(100, 400))
  for (i in seq_len(nrow(rows))) {
    expect_identical(predict(sv, rows[i, ], type = "survival", times = c(100, 400)),
                     all_rows[i, , drop = FALSE])
  }
})

test_that("out-of-bag estimates are the same from the trees decoded at fit time as decoded apart", {
  skip_on_cran()
  # A fit decodes its trees once, for its out-of-bag estimates and its
  # predictions; under a memory limit its grown trees fit in but their
  # decoded form does not, the estimates decode them apart, as before.
  strip <- function(fit) {
    fit <- unclass(fit)
    fit[setdiff(names(fit), c("cache", "train_time", "call"))]
  }
  refit_unprepared <- function(fit, ...) {
    limit <- 3.9 * sum(lengths(fit$forest$trees))
    withr::with_options(list(ccforest.memory_limit = limit), ccforest(...))
  }
  lung <- survival::lung
  sv <- ccforest(survival::Surv(time, status) ~ age + sex + ph.ecog, data = lung, n_tree = 500,
                 seed = 1, importance = "permutation")
  cold_sv <- refit_unprepared(sv, survival::Surv(time, status) ~ age + sex + ph.ecog,
                              data = lung, n_tree = 500, seed = 1, importance = "permutation")
  expect_gt(held(sv), 0)
  expect_identical(held(cold_sv), 0)
  expect_identical(strip(cold_sv), strip(sv))
  set.seed(3)
  d <- data.frame(a = rnorm(300), b = rnorm(300))
  d$y <- factor(d$a + rnorm(300) > 0)
  cl <- ccforest(y ~ ., d, n_tree = 200, seed = 1, sampling = "bagging")
  cold_cl <- refit_unprepared(cl, y ~ ., d, n_tree = 200, seed = 1, sampling = "bagging")
  expect_gt(held(cl), 0)
  expect_identical(held(cold_cl), 0)
  expect_identical(strip(cold_cl), strip(cl))
})
