# Sparse features read where they lie (issue 38): the core's reads of a
# dgCMatrix must give what its reads of the same cells given dense give.

skip_if_not_installed("Matrix")

# A sparse matrix with missing cells, an all-zero column and a column with
# one non-zero; named columns.
sparse_data <- function(n = 160, p = 12, density = 0.15, seed = 1, missing = 6) {
  set.seed(seed)
  x <- Matrix::rsparsematrix(n, p, density = density)
  x[, 3] <- 0
  x[, 4] <- 0
  x[7, 4] <- 2.5
  if (missing > 0) {
    stored <- which(x@x != 0)
    x@x[sample(stored, missing)] <- NA
  }
  x <- Matrix::drop0(x)
  colnames(x) <- paste0("f", seq_len(p))
  x
}

# The core's training sets for the sparse matrix and for its cells given
# dense, both with the sparse transform (division by the scale, no centring).
paired_training <- function(x, y, na_action = "impute_random") {
  features <- ccforest:::sparse_features(x, "x")
  bp <- ccforest:::sparse_blueprint(features, "x")
  sparse <- ccforest:::sparse_training_matrix(bp, features, na_action, "x")
  dense <- as.matrix(sparse)
  dimnames(dense) <- NULL
  response <- ccforest:::standardise_response(ccforest:::parse_response(y, "y"), NULL)
  list(
    bp = bp, response = response,
    sparse = ccforest:::training_set(sparse, bp, response),
    dense = ccforest:::training_set(dense, bp, response)
  )
}

grow_both <- function(pair, fit, n_tree) {
  core <- ccforest:::core_options(fit$options, fit$seed, pair$sparse)
  grow <- function(training) {
    ccforest:::grow_trees(training, core, first_tree = 0L, n_tree = n_tree, n_thread = 2L,
                          verbose = FALSE, limit = Inf)
  }
  list(core = core, sparse = grow(pair$sparse), dense = grow(pair$dense))
}

test_that("a forest on a dgCMatrix is the forest on its cells given dense, alike transformed", {
  x <- sparse_data()
  y <- factor(ifelse(is.na(as.matrix(x)[, 1]), 0, as.matrix(x)[, 1]) +
                ifelse(is.na(as.matrix(x)[, 2]), 0, as.matrix(x)[, 2]) > 0)
  fit <- ccforest(x, y, n_tree = 12, seed = 3, sampling = "bagging",
                  importance = "permutation", verbose = FALSE)
  pair <- paired_training(x, y)
  grown <- grow_both(pair, fit, 12L)
  # The trees: gathers from the compressed columns, the row hashes that key
  # the imputation of missing cells, an all-zero column, a single non-zero.
  expect_identical(grown$sparse, grown$dense)
  expect_identical(ccforest:::new_forest(grown$sparse, 1L, pair$sparse)$trees, fit$forest$trees)
  # Out-of-bag predictions and permutation importance read training rows.
  source <- ccforest:::forest_source(fit$seed, 1L, grown$core$sample, grown$core$impute_random)
  oob_sparse <- ccforest:::ccf_oob_cpp(fit$forest$trees, pair$sparse, source, 2L, TRUE, NULL)
  oob_dense <- ccforest:::ccf_oob_cpp(fit$forest$trees, pair$dense, source, 2L, TRUE, NULL)
  expect_identical(oob_sparse, oob_dense)
  expect_true(is.finite(fit$oob_error))
  expect_setequal(names(fit$variable.importance), colnames(x))
  # The screen reads columns.
  expect_identical(ccforest:::screen_weights(pair$sparse, colnames(x)),
                   ccforest:::screen_weights(pair$dense, colnames(x)))
  # The stored statistics: centre 0, the population standard deviation
  # over the observed cells, 1 for the all-zero column.
  dense <- as.matrix(x)
  sds <- apply(dense, 2, function(v) {
    v <- v[!is.na(v)]
    sqrt(mean((v - mean(v))^2))
  })
  sds[sds == 0] <- 1
  expect_equal(fit$blueprint$scale, unname(sds), tolerance = 1e-14)
  expect_identical(fit$blueprint$center, numeric(ncol(x)))
  expect_identical(fit$blueprint$scale[[3]], 1)
})

