# The prediction boundary: what every prediction export of the core reads
# (PredictRequest in src/r_convert.h), built in one place.

#' A prediction of the fit's first `n_tree` trees, as the core reads it
#'
#' @param impute_random Whether missing values are imputed at random even if
#'   the fit imputes by the mean (predict()'s `na_action`).
#' @param negate 0-based columns `[negate[1], negate[2])` read with their signs
#'   flipped (negation importance); none by default.
#' @param for_workers Whether the request goes to future workers: then it
#'   carries only the trees it uses and no handle (a worker decodes its own).
#' @noRd
predict_request <- function(object, n_tree, n_thread, impute_random = FALSE,
                            negate = c(0L, 0L), for_workers = FALSE) {
  forest <- .subset2(object, "forest")
  trees <- .subset2(forest, "trees")
  list(
    trees = if (for_workers) trees[seq_len(n_tree)] else trees,
    shape = model_shape(object),
    cache = if (!for_workers) .subset2(object, "cache"),
    seed = .subset2(object, "seed"),
    first_tree = .subset2(forest, "first_tree") - 1,
    impute_random = impute_random || imputes_at_random(object),
    n_tree = as.integer(n_tree),
    n_thread = as.integer(n_thread),
    negate = as.integer(negate)
  )
}

#' @noRd
imputes_at_random <- function(object) {
  na_action <- .subset2(.subset2(object, "options"), "na_action")
  # Not %in%, a closure: every prediction asks.
  na_action == "impute_random" || na_action == "omit"
}
