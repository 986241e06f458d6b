# parsnip integration: a "ccforest" engine for rand_forest(). parsnip is only
# suggested, so the engine is registered when parsnip is loaded (see
# `.onLoad()` in zzz.R), following parsnip's guide to engines in other
# packages (https://www.tidymodels.org/learn/develop/models/) and the
# engines in tidymodels/bonsai. The user-facing description of the engine is
# the help page `details_rand_forest_ccforest`, below.

#' Canonical correlation forests via ccforest (a parsnip engine)
#'
#' @description
#' Loading ccforest registers an engine `"ccforest"` for parsnip's
#' `rand_forest()`, in the modes `"classification"` and `"regression"`, so
#' canonical correlation forests can be fitted, resampled and tuned with
#' tidymodels like any other forest.
#'
#' @section Tuning parameters:
#' The main arguments of `rand_forest()` map to arguments of [ccforest()]:
#'
#' * `trees` (default 500) -> `n_tree`. A forest predicts with its first `k`
#'   trees as well (`predict(fit, n_tree = k)`), so `trees` is a *submodel*
#'   parameter: when it is tuned, tune fits one forest with the largest value
#'   per combination of the other parameters and gets the others from
#'   `parsnip::multi_predict()`.
#' * `mtry` (default \eqn{\lceil \log_2 D + 1 \rceil}{ceiling(log2(D) + 1)} of the D
#'   features) -> `mtry`; a factor counts as one feature.
#' * `min_n` (default 2 for classification, 6 for regression) -> `min_split`.
#'
#' As with parsnip's ranger engine, `mtry` is capped by the number of
#' predictors and `min_n` by the number of rows of the data a model is fitted
#' on (with parsnip's warning), so that tuning them over resamples with few
#' rows does not grow single-leaf forests.
#'
#' Seven engine arguments can be tuned as well, with `set_engine("ccforest",
#' projection = tune())` and so on; their dials parameter objects are found
#' by `extract_parameter_set_dials()` without further work:
#'
#' * `projection` ([ccf_projection()]): `"cca"`, `"rotation"`, `"pca"` or
#'   `"axis"`;
#' * `split_rule` ([ccf_split_rule()]): `"entropy"` or `"gini"`
#'   (classification);
#' * `sampling` ([ccf_sampling()]): `"projection"` or `"bagging"`;
#' * `sample_fraction` ([dials::sample_prop()]): the share of the rows each
#'   tree is grown on;
#' * `max_directions`, `direction_ratio`, `axis_candidates` and `output_bins`
#'   ([ccf_max_directions()], [ccf_direction_ratio()], [ccf_axis_candidates()],
#'   [ccf_output_bins()]): the options beyond the paper.
#'
#' Every other argument of [ccforest()] can be given to `set_engine()`, such
#' as `replace`, `sample_fraction` with one value per class, or
#' `feature_weights = "screen"` (the default `"auto"` screens wide data with a
#' sparse signal already).
#'
#' @section Translation from parsnip to the original package:
#' ```
#' rand_forest(mtry = integer(1), trees = integer(1), min_n = integer(1)) |>
#'   set_engine("ccforest") |>
#'   set_mode("classification") |>
#'   translate()
#' ## Model fit template:
#' ## ccforest::ccforest_parsnip_fit(x = missing_arg(), y = missing_arg(),
#' ##     weights = missing_arg(), mtry = min_cols(~integer(1), x),
#' ##     n_tree = integer(1), min_split = integer(1), n_thread = 1L,
#' ##     verbose = FALSE, seed = sample.int(.Machine$integer.max, 1L))
#' ```
#' [ccforest_parsnip_fit()] is [ccforest()] with `min_split` capped by the
#' rows of `x`. `weights` stands for the case weights, which reach
#' [ccforest()] as `case_weights`. The engine runs on one thread by default (`n_thread = 1`; tune
#' parallelises over resamples) and draws its seed from R's generator, so
#' `set.seed()` makes a fit or a tuning run reproducible. Give `n_thread` to
#' `set_engine()` to use more threads.
#'
#' @section Preprocessing:
#' Factors reach ccforest as factors (no dummy variables are made): it
#' expands them itself and samples a factor's indicator columns together, as
#' one feature. Missing predictor values are allowed; they are imputed as
#' [ccforest()]'s `na_action` says.
#'
#' @section Case weights:
#' The engine declares case weights: a workflow with `add_case_weights()`
#' (importance weights or frequency weights from hardhat) passes them to
#' [ccforest()]'s `case_weights`.
#'
#' @section Predictions:
#' Classification gives `type = "class"` and `type = "prob"` (one
#' `.pred_<level>` column per class); regression `type = "numeric"`.
#' `multi_predict(fit, new_data, trees = c(...))` predicts with the first
#' `trees` trees, for several values at once.
#'
#' @name details_rand_forest_ccforest
#' @keywords internal
#' @seealso [ccforest()], [ccf_projection()], [partial_dependence()]
#' @examples
#' if (requireNamespace("parsnip", quietly = TRUE)) {
#'   spec <- parsnip::rand_forest(trees = 50, min_n = 3)
#'   spec <- parsnip::set_engine(spec, "ccforest", projection = "cca")
#'   spec <- parsnip::set_mode(spec, "classification")
#'   fitted <- parsnip::fit(spec, Species ~ ., data = iris)
#'   predict(fitted, iris[c(1, 51, 101), ], type = "prob")
#'   parsnip::multi_predict(fitted, iris[c(1, 51, 101), ], trees = c(5, 50))
#' }
NULL

