# Variable importance. Three measures, all reported per original variable
# (a factor's indicator columns count as one variable):
#
# * "projection": each split's gain shared among the features of its
#   hyperplane in proportion to their absolute coefficients. Free to compute
#   from the stored forest, and the oblique analogue of impurity importance.
# * "permutation": the increase in prediction error on held-out data when one
#   variable is shuffled.
# * "negation": the increase when the sign of one variable's coefficients is
#   flipped in every split (aorsf's), done by reading its columns negated.
# With projection bootstrapping every tree is grown on every row, so there
# are no out-of-bag rows and the training data would make every variable
# look useful: the last two need held-out data (or a bagged forest fitted
# with importance = "permutation" or "negation", whose out-of-bag importance
# the core computes). Both can be given per held-out row (local = TRUE).

#' Variable importance of a canonical correlation forest
#'
#' @description
#' `importance()` measures how much a fitted forest relies on each of its
#' original variables. A factor counts as one variable: the shares of its
#' indicator columns are added up.
#'
#' @section Projection importance:
#' What it measures: how much of the training data's impurity the forest's
#' splits remove, credited to the variables of each split's hyperplane.
#' Every split is a hyperplane \eqn{\sum_j w_j z_j \le t}{sum_j w_j z_j <= t} over a few
#' z-scored columns \eqn{z_j} (scaled so that the largest \eqn{|w_j|} is 1). The
#' split's gain (the number of rows reaching the node times the decrease in
#' impurity: entropy, Gini or variance of the standardised outputs) is shared
#' among its variables in proportion to the Euclidean norm of their
#' coefficients: \eqn{|w_j|}{|w_j|} for a numeric column (every column has standard
#' deviation 1 after z-scoring), and for a factor's indicator columns the norm
#' of their coefficients, which unlike their sum does not grow with the
#' number of levels. A factor with more than `onehot_max_levels` levels is
#' valued by the outputs (one column, or one per axis with several classes),
#' each training row out of fold (see [ccforest()]), so a factor
#' of noise gets about the importance of a numeric variable of noise however
#' many levels it has. A variable's
#' importance is the sum of its shares over all the splits of the forest,
#' divided by the number of trees. It needs no data and is computed while the
#' trees grow; with `projection = "axis"` it is the usual impurity importance
#' of a random forest. It describes the training data, not generalisation:
#' variables that the trees use to fit noise (in small nodes, say) get some
#' credit, and variables whose effect no hyperplane captures well (a
#' symmetric, U-shaped effect, say) get less than their permutation
#' importance. For a ranking by predictive value, use permutation importance.
#'
#' @section Permutation importance:
#' The increase in prediction error on `new_data` when the values of one
#' variable are shuffled among its rows (all columns of a factor move
#' together), averaged over `n_repeat` shuffles. The error is the
#' misclassification rate for classification and the mean squared error for
#' regression, averaged over outputs; with several numeric outputs, each
#' output's squared error is measured in units of its training standard
#' deviation so that no output dominates. Rows whose outputs are missing are
#' left out.
#'
#' Forests grown with projection bootstrapping (the default) fit every tree to
#' every training row, so the training data would overstate every variable's
#' importance: permutation importance then needs held-out data, e.g. a test
#' set or an assessment fold. A forest whose trees are grown on samples
#' (`sampling = "bagging"`, or a `sample_fraction` below 1) and fitted with
#' `importance = "permutation"` stores its out-of-bag permutation importance,
#' which `importance(fit)` returns.
#'
#' @section Negation importance:
#' The increase in prediction error on `new_data` when the sign of one
#' variable's coefficients is flipped in every split of every tree (all
#' columns of a factor together), the others left as they are: the negation
#' importance of oblique forests (Jaeger et al., 2023, aorsf). A split's
#' projection \eqn{\sum_j w_j z_j}{sum_j w_j z_j} then reads
#' \eqn{-w_d z_d}{-w_d z_d} for the variable's z-scored columns, which is
#' the same as reflecting the variable about its training mean; missing
#' values are imputed first, as the trees impute them. It needs no random
#' numbers (`n_repeat` and `seed` are not used), and it measures how much
#' the forest relies on the *direction* in which a variable enters its
#' hyperplanes: a variable whose coefficients carry the split gets its
#' rows sent to the wrong side. A forest fitted with `sampling = "bagging"`
#' and `importance = "negation"` stores the out-of-bag version (each tree on
#' the rows it did not draw), which `importance(fit)` returns. Errors are
#' measured as for permutation importance.
#'
#' @section Local importance:
#' With `local = TRUE`, permutation and negation importance are returned per
#' row of `new_data`: a matrix (rows x variables) of each row's increase in
#' loss (squared error, or for classification the change in its
#' misclassification, 0 or 1 for negation and averaged over the `n_repeat`
#' shuffles for permutation), whose column means are the importance values.
#' Rows whose outputs are missing get `NA`. It shows for which rows a
#' variable matters (plot it against the variable, say).
#'
#' @section When each measure misleads:
#' * Projection importance describes the training fit: it credits variables
#'   used to fit noise in small nodes, and splits the credit of correlated
#'   variables between them however the hyperplanes happened to weigh them.
#' * Permutation importance breaks a variable's relation to the others as
#'   well as to the output: with correlated variables the shuffled rows lie
#'   where there were no data, and the forest's predictions there (not the
#'   data) decide the value. Correlated variables can also mask each other
#'   (each looks unimportant because the other remains).
#' * Negation importance moves no row off the data's support when the
#'   variable's distribution is symmetric about its mean, but a skewed
#'   variable is reflected onto values it never takes. A variable whose
#'   effect is symmetric (a U shape around its mean) is left almost
#'   unchanged by a reflection and gets little negation importance, whatever
#'   its effect. Flipping a factor's indicator columns is not a reassignment
#'   of levels.
#' * Held-out importance has the noise of its held-out rows: on a few dozen
#'   rows one misclassification is a few percent of error.
#'
#' @references Jaeger, B. C., Welden, S., Lenoir, K., Speiser, J. L., Segar,
#'   M. W., Pandey, A. and Pajewski, N. M. (2023). Accelerated and
#'   interpretable oblique random survival forests. Journal of Computational
#'   and Graphical Statistics 33(1), 192-207.
#'
#' @param x A `"ccforest"` fitted by [ccforest()].
#' @param type `"projection"`, `"permutation"` or `"negation"` (see the
#'   sections below). For survival forests permutation and negation
#'   importance are the decrease in Harrell's C-index of the risk (averaged
#'   over the causes with held-out events), and `local = TRUE` is not
#'   available. An importance that cannot be computed is `NA`, listed last;
#'   no variable is ever left out.
#'   `NULL` (default) returns the importance stored at fit time if there is
#'   one (see the `importance` argument of [ccforest()]), the permutation
#'   importance when `new_data` is given, and the projection importance
#'   otherwise.
#' @param new_data Held-out data for permutation or negation importance: a data.frame (or
#'   matrix) with the features used to fit the forest. For a forest fitted
#'   with a formula it must also hold the output column(s), unless `y` is
#'   given.
#' @param y The outputs of `new_data`, as for [ccforest()] (a factor, a
#'   numeric vector or a data.frame of several outputs). Needed for forests
#'   fitted with `x` and `y`.
#' @param n_repeat Number of shuffles of each variable, averaged.
#' @param n_thread Number of threads for the predictions, as in [ccforest()].
#' @param seed Seed of the shuffles, a whole number; `NULL` (default) draws
#'   them from R's random number generator, so `set.seed()` governs them. A
#'   given seed leaves R's random number stream as it was.
#' @param local With `new_data`, return each row's importance (see the
#'   section on local importance) instead of their mean.
#' @param ... Not used; a misspelled argument is an error.
#' @return A named numeric vector with one value per original variable,
#'   sorted decreasingly, of class `"ccforest_importance"`, with an attribute
#'   `"type"` (`"projection"`, `"permutation"` or `"negation"`). Print it, or
#'   plot it with [plot.ccforest_importance()] (or `ggplot2::autoplot()`).
#'   With `local = TRUE`, a matrix of class `"ccforest_local_importance"`.
#' @seealso [plot.ccforest_importance()]
#' @examples
#' fit <- ccforest(Species ~ ., data = iris, n_tree = 50, seed = 1)
#' importance(fit)
#'
#' # Permutation importance needs held-out data
#' train <- seq(1, 150, by = 2)
#' fit <- ccforest(Species ~ ., data = iris[train, ], n_tree = 50, seed = 1)
#' importance(fit, new_data = iris[-train, ], n_repeat = 3, seed = 1)
#'
#' # Negation importance, and each held-out row's share of it
#' importance(fit, type = "negation", new_data = iris[-train, ])
#' local <- importance(fit, type = "negation", new_data = iris[-train, ], local = TRUE)
#' head(local)
#'
#' # x/y fits take the held-out outputs in `y`
#' reg <- ccforest(mtcars[1:22, -1], mtcars$mpg[1:22], n_tree = 50, seed = 1)
#' importance(reg, new_data = mtcars[23:32, -1], y = mtcars$mpg[23:32], seed = 1)
#' @md
#' @export
importance <- function(x, ...) {
  UseMethod("importance")
}