test_that("regression on a dgCMatrix: quantile samples and negation importance read rows alike", {
  x <- sparse_data(seed = 2, missing = 4)
  d <- as.matrix(x)
  d[is.na(d)] <- 0
  y <- d[, 1] - 2 * d[, 5] + stats::rnorm(nrow(d), sd = 0.1)
  fit <- ccforest(x, y, n_tree = 8, seed = 4, sampling = "bagging", quantiles = TRUE,
                  importance = "negation", verbose = FALSE)
  pair <- paired_training(x, y)
  grown <- grow_both(pair, fit, 8L)
  expect_identical(grown$sparse, grown$dense)
  source <- ccforest:::forest_source(fit$seed, 1L, grown$core$sample, grown$core$impute_random)
  expect_identical(ccforest:::ccf_leaf_samples_cpp(fit$forest$trees, pair$sparse, source, 2L),
                   ccforest:::ccf_leaf_samples_cpp(fit$forest$trees, pair$dense, source, 2L))
  expect_identical(fit$quantile$samples,
                   ccforest:::ccf_leaf_samples_cpp(fit$forest$trees, pair$dense, source, 2L))
  negation <- ccforest:::ccf_oob_negation_cpp(fit$forest$trees, pair$sparse, source, 2L)
  expect_identical(negation, ccforest:::ccf_oob_negation_cpp(fit$forest$trees, pair$dense, source, 2L))
  expect_true(all(is.finite(negation)))
  q <- predict(fit, d[1:5, ], type = "quantiles", quantiles = c(0.1, 0.9))
  expect_true(all(q[, 1] <= q[, 2]))
})

test_that("a sparse forest predicts sparse, dense and data.frame new data alike", {
  x <- sparse_data(seed = 5, missing = 0)
  d <- as.matrix(x)
  y <- d[, 1] + d[, 2] + stats::rnorm(nrow(d), sd = 0.05)
  fit <- ccforest(x, y, n_tree = 10, seed = 1, verbose = FALSE)
  expected <- predict(fit, d)
  expect_identical(predict(fit, x), expected)
  expect_identical(predict(fit, as.data.frame(d)), expected)
  expect_identical(predict(fit, x[, 12:1]), expected)  # matched by name
  # Sparse rows are made dense a batch at a time: batches change nothing.
  expect_identical(predict(fit, x, chunk_size = 7), expected)
  expect_identical(ccforest:::sparse_chunk_rows(10000), 419L)
  expect_identical(predict(fit, methods::as(x, "TsparseMatrix")), expected)
  # A row's prediction does not depend on its companions.
  expect_identical(predict(fit, x[9, , drop = FALSE]), expected[9])
  # The forest learnt the signal, read through the transform.
  expect_gt(stats::cor(expected, d[, 1] + d[, 2]), 0.9)
  # Missing cells in new data are imputed, in any form.
  d_na <- d[1:6, ]
  d_na[2, 1] <- NA
  s_na <- methods::as(d_na, "CsparseMatrix")
  expect_identical(predict(fit, s_na), predict(fit, d_na))
  # Saved and read back, the forest predicts the same.
  path <- tempfile(fileext = ".rds")
  saveRDS(fit, path)
  expect_identical(predict(readRDS(path), x), expected)
})

test_that("a sparse forest is as accurate as the dense one on held-out rows", {
  skip_on_cran()
  set.seed(11)
  n <- 600
  x <- Matrix::rsparsematrix(n, 40, density = 0.2)
  colnames(x) <- paste0("v", 1:40)
  d <- as.matrix(x)
  y <- factor(d[, 1] - d[, 2] + d[, 3] > 0)
  train <- 1:400
  sparse_fit <- ccforest(x[train, ], y[train], n_tree = 50, seed = 1, verbose = FALSE)
  dense_fit <- ccforest(d[train, ], y[train], n_tree = 50, seed = 1, verbose = FALSE)
  # Centring does not change what a canonical correlation finds: the two
  # forests differ only by rounding, so their held-out errors are close.
  err_sparse <- mean(predict(sparse_fit, x[-train, ]) != y[-train])
  err_dense <- mean(predict(dense_fit, d[-train, ]) != y[-train])
  expect_lt(abs(err_sparse - err_dense), 0.05)
  expect_lt(err_sparse, 0.3)
})

