# Pictures: plot() of a fitted forest and of prediction intervals (base
# graphics), and ggplot2's autoplot() for forests, importance, partial
# dependence and intervals. ggplot2 is only suggested: the autoplot()
# methods are registered on its generic when it is loaded (see zzz.R).

#' Plot a canonical correlation forest
#'
#' `plot()` of a fitted forest shows how its error settles as trees are
#' added (for a forest grown with `sampling = "bagging"`, whose out-of-bag
#' error is known after each tree) or its variable importance (the importance
#' stored at fit time, else the projection importance). With ggplot2,
#' `autoplot()` draws the same as a ggplot, and also draws importance
#' ([importance()]), partial dependence ([partial_dependence()]) and
#' prediction intervals (`predict(type = "interval")`).
#'
#' @section autoplot():
#' With ggplot2 loaded, `autoplot(object, ...)` takes a `"ccforest"` (with
#' `which` as for `plot()`, and `n`, the number of variables shown for
#' importance), the result of [importance()] (with `n`), of
#' [partial_dependence()] (classes as colours in one panel, or as panels for
#' ICE curves and two features), or of `predict(type = "interval")` (with
#' `y` as for `plot()`), and returns a ggplot.
#'
#' @param x A `"ccforest"`, or the result of `predict(type = "interval")`.
#' @param which `"error"` (the out-of-bag error against the number of trees;
#'   bagged forests only) or `"importance"`; the default is `"error"` when
#'   the forest has it.
#' @param y For intervals: the observed outputs of the rows, drawn as points
#'   (coloured by whether their interval covers them).
#' @param ... For `plot()` of a forest, passed on to [graphics::plot()] or
#'   [plot.ccforest_importance()]; for intervals, to [graphics::plot()].
#' @return `plot()` returns `x` invisibly.
#' @examples
#' bag <- ccforest(Species ~ ., data = iris, n_tree = 100, sampling = "bagging", seed = 1)
#' plot(bag)
#' plot(bag, which = "importance")
#'
#' reg <- ccforest(mpg ~ ., data = mtcars[1:24, ], n_tree = 100, sampling = "bagging",
#'                 seed = 1)
#' iv <- predict(reg, mtcars[25:32, ], type = "interval", level = 0.8)
#' plot(iv, y = mtcars$mpg[25:32])
#'
#' if (requireNamespace("ggplot2", quietly = TRUE)) {
#'   ggplot2::autoplot(bag)
#'   ggplot2::autoplot(importance(bag))
#'   ggplot2::autoplot(partial_dependence(bag, iris, "Petal.Width", grid_size = 15))
#'   ggplot2::autoplot(iv, y = mtcars$mpg[25:32])
#' }
#' @name plot.ccforest
#' @export
plot.ccforest <- function(x, which = NULL, ...) {
  check_ccforest(x, arg = "x")
  which <- resolve_forest_plot(x, which)
  if (which == "importance") {
    graphics::plot(forest_importance(x), ...)
    return(invisible(x))
  }
  curve <- x$oob_error_curve
  graphics::plot(seq_along(curve), curve, type = "l", xlab = "Number of trees",
                 ylab = oob_error_label(x), main = "Out-of-bag error", ...)
  graphics::abline(h = curve[[length(curve)]], col = "grey70", lty = 2)
  invisible(x)
}

#' @noRd
resolve_forest_plot <- function(x, which) {
  has_curve <- length(x$oob_error_curve) > 0L
  which <- which %||% if (has_curve) "error" else "importance"
  which <- check_choice(which, "which", c("error", "importance"))
  if (which == "error" && !has_curve) {
    stop("which = \"error\" plots the out-of-bag error against the number of trees, ",
         no_error_curve_reason(x), " Use which = \"importance\".", call. = FALSE)
  }
  which
}

