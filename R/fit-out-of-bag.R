# Out-of-bag estimates of a forest grown on samples, computed once when it
# is fitted: predictions, error and its curve by number of trees, residuals
# or class shares, and the permutation or negation importance. Survival's
# are in task-survival-oob.R.

#' The fit with its out-of-bag estimates (nothing for a forest grown without
#' samples), as its task makes them
#' @noRd
add_out_of_bag <- function(fit, training, core, n_thread, importance, kept_rows, response,
                           cache) {
  if (!has_out_of_bag(fit$options)) {
    return(fit)
  }
  if (oob_skipped(fit$options)) {
    # The record of the samples costs nothing to keep, and standard errors
    # (type = "se") redraw the samples from it without any estimate.
    fit$bagging <- bagging_record(training, kept_rows, core$sample)
    return(fit)
  }
  task_record(fit$task)$out_of_bag(fit, training, core, n_thread, importance, kept_rows, response,
                                   cache)
}

#' Whether the out-of-bag estimates of a forest grown on samples were
#' skipped (oob_error = FALSE; fit$options records it only then)
#' @noRd
oob_skipped <- function(options) {
  isFALSE(options$oob_error)
}

#' What is said where an estimate skipped by oob_error = FALSE is asked for
#' @noRd
oob_skipped_advice <- paste0(
  "`object` was fitted with oob_error = FALSE, which skips the out-of-bag estimates: refit ",
  "it without oob_error = FALSE (the trees are the same)")

#' Out-of-bag estimates of classes and values (see add_out_of_bag())
#' @noRd
values_out_of_bag <- function(fit, training, core, n_thread, importance, kept_rows, response,
                              cache) {
  oob <- with_memory_advice(
    ccf_oob_cpp(fit$forest$trees, training,
                forest_source(fit$seed, fit$forest$first_tree, core$sample, core$impute_random),
                n_thread, importance == "permutation", cache),
    doing = "compute the out-of-bag predictions",
    advice = "Use sampling = \"projection\", which has none, or fit on fewer rows."
  )
  oob_values <- out_of_bag(oob, fit$response, response, kept_rows)
  fit[names(oob_values)] <- oob_values
  fit$bagging <- bagging_record(training, kept_rows, core$sample)
  if (importance == "permutation") {
    fit$variable.importance <- oob_importance(oob$importance, fit)
  }
  if (importance == "negation") {
    fit$variable.importance <- oob_negation_importance(fit, training, core, n_thread)
  }
  fit
}

#' Out-of-bag permutation importance from the core, per original variable,
#' in the units of the error (squared error back in the output's units for one
#' numeric output)
#' @noRd
oob_importance <- function(values, object, type = "permutation") {
  scale <- task_record(object$task)$error_scale(object$response)
  if (!is.null(scale) && object$response$n_output == 1L) {
    values <- values * scale
  }
  new_importance(values, object$blueprint$feature_names, type)
}

#' Out-of-bag predictions and their error: misclassification rate for
#' classes, mean squared error for values, averaged over outputs
#'
#' @param oob The core's sums and counts over the rows the forest was grown on.
#' @param kept_rows With na_action = "omit", which of the data's rows were
#'   kept (NULL when all were): predictions line up with the data's rows, NA
#'   for dropped ones and for rows every tree drew.
#' @return A named list: `predictions`, `oob_error` and, for regression,
#'   `residuals` (observed minus out-of-bag predicted, aligned as
#'   `predictions`).
#' @noRd
out_of_bag <- function(oob, response_bp, response, kept_rows = NULL) {
  seen <- oob$count > 0L
  values <- oob$sum / pmax(oob$count, 1L)
  values[!seen, ] <- NA_real_
  estimates <- task_record(response_bp$task)$oob_summary(values, seen, response_bp, response)
  out <- c(list(predictions = estimates$predictions,
                oob_error = if (any(seen)) mean(estimates$errors) else NA_real_),
           estimates$extra)
  out$oob_error_curve <- oob_error_curve(oob, response_bp)
  if (!is.null(kept_rows)) {
    for (name in intersect(c("predictions", "residuals", "oob_prob"), names(out))) {
      out[[name]] <- expand_rows(out[[name]], kept_rows)
    }
  }
  out
}

#' Spread predictions for the kept rows over all rows, NA elsewhere
#' @noRd
expand_rows <- function(predicted, kept_rows) {
  position <- cumsum(kept_rows)
  position[!kept_rows] <- NA_integer_
  if (is.list(predicted) && !is.data.frame(predicted)) {
    return(lapply(predicted, expand_rows, kept_rows = kept_rows))
  }
  if (is.matrix(predicted)) {
    return(predicted[position, , drop = FALSE])
  }
  if (is.data.frame(predicted)) {
    out <- predicted[position, , drop = FALSE]
    rownames(out) <- NULL
    return(out)
  }
  predicted[position]
}

#' The out-of-bag error after each number of trees, in the units of
#' oob_error
#' @noRd
oob_error_curve <- function(oob, response) {
  seen <- oob$n_seen
  if (is.null(seen)) return(NULL)
  per_output <- oob$error_sum / pmax(seen, 1L)
  scale <- task_record(response$task)$error_scale(response)
  if (!is.null(scale)) {
    per_output <- sweep(per_output, 2L, scale, `*`)
  }
  curve <- rowMeans(per_output)
  curve[seen == 0L] <- NA_real_
  curve
}

#' Out-of-bag negation importance, computed by the core from the training
#' data at fit time
#' @noRd
oob_negation_importance <- function(fit, training, core, n_thread) {
  values <- with_memory_advice(
    ccf_oob_negation_cpp(fit$forest$trees, training,
                         forest_source(fit$seed, fit$forest$first_tree, core$sample,
                                       core$impute_random), n_thread),
    doing = "compute the negation importance",
    advice = "Fit with importance = \"projection\", or on fewer rows."
  )
  oob_importance(values, fit, type = "negation")
}

#' A classifier's out-of-bag classes, misclassification rate per output and
#' class probabilities (`extra`), from the rows' averaged out-of-bag values
#' @noRd
class_oob_summary <- function(values, seen, response_bp, response) {
  predicted <- format_classification(values, response_bp, "class")
  truth <- lapply(seq_len(response$n_output), function(m) response$codes[, m] + 1L)
  predicted_codes <- if (response$n_output == 1L) {
    list(as.integer(predicted))
  } else {
    lapply(predicted, as.integer)
  }
  errors <- vapply(seq_along(truth), function(m) {
    mean(predicted_codes[[m]][seen] != truth[[m]][seen])
  }, numeric(1))
  list(predictions = predicted, errors = errors,
       extra = list(oob_prob = format_classification(values, response_bp, "prob")))
}

#' A regression forest's out-of-bag predictions, mean squared error per
#' output and residuals (`extra`: observed minus predicted)
#' @noRd
values_oob_summary <- function(values, seen, response_bp, response) {
  predicted <- format_regression(values, response_bp)
  truth <- response$original
  fitted <- as.matrix(as.data.frame(predicted))
  errors <- colMeans((fitted[seen, , drop = FALSE] - truth[seen, , drop = FALSE])^2)
  residuals <- truth - fitted
  residuals <- if (response$n_output == 1L) {
    residuals[, 1L]
  } else {
    as.data.frame(structure(residuals, dimnames = list(NULL, response_bp$names)),
                  optional = TRUE)
  }
  list(predictions = predicted, errors = errors, extra = list(residuals = residuals))
}
