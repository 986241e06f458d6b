# The integrity of fitted objects (issue 28): a fit is sealed with a checksum
# of what its readers use (R/object-checksum.R), checked by every function that
# reads it; objects of 0.2.0, which have none, keep working.

integrity_data <- function(n = 120, seed = 1) {
  withr::with_seed(seed, {
    d <- data.frame(x1 = rnorm(n), x2 = runif(n), g = factor(sample(letters[1:4], n, TRUE)))
    d$y <- d$x1 + as.integer(d$g) + rnorm(n)
    d$cls <- factor(ifelse(d$y > 2.5, "hi", "lo"))
    d
  })
}

#' A copy of `fit` with one bit of one tree flipped (a byte in its middle)
flip_tree_bit <- function(fit, tree = 1L, bit = 3L) {
  bytes <- fit$forest$trees[[tree]]
  at <- length(bytes) %/% 2L
  bytes[at] <- xor(bytes[at], as.raw(bitwShiftL(1L, bit)))
  fit$forest$trees[[tree]] <- bytes
  fit
}

test_that("fits are sealed: the same forest has the same checksum, call and time aside", {
  d <- integrity_data()
  a <- ccforest(y ~ x1 + x2 + g, d, n_tree = 6, seed = 1, n_thread = 1)
  b <- ccforest(y ~ x1 + x2 + g, d, n_tree = 6, seed = 1, n_thread = 2)
  expect_match(a$checksum, "^[0-9a-f]{16}$")
  expect_identical(a$checksum, b$checksum)
  xy <- ccforest(d[c("x1", "x2", "g")], d$y, n_tree = 6, seed = 1)
  expect_match(xy$checksum, "^[0-9a-f]{16}$")
  expect_false(identical(xy$checksum, a$checksum))  # no formula record
  # Records of how the fit was made are not sealed: update() replays `call`.
  changed <- a
  changed$call <- quote(ccforest(y ~ x1, d))
  changed$train_time <- 99
  expect_identical(predict(changed, d), predict(a, d))
  # Elements others add (caret stores xNames, problemType, ...) are not either.
  changed$xNames <- c("x1", "x2", "g")
  expect_identical(predict(changed, d), predict(a, d))
  # Anything sealed is.
  for (edit in list(
    function(f) { f$seed <- f$seed + 1; f },
    function(f) { f$blueprint$center[[1]] <- f$blueprint$center[[1]] * (1 + 2^-52); f },
    function(f) { f$options$na_action <- "impute_mean"; f },
    function(f) { f$forest$trees <- rev(f$forest$trees); f },
    function(f) { f$response$center <- f$response$center + 1; f },
    function(f) { names(f$blueprint$levels) <- letters[seq_along(f$blueprint$levels)]; f }
  )) {
    expect_error(predict(edit(a), d), "`object` is damaged: its contents do not match its checksum")
  }
  # An unreadable checksum is damage too.
  bad <- a
  bad$checksum <- "not hex"
  expect_error(predict(bad, d), "`object` is damaged: its checksum is unreadable")
})

test_that("every function that reads a fit refuses one with a damaged tree", {
  d <- integrity_data()
  reg <- ccforest(y ~ x1 + x2 + g, d, n_tree = 4, seed = 2, quantiles = TRUE,
                  sampling = "bagging")
  cls <- ccforest(cls ~ x1 + x2 + g, d, n_tree = 4, seed = 3)
  other <- ccforest(cls ~ x1 + x2 + g, d, n_tree = 4, seed = 3, first_tree = 5)
  bad_reg <- flip_tree_bit(reg)
  bad_cls <- flip_tree_bit(cls)
  damaged <- "is damaged: its contents do not match its checksum"
  expect_error(predict(bad_reg, d), damaged)
  expect_error(predict(bad_reg, d, type = "quantiles"), damaged)
  expect_error(predict(bad_cls, d, type = "prob"), damaged)
  expect_error(predict(bad_cls, d, chunk_size = 10), damaged)
  expect_error(importance(bad_cls, new_data = d), damaged)
  expect_error(importance(bad_cls, type = "projection"), damaged)
  expect_error(combine_forests(bad_cls, other), paste0("`bad_cls` ", damaged))
  expect_error(combine_forests(cls, flip_tree_bit(other, 2L)), damaged)
  expect_error(tree_info(bad_cls, 1), damaged)
  expect_error(partial_dependence(bad_reg, d, "x1"), damaged)
  expect_error(summary(bad_cls), damaged)
  expect_error(print(bad_cls), damaged)
  expect_error(fitted(bad_reg), damaged)
  expect_error(residuals(bad_reg), damaged)
  # Intact, they all work; combined ranges are sealed again.
  expect_length(predict(reg, d, type = "quantiles"), 3L * nrow(d))
  joined <- combine_forests(cls, other)
  expect_identical(joined$checksum,
                   ccforest(cls ~ x1 + x2 + g, d, n_tree = 8, seed = 3)$checksum)
  expect_s3_class(tree_info(joined, 8), "data.frame")
})

