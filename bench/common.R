# Helpers shared by the benchmark scripts, sourced by each of them.

use_private_library <- function() {
  lib <- Sys.getenv("CCFOREST_LIB")
  if (nzchar(lib)) .libPaths(c(strsplit(lib, .Platform$path.sep, fixed = TRUE)[[1L]], .libPaths()))
}

`%||%` <- function(a, b) if (is.null(a)) b else a

mlb <- function(name) {
  e <- new.env()
  utils::data(list = name, package = "mlbench", envir = e)
  get(name, envir = e)
}

# The 3-class spirals of the paper's Figure 1, following the design of the
# authors' generator (Datasets/scripts/genSpiralsData.m in twgr/ccfs, not
# copied): class uniform over 3, theta ~ U(1, 4 pi), radius = theta +
# N(0, 1/3), class k rotated by 2 pi (k - 1) / 3.
gen_spirals <- function(n, seed = 20170101L) {
  set.seed(seed)
  cls <- 1L + findInterval(stats::runif(n), c(1 / 3, 2 / 3))
  theta <- 1 + (4 * pi - 1) * stats::runif(n)
  r <- theta + stats::rnorm(n) / 3
  theta <- theta + 2 * pi * (cls - 1L) / 3
  list(x = data.frame(x1 = r * cos(theta), x2 = r * sin(theta)),
       y = factor(paste0("arm", cls)))
}
use_private_library()