test_that("missing cells in a dgCMatrix follow na_action as dense ones do", {
  x <- sparse_data(seed = 6, missing = 5)
  d <- as.matrix(x)
  y <- stats::rnorm(nrow(x))
  na_rows <- which(rowSums(is.na(d)) > 0)
  expect_error(ccforest(x, y, n_tree = 2, na_action = "fail"),
               "`x` has missing values in column\\(s\\) `f", fixed = FALSE)
  omitted <- ccforest(x, y, n_tree = 4, seed = 2, na_action = "omit", verbose = FALSE)
  complete <- ccforest(x[-na_rows, ], y[-na_rows], n_tree = 4, seed = 2, verbose = FALSE)
  expect_identical(omitted$forest$trees, complete$forest$trees)
  # impute_mean hands the core 0 for a missing cell, as a missing z-score
  # gets; the statistics leave the cell out.
  features <- ccforest:::sparse_features(x, "x")
  bp <- ccforest:::sparse_blueprint(features, "x")
  random <- ccforest:::sparse_training_matrix(bp, features, "impute_random", "x")
  mean <- ccforest:::sparse_training_matrix(bp, features, "impute_mean", "x")
  expect_identical(mean@x, replace(random@x, is.na(random@x), 0))
  expect_identical(sum(is.na(random@x)), 5L)
  mean_fit <- ccforest(x, y, n_tree = 4, seed = 2, na_action = "impute_mean", verbose = FALSE)
  expect_identical(predict(mean_fit, x, na_action = "impute_mean"),
                   predict(mean_fit, as.matrix(x), na_action = "impute_mean"))
  # The user's matrix is left as it was.
  expect_identical(sum(is.na(x@x)), 5L)
})

test_that("rows of weight 0 take no part in a sparse fit's statistics, as in a dense one's", {
  x <- sparse_data(seed = 12, missing = 4)
  y <- stats::rnorm(nrow(x))
  w <- rep(c(1, 0, 2, 1), length.out = nrow(x))
  fit <- ccforest(x, y, n_tree = 3, seed = 1, case_weights = w, verbose = FALSE)
  kept <- as.matrix(x)[w > 0, ]
  sds <- apply(kept, 2, function(v) {
    v <- v[!is.na(v)]
    sqrt(mean((v - mean(v))^2))
  })
  sds[!is.finite(sds) | sds == 0] <- 1
  expect_equal(fit$blueprint$scale, unname(sds), tolerance = 1e-14)
  expect_identical(predict(fit, x), predict(fit, as.matrix(x)))
})

test_that("other sparse storage is converted: triplet, logical, pattern, symmetric", {
  x <- sparse_data(seed = 7, missing = 0)
  y <- stats::rnorm(nrow(x))
  fit <- ccforest(x, y, n_tree = 3, seed = 1, verbose = FALSE)
  tx <- methods::as(x, "TsparseMatrix")
  expect_true(methods::is(tx, "dgTMatrix"))
  expect_identical(ccforest(tx, y, n_tree = 3, seed = 1, verbose = FALSE)$forest$trees,
                   fit$forest$trees)
  lx <- x > 0
  expect_true(methods::is(lx, "lgCMatrix"))
  as_double <- methods::as(lx, "dMatrix")
  lfit <- ccforest(lx, y, n_tree = 3, seed = 1, verbose = FALSE)
  expect_identical(lfit$forest$trees,
                   ccforest(as_double, y, n_tree = 3, seed = 1, verbose = FALSE)$forest$trees)
  expect_identical(lfit$blueprint$feature_type, rep("logical", ncol(x)))
  expect_identical(predict(lfit, as.matrix(lx)), predict(lfit, lx))
  # A pattern matrix: TRUE where a cell is stored.
  nx <- methods::as(x, "nMatrix")
  expect_identical(ccforest(nx, y, n_tree = 3, seed = 1, verbose = FALSE)$forest$trees,
                   ccforest(x != 0, y, n_tree = 3, seed = 1, verbose = FALSE)$forest$trees)
  s <- Matrix::forceSymmetric(Matrix::rsparsematrix(30, 30, density = 0.2))
  ys <- stats::rnorm(30)
  expect_identical(ccforest(s, ys, n_tree = 2, seed = 1, verbose = FALSE)$forest$trees,
                   ccforest(methods::as(methods::as(s, "generalMatrix"), "CsparseMatrix"), ys,
                            n_tree = 2, seed = 1, verbose = FALSE)$forest$trees)
})

