# Factors with many levels. One-hot encoding gives a factor one column per
# level, and every canonical correlation analysis that samples it pays for
# all of them; with thousands of levels that dominates the fit (and a noisy
# factor with many levels over-fits the CCA). Such factors are instead
# valued by the outputs, once, before the trees are grown: the order-based
# treatment of categorical predictors of Wright and Koenig (2019), which for
# one numeric output or two classes is one column whose order contains the
# best split of the levels into two groups (Breiman et al., 1984; Fisher,
# 1958). With more classes (or outputs) one order loses what the levels say
# beyond it, so the factor gets one column per principal axis of its levels'
# class shares (at most classes - 1, and at most eight): the CCA then sees,
# at the cost of a few columns, the between-level structure that its one-hot
# columns would show it at the root.

# A factor's columns enter every CCA that samples it. With many classes its
# weaker axes cost more than they give: on 26 classes and a 200-level factor,
# 100 trees took 0.66 s with all 25 axes, 0.39 s with 8 and 0.31 s with 4, at
# 59.8%, 59.6% and 60.3% error (10 classes: 37.1%, 37.0%, 38.8%).
max_level_axes <- 8L

#' The numeric values of each level of a factor, from the outputs
#'
#' Each level's mean output vector (class shares for classification, all
#' outputs side by side; standardised values for regression), shrunk toward
#' the overall mean by one pseudo-row so that rare levels do not get extreme
#' values from a row or two, then projected on the principal axes of those
#' level means (weighted by the levels' weights) whose variance is not
#' negligible; with one output column the level's mean itself. Each axis's
#' sign makes its largest loading positive, so the values do not flip with
#' rounding.
#'
#' @param codes Integer level codes of the training rows (NA: missing).
#' @param n_level Number of levels.
#' @param response The prepared outputs (prepare_response()).
#' @param weights Row weights, or NULL.
#' @param rows Rows that count (NULL: all).
#' @return A matrix, one row per level (NA for levels no counted row has)
#'   and one column per axis, with attribute "own": each row's values with
#'   the row itself left out of its level's mean (NA for rows that do not
#'   count), for the training matrix.
#' @noRd
level_scores <- function(codes, n_level, response, weights, rows) {
  targets <- if (response$task %in% c("regression", "survival")) {
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
  axes <- level_axes(centred, level_weight, length(present))
  scores <- centred %*% axes
  scores[level_weight == 0, ] <- NA_real_
  dimnames(scores) <- NULL
  # Each training row's own values leave the row out of its level's mean, so
  # that a level's values never carry the row's own output: otherwise a
  # factor of pure noise with many small levels would look informative to
  # the trees grown on these rows (the leakage of target encoding).
  own <- matrix(NA_real_, length(keep), ncol(axes))
  loo <- (sums[codes, , drop = FALSE] - targets * w +
            matrix(overall, length(codes), ncol(targets), byrow = TRUE)) /
    (level_weight[codes] - w + 1)
  own[which(keep), ] <- sweep(loo, 2L, overall) %*% axes
  attr(scores, "own") <- own
  scores
}

#' The axes the level means are projected on: the identity for one output
#' column; else the strongest principal axes of the weighted level means, at
#' most one fewer than the levels present and at most `max_level_axes`, those
#' whose variance exceeds 1e-9 of the largest (always the first), each signed
#' so its largest loading is positive
#' @noRd
level_axes <- function(centred, level_weight, n_present) {
  if (ncol(centred) == 1L) return(matrix(1))
  eigen <- eigen(crossprod(centred * sqrt(level_weight)), symmetric = TRUE)
  values <- pmax(eigen$values, 0)
  n_axis <- max(1L, min(n_present - 1L, max_level_axes, sum(values > 1e-9 * values[[1L]])))
  axes <- eigen$vectors[, seq_len(n_axis), drop = FALSE]
  for (k in seq_len(n_axis)) {
    largest <- which.max(abs(axes[, k]) * (1 - 1e-9 * seq_len(nrow(axes))))
    if (axes[largest, k] < 0) axes[, k] <- -axes[, k]
  }
  axes
}
