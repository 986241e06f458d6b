# parsnip's "quantile regression" mode for the "ccforest" engine: a quantile
# regression forest (ccforest(quantiles = TRUE)) whose predictions are
# parsnip's quantile predictions at the levels given to set_mode(), as
# parsnip's grf engine offers them. Registered with the rest of the engine
# (see zzz.R) when parsnip knows the mode (parsnip >= 1.3.0).

#' @section Quantile regression:
#' With parsnip 1.3.0 or later, the engine also has the mode
#' `"quantile regression"`: `set_mode(rand_forest(), "quantile regression",
#' quantile_levels = c(0.1, 0.5, 0.9))` fits a quantile regression forest
#' (`ccforest(quantiles = TRUE)`, one numeric outcome) and `predict()` gives
#' `type = "quantile"`: a column `.pred_quantile` of hardhat quantile
#' predictions at those levels. tune tunes its arguments in this mode, but
#' not `trees`: tune 2.1.0 nests the quantile predictions of smaller forests
#' (from `multi_predict()`, which gives them) where its metrics do not look,
#' so give `trees` a value. For intervals with a coverage guarantee,
#' use `predict(extract_fit_engine(fit), type = "interval", calibration =
#' ...)` (see [predict.ccforest()]) or the probably package's conformal
#' functions, which work on ccforest workflows.
#' @rdname details_rand_forest_ccforest
#' @name details_rand_forest_ccforest
NULL

#' Register the engine's "quantile regression" mode
#' @return `TRUE` if the mode was registered by this call, invisibly.
#' @noRd
register_parsnip_quantile <- function() {
  mode <- "quantile regression"
  if (!claim_parsnip_mode(mode)) {
    return(invisible(FALSE))
  }
  model <- "rand_forest"
  engine <- "ccforest"
  parsnip::set_fit(
    model = model, eng = engine, mode = mode,
    value = list(
      interface = "data.frame",
      data = c(x = "x", y = "y", weights = "case_weights"),
      protect = c("x", "y", "weights"),
      func = c(pkg = "ccforest", fun = "ccforest_parsnip_fit"),
      defaults = parsnip_fit_defaults(quantiles = TRUE)
    )
  )
  set_ccforest_encoding(model, engine, mode)
  parsnip::set_pred(
    model = model, eng = engine, mode = mode, type = "quantile",
    value = list(
      pre = NULL,
      post = parsnip_quantile_post,
      func = c(fun = "predict"),
      args = list(
        object = quote(object$fit),
        new_data = quote(new_data),
        type = "quantiles",
        quantiles = quote(object$spec$quantile_levels)
      )
    )
  )
  invisible(TRUE)
}

#' Quantiles as parsnip wants them: one column `.pred_quantile` of
#' hardhat's quantile predictions
#' @noRd
parsnip_quantile_post <- function(x, object) {
  tibble::new_tibble(list(
    .pred_quantile = hardhat::quantile_pred(unname(x), object$spec$quantile_levels)
  ))
}