#' @rdname importance
#' @export
importance.ccforest <- function(x, type = NULL, new_data = NULL, y = NULL, n_repeat = 1,
                                n_thread = NULL, seed = NULL, local = FALSE, ...) {
  check_dots(list(...), valid = names(formals(importance.ccforest)), fn = "importance")
  check_ccforest(x, arg = "x")
  stored <- x$variable.importance
  stored_type <- if (is.null(stored)) NULL else attr(stored, "type")
  if (!is.null(type)) {
    type <- check_choice(type, "type", c("projection", "permutation", "negation"))
  }
  n_repeat <- check_count(n_repeat, "n_repeat", min = 1L)
  seed <- check_count(seed, "seed", min = 0L, max = 2^31 - 1, allow_null = TRUE)
  local <- check_flag(local, "local")

  if (is.null(type)) {
    if (!is.null(new_data)) {
      type <- "permutation"
    } else if (!is.null(stored) && !local) {
      return(stored)
    } else {
      type <- if (local) "permutation" else "projection"
    }
  }
  if (type == "projection") {
    if (!is.null(new_data) || !is.null(y)) {
      stop("`new_data` and `y` are only used by type = \"permutation\" and \"negation\"; ",
           "projection importance is computed from the forest alone.", call. = FALSE)
    }
    if (local) {
      stop("local = TRUE measures each held-out row's loss, which projection importance ",
           "(computed from the forest alone) has none of: use type = \"permutation\" or ",
           "\"negation\" with `new_data`.", call. = FALSE)
    }
    return(projection_importance(x))
  }
  if (local && is.null(new_data)) {
    stop("local = TRUE measures each held-out row's loss: give the held-out rows as ",
         "`new_data`.", call. = FALSE)
  }
  if (is.null(new_data)) {
    if (identical(stored_type, type) && !local) {
      return(stored)
    }
    measure <- paste0(toupper(substring(type, 1L, 1L)), substring(type, 2L))
    if (oob_skipped(x$options)) {
      stop(sprintf(paste0(
        "%s importance needs held-out data: call importance(fit, new_data = ...%s) with data ",
        "not used to fit the forest%s. `x` was fitted with oob_error = FALSE, so it has no ",
        "out-of-bag importance (importance = \"%s\" at fit time needs out-of-bag estimates)."),
        measure, if (type == "negation") ", type = \"negation\"" else "",
        if (is.null(x$formula)) " and its outputs in `y`" else "", type), call. = FALSE)
    }
    stop(sprintf(paste0(
      "%s importance needs held-out data: call importance(fit, new_data = ...%s) ",
      "with data not used to fit the forest%s. With projection bootstrapping every tree is ",
      "grown on every training row, so the training data would overstate every variable's ",
      "importance. (A forest whose trees are grown on samples, with sampling = \"bagging\" ",
      "or a `sample_fraction` below 1, and fitted with importance = \"%s\" stores an ",
      "out-of-bag %s importance instead.)"), measure,
      if (type == "negation") ", type = \"negation\"" else "",
      if (is.null(x$formula)) " and its outputs in `y`" else "", type, type), call. = FALSE)
  }
  held_out_importance(x, new_data, y, type = type, n_repeat = n_repeat,
                      n_thread = resolve_n_thread(n_thread), seed = seed, local = local)
}

