#' ccforest: Canonical Correlation Forests
#'
#' Canonical correlation forests (Rainforth and Wood, 2017) are ensembles of
#' oblique decision trees. Each split is a hyperplane found by canonical
#' correlation analysis between a random subset of the features and the
#' outputs, computed on a bootstrap sample of the node's rows (projection
#' bootstrapping). Start with [ccforest()] and [predict.ccforest()].
#'
#' @references Rainforth, T. and Wood, F. (2017). Canonical correlation
#'   forests. arXiv:1507.05444.
#' @docType package
#' @name ccforest-package
#' @aliases ccforest-package
#' @keywords internal
#' @useDynLib ccforest, .registration = TRUE
#' @importFrom Rcpp sourceCpp
#' @importFrom RcppParallel RcppParallelLibs
#' @importFrom stats coef deviance fitted formula nobs residuals terms update
NULL
