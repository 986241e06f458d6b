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
#
# The training rows themselves are valued out of fold (level_folds): a row's
# value must carry no information about its own output, or the trees and the
# out-of-bag estimates see through it. Leaving the row alone out (0.2.0) does
# not do: within a level the values then differ by exactly the rows' own
# outputs, and on two noise classes the out-of-bag error was 0.01 against a
# test error of 0.50. Out of fold, rows of one fold of a level share a value
# made from the other folds; the leak left is through folds of a level whose
# outputs happen to sum alike, which more folds make likelier (smaller folds)
# and fewer folds trade for values from less data. Measured with
# bench/decisions/factor-oob.R (gap = out-of-bag minus test error; 24 repeats for 3 and
# 5 folds, 8 for the others): two noise classes and 40 levels of 2 to 100
# rows, 3 folds -0.002 (se 0.004), 5 folds -0.031 (0.004), the full level
# mean -0.002 but -0.17 on a noise regression with 200 levels (3 folds
# +0.009); three noise classes 3 folds -0.004 (0.003),
# 5 folds -0.013; on grouped data (nlme's MathAchieve with 160 schools,
# ChickWeight with 50 chicks) 3 folds err on the pessimistic side (ChickWeight
# +115, se 37, on a test error of 506) at the same test error as 5 folds but
# on ChickWeight (506 against 466). Three folds it is: honest where leaving
# one out was fiction, and never optimistic beyond noise.

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
#' @param seed The fit's seed, which shuffles the rows into folds.
#' @return A matrix, one row per level (NA for levels no counted row has)
#'   and one column per axis, with attribute "own": each row's values from
#'   the rows of its level in the other folds (see level_folds(); NA for
#'   rows that do not count), for the training matrix.
#' @noRd
level_scores <- function(codes, n_level, response, weights, rows, seed) {
  targets <- task_record(response$task)$level_targets(response)
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
  # Each training row's own values come from its level's rows in the other
  # folds, shrunk as above, so that they carry nothing of the row's own output
  # (see the top of this file).
  fold <- level_folds(codes, seed, which(keep))
  cell <- (codes - 1L) * n_level_folds + fold
  cell_sums <- rowsum(targets * w, cell)
  cell_weight <- rowsum(w, cell)[, 1L]
  at <- match(cell, as.integer(rownames(cell_sums)))
  out_of_fold <- (sums[codes, , drop = FALSE] - cell_sums[at, , drop = FALSE] +
                    matrix(overall, length(codes), ncol(targets), byrow = TRUE)) /
    (level_weight[codes] - cell_weight[at] + 1)
  own <- matrix(NA_real_, length(keep), ncol(axes))
  own[which(keep), ] <- sweep(out_of_fold, 2L, overall) %*% axes
  attr(scores, "own") <- own
  scores
}

#' Folds a level's training rows are valued across (see the top of this file)
#' @noRd
n_level_folds <- 3L

#' Each row's fold (0, 1 or 2): a level's rows, shuffled by keys drawn from
#' the seed (never from R's generator), are dealt to the folds in turn, so
#' that every fold of a level holds a third of its rows whatever their order
#' or outputs
#' @param codes Level codes of the rows that count.
#' @param index Their positions among the training rows (which key each gets).
#' @noRd
level_folds <- function(codes, seed, index) {
  keys <- ccf_row_keys_cpp(seed, max(c(0L, index)))[index]
  o <- order(codes, keys)
  sorted <- codes[o]
  start <- match(sorted, sorted)  # first position of each row's level
  fold <- integer(length(codes))
  fold[o] <- (seq_along(o) - start) %% n_level_folds
  fold
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

#' A classifier's outputs as what level_scores() fits to: one indicator
#' column per class of each output
#' @noRd
class_indicators <- function(response) {
  do.call(cbind, lapply(seq_len(response$n_output), function(m) {
    outer(response$codes[, m], seq_len(response$n_class[[m]]) - 1L, `==`) + 0
  }))
}
