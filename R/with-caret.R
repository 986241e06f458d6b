# caret integration: a custom model list (caret's "model info" format, see
# https://topepo.github.io/caret/using-your-own-model-in-train.html), so
# caret stays a suggested package and nothing here runs unless it is used.

#' Canonical correlation forests in caret
#'
#' `ccforest_caret()` returns a model description for [caret::train()]:
#' pass it as `method`. It handles classification (with class probabilities
#' when `trainControl(classProbs = TRUE)`) and regression, and tunes `mtry`
#' (features sampled at each node) and `min_split` (the smallest node that is
#' split further). Other arguments of [ccforest()], such as `n_tree`,
#' `n_thread`, `sample_fraction` or `replace`, can be given to `train()` and
#' are passed on. Fits are quiet unless `verbose = TRUE` is given.
#'
#' @details
#' The default grid crosses `len` values of `mtry`, spread evenly on a log
#' scale from 1 to the number of features D and always including the paper's
#' default \eqn{\lceil \log_2 D + 1 \rceil}{ceiling(log2(D) + 1)}, with `len`
#' values of `min_split`, growing geometrically from the default (2 for
#' classification, 6 for regression). With `search = "random"`, `len` random
#' pairs are drawn.
#'
#' Case weights given to `train()` as `weights` are passed to [ccforest()]
#' as `case_weights`. The values of `min_split` in the default grid never
#' exceed the number of training rows.
#'
#' With the x/y interface of `train()`, a data.frame `x` keeps its factors,
#' which ccforest treats as single features; the formula interface of
#' `train()` expands them into dummy columns first.
#'
#' `caret::varImp()` uses [importance()] (projection importance unless the
#' forest stores another); pass `type` to choose. `predictors()` lists the
#' variables used by at least one split.
#'
#' caret has no convention for survival outcomes (its models are
#' classification or regression, and `train()` takes numeric or factor
#' outcomes), so survival forests are not offered through it: fit them with
#' [ccforest()], or tune them with tidymodels, whose censored regression mode
#' the parsnip engine supports (see [details_rand_forest_ccforest]).
#'
#' @return A list in caret's model format (`library`, `type`, `parameters`,
#'   `grid`, `fit`, `predict`, `prob`, `varImp`, `predictors`, `levels`,
#'   `sort`, ...).
#' @seealso [ccforest()], [importance()]
#' @examples
#' if (requireNamespace("caret", quietly = TRUE)) {
#'   set.seed(1)
#'   fit <- caret::train(
#'     iris[, 1:4], iris$Species,
#'     method = ccforest_caret(),
#'     tuneGrid = expand.grid(mtry = 2, min_split = c(2, 10)),
#'     trControl = caret::trainControl(method = "cv", number = 2, classProbs = TRUE),
#'     n_tree = 10, n_thread = 1
#'   )
#'   fit
#'   head(predict(fit, iris, type = "prob"))
#'   caret::varImp(fit)
#' }
#' @md
#' @export
ccforest_caret <- function() {
  list(
    label = "Canonical Correlation Forest",
    library = "ccforest",
    loop = NULL,
    type = c("Classification", "Regression"),
    parameters = data.frame(
      parameter = c("mtry", "min_split"),
      class = c("numeric", "numeric"),
      label = c("#Randomly Selected Predictors", "Minimal Node Size to Split")
    ),
    grid = caret_grid,
    fit = caret_fit,
    predict = caret_predict,
    prob = caret_prob,
    varImp = caret_var_imp,
    predictors = caret_predictors,
    levels = caret_levels,
    sort = function(x) x[order(x$mtry, -x$min_split), , drop = FALSE],
    tags = c("Random Forest", "Ensemble Model", "Bagging", "Implicit Feature Selection",
             "Oblique Tree", "Tree-Based Model"),
    notes = "Canonical correlation forests (Rainforth and Wood, 2017) from the ccforest package."
  )
}

#' Number of features ccforest sees in caret's `x`: a factor counts once
#' @noRd
caret_n_feature <- function(x) {
  max(1L, NCOL(x))
}

#' @noRd
caret_grid <- function(x, y, len = NULL, search = "grid") {
  n_feature <- caret_n_feature(x)
  classification <- is.factor(y) || is.character(y) || is.logical(y)
  base_split <- if (classification) 2L else 6L
  len <- max(1L, as.integer(len %||% 3L))
  if (search == "random") {
    draws <- base_split - 1L + sample.int(max(2L, ceiling(NROW(x) / 10)), len, replace = TRUE)
    return(data.frame(
      mtry = sample.int(n_feature, len, replace = TRUE),
      min_split = pmin(draws, max(1L, NROW(x)))
    ))
  }
  default_mtry <- check_mtry(NULL, n_feature)
  mtry <- unique(round(exp(seq(0, log(n_feature), length.out = len))))
  if (!default_mtry %in% mtry) {
    # Swap the candidate nearest the default for the default itself.
    mtry[[which.min(abs(mtry - default_mtry))]] <- default_mtry
  }
  min_split <- unique(as.integer(round(base_split * 2.5^(seq_len(len) - 1L))))
  expand.grid(mtry = sort(unique(as.integer(mtry))),
              min_split = bound_min_split(min_split, NROW(x)))
}

#' Values of min_split no larger than the rows caret trains on (a node of
#' the training set's size is the largest that can be split), keeping at
#' least one
#' @noRd
bound_min_split <- function(min_split, n_row) {
  kept <- min_split[min_split <= n_row]
  if (length(kept) == 0L) max(1L, as.integer(n_row)) else kept
}

#' caret's `weights` become ccforest's `case_weights`
#' @noRd
caret_fit <- function(x, y, wts, param, lev, last, classProbs, ...) {
  args <- list(...)
  if (!is.null(args$case_weights)) {
    stop("Give case weights to caret::train() as `weights`, not `case_weights`.",
         call. = FALSE)
  }
  if (!is.null(wts)) {
    args$case_weights <- wts
  }
  args$verbose <- args$verbose %||% FALSE
  if (!is.data.frame(x) && !is.matrix(x)) {
    x <- as.data.frame(x)
  }
  do.call(ccforest.default, c(
    list(x = x, y = y, mtry = min(as.integer(param$mtry), caret_n_feature(x)),
         min_split = as.integer(param$min_split)),
    args
  ))
}

#' @noRd
caret_predict <- function(modelFit, newdata, submodels = NULL) {
  if (!is.data.frame(newdata) && !is.matrix(newdata)) {
    newdata <- as.data.frame(newdata)
  }
  # A classifier's classes go to caret as characters.
  pred <- stats::predict(modelFit, newdata, type = task_record(modelFit$task)$default_type)
  if (is.factor(pred)) as.character(pred) else pred
}

#' @noRd
caret_prob <- function(modelFit, newdata, submodels = NULL) {
  if (!is.data.frame(newdata) && !is.matrix(newdata)) {
    newdata <- as.data.frame(newdata)
  }
  as.data.frame(stats::predict(modelFit, newdata, type = "prob"), optional = TRUE)
}

#' @noRd
caret_var_imp <- function(object, ...) {
  values <- importance(object, ...)
  data.frame(Overall = as.vector(unclass(values)), row.names = names(values))
}

#' Variables used by at least one split
#' @noRd
caret_predictors <- function(x, ...) {
  x$blueprint$feature_names[x$forest$importance > 0]
}

#' @noRd
caret_levels <- function(x) {
  if (task_record(x$task)$class_outputs) x$response$levels[[1L]] else NULL
}