test_that("unnamed sparse columns are matched by position, as a dense matrix's", {
  x <- sparse_data(seed = 8, missing = 0)
  colnames(x) <- NULL
  y <- stats::rnorm(nrow(x))
  fit <- ccforest(x, y, n_tree = 3, seed = 1, verbose = FALSE)
  expect_identical(fit$blueprint$feature_names, paste0("X", 1:12))
  expect_identical(predict(fit, x), predict(fit, as.matrix(x)))
  expect_error(predict(fit, x[, 1:5]),
               "`new_data` has 5 unnamed columns, but the forest was fitted on a matrix of 12")
})

test_that("survival forests read a sparse x dense, as before", {
  skip_if_not_installed("survival")
  set.seed(9)
  x <- Matrix::rsparsematrix(80, 4, density = 0.5)
  colnames(x) <- paste0("v", 1:4)
  time <- stats::rexp(80)
  status <- stats::rbinom(80, 1, 0.7)
  fit <- ccforest(x, survival::Surv(time, status), n_tree = 3, seed = 1, verbose = FALSE)
  dense <- ccforest(as.matrix(x), survival::Surv(time, status), n_tree = 3, seed = 1,
                    verbose = FALSE)
  expect_identical(fit$forest$trees, dense$forest$trees)
})

test_that("bad sparse input gets a clear error naming the argument", {
  x <- sparse_data(seed = 10, missing = 0)
  y <- stats::rnorm(nrow(x))
  expect_error(ccforest(y ~ ., data = x),
               paste0("`data` must be a data.frame, not <dgCMatrix>. A formula reads data.frame ",
                      "columns; give a sparse matrix as `x` with the outputs as `y`"), fixed = TRUE)
  expect_error(ccforest(x[, 0], y), "`x` has no columns; at least one feature is needed.",
               fixed = TRUE)
  bad <- x
  bad[5, 2] <- Inf
  expect_error(ccforest(bad, y, n_tree = 1),
               "Column `f2` of `x` contains infinite values (row 5); remove or replace them.",
               fixed = TRUE)
  gone <- x
  gone[, 6] <- NA
  expect_error(ccforest(gone, y, n_tree = 1), "Column `f6` is entirely missing.", fixed = TRUE)
  twice <- x
  colnames(twice)[2] <- "f1"
  expect_error(ccforest(twice, y, n_tree = 1), "duplicated", fixed = TRUE)
  expect_error(ccforest(x, y[-1], n_tree = 1), "`x` has 160 rows but `y` has 159; they must match.",
               fixed = TRUE)
  withr::with_options(list(ccforest.memory_limit = 5000), {
    expect_error(ccforest(x, y, n_tree = 1),
                 paste0("`x` is a sparse 160 x 12 matrix with ", length(x@x), " stored cells; ",
                        "fitting on it needs about"), fixed = TRUE)
  })
  # The user's matrix is not modified by a failed or a successful fit.
  before <- x
  ccforest(x, y, n_tree = 1, verbose = FALSE)
  expect_identical(x, before)
})

test_that("the memory guard counts the sparse fit's own copies, not a dense one", {
  big <- Matrix::sparseMatrix(i = 1:3, j = 1:3, x = 1, dims = c(20000, 10000))
  # Its dense form (1.6 GB) would not fit in 50 MB; what the sparse fit holds does.
  withr::with_options(list(ccforest.memory_limit = 5e7), {
    fit <- ccforest(big, stats::rnorm(20000), n_tree = 1, verbose = FALSE, seed = 1)
  })
  expect_s3_class(fit, "ccforest")
  bytes <- ccforest:::sparse_fit_bytes(big)
  expect_identical(bytes, 8 * 3 + 12 * 3 + 4 * 20001 + 8 * 20000 + 4 * 10000)
})

test_that("a sparse forest grown as futures is the forest grown on threads", {
  skip_on_cran()
  skip_if_not_installed("future", "1.49.0")
  x <- sparse_data(seed = 13, missing = 3)
  y <- factor(as.matrix(x)[, 1] > 0 & !is.na(as.matrix(x)[, 1]))
  threads <- ccforest(x, y, n_tree = 6, seed = 2, sampling = "bagging", verbose = FALSE)
  old <- future::plan(future::multisession, workers = 2, rscript_libs = .libPaths())
  withr::defer(future::plan(old))
  futures <- ccforest(x, y, n_tree = 6, seed = 2, sampling = "bagging", backend = "future",
                      n_batch = 2, verbose = FALSE)
  expect_identical(futures$forest$trees, threads$forest$trees)
  expect_identical(futures$predictions, threads$predictions)
  expect_identical(predict(threads, x, backend = "future", chunk_size = 50),
                   predict(threads, x))
})
