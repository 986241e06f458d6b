# Factors with many levels. One-hot encoding gives a factor one column per
# level, and every canonical correlation analysis that samples it pays for
# all of them; with thousands of levels that dominates the fit (and a noisy
# factor with many levels over-fits the CCA). Such factors are instead
# ordered by the outputs, once, before the trees are grown, and used as one
# numeric column: the order-based treatment of categorical predictors of
# Wright and Koenig (2019), which for one numeric output or two classes
# contains the best split of the levels into two groups (Breiman et al.,
# 1984; Fisher, 1958).

#' The numeric value of each level of a factor, from the outputs
#'
#' Each level's mean output vector (class shares for classification, all
#' outputs side by side; standardised values for regression), shrunk toward
#' the overall mean by one pseudo-row so that rare levels do not get extreme
#' values from a row or two, then projected on the first principal axis of
#' those level means (weighted by the levels' weights); with one output
#' column the level's mean itself. The axis's sign makes its largest loading
#' positive, so the order does not flip with rounding.
#'
#' @param codes Integer level codes of the training rows (NA: missing).
#' @param n_level Number of levels.
#' @param response The prepared outputs (prepare_response()).
#' @param weights Row weights, or NULL.
#' @param rows Rows that count (NULL: all).
#' @return One value per level (NA for levels no counted row has), with
#'   attribute "own": each row's value with the row itself left out of its
#'   level's mean (NA for rows that do not count), for the training matrix.
#' @noRd
level_scores <- function(codes, n_level, response, weights, rows) {
  targets <- if (response$task == "regression") {
    response$values
  } else {
    do.call(cbind, lapply(seq_len(response$n_output), function(m) {
      outer(response$codes[, m], seq_len(response$n_class[[m]]) - 1L, `==`) + 0
    }))
  }
  w <- weights %||% rep(1, length(codes))
  keep <- !is.na(codes) & w > 0
  if (!is.null(rows)) keep <- keep & rows
  codes <- codes[keep]
  w <- w[keep]
  targets <- targets[keep, , drop = FALSE]
  overall <- colSums(targets * w) / sum(w)
  # rowsum() gives rows for the levels present only, in increasing order.
  present <- sort(unique(codes))
  level_weight <- numeric(n_level)
  level_weight[present] <- rowsum(w, codes)[, 1L]
  sums <- matrix(0, n_level, ncol(targets))
  sums[present, ] <- rowsum(targets * w, codes)
  means <- (sums + matrix(overall, n_level, ncol(targets), byrow = TRUE)) / (level_weight + 1)
  centred <- sweep(means, 2L, overall)
  scores <- if (ncol(targets) == 1L) {
    centred[, 1L]
  } else {
    covariance <- crossprod(centred * sqrt(level_weight))
    axis <- eigen(covariance, symmetric = TRUE)$vectors[, 1L]
    largest <- which.max(abs(axis) * (1 - 1e-9 * seq_along(axis)))
    if (axis[[largest]] < 0) axis <- -axis
    as.vector(centred %*% axis)
  }
  scores[level_weight == 0] <- NA_real_
  scores <- unname(scores)
  # Each training row's own value leaves the row out of its level's mean, so
  # that a level's score never carries the row's own output: otherwise a
  # factor of pure noise with many small levels would look informative to
  # the trees grown on these rows (the leakage of target encoding).
  own <- rep(NA_real_, length(keep))
  own_rows <- which(keep)
  axis_of <- if (ncol(targets) == 1L) 1 else axis
  loo <- (sums[codes, , drop = FALSE] - targets * w +
            matrix(overall, length(codes), ncol(targets), byrow = TRUE)) /
    (level_weight[codes] - w + 1)
  own[own_rows] <- as.vector(sweep(loo, 2L, overall) %*% axis_of)
  attr(scores, "own") <- own
  scores
}
