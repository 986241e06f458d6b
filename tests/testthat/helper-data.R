# Without TZ, loading some suggested packages asks timedatectl for the zone,
# which warns on machines without systemd (containers, CI).
if (!nzchar(Sys.getenv("TZ"))) Sys.setenv(TZ = "UTC")

# Shared data generators and references for the tests. Everything here is
# written without the package's code, so that the tests compare the package
# against an independent reference.

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

#' Per-tree node ranges (1-based, into the flat forest arrays).
tree_nodes <- function(forest, t) {
  (forest$node_start[[t]] + 1L):forest$node_start[[t + 1L]]
}

#' Number of trees stored in a fitted forest.
n_trees_of <- function(fit) {
  length(fit$forest$node_start) - 1L
}

#' Route rows of an already encoded (z-scored) matrix through tree t of a
#' fitted forest, written from the documented flat layout only: a split node
#' sends a row left when sum(coefficient * column) <= threshold, the left
#' child is `child_left` and the right one `child_left + 1`, indices local to
#' the tree. Returns the local (0-based) leaf index of each row.
route_rows <- function(forest, t, z) {
  base <- forest$node_start[[t]]
  vapply(seq_len(nrow(z)), function(i) {
    node <- 0L
    repeat {
      g <- base + node + 1L
      left <- forest$child_left[[g]]
      if (left == 0L) {
        return(node)
      }
      entries <- seq_len(forest$payload_start[[g + 1L]] - forest$payload_start[[g]]) +
        forest$payload_start[[g]]
      u <- 0
      for (e in entries) {
        u <- u + forest$payload_value[[e]] * z[i, forest$payload_index[[e]] + 1L]
      }
      node <- if (u <= forest$threshold[[g]]) left else left + 1L
    }
  }, integer(1))
}

#' z-scores of a numeric data.frame with the stored training statistics.
encode_numeric <- function(fit, df) {
  bp <- fit$blueprint
  z <- as.matrix(df[, bp$feature_names, drop = FALSE])
  sweep(sweep(z, 2L, bp$center), 2L, bp$scale, `/`)
}