#' Projection importance: split gains shared among each split's features in
#' proportion to the norm of their coefficients (columns are z-scored, so
#' sd = 1), summed per original variable over the forest (by the core, while
#' growing it) and divided by the number of trees.
#' @param object A fitted "ccforest".
#' @return A sorted "ccforest_importance" vector of type "projection".
#' @noRd
projection_importance <- function(object) {
  new_importance(object$forest$importance / n_trees(object), object$blueprint$feature_names,
                 "projection")
}

#' Permutation or negation importance on held-out data
#'
#' Encodes `new_data` once. Permutation shuffles the rows of one variable's
#' columns (a factor's indicator columns together) in the encoded matrix and
#' predicts again; with a seed, R's random number state is restored
#' afterwards. Negation predicts with the variable's columns read with their
#' sign flipped, which is flipping the sign of its coefficients in every
#' split (the core does it after imputing missing values, as the trees see
#' them).
#' @return A "ccforest_importance" vector, or with `local = TRUE` a matrix of
#'   each row's increase in loss (rows of `new_data` x variables; NA for rows
#'   whose outputs are missing).
#' @noRd
held_out_importance <- function(object, new_data, y, type, n_repeat, n_thread, seed, local) {
  task_record(object$task)$held_out_importance(object, new_data, y, type, n_repeat, n_thread,
                                               seed, local)
}

