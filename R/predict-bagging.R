# What a bagged forest's bootstrap samples tell about it: the out-of-bag
# error as trees are added, out-of-bag negation importance, and (from the
# samples redrawn from the seed, never stored) the infinitesimal jackknife's
# standard errors and jackknife+-after-bootstrap intervals.

#' What redrawing the trees' samples needs: the number of training rows the
#' trees drew from, their case weights (NULL for none), how they were sampled
#' (row_sample()), their classes when the sample has a size per class, and,
#' with na_action = "omit", which of the data's rows those were
#' @noRd
bagging_record <- function(training, kept_rows, sample) {
  list(
    n_row = nrow(training$x),
    weights = if (length(training$weights)) training$weights,
    uniform_weights = training$uniform_weights,
    sample = sample,
    classes = if (length(sample$class_size)) training$y_class[, 1L],
    kept_rows = kept_rows
  )
}

#' The record of a bagged forest, or a clear error
#'
#' Forests fitted before it was kept (ccforest 0.2.0) can be used when
#' nothing but the number of rows is needed: no case weights and no row
#' dropped by na_action = "omit".
#' @noRd
bagging_of <- function(object, what) {
  if (!has_out_of_bag(object$options)) {
    stop(sprintf(paste0(
      "%s needs a forest whose trees are grown on samples of the rows (sampling = ",
      "\"bagging\", or a `sample_fraction` below 1): it measures how the predictions vary ",
      "with the trees' samples, and with projection bootstrapping every tree is grown on every ",
      "row. Refit with sampling = \"bagging\"%s."), what,
      task_record(object$task)$bagging_advice), call. = FALSE)
  }
  record <- object$bagging
  if (is.null(record)) {
    if (isTRUE(object$options$case_weights) || length(object$options$class_weights) > 0L ||
        identical(object$options$na_action, "omit")) {
      stop(sprintf(paste0(
        "%s needs the case weights and kept rows of the training data, which `object` ",
        "(fitted by ccforest %s) did not keep. Refit it with this version."), what,
        object$version), call. = FALSE)
    }
    record <- list(n_row = as.integer(object$n_obs), weights = NULL, uniform_weights = FALSE,
                   classes = NULL, kept_rows = NULL)
  }
  if (is.null(record$sample)) {
    # Forests fitted before samples could be chosen were bagged.
    record$sample <- list(every_row = FALSE, replace = TRUE, size = 0, class_size = numeric(0))
  }
  record
}

#' In-bag counts of a bagged forest's trees (rows x trees), redrawn from its
#' seed: how many times each tree drew each training row
#' @noRd
in_bag_counts <- function(object, n_tree = n_trees(object), n_thread = 2L) {
  record <- bagging_of(object, "In-bag counts")
  ccf_in_bag_cpp(record, object$seed, object$forest$first_tree - 1,
                 as.integer(n_tree), as.integer(n_thread))
}

#' Rows of new data per piece, so that a piece's per-tree predictions (rows x
#' values x trees doubles) take about 32 MB and the infinitesimal jackknife
#' handles at most 4096 predictions at once
#' @noRd
rows_per_piece <- function(width, n_tree) {
  max(1L, as.integer(min(floor(2^22 / (width * n_tree)), floor(4096 / width))))
}

#' Memory the in-bag counts take (two bytes per row and tree), checked
#' against what is available
#' @noRd
check_in_bag_memory <- function(record, n_tree, what) {
  bytes <- 2 * record$n_row * n_tree
  limit <- memory_limit()
  if (bytes > limit) {
    stop(sprintf(paste0(
      "%s redraws the trees' samples, whose counts take %s for %s training rows and %s trees, ",
      "but only %s is available. Use fewer trees (n_tree)."), what, format_bytes(bytes),
      format(record$n_row, big.mark = ","), format(n_tree, big.mark = ","),
      format_bytes(limit)), call. = FALSE)
  }
}

#' Standard errors of a bagged forest's predictions: the bias-corrected
#' infinitesimal jackknife (Wager, Hastie and Efron, 2014)
#'
#' @return The raw values' standard errors (rows x values), with an attribute
#'   `clamped`: TRUE where the bias-corrected variance was negative and 0 is
#'   given instead.
#' @noRd
predict_se_values <- function(object, matrix_x, n_tree, n_thread, impute_random) {
  record <- bagging_of(object, "type = \"se\"")
  check_in_bag_memory(record, n_tree, "type = \"se\"")
  n <- nrow(matrix_x)
  width <- prediction_width(object$response)
  variance <- matrix(NA_real_, n, width)
  clamped <- matrix(FALSE, n, width)
  per_piece <- rows_per_piece(width, n_tree)
  for (start in seq(1L, max(n, 1L), by = per_piece)) {
    if (n == 0L) break
    rows <- seq(start, min(n, start + per_piece - 1L))
    values <- per_tree_raw(object, matrix_x[rows, , drop = FALSE], n_tree, n_thread,
                           impute_random)
    dim(values) <- c(length(rows) * width, n_tree)
    ij <- ccf_infjack_cpp(values, record, object$seed, object$forest$first_tree - 1,
                          as.integer(n_thread))
    corrected <- ij$raw - ij$bias
    negative <- corrected < 0
    variance[rows, ] <- pmax(corrected, 0)
    clamped[rows, ] <- negative
  }
  scale <- task_record(object$task)$error_scale(object$response)
  if (!is.null(scale)) {
    variance <- sweep(variance, 2L, scale, `*`)
  }
  structure(sqrt(variance), clamped = clamped)
}

