# parsnip integration: a "ccforest" engine for rand_forest(). parsnip is only
# suggested, so the engine is registered when parsnip is loaded (see
# `.onLoad()` in zzz.R), following parsnip's guide to engines in other
# packages (https://www.tidymodels.org/learn/develop/models/) and the
# engines in tidymodels/bonsai.
#
# Once registered:
#   rand_forest(mtry = tune(), min_n = tune(), trees = 500) |>
#     set_engine("ccforest") |> set_mode("classification")
# with `trees` -> n_tree, `mtry` -> mtry and `min_n` -> min_split, and any
# other argument of ccforest() given to set_engine().

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

  arguments <- list(
    list(parsnip = "mtry", original = "mtry", fun = "mtry"),
    list(parsnip = "trees", original = "n_tree", fun = "trees"),
    list(parsnip = "min_n", original = "min_split", fun = "min_n")
  )
  for (a in arguments) {
    parsnip::set_model_arg(
      model = model, eng = engine, parsnip = a$parsnip, original = a$original,
      func = list(pkg = "dials", fun = a$fun), has_submodel = FALSE
    )
  }

  for (mode in c("classification", "regression")) {
    parsnip::set_fit(
      model = model, eng = engine, mode = mode,
      value = list(
        interface = "data.frame",
        protect = c("x", "y"),
        func = c(pkg = "ccforest", fun = "ccforest"),
        # One thread (tune parallelises over resamples) and a seed drawn from
        # R's generator, so set.seed() makes a tuning run reproducible.
        defaults = list(
          n_thread = 1L,
          verbose = FALSE,
          seed = quote(sample.int(.Machine$integer.max, 1L))
        )
      )
    )
    # Factors reach ccforest as factors: it expands them itself and samples
    # a factor's indicator columns together.
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

#' Class probabilities as parsnip wants them: a tibble with one column per
#' level, named by the level (parsnip adds the `.pred_` prefix)
#' @noRd
parsnip_prob_post <- function(x, object) {
  tibble::as_tibble(as.data.frame(x, optional = TRUE), .name_repair = "minimal")
}