#' held_out_importance() for a forest whose leaves hold averaged values
#' @noRd
mean_held_out_importance <- function(object, new_data, y, type, n_repeat, n_thread, seed,
                                     local) {
  what <- sprintf("%s importance", type)
  truth <- held_out_truth(object, new_data, y, purpose = what)
  matrix_x <- predictor_matrix(object, new_data)
  if (nrow(matrix_x) != truth$n) {
    stop(sprintf("`new_data` has %d rows but `y` has %d; they must match.",
                 nrow(matrix_x), truth$n), call. = FALSE)
  }
  keep <- truth$complete
  if (!any(keep)) {
    stop(sprintf(paste0("Every row of the held-out outputs is missing; %s needs rows with ",
                        "known outputs."), what), call. = FALSE)
  }
  n_all <- nrow(matrix_x)
  matrix_x <- matrix_x[keep, , drop = FALSE]
  truth <- lapply(truth$outputs, function(v) v[keep])
  n <- nrow(matrix_x)
  if (n < 2L && type == "permutation") {
    stop("Permutation importance needs at least 2 held-out rows with known outputs, not ",
         n, ".", call. = FALSE)
  }

  response <- object$response
  n_tree <- n_trees(object)
  losses <- function(values) row_losses(values, truth, response)
  bp <- object$blueprint
  n_feature <- length(bp$feature_names)
  baseline <- losses(predict_values(object, matrix_x, n_tree, n_thread))
  increase <- matrix(0, n, n_feature)
  if (type == "negation") {
    start <- bp$feature_start
    for (d in seq_len(n_feature)) {
      negated <- predict_request(object, n_tree, n_thread, negate = start[c(d, d + 1L)])
      values <- core_call(object, ccf_predict_cpp(negated, matrix_x))
      increase[, d] <- losses(values) - baseline
    }
  } else {
    if (!is.null(seed)) {
      restore_rng <- preserve_rng()
      on.exit(restore_rng(), add = TRUE)
      set.seed(seed)
    }
    for (r in seq_len(n_repeat)) {
      for (d in seq_len(n_feature)) {
        columns <- which(bp$column_feature == d)
        permuted <- matrix_x
        permuted[, columns] <- matrix_x[sample.int(n), columns, drop = FALSE]
        increase[, d] <- increase[, d] +
          losses(predict_values(object, permuted, n_tree, n_thread)) - baseline
      }
    }
    increase <- increase / n_repeat
  }
  if (!local) {
    return(new_importance(colMeans(increase), bp$feature_names, type))
  }
  out <- matrix(NA_real_, n_all, n_feature, dimnames = list(NULL, bp$feature_names))
  out[keep, ] <- increase
  structure(out, type = type, class = c("ccforest_local_importance", "matrix", "array"))
}