#' Why a forest has no out-of-bag error curve: the reason that applies to
#' it, not the commonest one
#' @noRd
no_error_curve_reason <- function(x) {
  if (!has_out_of_bag(x$options)) {
    return(paste0("which only forests grown on samples of the rows (sampling = \"bagging\") ",
                  "have; this one was grown with projection bootstrapping (every tree sees every ",
                  "row)."))
  }
  if (oob_skipped(x$options)) {
    return(paste0("which this forest does not have: it was fitted with oob_error = FALSE, which ",
                  "skips the out-of-bag estimates (refit without it to have the curve)."))
  }
  reason <- task_record(x$task)$no_error_curve(x)
  if (!is.null(reason)) {
    return(reason)
  }
  if (is.null(x$oob_error)) {
    return(paste0("which this forest no longer has: a combined forest (combine_forests()) keeps ",
                  "no out-of-bag estimates, which need the training data."))
  }
  sprintf("which this forest (fitted with ccforest %s) did not keep; refit it to have it.",
          x$version)
}

#' @noRd
forest_importance <- function(x) x$variable.importance %||% projection_importance(x)

#' @noRd
oob_error_label <- function(x) {
  task_record(x$task)$oob_error_label(x)
}

#' @rdname plot.ccforest
#' @export
plot.ccforest_interval <- function(x, y = NULL, ...) {
  frame <- interval_frame(x, y)
  ylim <- range(c(frame$lower, frame$upper, frame$y)[is.finite(c(frame$lower, frame$upper,
                                                                  frame$y))])
  graphics::plot(frame$rank, frame$prediction, type = "n", ylim = ylim,
                 xlab = "Rows, by prediction", ylab = "Output",
                 main = sprintf("Prediction intervals (level %s)", format(attr(x, "level"))), ...)
  graphics::segments(frame$rank, pmax(frame$lower, ylim[[1L]]), frame$rank,
                     pmin(frame$upper, ylim[[2L]]), col = "grey60")
  graphics::points(frame$rank, frame$prediction, pch = 20, cex = 0.6)
  if (!is.null(frame$y)) {
    graphics::points(frame$rank, frame$y, pch = 1, cex = 0.7,
                     col = ifelse(frame$covered, "steelblue", "firebrick"))
    graphics::legend("topleft", legend = c("prediction", "observed, covered",
                                           "observed, not covered"),
                     pch = c(20, 1, 1), col = c("black", "steelblue", "firebrick"), bty = "n",
                     cex = 0.8)
  }
  invisible(x)
}

#' Intervals sorted by prediction, with the observed outputs if given
#' @noRd
interval_frame <- function(x, y) {
  if (!inherits(x, "ccforest_interval") || !all(c("prediction", "lower", "upper") %in% names(x))) {
    stop("`x` must be the result of predict(type = \"interval\").", call. = FALSE)
  }
  frame <- data.frame(prediction = x$prediction, lower = x$lower, upper = x$upper)
  if (!is.null(y)) {
    if (!is_plain_number(y) || length(y) != nrow(frame)) {
      stop(sprintf("`y` must be the %d observed outputs of the intervals' rows, not %s.",
                   nrow(frame), describe_value(y, is_plain_number(y))), call. = FALSE)
    }
    frame$y <- as.double(y)
    frame$covered <- frame$y >= frame$lower & frame$y <= frame$upper
  }
  frame <- frame[order(frame$prediction), , drop = FALSE]
  frame$rank <- seq_len(nrow(frame))
  frame
}

# ggplot2 -------------------------------------------------------------------

#' An aesthetic mapping from column names (no global variables for R CMD
#' check, no rlang)
#' @noRd
aes_columns <- function(...) {
  do.call(ggplot2::aes, lapply(list(...), as.name))
}

#' @noRd
autoplot_ccforest <- function(object, which = NULL, n = 20L, ...) {
  check_ccforest(object)
  which <- resolve_forest_plot(object, which)
  if (which == "importance") {
    return(autoplot_importance(forest_importance(object), n = n))
  }
  curve <- object$oob_error_curve
  frame <- data.frame(trees = seq_along(curve), error = curve)
  ggplot2::ggplot(frame, aes_columns(x = "trees", y = "error")) +
    ggplot2::geom_line() +
    ggplot2::labs(x = "Number of trees", y = oob_error_label(object), title = "Out-of-bag error")
}

