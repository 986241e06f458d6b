# Quantile regression forests (Meinshausen, 2006): what a forest stores to
# predict quantiles, and the prediction itself (see src/core/Quantiles.h).

#' The training outputs, their case weights and each tree's rows by leaf
#' @noRd
quantile_data <- function(fit, training, response, core, n_thread) {
  samples <- with_memory_advice(
    ccf_leaf_samples_cpp(
      fit$forest$trees, training,
      forest_source(core$seed, fit$forest$first_tree, core$sample, core$impute_random), n_thread
    ),
    doing = "store the training outputs of every leaf for quantiles",
    advice = "Grow fewer trees, or fit without quantiles = TRUE."
  )
  y <- response$original[, 1L]
  list(y = y, weights = if (length(training$weights)) training$weights, samples = samples)
}

#' @noRd
check_quantile_probs <- function(quantiles) {
  if (!is_plain_number(quantiles) || !is.null(dim(quantiles)) || length(quantiles) == 0L ||
      anyNA(quantiles)) {
    stop(sprintf("`quantiles` must be numbers between 0 and 1, not %s.",
                 describe_value(quantiles, is_plain_number(quantiles))), call. = FALSE)
  }
  bad <- which(quantiles < 0 | quantiles > 1)
  if (length(bad) > 0L && length(quantiles) == 1L) {
    stop(sprintf("`quantiles` must be numbers between 0 and 1, not %s.", format_value(quantiles)),
         call. = FALSE)
  }
  if (length(bad) > 0L) {
    stop(sprintf("`quantiles` must be numbers between 0 and 1, but element %d is %s.",
                 bad[[1L]], format_value(quantiles[[bad[[1L]]]])), call. = FALSE)
  }
  as.double(quantiles)
}

#' Quantiles of each row's conditional distribution, one column per level
#' @noRd
predict_quantile_values <- function(object, matrix_x, quantiles, n_tree, n_thread,
                                    impute_random) {
  q <- .subset2(object, "quantile")
  if (!is.list(q) || !is.numeric(q$y) || !is.list(q$samples) ||
      length(q$samples) != length(.subset2(.subset2(object, "forest"), "trees")) ||
      !(is.null(q$weights) || (is.numeric(q$weights) && length(q$weights) == length(q$y)))) {
    stop("`object` is damaged: its quantile data are inconsistent. Refit the forest.",
         call. = FALSE)
  }
  # The core takes the probabilities in increasing order, as they are
  # usually given: order() (a closure that dispatches on its arguments) only
  # when they are not, which costs a served row more than the check.
  # (is.unsorted(), too, is a closure.)
  n_prob <- length(quantiles)
  order <- if (n_prob > 1L && any(quantiles[-1L] < quantiles[-n_prob])) order(quantiles)
  weights <- q$weights
  values <- core_call(object, ccf_predict_quantiles_cpp(
    predict_request(object, n_tree, n_thread, impute_random), matrix_x, q$samples, q$y,
    if (is.null(weights)) numeric(0) else weights,
    if (is.null(order)) quantiles else quantiles[order],
    quantile = q
  ))
  if (!is.null(order)) values[, order] <- values
  # dimnames<- is a primitive; colnames<- a closure (see predict_mean_forest()).
  dimnames(values) <- list(NULL, quantile_labels(quantiles))
  values
}

#' `paste("quantile=", quantiles)`, kept for the last probabilities labelled
#' (a served model is asked for the same ones on every call; as.character()
#' of numbers is a good part of a one-row call's R code)
#' @noRd
quantile_labels <- function(quantiles) {
  key <- quantile_label_memo$key
  # Equal numbers give equal labels; == instead of identical(), a closure.
  if (length(key) != length(quantiles) || !all(key == quantiles)) {
    quantile_label_memo$labels <- paste("quantile=", quantiles)
    quantile_label_memo$key <- quantiles
  }
  quantile_label_memo$labels
}

#' @noRd
quantile_label_memo <- new.env(parent = emptyenv())
