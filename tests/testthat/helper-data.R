# Without TZ, loading some suggested packages asks timedatectl for the zone,
# which warns on machines without systemd (containers, CI).
if (!nzchar(Sys.getenv("TZ"))) Sys.setenv(TZ = "UTC")

# Shared data generators and references for the tests. Everything here is
# written without the package's code, so that the tests compare the package
# against an independent reference.

#' A fit as objects fitted before 0.3.0 are: without a checksum, so that
#' edits reach the checks behind it (a sealed fit refuses any edit). Its
#' version says 0.2.0: a fit of 0.3.0 or later without a checksum is refused.
as_unsealed <- function(fit) {
  fit$checksum <- NULL
  fit$sealed <- NULL
  fit$version <- "0.2.0"
  fit
}

#' A clean 3-class 2-D spiral: each class is one arm, rotated by 2 pi / 3.
make_spiral <- function(n, noise = 0.02, turns = 1.25, n_class = 3L) {
  class <- rep_len(seq_len(n_class), n)
  t <- stats::runif(n, 0.05, 1)
  angle <- 2 * pi * turns * t + 2 * pi * (class - 1L) / n_class
  data.frame(
    x1 = t * cos(angle) + stats::rnorm(n, sd = noise),
    x2 = t * sin(angle) + stats::rnorm(n, sd = noise),
    class = factor(paste0("arm", class))
  )
}

#' A smooth function of two features, with a little noise.
make_smooth <- function(n, noise = 0.05) {
  x1 <- stats::runif(n, -2, 2)
  x2 <- stats::runif(n, -2, 2)
  data.frame(
    x1 = x1, x2 = x2,
    y = sin(1.5 * x1) + 0.5 * x2^2 + stats::rnorm(n, sd = noise)
  )
}

#' Canonical variates compared up to sign and scale: the |cosine| between
#' two vectors (1 when one is a multiple of the other).
abs_cosine <- function(a, b) {
  a <- as.vector(a)
  b <- as.vector(b)
  abs(sum(a * b)) / sqrt(sum(a^2) * sum(b^2))
}

#' The 1-of-K indicator matrix of 0-based class codes.
indicator_matrix <- function(codes, n_class) {
  out <- matrix(0, length(codes), n_class)
  out[cbind(seq_along(codes), codes + 1L)] <- 1
  out
}

#' Number of trees stored in a fitted forest.
n_trees_of <- function(fit) {
  length(fit$forest$trees)
}

#' Route rows of an already encoded (z-scored) matrix `z` through tree t of a
#' fitted forest, written from tree_info()'s documented table only: node ids
#' are 0-based row numbers of the table, a split node sends a row to `left`
#' when sum(coefficients * z[, columns]) <= threshold (columns by name) and to
#' `right` otherwise, until a `terminal` node. The sum is taken as
#' project_rows() takes it.
#' Returns the (0-based) leaf node of each row.
route_rows <- function(fit, t, z, info = tree_info(fit, t)) {
  stopifnot(identical(info$node, seq_len(nrow(info)) - 1L),
            all(unlist(info$columns) %in% colnames(z)))
  vapply(seq_len(nrow(z)), function(i) {
    node <- 0L
    repeat {
      j <- node + 1L
      if (info$terminal[[j]]) {
        return(node)
      }
      u <- project_rows(info, j, z[i, , drop = FALSE])
      node <- if (u <= info$threshold[[j]]) info$left[[j]] else info$right[[j]]
    }
  }, integer(1))
}

#' The projection of every row of `z` on the split of table row `j` of a
#' tree_info() table, summed in the order the package documents for its one
#' projection routine (src/core/Projection.h): the 1st, 3rd, ... terms and the
#' 2nd, 4th, ... terms in two running sums, then added; each term is the
#' product of a coefficient and a z-score, as IEEE doubles without fused
#' multiply-adds, which is R's own arithmetic.
project_rows <- function(info, j, z) {
  coef <- info$coefficients[[j]]
  columns <- info$columns[[j]]
  even <- numeric(nrow(z))
  odd <- numeric(nrow(z))
  for (e in seq_along(coef)) {
    term <- coef[[e]] * z[, columns[[e]]]
    if (e %% 2L == 1L) even <- even + term else odd <- odd + term
  }
  even + odd
}

#' Depth of every node of a tree_info() table (the root at depth 0), from its
#' left/right links alone.
node_depths <- function(info) {
  depth <- rep(NA_integer_, nrow(info))
  depth[[1L]] <- 0L
  for (j in seq_len(nrow(info))) {
    if (!info$terminal[[j]]) {
      depth[c(info$left[[j]], info$right[[j]]) + 1L] <- depth[[j]] + 1L
    }
  }
  depth
}

#' z-scores of a numeric data.frame with the stored training statistics; the
#' columns are named as the encoded columns (for numeric features, the
#' feature names).
encode_numeric <- function(fit, df) {
  bp <- fit$blueprint
  stopifnot(identical(bp$column_names, bp$feature_names))
  z <- as.matrix(df[, bp$feature_names, drop = FALSE])
  sweep(sweep(z, 2L, bp$center), 2L, bp$scale, `/`)
}

#' z-scores of the encoded columns of a data.frame of numeric features and
#' factors (no missing values), with the stored training statistics: a
#' numeric column as it is, a factor as one 0/1 indicator column per level,
#' named `name=level`. Columns are named and ordered as
#' fit$blueprint$column_names.
encode_data <- function(fit, df) {
  bp <- fit$blueprint
  columns <- lapply(seq_along(bp$feature_names), function(d) {
    x <- df[[bp$feature_names[[d]]]]
    if (is.factor(x) && !is.ordered(x)) {
      levels <- bp$levels[[d]]
      out <- vapply(levels, function(l) as.numeric(as.character(x) == l), numeric(length(x)))
      colnames(out) <- paste0(bp$feature_names[[d]], "=", levels)
      out
    } else {
      out <- matrix(as.numeric(x), ncol = 1L)
      colnames(out) <- bp$feature_names[[d]]
      out
    }
  })
  z <- do.call(cbind, columns)
  stopifnot(identical(colnames(z), bp$column_names))
  sweep(sweep(z, 2L, bp$center), 2L, bp$scale, `/`)
}

#' The rows of `z` reaching each node of a tree_info() table (a list, one
#' integer vector per node), sending all rows down from the root as
#' route_rows() sends one.
node_rows <- function(info, z) {
  rows <- vector("list", nrow(info))
  rows[[1L]] <- seq_len(nrow(z))
  for (j in seq_len(nrow(info))) {
    if (info$terminal[[j]]) next
    here <- rows[[j]]
    goes_left <- project_rows(info, j, z[here, , drop = FALSE]) <= info$threshold[[j]]
    rows[[info$left[[j]] + 1L]] <- here[goes_left]
    rows[[info$right[[j]] + 1L]] <- here[!goes_left]
  }
  rows
}

# A binary class from 3 of p Gaussian features (g1 - g2 + g3): wide data with a
# sparse signal (test-feature-weights.R, test-screen-auto.R).
wide_data <- function(n = 150, p = 40, seed = 3801) {
  set.seed(seed)
  x <- matrix(stats::rnorm(n * p), n, p, dimnames = list(NULL, paste0("g", seq_len(p))))
  y <- factor(x[, 1] - x[, 2] + x[, 3] + stats::rnorm(n, sd = 0.5) > 0)
  list(x = x, y = y)
}
