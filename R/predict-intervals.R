# Prediction intervals with a coverage guarantee, by conformal inference:
#
# * "cqr": conformalised quantile regression (Romano, Patterson and Candes,
#   2019) on the quantile forest, with a calibration set the forest was not
#   grown on. Split conformal: for any forest and any data whose calibration
#   and new rows are exchangeable, P(y in interval) >= level.
# * "jackknife+": jackknife+-after-bootstrap (Kim, Xu and Barber, 2020) of a
#   bagged forest, from its out-of-bag residuals; no calibration set.
#
# Both are built on the forest's public predictions (the quantile API,
# per-tree predictions), not inside them.

#' The interval method a call asks for, checked against the forest
#' @noRd
resolve_interval_method <- function(object, interval, calibration) {
  if (!one_real_output(object$response)) {
    stop("type = \"interval\" is for regression forests with one numeric output; ",
         if (!task_record(object$task)$real_outputs) {
           "this one is a classifier (type = \"prob\" gives its class probabilities)."
         } else {
           sprintf("this one has %d outputs.", object$response$n_output)
         }, call. = FALSE)
  }
  bagged <- identical(object$options$sampling, "bagging")
  if (is.null(interval)) {
    if (!is.null(calibration)) {
      interval <- "cqr"
    } else if (bagged) {
      interval <- "jackknife+"
    } else {
      stop("type = \"interval\" needs either a calibration set, `calibration` (data the ",
           "forest was not grown on, with its outputs; conformalised quantile regression on ",
           "a forest fitted with quantiles = TRUE), or a forest grown with ",
           "sampling = \"bagging\" (jackknife+-after-bootstrap from its out-of-bag ",
           "residuals). This forest was grown with projection bootstrapping, whose trees see ",
           "every row.", call. = FALSE)
    }
  }
  interval <- check_choice(interval, "interval", c("cqr", "jackknife+"))
  if (interval == "cqr") {
    if (is.null(calibration)) {
      stop("interval = \"cqr\" needs `calibration`: data the forest was not grown on, with ",
           "its outputs (for a forest fitted with x and y, the outputs go in ",
           "`calibration_y`).", call. = FALSE)
    }
    if (is.null(object$quantile)) {
      stop("interval = \"cqr\" conformalises the forest's quantiles, so it needs a forest ",
           "fitted with quantiles = TRUE.", call. = FALSE)
    }
  } else if (!is.null(calibration)) {
    stop("interval = \"jackknife+\" uses the out-of-bag residuals, not `calibration`; drop ",
         "`calibration`, or use interval = \"cqr\".", call. = FALSE)
  }
  interval
}

#' @noRd
check_level <- function(level) {
  if (!is_plain_number(level) || length(level) != 1L || is.na(level) || level <= 0 ||
      level >= 1) {
    stop(sprintf("`level` must be one number strictly between 0 and 1, not %s.",
                 describe_value(level, is_plain_number(level))), call. = FALSE)
  }
  as.double(level)
}

#' predict(type = "interval")
#' @noRd
predict_interval <- function(object, matrix_x, interval, level, calibration, calibration_y,
                             n_tree, n_thread, impute_random) {
  fit_values <- predict_values(object, matrix_x, n_tree, n_thread, impute_random)
  center <- object$response$center[[1L]]
  scale <- object$response$scale[[1L]]
  prediction <- fit_values[, 1L] * scale + center
  bounds <- if (interval == "cqr") {
    cqr_interval(object, matrix_x, level, calibration, calibration_y, n_tree, n_thread,
                 impute_random)
  } else {
    jackknife_plus_interval(object, matrix_x, level, n_tree, n_thread, impute_random)
  }
  out <- data.frame(prediction = unname(prediction), lower = bounds$lower, upper = bounds$upper)
  structure(out, class = c("ccforest_interval", "data.frame"), level = level, method = interval,
            n_calibration = bounds$n_calibration)
}

#' Conformalised quantile regression (Romano, Patterson and Candes, 2019)
#' @noRd
cqr_interval <- function(object, matrix_x, level, calibration, calibration_y, n_tree, n_thread,
                         impute_random) {
  truth <- held_out_truth(object, calibration, calibration_y, arg = "calibration",
                          y_arg = "calibration_y", purpose = "interval = \"cqr\"")
  cal_x <- predictor_matrix(object, calibration, arg = "calibration")
  if (nrow(cal_x) != truth$n) {
    stop(sprintf("`calibration` has %d rows but `calibration_y` has %d; they must match.",
                 nrow(cal_x), truth$n), call. = FALSE)
  }
  keep <- truth$complete
  n_cal <- sum(keep)
  if (n_cal == 0L) {
    stop("Every output in `calibration` is missing; conformal intervals need calibration rows ",
         "with known outputs.", call. = FALSE)
  }
  y <- truth$outputs[[1L]][keep] * object$response$scale[[1L]] + object$response$center[[1L]]
  alpha <- 1 - level
  probs <- c(alpha / 2, 1 - alpha / 2)
  cal_q <- predict_quantile_values(object, cal_x[keep, , drop = FALSE], probs, n_tree, n_thread,
                                   impute_random)
  # Conformity scores: how far each calibration output falls outside its
  # quantile band (negative inside).
  scores <- pmax(cal_q[, 1L] - y, y - cal_q[, 2L])
  rank <- ceiling(level * (n_cal + 1) - 1e-9)
  widen <- if (rank > n_cal) Inf else sort(scores)[[rank]]
  new_q <- predict_quantile_values(object, matrix_x, probs, n_tree, n_thread, impute_random)
  list(lower = unname(new_q[, 1L] - widen), upper = unname(new_q[, 2L] + widen),
       n_calibration = n_cal)
}

#' @export
print.ccforest_interval <- function(x, ...) {
  method <- switch(attr(x, "method") %||% "",
    cqr = sprintf("conformalised quantile regression, %s calibration rows",
                  format(attr(x, "n_calibration"), big.mark = ",")),
    `jackknife+` = "jackknife+-after-bootstrap",
    "unknown method"
  )
  cat(sprintf("Prediction intervals at level %s (%s)\n", format(attr(x, "level")), method))
  print(as.data.frame(unclass(x), optional = TRUE), ...)
  invisible(x)
}