#' Restore R's random number state later, as it is now (including "no
#' state yet")
#' @noRd
preserve_rng <- function() {
  had_seed <- exists(".Random.seed", envir = globalenv(), inherits = FALSE)
  old_seed <- if (had_seed) get(".Random.seed", envir = globalenv(), inherits = FALSE)
  function() {
    if (had_seed) {
      assign(".Random.seed", old_seed, envir = globalenv())
    } else if (exists(".Random.seed", envir = globalenv(), inherits = FALSE)) {
      rm(".Random.seed", envir = globalenv())
    }
  }
}

#' The held-out outputs, as per-output vectors comparable with predictions:
#' class labels (character) for classification, z-scores for regression
#' @return A list: `outputs`, `n` and `complete` (rows without missing
#'   outputs).
#' @noRd
held_out_truth <- function(object, new_data, y, arg = "new_data", y_arg = "y",
                           purpose = "permutation importance") {
  response <- object$response
  if (is.null(y)) {
    if (is.null(object$formula)) {
      stop(sprintf(paste0(
        "`%s` is missing: %s needs the outputs of `%s`. The forest was fitted with `x` and ",
        "`y`, so give them as `%s`."), y_arg, purpose, arg, y_arg), call. = FALSE)
    }
    y <- formula_outputs_in(object, new_data, arg = arg, y_arg = y_arg, purpose = purpose)
  }
  columns <- if (is.data.frame(y) || is.matrix(y)) {
    if (NCOL(y) != response$n_output) {
      stop(sprintf("`%s` has %d column(s), but the forest has %d output(s) (%s).", y_arg,
                   NCOL(y), response$n_output, format_names(response$names)), call. = FALSE)
    }
    if (!is.null(colnames(y)) && all(response$names %in% colnames(y))) {
      y <- y[, response$names, drop = FALSE]
    }
    lapply(seq_len(NCOL(y)), function(m) if (is.data.frame(y)) y[[m]] else y[, m])
  } else {
    if (response$n_output != 1L) {
      stop(sprintf("`%s` must be a data.frame with the forest's %d outputs (%s), not %s.",
                   y_arg, response$n_output, format_names(response$names), class_label(y)),
           call. = FALSE)
    }
    list(y)
  }
  columns <- lapply(seq_along(columns), function(m) {
    held_out_output(columns[[m]], m, response)
  })
  complete <- Reduce(`&`, lapply(columns, function(v) !is.na(v)))
  list(outputs = columns, n = length(columns[[1L]]), complete = complete)
}

#' One held-out output, checked against its training counterpart
#' @noRd
held_out_output <- function(values, m, response) {
  task_record(response$task)$held_out_output(values, m, response)
}

#' One held-out class output, as labels
#' @noRd
class_held_out_output <- function(values, m, response) {
  if (!(is.factor(values) || is.character(values) || is.logical(values) ||
        (is.numeric(values) && !is.object(values)))) {
    stop(sprintf("Output `%s` in the held-out data has class %s; it must hold the class labels.",
                 response$names[[m]], class_label(values)), call. = FALSE)
  }
  as.character(values)
}