#' Register the "ccforest" engine of parsnip's rand_forest()
#'
#' Safe to call more than once: if the engine is already known to parsnip,
#' nothing is done.
#' @return `TRUE` if the engine was registered by this call, invisibly.
#' @noRd
register_parsnip_engine <- function() {
  if (!isNamespaceLoaded("parsnip")) {
    return(invisible(FALSE))
  }
  engines <- parsnip::get_model_env()$rand_forest
  if (is.null(engines) || any(engines$engine == "ccforest")) {
    return(invisible(FALSE))
  }
  model <- "rand_forest"
  engine <- "ccforest"
  for (mode in c("classification", "regression")) {
    parsnip::set_model_engine(model, mode = mode, eng = engine)
    parsnip::set_dependency(model, eng = engine, pkg = "ccforest", mode = mode)
  }

  # The engine arguments and their dials parameters come from the option
  # table (R/fit-options.R). `trees` is a submodel parameter: predict(n_tree
  # = k) uses the first k trees, so one fit serves every smaller value (see
  # multi_predict below).
  for (a in parsnip_arguments()) {
    parsnip::set_model_arg(
      model = model, eng = engine, parsnip = a$parsnip, original = a$original,
      func = list(pkg = a$pkg, fun = a$fun), has_submodel = a$sub
    )
  }

  for (mode in c("classification", "regression")) {
    parsnip::set_fit(
      model = model, eng = engine, mode = mode,
      value = list(
        interface = "data.frame",
        # Case weights: parsnip passes them as `weights`, which `data` maps
        # to ccforest's `case_weights`; listing "weights" in `protect` is
        # how an engine declares that it takes them.
        data = c(x = "x", y = "y", weights = "case_weights"),
        protect = c("x", "y", "weights"),
        func = c(pkg = "ccforest", fun = "ccforest_parsnip_fit"),
        defaults = parsnip_fit_defaults()
      )
    )
    set_ccforest_encoding(model, engine, mode)
  }

  predict_value <- function(type, post = NULL) {
    list(
      pre = NULL,
      post = post,
      func = c(fun = "predict"),
      args = list(
        object = quote(object$fit),
        new_data = quote(new_data),
        type = type
      )
    )
  }
  parsnip::set_pred(model = model, eng = engine, mode = "classification", type = "class",
                    value = predict_value("class"))
  parsnip::set_pred(model = model, eng = engine, mode = "classification", type = "prob",
                    value = predict_value("prob", post = parsnip_prob_post))
  parsnip::set_pred(model = model, eng = engine, mode = "classification", type = "raw",
                    value = predict_value("prob"))
  parsnip::set_pred(model = model, eng = engine, mode = "regression", type = "numeric",
                    value = predict_value("response"))
  parsnip::set_pred(model = model, eng = engine, mode = "regression", type = "raw",
                    value = predict_value("response"))
  invisible(TRUE)
}