#' @noRd
autoplot_importance <- function(object, n = 20L, ...) {
  n <- check_count(n, "n", min = 1L)
  values <- utils::head(sort(stats::setNames(as.vector(unclass(object)), names(object)),
                             decreasing = TRUE, na.last = TRUE), n)
  frame <- data.frame(variable = factor(names(values), levels = rev(names(values))),
                      importance = unname(values))
  type <- attr(object, "type")
  ggplot2::ggplot(frame, aes_columns(x = "importance", y = "variable")) +
    ggplot2::geom_col(fill = "grey40") +
    ggplot2::geom_vline(xintercept = 0, colour = "grey70") +
    ggplot2::labs(x = importance_label(type, attr(object, "measure")), y = NULL,
                  title = sprintf("Variable importance (%s)", type %||% "unknown"))
}

#' Partial dependence as a ggplot: classes as colours in one panel where
#' the curves can share it, as panels otherwise
#' @noRd
autoplot_pd <- function(object, ...) {
  frame <- pd_long(object)
  features <- attr(object, "features")
  ice <- isTRUE(attr(object, "ice"))
  several <- length(attr(object, "value_columns")) > 1L
  first <- frame[[features[[1L]]]]
  numeric_first <- is_numeric_feature(first)
  if (length(features) == 2L) {
    second <- frame[[features[[2L]]]]
    if (numeric_first && is_numeric_feature(second)) {
      average <- if (ice) pd_long_average(frame, features) else frame
      plot <- ggplot2::ggplot(average, aes_columns(x = features[[1L]], y = features[[2L]],
                                                   fill = ".value")) +
        ggplot2::geom_raster() +
        ggplot2::scale_fill_viridis_c(name = pd_value_name(object))
    } else {
      average <- if (ice) pd_long_average(frame, features) else frame
      average[[features[[2L]]]] <- factor(average[[features[[2L]]]])
      plot <- ggplot2::ggplot(average, aes_columns(x = features[[1L]], y = ".value",
                                                   colour = features[[2L]],
                                                   group = features[[2L]])) +
        ggplot2::geom_line() + ggplot2::geom_point(size = 1) +
        ggplot2::labs(y = pd_value_name(object))
    }
    if (several) plot <- plot + ggplot2::facet_wrap(".class")
    return(plot)
  }
  if (ice) {
    average <- pd_long_average(frame, features)
    plot <- ggplot2::ggplot(frame, aes_columns(x = features[[1L]], y = ".value")) +
      ggplot2::geom_line(aes_columns(group = ".row"), colour = "grey75", linewidth = 0.3) +
      ggplot2::geom_line(data = average, aes_columns(group = ".class"), linewidth = 1) +
      ggplot2::labs(y = pd_value_name(object))
    if (!numeric_first) plot <- plot + ggplot2::geom_point(data = average)
    if (several) plot <- plot + ggplot2::facet_wrap(".class")
    return(plot)
  }
  mapping <- if (several) {
    aes_columns(x = features[[1L]], y = ".value", colour = ".class", group = ".class")
  } else {
    aes_columns(x = features[[1L]], y = ".value", group = ".class")
  }
  plot <- ggplot2::ggplot(frame, mapping) + ggplot2::geom_line() +
    ggplot2::labs(y = pd_value_name(object), colour = NULL)
  if (!numeric_first) plot <- plot + ggplot2::geom_point()
  plot
}

#' Partial dependence in long form: one row per grid point (and ICE row) and
#' value column, the value in `.value` and its label in `.class`
#' @noRd
pd_long <- function(object) {
  features <- attr(object, "features")
  value_columns <- attr(object, "value_columns")
  if (is.null(features) || is.null(value_columns) ||
      !all(c(features, value_columns) %in% names(object))) {
    stop("`object` has lost the attributes of partial_dependence()'s result; plot the result ",
         "itself rather than a subset of it.", call. = FALSE)
  }
  ice <- isTRUE(attr(object, "ice"))
  base <- as.data.frame(unclass(object)[c(features, if (ice) ".row")], optional = TRUE,
                        stringsAsFactors = FALSE)
  labels <- pd_class_labels(value_columns, attr(object, "task"))
  pieces <- lapply(seq_along(value_columns), function(k) {
    piece <- base
    piece$.value <- object[[value_columns[[k]]]]
    piece$.class <- labels[[k]]
    piece
  })
  frame <- do.call(rbind, pieces)
  frame$.class <- factor(frame$.class, levels = labels)
  if (ice) frame$.row <- paste(frame$.class, frame$.row)
  frame
}