#' The standard errors in the shape of predict()'s probabilities or values,
#' with a warning where the bias correction had to be dropped
#' @noRd
format_se <- function(se, object, n_tree) {
  clamped <- attr(se, "clamped")
  attr(se, "clamped") <- NULL
  if (any(clamped)) {
    warning(sprintf(paste0(
      "For %d of %d predictions the bias-corrected infinitesimal jackknife variance was ",
      "negative: with %d trees, the trees' Monte Carlo noise exceeds the variance measured, ",
      "so their standard error is given as 0 (attribute \"clamped\"), which only says it is ",
      "below what these trees can resolve. More trees (n_tree) resolve it."),
      sum(clamped), length(clamped), n_tree), call. = FALSE)
  }
  response <- object$response
  out <- task_record(object$task)$format_spread(se, response)
  # The flags follow the answer's shape where it is one vector.
  structure(out, clamped = if (is.atomic(out) && is.null(dim(out))) clamped[, 1L] else clamped)
}

#' Jackknife+-after-bootstrap intervals (Kim, Xu and Barber, 2020) of a
#' bagged regression forest with one output
#' @noRd
jackknife_plus_interval <- function(object, matrix_x, level, n_tree, n_thread, impute_random) {
  record <- bagging_of(object, "interval = \"jackknife+\"")
  if (oob_skipped(object$options)) {
    stop(paste0("interval = \"jackknife+\" (a bagged forest's default without `calibration`) ",
                "builds intervals from the out-of-bag residuals, but ", oob_skipped_advice,
                ", or use interval = \"cqr\" with a calibration set and quantiles = TRUE."),
         call. = FALSE)
  }
  total <- n_trees(object)
  if (n_tree != total) {
    stop(sprintf(paste0(
      "interval = \"jackknife+\" uses the out-of-bag residuals of all %d trees, so it predicts ",
      "with all of them; drop n_tree = %d."), total, n_tree), call. = FALSE)
  }
  residuals <- object$residuals
  if (is.null(residuals)) {
    stop("interval = \"jackknife+\" needs the forest's out-of-bag residuals, which `object` ",
         "does not have (forests combined from ranges have none): grow it in one call, or ",
         "use interval = \"cqr\" with a calibration set.", call. = FALSE)
  }
  if (!is.null(record$kept_rows)) {
    residuals <- residuals[record$kept_rows]
  }
  if (length(residuals) != record$n_row) {
    stop("`object` is damaged: its out-of-bag residuals do not match its training rows. ",
         "Refit the forest.", call. = FALSE)
  }
  check_in_bag_memory(record, n_tree, "interval = \"jackknife+\"")
  scale <- object$response$scale[[1L]]
  center <- object$response$center[[1L]]
  standardised <- abs(residuals) / scale
  n_used <- sum(!is.na(standardised))
  if (n_used == 0L) {
    stop("No training row was left out by any tree, so there are no out-of-bag residuals to ",
         "build intervals from: grow more trees.", call. = FALSE)
  }
  rank_upper <- ceiling((level) * (n_used + 1) - 1e-9)
  rank_lower <- n_used + 1 - rank_upper
  n <- nrow(matrix_x)
  lower <- upper <- numeric(n)
  per_piece <- max(1L, floor(2^22 / n_tree))
  for (start in seq(1L, max(n, 1L), by = per_piece)) {
    if (n == 0L) break
    rows <- seq(start, min(n, start + per_piece - 1L))
    values <- per_tree_raw(object, matrix_x[rows, , drop = FALSE], n_tree, n_thread,
                           impute_random)
    dim(values) <- c(length(rows), n_tree)
    bounds <- ccf_jackknife_plus_cpp(values, standardised, record, object$seed,
                                     object$forest$first_tree - 1, rank_lower, rank_upper,
                                     as.integer(n_thread))
    lower[rows] <- bounds$lower * scale + center
    upper[rows] <- bounds$upper * scale + center
  }
  list(lower = lower, upper = upper)
}