test_that("a forest saved by 0.2.0 (no checksum) loads and predicts as it did", {
  old <- readRDS(test_path("fixtures", "forests-0.2.0.rds"))
  expect_identical(old$reg$version, "0.2.0")
  expect_null(old$reg$checksum)
  expect_identical(old$reg$forest$format, 2L)
  new <- old$new
  expect_identical(predict(old$reg, new), old$expected$reg)
  # Quantiles: 0.2.0 summed weights in output order, which could miss a
  # target met exactly (tied cumulative weights) by a rounding; these now
  # give the smaller output, as the weighted distribution written out here.
  keep <- which(stats::complete.cases(new))  # routed here without imputation
  complete <- new[keep, ]
  got <- predict(old$reg, complete, type = "quantiles")
  fit <- old$reg
  z <- ccforest:::predictor_matrix(fit, complete)
  colnames(z) <- fit$blueprint$column_names
  y <- fit$quantile$y
  w <- fit$quantile$weights
  leaf_rows <- lapply(seq_len(5), function(t) {
    info <- tree_info(fit, t)
    leaf <- cumsum(info$terminal)[route_rows(fit, t, z, info) + 1L]
    s <- fit$quantile$samples[[t]]
    n_leaf <- sum(info$terminal)
    start <- n_leaf + c(0, cumsum(s[seq_len(n_leaf)]))
    lapply(leaf, function(l) s[(start[[l]] + 1):start[[l + 1]]] + 1L)
  })
  cdf <- function(i, v) {
    sum(vapply(leaf_rows, function(tree) {
      rows <- tree[[i]]
      sum(w[rows][y[rows] <= v]) / sum(w[rows])
    }, numeric(1)))
  }
  probs <- c(0.1, 0.5, 0.9)
  expected <- t(vapply(seq_len(nrow(complete)), function(i) {
    candidates <- sort(unique(y[unlist(lapply(leaf_rows, `[[`, i))]))
    vapply(probs, function(p) {
      candidates[which(vapply(candidates, function(v) cdf(i, v), 0) >= 5 * p - 1e-12)[[1]]]
    }, numeric(1))
  }, numeric(3)))
  expect_identical(unname(got), expected)
  differ <- which(got != old$expected$quantiles[keep, ], arr.ind = TRUE)
  for (k in seq_len(nrow(differ))) {
    i <- differ[k, 1]
    expect_equal(cdf(i, got[i, differ[k, 2]]), 5 * probs[[differ[k, 2]]], tolerance = 1e-12)
  }
  expect_identical(predict(old$cls, new, type = "prob"), old$expected$prob)
  expect_identical(predict(old$cls, new), old$expected$class)
  expect_identical(fitted(old$reg), old$expected$fitted)
  expect_identical(importance(old$cls), old$expected$importance)
  expect_output(print(old$cls), "Trees:\\s+5")
  # Without a checksum the structural checks and the core's checks of every
  # tree still refuse damage they can see.
  bad <- old$cls
  bad$forest$trees[[1]] <- bad$forest$trees[[1]][-1]
  expect_error(predict(bad, new), "`object` is damaged: a tree")
})

# Issue 36: the seal covers every element a fit has when it is sealed (0.3.0
# listed what it covered, and left out what 0.3.0 itself added).

#' Fits of every kind, with every element a fit can have
sealed_fit_kinds <- function() {
  d <- integrity_data()
  d$x1[3] <- NA
  vet <- survival::veteran
  cr <- withr::with_seed(4, {
    n <- 150
    data.frame(x1 = rnorm(n), x2 = rnorm(n), time = rexp(n),
               event = factor(sample(c("cens", "a", "b"), n, TRUE), levels = c("cens", "a", "b")))
  })
  list(
    classification = ccforest(cls ~ x1 + x2 + g, d, n_tree = 6, seed = 1, sampling = "bagging",
                              importance = "permutation", case_weights = rep(1:2, 60)),
    regression = ccforest(y ~ x1 + x2 + g, d, n_tree = 6, seed = 1, sampling = "bagging",
                          quantiles = TRUE, na_action = "omit", importance = "negation"),
    projection = ccforest(d[c("x2", "g")], d$y, n_tree = 4, seed = 1, importance = "projection"),
    survival = ccforest(survival::Surv(time, status) ~ age + karno + celltype, vet, n_tree = 6,
                        seed = 1, importance = "permutation", verbose = FALSE),
    competing = ccforest(survival::Surv(time, event) ~ x1 + x2, cr, n_tree = 6, seed = 1,
                         verbose = FALSE)
  )
}

#' The same value with one thing changed, whatever the value is
perturb <- function(v) {
  if (is.list(v) && length(v) > 0L) {
    v[[1L]] <- perturb(v[[1L]])
  } else if (is.logical(v) && length(v) > 0L) {
    v[[1L]] <- !isTRUE(v[[1L]])
  } else if (is.numeric(v) && !is.object(v) && length(v) > 0L) {
    v[[1L]] <- if (is.na(v[[1L]])) 0 else v[[1L]] + 1
  } else if (is.character(v) && length(v) > 0L) {
    v[[1L]] <- paste0(v[[1L]], "x")
  } else if (is.raw(v) && length(v) > 0L) {
    v[[1L]] <- xor(v[[1L]], as.raw(1L))
  } else {
    v <- if (is.null(v)) 1 else structure(v, perturbed = TRUE)
  }
  v
}