#' One held-out numeric output, z-scored as the training outputs were
#' @noRd
values_held_out_output <- function(values, m, response) {
  name <- response$names[[m]]
  if (!is.numeric(values) || is.object(values) && !identical(class(values), "AsIs")) {
    stop(sprintf("Output `%s` in the held-out data must be numeric, not %s.",
                 name, class_label(values)), call. = FALSE)
  }
  (as.double(values) - response$center[[m]]) / response$scale[[m]]
}

#' The outputs of a formula fit, evaluated in `new_data`
#' @noRd
formula_outputs_in <- function(object, new_data, arg = "new_data", y_arg = "y",
                               purpose = "permutation importance") {
  output_names <- object$formula$response_names
  if (!is.data.frame(new_data)) {
    new_data <- as.data.frame(new_data, stringsAsFactors = FALSE)
  }
  enclos <- object$formula$env %||% baseenv()
  outputs <- lapply(output_names, function(name) {
    if (name %in% names(new_data)) {
      return(new_data[[name]])
    }
    expr <- tryCatch(str2lang(name), error = function(e) NULL)
    value <- if (is.null(expr) || !any(all.vars(expr) %in% names(new_data))) {
      NULL
    } else {
      tryCatch(eval(expr, new_data, enclos), error = function(e) NULL)
    }
    if (is.null(value)) {
      stop(sprintf(paste0(
        "`%s` has no output column `%s`: %s compares predictions with the held-out outputs, ",
        "so include them (or give them as `%s`)."), arg, name, purpose, y_arg), call. = FALSE)
    }
    value
  })
  structure(list2DF(outputs, nrow = nrow(new_data)), names = output_names)
}

#' Each row's loss, from raw core predictions and held-out outputs:
#' misclassification (0 or 1), or squared error (in the output's units for
#' one output, in training standard deviations for several), averaged over
#' outputs. Their mean is the error permutation importance compares.
#' @noRd
row_losses <- function(values, truth, response) {
  task_record(response$task)$row_losses(values, truth, response)
}

#' Each held-out row's misclassification, averaged over outputs
#' @noRd
class_row_losses <- function(values, truth, response) {
  offsets <- c(0L, cumsum(response$n_class))
  errors <- vapply(seq_len(response$n_output), function(m) {
    block <- values[, offsets[[m]] + seq_len(response$n_class[[m]]), drop = FALSE]
    predicted <- response$levels[[m]][max.col(block, ties.method = "first")]
    as.double(is.na(predicted) | predicted != truth[[m]])
  }, numeric(nrow(values)))
  rowMeans(matrix(errors, nrow(values)))
}

#' Each held-out row's squared error (see row_losses())
#' @noRd
values_row_losses <- function(values, truth, response) {
  errors <- vapply(seq_len(response$n_output), function(m) {
    (values[, m] - truth[[m]])^2
  }, numeric(nrow(values)))
  errors <- rowMeans(matrix(errors, nrow(values)))
  if (response$n_output == 1L) errors * response$scale[[1L]]^2 else errors
}

#' @noRd
prediction_error <- function(values, truth, response) {
  mean(row_losses(values, truth, response))
}

#' @noRd
new_importance <- function(values, feature_names, type) {
  values <- stats::setNames(as.double(values), feature_names)
  # sort() drops NA and NaN unless told otherwise: an undefined importance
  # stays, last, rather than removing its variable.
  structure(sort(values, decreasing = TRUE, na.last = TRUE), type = type,
            class = c("ccforest_importance", "numeric"))
}

#' Subsets stay importance vectors, so head(vi) prints and plots as vi does
#' @export
#' @noRd
`[.ccforest_importance` <- function(x, i) {
  structure(unclass(x)[i], type = attr(x, "type"), measure = attr(x, "measure"),
            class = class(x))
}

