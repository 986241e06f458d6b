# parsnip's "censored regression" mode for the "ccforest" engine: survival
# forests in tidymodels, with the censored package's conventions (as its
# aorsf and partykit engines): predict(type = "survival", eval_time = ...)
# gives a list column `.pred` of tibbles (.eval_time, .pred_survival), and
# type = "time" a column `.pred_time`. Registered with the rest of the
# engine (see zzz.R).

#' @section Censored regression:
#' With the censored package loaded, the engine has the mode
#' `"censored regression"` too: `set_mode(rand_forest(), "censored
#' regression")` with an outcome `Surv(time, status)` fits a survival forest
#' ([ccforest()] with a Surv outcome; competing risks are not offered
#' through parsnip, whose censored regression has one event). `predict()`
#' gives `type = "survival"` at `eval_time` (survival probabilities, one
#' tibble of `.eval_time` and `.pred_survival` per row), and `type = "time"`
#' (the restricted mean survival time up to the training data's last event
#' time). So a workflow can be tuned with yardstick's survival metrics, such
#' as `concordance_survival` and `brier_survival_integrated`, `trees`
#' included (from one forest per combination, as in the other modes).
#' @rdname details_rand_forest_ccforest
#' @name details_rand_forest_ccforest
NULL

#' Register the engine's "censored regression" mode
#' @return `TRUE` if the mode was registered by this call, invisibly.
#' @noRd
register_parsnip_censored <- function() {
  mode <- "censored regression"
  if (!claim_parsnip_mode(mode)) {
    return(invisible(FALSE))
  }
  model <- "rand_forest"
  engine <- "ccforest"
  parsnip::set_fit(
    model = model, eng = engine, mode = mode,
    # The formula interface: parsnip hands a Surv outcome over only through
    # a formula.
    value = list(
      interface = "formula",
      data = c(formula = "formula", data = "data", weights = "case_weights"),
      protect = c("formula", "data", "weights"),
      func = c(pkg = "ccforest", fun = "ccforest_parsnip_formula_fit"),
      defaults = parsnip_fit_defaults()
    )
  )
  set_ccforest_encoding(model, engine, mode)
  parsnip::set_pred(
    model = model, eng = engine, mode = mode, type = "survival",
    value = list(
      pre = NULL,
      post = NULL,
      func = c(pkg = "ccforest", fun = "ccforest_parsnip_survival"),
      args = list(object = quote(object), new_data = quote(new_data),
                  eval_time = quote(eval_time))
    )
  )
  parsnip::set_pred(
    model = model, eng = engine, mode = mode, type = "time",
    value = list(
      pre = NULL,
      post = function(x, object) unname(x),
      func = c(fun = "predict"),
      args = list(object = quote(object$fit), new_data = quote(new_data), type = "time")
    )
  )
  invisible(TRUE)
}

#' Formula fit function of the parsnip engine's censored regression mode
#'
#' What parsnip's `fit()` calls for `rand_forest()` with the `"ccforest"`
#' engine in mode `"censored regression"` (see
#' [details_rand_forest_ccforest]); users call [ccforest()]. It is the
#' formula method of [ccforest()] with `mtry` capped by the number of
#' features and `min_split` by the rows of `data`, as for the other modes.
#'
#' @param formula,data,... Passed to [ccforest()].
#' @param mtry,min_split As in [ccforest()], capped.
#' @return A `"ccforest"`.
#' @keywords internal
#' @export
#' @examples
#' fit <- ccforest_parsnip_formula_fit(survival::Surv(time, status) ~ karno + age,
#'                                     data = survival::veteran, mtry = 5, n_tree = 5,
#'                                     seed = 1)
#' fit$options$mtry
ccforest_parsnip_formula_fit <- function(formula, data, ..., mtry = NULL, min_split = NULL) {
  call <- match.call()
  count <- function(v) !is.null(v) && is_plain_number(v) && length(v) == 1L && is.finite(v)
  if (count(mtry)) {
    n_feature <- length(formula_data(formula, data, env = parent.frame())$x)
    mtry <- max(1L, min(as.integer(mtry), n_feature))
    call$mtry <- mtry
  }
  if (count(min_split) && requireNamespace("parsnip", quietly = TRUE)) {
    min_split <- parsnip::min_rows(min_split, data)
    call$min_split <- min_split
  }
  fit <- ccforest(formula, data = data, ..., mtry = mtry, min_split = min_split)
  fit$call <- generic_call(call)
  fit
}