#' Factors reach ccforest as factors: it expands them itself and samples a
#' factor's indicator columns together
#' @noRd
set_ccforest_encoding <- function(model, engine, mode) {
  parsnip::set_encoding(
    model = model, eng = engine, mode = mode,
    options = list(
      predictor_indicators = "none",
      compute_intercept = FALSE,
      remove_intercept = FALSE,
      allow_sparse_x = FALSE
    )
  )
}

#' Fit function of the parsnip engine
#'
#' What parsnip's `fit()` calls for `rand_forest()` with the `"ccforest"`
#' engine (see [details_rand_forest_ccforest]); users call [ccforest()]. It is
#' [ccforest()] with `min_split` (parsnip's `min_n`) capped by the number of
#' rows of `x`, with parsnip's warning, as parsnip caps ranger's
#' `min.node.size`: tuning `min_n` on small resamples then fits trees
#' instead of single leaves.
#'
#' @param x,y,... Passed to [ccforest()].
#' @param min_split As in [ccforest()], at most the number of rows of `x`.
#' @return A `"ccforest"`.
#' @keywords internal
#' @export
#' @examples
#' if (requireNamespace("parsnip", quietly = TRUE)) {
#'   rows <- c(1:10, 51:60)
#'   fit <- ccforest_parsnip_fit(iris[rows, 1:4], droplevels(iris$Species[rows]),
#'                               min_split = 50, n_tree = 5, seed = 1)
#'   fit$options$min_split
#' }
ccforest_parsnip_fit <- function(x, y, ..., min_split = NULL) {
  call <- match.call()
  if (!is.null(min_split) && is_plain_number(min_split) && length(min_split) == 1L &&
      is.finite(min_split) && requireNamespace("parsnip", quietly = TRUE)) {
    min_split <- parsnip::min_rows(min_split, x)
    call$min_split <- min_split
  }
  fit <- ccforest(x, y, ..., min_split = min_split)
  # The call as parsnip wrote it, not as passed on from here.
  fit$call <- generic_call(call)
  fit
}

#' Class probabilities as parsnip wants them: a tibble with one column per
#' level, named by the level (parsnip adds the `.pred_` prefix)
#' @noRd
parsnip_prob_post <- function(x, object) {
  tibble::as_tibble(as.data.frame(x, optional = TRUE), .name_repair = "minimal")
}

#' Register our methods on parsnip's generics
#' @noRd
register_parsnip_methods <- function() {
  if (!isNamespaceLoaded("parsnip")) {
    return(invisible(FALSE))
  }
  registerS3method("multi_predict", "_ccforest", multi_predict_ccforest,
                   envir = asNamespace("parsnip"))
  invisible(TRUE)
}

#' Register min_grid() for rand_forest() with tune, unless tune has one
#'
#' tune fits one model per value of a submodel parameter unless the model
#' type has a min_grid() method; tune's own fit_max_value() is the method
#' it documents for packages to use. It looks the submodel parameters up per
#' engine, so other engines of rand_forest() (none of which has any) are not
#' affected.
#' @noRd
register_tune_methods <- function() {
  if (!isNamespaceLoaded("tune")) {
    return(invisible(FALSE))
  }
  tune_ns <- asNamespace("tune")
  if (!is.function(get0("fit_max_value", envir = tune_ns, inherits = FALSE))) {
    return(invisible(FALSE))
  }
  existing <- utils::getS3method("min_grid", "rand_forest", optional = TRUE, envir = tune_ns)
  if (!is.null(existing) && !isTRUE(attr(existing, "ccforest"))) {
    return(invisible(FALSE))
  }
  method <- structure(function(x, grid, ...) tune::fit_max_value(x, grid, ...), ccforest = TRUE)
  registerS3method("min_grid", "rand_forest", method, envir = tune_ns)
  invisible(TRUE)
}