test_that("every element of every kind of fit is sealed, bar the records of how it was made", {
  fits <- sealed_fit_kinds()
  unsealed <- ccforest:::unsealed_elements
  expect_setequal(unsealed, c("call", "train_time", "checksum", "cache"))
  for (kind in names(fits)) {
    fit <- fits[[kind]]
    # A new element of a fit is sealed without anyone listing it.
    expect_setequal(fit$sealed, setdiff(names(fit), unsealed))
    expect_true(all(intersect(ccforest:::sealed_elements_0_3_0, names(fit)) %in% fit$sealed))
    for (name in setdiff(names(fit), unsealed)) {
      edited <- fit
      edited[[name]] <- perturb(edited[[name]])
      expect_false(identical(edited[[name]], fit[[name]]), label = paste(kind, name))
      expect_error(print(edited), "is damaged: its contents do not match its checksum",
                   label = paste(kind, "edited", name))
      deleted <- fit
      deleted[[name]] <- NULL
      expect_error(print(deleted), "is damaged", label = paste(kind, "deleted", name))
    }
  }
})

test_that("the hunt's edits of what 0.3.0 left unsealed are refused", {
  fits <- sealed_fit_kinds()
  d <- integrity_data()
  damaged <- "`object` is damaged: its contents do not match its checksum"
  surv <- fits$survival
  surv$oob_c_index[[1]] <- 0.99
  expect_error(print(surv), "is damaged: its contents do not match its checksum")
  cls <- fits$classification
  cls$oob_prob[1, ] <- c(1, 0)
  expect_error(fitted(cls), damaged)
  reg <- fits$regression
  flipped <- reg
  flipped$bagging$uniform_weights <- !flipped$bagging$uniform_weights
  expect_error(predict(flipped, d, type = "interval"), damaged)
  truncated <- reg
  truncated$bagging$weights <- truncated$bagging$weights[-1]
  expect_error(predict(truncated, d, type = "se"), damaged)
  # Without the seal (a fit of 0.2.0 has none), the structure is still
  # checked: no internal error.
  unsealed <- as_unsealed(fits$classification)
  unsealed$bagging$weights <- unsealed$bagging$weights[-1]
  expect_error(predict(unsealed, d, type = "se"),
               "is damaged: its record of the trees' samples \\(`bagging`\\) is inconsistent")
  for (edit in list(function(b) { b$n_row <- -1; b }, function(b) { b$uniform_weights <- NA; b },
                    function(b) { b$kept_rows <- b$kept_rows[-1]; b }, function(b) "x")) {
    broken <- as_unsealed(fits$regression)
    broken$bagging <- edit(broken$bagging)
    expect_error(predict(broken, d), "record of the trees' samples")
  }
})

test_that("a fit of 0.3.0 or later without its checksum is refused; 0.2.0 fits are not", {
  d <- integrity_data()
  fit <- ccforest(y ~ x1 + x2 + g, d, n_tree = 4, seed = 1)
  lost <- fit
  lost$checksum <- NULL
  expect_error(predict(lost, d), paste0(
    "`object` is damaged: it has no checksum, which every fit of ccforest 0.3.0 and later ",
    "\\(this one says [0-9.]+\\) is sealed with"))
  # The hunt's case: an edited centre no longer predicts silently.
  lost$blueprint$center[[1]] <- lost$blueprint$center[[1]] + 3
  expect_error(predict(lost, d), "has no checksum")
  lost$version <- "0.3.0"
  expect_error(predict(lost, d), "this one says 0.3.0")
  # Deleting `sealed` or editing it is caught by the checksum.
  gone <- fit
  gone$sealed <- NULL
  expect_error(predict(gone, d), "do not match its checksum")
  fewer <- fit
  fewer$sealed <- setdiff(fewer$sealed, "blueprint")
  expect_error(predict(fewer, d), "do not match its checksum")
  garbled <- fit
  garbled$sealed <- 1:3
  expect_error(predict(garbled, d), "its record of what its checksum covers \\(`sealed`\\) is unreadable")
  # A fit sealed as 0.3.0 sealed (a checksum of its listed elements, no
  # `sealed`) is read as before.
  old <- fit
  old$sealed <- NULL
  old$checksum <- ccforest:::ccf_checksum_cpp(unclass(old), ccforest:::sealed_elements_0_3_0)
  expect_identical(predict(old, d), predict(fit, d))
  # 0.2.0's fits have no checksum and keep working.
  saved <- readRDS(test_path("fixtures", "forests-0.2.0.rds"))
  expect_identical(predict(saved$reg, saved$new), saved$expected$reg)
})