#' The mean of ICE curves per grid point and class
#' @noRd
pd_long_average <- function(frame, features) {
  key <- interaction(frame[c(features, ".class")], drop = TRUE, lex.order = TRUE)
  first <- !duplicated(key)
  out <- frame[first, c(features, ".class"), drop = FALSE]
  out$.value <- as.vector(tapply(frame$.value, key, mean)[as.character(key[first])])
  out
}

#' Panel and legend labels: the class (or output) a value column is for
#' @noRd
pd_class_labels <- function(value_columns, task) {
  labels <- strip_value_prefix(value_columns, task)
  labels[!nzchar(labels)] <- value_columns[!nzchar(labels)]
  labels
}

#' Value columns without the prefix that says what they hold ("prob.",
#' "prediction."; see the records' `value_labels`)
#' @noRd
strip_value_prefix <- function(value_columns, task) {
  prefix <- pd_task_record(task)$value_prefix
  if (is.null(prefix)) value_columns else sub(prefix, "", value_columns)
}

#' The record of the task a partial dependence result is for; a result
#' without one is labelled as a regression's
#' @noRd
pd_task_record <- function(task) {
  known <- is.character(task) && length(task) == 1L && task %in% task_names()
  task_record(if (known) task else "regression")
}

#' @noRd
pd_value_name <- function(object) {
  pd_task_record(attr(object, "task"))$value_axis
}

#' @noRd
autoplot_interval <- function(object, y = NULL, ...) {
  frame <- interval_frame(object, y)
  finite <- function(v, fallback) ifelse(is.finite(v), v, fallback)
  limits <- range(c(frame$lower, frame$upper, frame$y)[is.finite(c(frame$lower, frame$upper,
                                                                    frame$y))])
  frame$lower <- finite(frame$lower, limits[[1L]])
  frame$upper <- finite(frame$upper, limits[[2L]])
  plot <- ggplot2::ggplot(frame, aes_columns(x = "rank")) +
    ggplot2::geom_linerange(aes_columns(ymin = "lower", ymax = "upper"), colour = "grey60") +
    ggplot2::geom_point(aes_columns(y = "prediction"), size = 0.8) +
    ggplot2::labs(x = "Rows, by prediction", y = "Output",
                  title = sprintf("Prediction intervals (level %s)", format(attr(object, "level"))))
  if (!is.null(frame$y)) {
    frame$coverage <- factor(ifelse(frame$covered, "covered", "not covered"),
                             levels = c("covered", "not covered"))
    plot <- plot +
      ggplot2::geom_point(data = frame, aes_columns(y = "y", colour = "coverage"), shape = 1) +
      ggplot2::scale_colour_manual(values = c(covered = "steelblue",
                                              `not covered` = "firebrick"),
                                   name = "Observed", drop = FALSE)
  }
  plot
}

#' Register the autoplot() methods on ggplot2's generic
#' @noRd
register_ggplot2_methods <- function() {
  if (!isNamespaceLoaded("ggplot2")) {
    return(invisible(FALSE))
  }
  ns <- asNamespace("ggplot2")
  if (!is.function(get0("autoplot", envir = ns, inherits = FALSE))) {
    return(invisible(FALSE))
  }
  methods <- list(ccforest = autoplot_ccforest, ccforest_importance = autoplot_importance,
                  ccforest_pd = autoplot_pd, ccforest_interval = autoplot_interval)
  for (class in names(methods)) {
    registerS3method("autoplot", class, methods[[class]], envir = ns)
  }
  invisible(TRUE)
}