#' Predictions of a parsnip fit for several numbers of trees
#'
#' The `multi_predict()` method of the engine (registered on parsnip's
#' generic for class `"_ccforest"`): one tibble per row of `new_data`, with a
#' column `trees` and parsnip's prediction columns, one row per number of
#' trees.
#' @noRd
multi_predict_ccforest <- function(object, new_data, type = NULL, trees = NULL, ...) {
  # eval_time: the censored regression mode's times (with-parsnip-survival.R).
  check_dots(list(...), valid = c(names(formals(multi_predict_ccforest)), "eval_time"),
             fn = "multi_predict")
  forest <- object$fit
  check_ccforest(forest, arg = "object$fit")
  n_total <- n_trees(forest)
  if (is.null(trees)) {
    trees <- n_total
  }
  if (!is_plain_number(trees) || length(trees) < 1L || anyNA(trees) ||
      any(trees != trunc(trees)) || any(trees < 1) || any(trees > n_total)) {
    stop(sprintf("`trees` must be whole numbers between 1 and %d (the trees in the forest), not %s.",
                 n_total, format_value(trees)), call. = FALSE)
  }
  trees <- sort(unique(as.integer(trees)))
  task_record(forest$task)$multi_predict(object, new_data, type, trees, list(...))
}

#' multi_predict_ccforest() for a forest whose leaves hold averaged values
#' (classification, regression and its quantile regression mode)
#' @param trees The numbers of trees, checked and sorted.
#' @noRd
multi_predict_mean <- function(object, new_data, type, trees) {
  forest <- object$fit
  classification <- task_record(forest$task)$class_outputs
  # The engine's quantile regression mode (with-parsnip-quantile.R): tune asks for
  # its quantiles with the first k trees.
  quantile_mode <- identical(object$spec$mode, "quantile regression")
  type <- type %||% if (classification) "class" else if (quantile_mode) "quantile" else "numeric"
  type <- check_choice(type, "type", if (classification) c("class", "prob") else if (quantile_mode) {
    "quantile"
  } else {
    "numeric"
  })
  n <- nrow(new_data)
  per_k <- lapply(trees, function(k) {
    value <- if (type == "quantile") {
      stats::predict(forest, new_data, type = "quantiles",
                     quantiles = object$spec$quantile_levels, n_tree = k)
    } else {
      stats::predict(forest, new_data, type = if (type == "numeric") "response" else type,
                     n_tree = k)
    }
    columns <- switch(type,
      class = list(.pred_class = value),
      numeric = list(.pred = unname(value)),
      quantile = parsnip_quantile_post(value, object),
      prob = stats::setNames(lapply(seq_len(ncol(value)), function(j) unname(value[, j])),
                             paste0(".pred_", colnames(value)))
    )
    c(list(trees = rep(k, n)), columns)
  })
  columns <- names(per_k[[1L]])
  stacked <- lapply(columns, function(name) {
    do.call(c, lapply(per_k, `[[`, name))
  })
  names(stacked) <- columns
  stacked <- tibble::as_tibble(stacked)
  # Row i's predictions for every number of trees, in increasing order.
  order_by_row <- order(rep(seq_len(n), times = length(trees)), stacked$trees)
  row_of <- rep(seq_len(n), times = length(trees))[order_by_row]
  stacked <- stacked[order_by_row, , drop = FALSE]
  pieces <- unname(split(stacked, factor(row_of, levels = seq_len(n))))
  tibble::tibble(.pred = pieces)
}

#' Declares the ccforest engine of rand_forest() for one more mode
#' @return `FALSE` when parsnip is not loaded, does not know the mode (older
#'   versions) or already has the engine for it; else `TRUE`, the engine and
#'   its dependency declared.
#' @noRd
claim_parsnip_mode <- function(mode) {
  if (!isNamespaceLoaded("parsnip")) {
    return(FALSE)
  }
  env <- parsnip::get_model_env()
  engines <- env$rand_forest
  if (!mode %in% env$rand_forest_modes || is.null(engines) ||
      any(engines$engine == "ccforest" & engines$mode == mode)) {
    return(FALSE)
  }
  parsnip::set_model_engine("rand_forest", mode = mode, eng = "ccforest")
  parsnip::set_dependency("rand_forest", eng = "ccforest", pkg = "ccforest", mode = mode)
  TRUE
}

#' The arguments of every fit through parsnip: one thread (tune parallelises
#' over resamples) and a seed drawn from R's generator, so that set.seed()
#' makes a tuning run reproducible; `...` adds the mode's own
#' @noRd
parsnip_fit_defaults <- function(...) {
  list(..., n_thread = 1L, verbose = FALSE, seed = quote(sample.int(.Machine$integer.max, 1L)))
}
