# Sparse features (issue 38): a sparse matrix of the Matrix package given as
# `x` reaches the core as a dgCMatrix, read where it lies (src/core/Data.h),
# never as the n x p doubles of its dense form.
#
# The transform is a division by each column's standard deviation, without
# centring: centring would make every zero non-zero, and so the matrix dense.
# The CCA is affine-invariant, so the trees find the same directions either
# way; what scaling buys (a rank tolerance and coefficient rounding that do
# not depend on the features' units) only needs the division. The blueprint
# records centre 0 and the standard deviations, so prediction applies the
# same transform to new data in any form (dense, sparse, data.frame). A
# missing value is imputed as the dense path imputes one in its transformed
# units (0, or a standard normal draw), which for a sparse fit is centred on
# zero rather than on the column's mean.

#' The sparse matrix `x` as the core reads it, with what the blueprint needs
#'
#' Any sparse matrix of the Matrix package (triplet, symmetric, triangular,
#' logical or pattern storage) becomes a general compressed-column matrix of
#' doubles; a dgCMatrix is used as it is, without a copy.
#' @return A list: `x` (a dgCMatrix), `logical` (the cells were logical),
#'   `names` (the features' names) and `had_colnames`.
#' @noRd
sparse_features <- function(x, arg) {
  if (!requireNamespace("Matrix", quietly = TRUE)) {
    stop(sprintf("`%s` is a sparse matrix, which needs the Matrix package to read.", arg),
         call. = FALSE)
  }
  if (ncol(x) == 0L) {
    stop(sprintf("`%s` has no columns; at least one feature is needed.", arg), call. = FALSE)
  }
  logical_values <- methods::is(x, "lMatrix") || methods::is(x, "nMatrix")
  if (!methods::is(x, "dgCMatrix")) {
    x <- methods::as(methods::as(x, "CsparseMatrix"), "generalMatrix")
    x <- methods::as(x, "dMatrix")
  }
  column_names <- colnames(x)
  had_colnames <- !is.null(column_names)
  if (!had_colnames) column_names <- paste0("X", seq_len(ncol(x)))
  list(x = x, logical = logical_values, names = column_names, had_colnames = had_colnames)
}

#' The rows of a sparse matrix that have a missing value
#' @noRd
sparse_missing_rows <- function(x) {
  sort(unique(x@i[is.na(x@x)])) + 1L
}

#' The features' rows `keep` (a logical vector)
#' @noRd
sparse_subset_rows <- function(features, keep) {
  features$x <- features$x[keep, , drop = FALSE]
  features
}

#' The column of each stored cell of a dgCMatrix (1-based)
#' @noRd
sparse_cell_columns <- function(x) {
  rep.int(seq_len(ncol(x)), diff(x@p))
}

#' The blueprint of sparse features: every feature numeric (or logical),
#' centre 0, scale the population standard deviation over the rows
#' `stat_rows` (all by default), zeros included, missing values excluded
#' @noRd
sparse_blueprint <- function(features, arg, stat_rows = NULL) {
  x <- features$x
  n <- nrow(x)
  p <- ncol(x)
  names <- features$names
  # The dense path's checks, and messages, on the rows and the names.
  if (n == 0L) {
    stop(sprintf("`%s` has no rows; at least one observation is needed.", arg), call. = FALSE)
  }
  check_column_names(names, arg, "feature")
  # One pass over the slots in C++: the same in R took several vectors as
  # long as the cells, which outlived the fit's own copies and set its peak.
  stats <- ccf_sparse_stats_cpp(x, stat_rows)
  if (stats$infinite > 0L) {
    j <- stats$infinite
    check_finite_column(as.double(x[, j]), names[[j]], arg)
  }
  if (any(stats$missing == n)) {
    stop(sprintf("Column `%s` is entirely missing.", names[[which(stats$missing == n)[[1L]]]]),
         call. = FALSE)
  }
  scale <- stats$scale
  # A constant column (all zero, say) has no spread to divide by; 1 keeps
  # it constant, and the core drops constant features at each node.
  scale[!is.finite(scale) | scale == 0] <- 1
  structure(
    list(
      feature_names = names,
      feature_type = rep.int(if (features$logical) "logical" else "numeric", p),
      levels = rep.int(list(character(0)), p),
      scores = vector("list", p),
      units = vector("list", p),
      column_names = names,
      column_feature = seq_len(p),
      feature_start = as.integer(c(0L, seq_len(p))),
      center = numeric(p),
      scale = scale,
      input = "matrix",
      had_colnames = features$had_colnames
    ),
    class = "ccforest_blueprint"
  )
}

#' The sparse training matrix the core reads: each stored cell divided by
#' its column's scale, a missing one kept (impute_random), made 0
#' (impute_mean, the value a missing z-score gets) or refused (fail); the
#' row and column indices are shared with the user's matrix, not copied
#' @noRd
sparse_training_matrix <- function(bp, features, na_action, arg) {
  x <- features$x
  if (na_action == "fail" && anyNA(x@x)) {
    columns <- sparse_cell_columns(x)[is.na(x@x)]
    stop(sprintf(paste0(
      "`%s` has missing values in column(s) %s; impute them with na_action = ",
      "\"impute_random\" or \"impute_mean\" (an argument of ccforest() and of predict())."),
      arg, format_names(bp$feature_names[sort(unique(columns))])), call. = FALSE)
  }
  values <- ccf_sparse_scaled_cpp(x, bp$scale, na_action == "impute_mean")
  methods::new("dgCMatrix", i = x@i, p = x@p, x = values, Dim = x@Dim)
}

#' Refuse a sparse fit whose own copies do not fit in memory: the scaled
#' cells, and the same cells by row that out-of-bag estimates, importance
#' and quantiles read (src/core/Data.h)
#' @noRd
check_sparse_memory <- function(x, arg, limit = memory_limit()) {
  needed <- sparse_fit_bytes(x)
  if (needed > limit) {
    stop(sprintf(paste0(
      "`%s` is a sparse %d x %d matrix with %s stored cells; fitting on it needs about %s ",
      "(its cells scaled, and once more by row), but only %s is available. Use fewer rows, ",
      "or drop columns that are almost all zero."),
      arg, nrow(x), ncol(x), format(length(x@x), big.mark = ","), format_bytes(needed),
      format_bytes(limit)), call. = FALSE)
  }
  invisible()
}

#' Bytes a sparse fit holds besides the user's matrix: the scaled values,
#' and what sparse_rows_bytes() counts
#' @noRd
sparse_fit_bytes <- function(x) {
  8 * as.double(length(x@x)) + sparse_rows_bytes(x, 1L)
}

#' Bytes the core allocates for sparse features: the cells by row (column
#' indices, values, row starts; read by the trees at small nodes and by
#' out-of-bag estimates), and per thread a scratch column and a mark per
#' column
#' @noRd
sparse_rows_bytes <- function(x, n_thread) {
  12 * as.double(length(x@x)) + 4 * (nrow(x) + 1) +
    (8 * as.double(nrow(x)) + 4 * as.double(ncol(x))) * n_thread
}

#' Rows of sparse new data made dense at once for prediction: their dense
#' columns and encoded matrix (2 x 8 bytes a cell) take about 64 MB
#' @noRd
sparse_chunk_rows <- function(p, bytes = 2^26) {
  max(1L, as.integer(min(.Machine$integer.max, floor(bytes / (16 * p)))))
}