#' @noRd
importance_label <- function(type, measure = NULL) {
  if (identical(measure, "c_index") && type %in% c("permutation", "negation")) {
    return(if (type == "permutation") "decrease in Harrell's C when permuted" else
      "decrease in Harrell's C when its coefficients' signs are flipped")
  }
  switch(type %||% "",
    projection = "split gain per tree, shared by coefficient norm",
    permutation = "increase in error when permuted",
    negation = "increase in error when its coefficients' signs are flipped",
    "importance"
  )
}

#' @export
print.ccforest_local_importance <- function(x, digits = 3L, n = 6L, ...) {
  cat(sprintf("Local %s importance: each row's increase in loss, %d rows x %d variables\n",
              attr(x, "type") %||% "", nrow(x), ncol(x)))
  shown <- unclass(x)[seq_len(min(n, nrow(x))), , drop = FALSE]
  attr(shown, "type") <- NULL
  print(signif(shown, digits))
  if (nrow(x) > n) cat(sprintf("... %d more rows\n", nrow(x) - n))
  invisible(x)
}

#' @rdname plot.ccforest_importance
#' @export
print.ccforest_importance <- function(x, digits = 3L, ...) {
  type <- attr(x, "type")
  cat(sprintf("Variable importance: %s (%s)\n", type %||% "unknown",
              importance_label(type, attr(x, "measure"))))
  # zapsmall() hides rounding residue such as 1e-18 left by permutation.
  values <- zapsmall(as.vector(unclass(x)), digits = 7L)
  if (length(values) > 0L) {
    labels <- names(x) %||% as.character(seq_along(values))
    cat(paste0("  ", format(labels), "  ", format(values, digits = digits)), sep = "\n")
  }
  invisible(x)
}

#' Plot or print variable importance
#'
#' `plot()` draws a horizontal bar chart of the `n` most important variables,
#' the most important at the top; `print()` lists every variable.
#'
#' @param x A `"ccforest_importance"` from [importance()].
#' @param n Number of variables shown (the most important ones).
#' @param main,xlab Title and axis label; by default they name the measure.
#' @param col Fill colour of the bars.
#' @param digits Significant digits printed.
#' @param ... Passed on to [graphics::barplot()] (`plot()`); not used by
#'   `print()`.
#' @return `plot()` returns the bars' midpoints invisibly (as
#'   [graphics::barplot()]); `print()` returns `x` invisibly.
#' @examples
#' fit <- ccforest(Species ~ ., data = iris, n_tree = 50, seed = 1)
#' vi <- importance(fit)
#' vi
#' plot(vi)
#' @md
#' @export
plot.ccforest_importance <- function(x, n = 20L, main = NULL, xlab = NULL,
                                     col = "grey40", ...) {
  n <- check_count(n, "n", min = 1L)
  type <- attr(x, "type")
  values <- utils::head(sort(stats::setNames(as.vector(unclass(x)), names(x)),
                             decreasing = TRUE, na.last = TRUE), n)
  # barplot() draws from the bottom up: reverse so the largest is on top.
  values <- rev(values)
  labels <- names(values)
  if (is.null(labels)) {
    labels <- as.character(seq_along(values))
  }
  # Widen the left margin to fit the longest name, up to 45% of the device.
  margin <- graphics::par("mai")
  label_width <- max(graphics::strwidth(labels, units = "inches", cex = graphics::par("cex.axis")))
  margin[[2L]] <- min(max(margin[[2L]], label_width + 0.3), 0.45 * graphics::par("din")[[1L]])
  old <- graphics::par(mai = margin)
  on.exit(graphics::par(old), add = TRUE)
  mids <- graphics::barplot(
    values, horiz = TRUE, names.arg = labels, las = 1L, col = col, border = NA,
    main = main %||% sprintf("Variable importance (%s)", type %||% "unknown"),
    xlab = xlab %||% importance_label(type, attr(x, "measure")), ...
  )
  graphics::abline(v = 0, col = "grey70")
  invisible(mids)
}
