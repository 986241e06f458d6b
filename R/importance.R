# Variable importance. Two measures, both reported per original variable
# (a factor's indicator columns count as one variable):
#
# * "projection": each split's gain shared among the features of its
#   hyperplane in proportion to their absolute coefficients. Free to compute
#   from the stored forest, and the oblique analogue of impurity importance.
# * "permutation": the increase in prediction error on held-out data when one
#   variable is shuffled. With projection bootstrapping every tree is grown on
#   every row, so there are no out-of-bag rows and the training data would
#   make every variable look useful: held-out data is required (or a bagged
#   forest fitted with importance = "permutation", whose out-of-bag
#   importance the core computes).

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
#' set or an assessment fold. A forest fitted with `sampling = "bagging"` and
#' `importance = "permutation"` stores its out-of-bag permutation importance,
#' which `importance(fit)` returns.
#'
#' @param x A `"ccforest"` fitted by [ccforest()].
#' @param type `"projection"` or `"permutation"` (see the sections below).
#'   `NULL` (default) returns the importance stored at fit time if there is
#'   one (see the `importance` argument of [ccforest()]), the permutation
#'   importance when `new_data` is given, and the projection importance
#'   otherwise.
#' @param new_data Held-out data for permutation importance: a data.frame (or
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
#' @param ... Not used; a misspelled argument is an error.
#' @return A named numeric vector with one value per original variable,
#'   sorted decreasingly, of class `"ccforest_importance"`, with an attribute
#'   `"type"` (`"projection"` or `"permutation"`). Print it, or plot it with
#'   [plot.ccforest_importance()].
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
                                n_thread = NULL, seed = NULL, ...) {
  check_dots(list(...), valid = names(formals(importance.ccforest)), fn = "importance")
  check_ccforest(x, arg = "x")
  stored <- x$variable.importance
  stored_type <- if (is.null(stored)) NULL else attr(stored, "type")
  if (!is.null(type)) {
    type <- check_choice(type, "type", c("projection", "permutation"))
  }
  n_repeat <- check_count(n_repeat, "n_repeat", min = 1L)
  seed <- check_count(seed, "seed", min = 0L, max = 2^31 - 1, allow_null = TRUE)

  if (is.null(type)) {
    if (!is.null(new_data)) {
      type <- "permutation"
    } else if (!is.null(stored)) {
      return(stored)
    } else {
      type <- "projection"
    }
  }
  if (type == "projection") {
    if (!is.null(new_data) || !is.null(y)) {
      stop("`new_data` and `y` are only used by type = \"permutation\"; ",
           "projection importance is computed from the forest alone.", call. = FALSE)
    }
    return(projection_importance(x))
  }
  if (is.null(new_data)) {
    if (identical(stored_type, "permutation")) {
      return(stored)
    }
    stop("Permutation importance needs held-out data: call importance(fit, new_data = ...) ",
         "with data not used to fit the forest", if (is.null(x$formula)) " and its outputs in `y`",
         ". With projection bootstrapping every tree is grown on every training row, so ",
         "permuting the training data would overstate every variable's importance. ",
         "(A forest fitted with sampling = \"bagging\" and importance = \"permutation\" ",
         "stores an out-of-bag permutation importance instead.)", call. = FALSE)
  }
  permutation_importance(x, new_data, y, n_repeat = n_repeat,
                         n_thread = resolve_n_thread(n_thread), seed = seed)
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

#' Permutation importance on held-out data
#'
#' Encodes `new_data` once, then shuffles the rows of one variable's columns
#' (a factor's indicator columns together) in the encoded matrix and predicts
#' again. With a seed, R's random number state is restored afterwards.
#' @noRd
permutation_importance <- function(object, new_data, y, n_repeat, n_thread, seed) {
  truth <- held_out_truth(object, new_data, y)
  matrix_x <- predictor_matrix(object, new_data)
  if (nrow(matrix_x) != truth$n) {
    stop(sprintf("`new_data` has %d rows but `y` has %d; they must match.",
                 nrow(matrix_x), truth$n), call. = FALSE)
  }
  keep <- truth$complete
  if (!any(keep)) {
    stop("Every row of the held-out outputs is missing; permutation importance needs ",
         "rows with known outputs.", call. = FALSE)
  }
  matrix_x <- matrix_x[keep, , drop = FALSE]
  truth <- lapply(truth$outputs, function(v) v[keep])
  n <- nrow(matrix_x)
  if (n < 2L) {
    stop("Permutation importance needs at least 2 held-out rows with known outputs, not ",
         n, ".", call. = FALSE)
  }

  response <- object$response
  predict_error <- function(z) {
    values <- predict_values(object, z, n_trees(object), n_thread)
    prediction_error(values, truth, response)
  }

  if (!is.null(seed)) {
    restore_rng <- preserve_rng()
    on.exit(restore_rng(), add = TRUE)
    set.seed(seed)
  }
  bp <- object$blueprint
  n_feature <- length(bp$feature_names)
  baseline <- predict_error(matrix_x)
  increase <- numeric(n_feature)
  for (r in seq_len(n_repeat)) {
    for (d in seq_len(n_feature)) {
      columns <- which(bp$column_feature == d)
      permuted <- matrix_x
      permuted[, columns] <- matrix_x[sample.int(n), columns, drop = FALSE]
      increase[[d]] <- increase[[d]] + predict_error(permuted) - baseline
    }
  }
  new_importance(increase / n_repeat, bp$feature_names, "permutation")
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
held_out_truth <- function(object, new_data, y) {
  response <- object$response
  if (is.null(y)) {
    if (is.null(object$formula)) {
      stop("`y` is missing: permutation importance needs the outputs of `new_data`. ",
           "The forest was fitted with `x` and `y`, so give them as `y`.", call. = FALSE)
    }
    y <- formula_outputs_in(object, new_data)
  }
  columns <- if (is.data.frame(y) || is.matrix(y)) {
    if (NCOL(y) != response$n_output) {
      stop(sprintf("`y` has %d column(s), but the forest has %d output(s) (%s).", NCOL(y),
                   response$n_output, format_names(response$names)), call. = FALSE)
    }
    if (!is.null(colnames(y)) && all(response$names %in% colnames(y))) {
      y <- y[, response$names, drop = FALSE]
    }
    lapply(seq_len(NCOL(y)), function(m) if (is.data.frame(y)) y[[m]] else y[, m])
  } else {
    if (response$n_output != 1L) {
      stop(sprintf("`y` must be a data.frame with the forest's %d outputs (%s), not %s.",
                   response$n_output, format_names(response$names), class_label(y)),
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
  name <- response$names[[m]]
  if (response$task == "classification") {
    if (!(is.factor(values) || is.character(values) || is.logical(values) ||
          (is.numeric(values) && !is.object(values)))) {
      stop(sprintf("Output `%s` in the held-out data has class %s; it must hold the class labels.",
                   name, class_label(values)), call. = FALSE)
    }
    return(as.character(values))
  }
  if (!is.numeric(values) || is.object(values) && !identical(class(values), "AsIs")) {
    stop(sprintf("Output `%s` in the held-out data must be numeric, not %s.",
                 name, class_label(values)), call. = FALSE)
  }
  (as.double(values) - response$center[[m]]) / response$scale[[m]]
}

#' The outputs of a formula fit, evaluated in `new_data`
#' @noRd
formula_outputs_in <- function(object, new_data) {
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
      stop(sprintf("`new_data` has no output column `%s`: permutation importance compares ",
                   name), "predictions with the held-out outputs, so include them ",
           "(or give them as `y`).", call. = FALSE)
    }
    value
  })
  structure(list2DF(outputs, nrow = nrow(new_data)), names = output_names)
}

#' Error of raw core predictions against held-out outputs: misclassification
#' rate, or mean squared error (in the output's units for one output, in
#' training standard deviations for several), averaged over outputs
#' @noRd
prediction_error <- function(values, truth, response) {
  if (response$task == "classification") {
    offsets <- c(0L, cumsum(response$n_class))
    errors <- vapply(seq_len(response$n_output), function(m) {
      block <- values[, offsets[[m]] + seq_len(response$n_class[[m]]), drop = FALSE]
      predicted <- response$levels[[m]][max.col(block, ties.method = "first")]
      mean(is.na(predicted) | predicted != truth[[m]])
    }, numeric(1))
    return(mean(errors))
  }
  errors <- vapply(seq_len(response$n_output), function(m) {
    mean((values[, m] - truth[[m]])^2)
  }, numeric(1))
  if (response$n_output == 1L) {
    return(errors * response$scale[[1L]]^2)
  }
  mean(errors)
}

#' @noRd
new_importance <- function(values, feature_names, type) {
  values <- stats::setNames(as.double(values), feature_names)
  structure(sort(values, decreasing = TRUE), type = type,
            class = c("ccforest_importance", "numeric"))
}

#' Subsets stay importance vectors, so head(vi) prints and plots as vi does
#' @export
#' @noRd
`[.ccforest_importance` <- function(x, i) {
  structure(unclass(x)[i], type = attr(x, "type"), class = class(x))
}

#' @noRd
importance_label <- function(type) {
  switch(type %||% "",
    projection = "split gain per tree, shared by coefficient norm",
    permutation = "increase in error when permuted",
    "importance"
  )
}

#' @rdname plot.ccforest_importance
#' @export
print.ccforest_importance <- function(x, digits = 3L, ...) {
  type <- attr(x, "type")
  cat(sprintf("Variable importance: %s (%s)\n", type %||% "unknown", importance_label(type)))
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
                             decreasing = TRUE), n)
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
    xlab = xlab %||% importance_label(type), ...
  )
  graphics::abline(v = 0, col = "grey70")
  invisible(mids)
}