#' Survival probabilities of the parsnip engine
#'
#' What parsnip's `predict(type = "survival")` calls for a `rand_forest()`
#' fitted with the `"ccforest"` engine in mode `"censored regression"` (see
#' [details_rand_forest_ccforest]); users call `predict()`.
#'
#' @param object A parsnip `model_fit` holding a survival forest.
#' @param new_data The rows to predict.
#' @param eval_time The times of the survival probabilities.
#' @param n_tree Use the first `n_tree` trees (default: all).
#' @return A tibble with one list column `.pred`: for each row of `new_data`,
#'   a tibble of `.eval_time` and `.pred_survival`.
#' @keywords internal
#' @export
#' @examples
#' if (requireNamespace("censored", quietly = TRUE)) {
#'   library(censored)
#'   spec <- parsnip::set_mode(parsnip::rand_forest(trees = 20), "censored regression")
#'   spec <- parsnip::set_engine(spec, "ccforest")
#'   fitted <- parsnip::fit(spec, survival::Surv(time, status) ~ ., data = survival::veteran)
#'   predict(fitted, survival::veteran[1:2, ], type = "survival", eval_time = c(30, 100))$.pred
#' }
ccforest_parsnip_survival <- function(object, new_data, eval_time, n_tree = NULL) {
  forest <- object$fit
  check_ccforest(forest, arg = "object$fit")
  times <- check_times(eval_time, forest$response$survival, arg = "eval_time")
  surv <- stats::predict(forest, new_data, type = "survival", times = times, n_tree = n_tree)
  tibble::tibble(.pred = lapply(seq_len(nrow(surv)), function(i) {
    tibble::tibble(.eval_time = times, .pred_survival = unname(surv[i, ]))
  }))
}

#' multi_predict() in the censored regression mode: for each row, a tibble
#' with a column `trees` and the predictions of the first `trees` trees
#' (`.eval_time` and `.pred_survival` rows per number of trees for
#' type = "survival", `.pred_time` for type = "time")
#' @noRd
multi_predict_survival <- function(forest, new_data, type, trees, eval_time) {
  type <- check_choice(type %||% "survival", "type", c("survival", "time"))
  n <- nrow(new_data)
  if (type == "survival") {
    if (is.null(eval_time)) {
      stop("`eval_time` is needed for type = \"survival\".", call. = FALSE)
    }
    times <- check_times(eval_time, forest$response$survival, arg = "eval_time")
  }
  per_k <- lapply(trees, function(k) {
    if (type == "time") {
      return(list(trees = rep(k, n), .pred_time = unname(stats::predict(forest, new_data,
                                                                          type = "time", n_tree = k))))
    }
    surv <- stats::predict(forest, new_data, type = "survival", times = times, n_tree = k)
    list(trees = rep(k, n * length(times)), .eval_time = rep(times, each = n),
         .pred_survival = as.vector(surv), .row = rep(seq_len(n), times = length(times)))
  })
  columns <- setdiff(names(per_k[[1L]]), ".row")
  stacked <- tibble::as_tibble(stats::setNames(lapply(columns, function(name) {
    do.call(c, lapply(per_k, `[[`, name))
  }), columns))
  row_of <- if (type == "time") {
    rep(seq_len(n), times = length(trees))
  } else {
    do.call(c, lapply(per_k, `[[`, ".row"))
  }
  order_by_row <- if (type == "survival") {
    order(row_of, stacked$trees, stacked$.eval_time)
  } else {
    order(row_of, stacked$trees)
  }
  pieces <- unname(split(stacked[order_by_row, , drop = FALSE],
                         factor(row_of[order_by_row], levels = seq_len(n))))
  tibble::tibble(.pred = pieces)
}
