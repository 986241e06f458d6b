# Partial dependence and individual conditional expectation (ICE) curves
# (Friedman, 2001; Goldstein et al., 2015). For each point of a grid, the
# chosen features are set to the grid values in every row of `data`, the
# forest predicts all rows, and the predictions are averaged (or kept per row
# for ICE). All grid copies of `data` are built at once, in chunks whose size
# is bounded, and each chunk is predicted in one call, on the package's
# threads.

#' Partial dependence and ICE curves of a canonical correlation forest
#'
#' The partial dependence of the forest's prediction on one or two features:
#' for each value on a grid, those features are set to that value in every row
#' of `data`, and the predictions for all rows are averaged. With
#' `ice = TRUE`, the predictions are kept per row instead (individual
#' conditional expectation curves). The computation is the one of the pdp
#' package's `partial()`, done in a few large calls of the forest's
#' predictor rather than one per grid value.
#'
#' @section Grids:
#' By default, a numeric feature gets `grid_size` values: evenly spaced over
#' its range in `data` (`grid_type = "even"`), or its quantiles
#' (`grid_type = "quantile"`); a numeric feature with at most `grid_size`
#' distinct values gets all of them. A factor gets all its levels, a
#' logical `FALSE` and `TRUE`, and a character column its distinct values.
#' `grid` sets the values yourself: a named list with one vector per feature
#' (for two features, every combination is used), a data.frame whose columns
#' are the features (its rows are the grid points), or for one feature a
#' plain vector.
#'
#' @param object A `"ccforest"` fitted by [ccforest()].
#' @param data The rows to average over, usually the training data: a
#'   data.frame with the columns the forest uses (or a matrix, for a forest
#'   fitted on one).
#' @param features The names of one or two columns of `data` used by the
#'   forest. For a forest fitted with a formula, these are the data's
#'   columns (so `x1` for a term `log(x1)`).
#' @param grid The grid values; `NULL` (default) makes them, as described in
#'   the section on grids.
#' @param grid_size Number of values of a numeric feature in the default
#'   grid (at least 2).
#' @param grid_type `"even"` (default) or `"quantile"`, for the default grid
#'   of numeric features.
#' @param type `"prob"` (classification; one column per class) or
#'   `"response"` (regression); the default is the one for the forest's task.
#'   For a survival forest, `"risk"` (default), or `"survival"`, `"chf"` or
#'   `"cif"` at `times` (see [predict.ccforest()]).
#' @param times Survival forests, with `type = "survival"`, `"chf"` or
#'   `"cif"`: the times (one or a few) whose predicted curve values are
#'   averaged.
#' @param ice If `TRUE`, return one curve per row of `data` instead of their
#'   average.
#' @param n_tree,n_thread As in [predict.ccforest()].
#' @param ... Not used; a misspelled argument is an error.
#' @return A data.frame of class `"ccforest_pd"`, one row per grid point (with
#'   `ice = TRUE`, one row per grid point and row of `data`, with the row's
#'   number in a column `.row`). Its columns are the features (the grid
#'   values) and the predictions: `prob.<level>` for each class of a
#'   classifier (`prob.<output>.<level>` with several outputs), `prediction`
#'   for regression (`prediction.<output>` with several outputs); for a
#'   survival forest `risk` (`risk.<cause>` with competing risks), or
#'   `survival.<time>`, `chf.<time>` or `cif.<cause>.<time>` (`chf.<cause>.<time>`
#'   with competing risks). Plot it with [plot.ccforest_pd()].
#' @references Friedman, J. H. (2001). Greedy function approximation: a
#'   gradient boosting machine. *Annals of Statistics* 29(5), 1189-1232.
#'
#'   Goldstein, A., Kapelner, A., Bleich, J. and Pitkin, E. (2015). Peeking
#'   inside the black box: visualizing statistical learning with plots of
#'   individual conditional expectation. *Journal of Computational and
#'   Graphical Statistics* 24(1), 44-65.
#' @seealso [plot.ccforest_pd()], [importance()]
#' @examples
#' fit <- ccforest(mpg ~ ., data = mtcars, n_tree = 50, seed = 1)
#' pd <- partial_dependence(fit, mtcars, "wt", grid_size = 10)
#' pd
#' plot(pd)
#'
#' # ICE curves, and two features at once
#' plot(partial_dependence(fit, mtcars, "hp", ice = TRUE))
#' plot(partial_dependence(fit, mtcars, c("wt", "hp"), grid_size = 8))
#'
#' # Class probabilities: one column (and one panel) per class
#' iris_fit <- ccforest(Species ~ ., data = iris, n_tree = 50, seed = 1)
#' plot(partial_dependence(iris_fit, iris, "Petal.Width", grid_size = 15))
#' @export
partial_dependence <- function(object, data, features, grid = NULL, grid_size = 20L,
                               grid_type = "even", type = NULL, ice = FALSE,
                               n_tree = NULL, n_thread = NULL, times = NULL, ...) {
  check_dots(list(...), valid = names(formals(partial_dependence)), fn = "partial_dependence")
  check_ccforest(object)
  if (missing(data)) {
    stop("`data` is missing: give the rows to average over, usually the training data.",
         call. = FALSE)
  }
  if (missing(features)) {
    stop("`features` is missing: name one or two columns of `data`.", call. = FALSE)
  }
  data <- pd_data(data)
  features <- check_pd_features(features, object, data)
  grid_size <- check_count(grid_size, "grid_size", min = 2L)
  grid_type <- check_choice(grid_type, "grid_type", c("even", "quantile"))
  ice <- check_flag(ice, "ice")
  # NULL for a task whose leaves hold averaged values (see mean_pd_spec()).
  survival <- task_record(object$task)$pd_spec(object, type, times)
  n_total <- n_trees(object)
  n_tree <- if (is.null(n_tree)) n_total else check_count(n_tree, "n_tree", min = 1L, max = n_total)
  n_thread <- resolve_n_thread(n_thread)
  if (nrow(data) == 0L) {
    stop("`data` has no rows to average over.", call. = FALSE)
  }

  points <- pd_grid(grid, features, data, grid_size, grid_type)
  # About 4 million cells per chunk (some 32 MB of doubles), and never less
  # than one copy of `data`.
  chunk_rows <- max(nrow(data), floor(2^22 / max(1L, ncol(data))))
  values <- pd_values(object, data, points, ice, n_tree, n_thread, chunk_rows, survival)
  labels <- if (is.null(survival)) pd_value_labels(object$response) else survival$labels
  colnames(values) <- labels
  out <- if (ice) {
    cbind(points[rep(seq_len(nrow(points)), each = nrow(data)), , drop = FALSE],
          .row = rep(seq_len(nrow(data)), times = nrow(points)))
  } else {
    points
  }
  out <- cbind(out, as.data.frame(values, optional = TRUE))
  rownames(out) <- NULL
  structure(out, class = c("ccforest_pd", "data.frame"), features = features,
            value_columns = labels, ice = ice, task = object$task)
}

#' The rows of `data` as a data.frame; a matrix's unnamed columns are X1, X2,
#' ... as for a forest fitted on it
#' @noRd
pd_data <- function(data) {
  if (is.matrix(data)) {
    if (is.null(colnames(data))) {
      colnames(data) <- paste0("X", seq_len(ncol(data)))
    }
    data <- as.data.frame(data, stringsAsFactors = FALSE)
  }
  if (!is.data.frame(data)) {
    stop(sprintf("`data` must be a data.frame or a matrix, not %s.", class_label(data)),
         call. = FALSE)
  }
  data
}

#' One or two distinct columns of `data` that the forest uses
#' @noRd
check_pd_features <- function(features, object, data) {
  if (!is.character(features) || is.object(features) || anyNA(features) ||
      length(features) < 1L) {
    stop(sprintf("`features` must be the names of one or two columns of `data`, not %s.",
                 describe_value(features, type_ok = is.character(features))), call. = FALSE)
  }
  if (length(features) > 2L) {
    stop(sprintf("`features` has %d names (%s); partial dependence is for one or two features.",
                 length(features), format_names(features)), call. = FALSE)
  }
  if (anyDuplicated(features)) {
    stop(sprintf("`features` names %s twice; give two different features.",
                 format_names(features[[1L]])), call. = FALSE)
  }
  used <- if (is.null(object$formula)) {
    object$blueprint$feature_names
  } else {
    unique(unlist(object$formula$feature_columns, use.names = FALSE))
  }
  unknown <- setdiff(features, used)
  if (length(unknown) > 0L) {
    hint <- closest_name(unknown[[1L]], used)
    stop(sprintf("%s %s not used by the forest, whose variables are %s.%s",
                 format_names(unknown), if (length(unknown) == 1L) "is" else "are",
                 format_names(used),
                 if (is.na(hint)) "" else sprintf(" Did you mean `%s`?", hint)), call. = FALSE)
  }
  absent <- setdiff(features, names(data))
  if (length(absent) > 0L) {
    stop(sprintf("`data` has no column %s.", format_names(absent)), call. = FALSE)
  }
  features
}

#' The grid points: a data.frame with one column per feature
#' @noRd
pd_grid <- function(grid, features, data, grid_size, grid_type) {
  if (is.null(grid)) {
    values <- lapply(features, function(f) default_grid(data[[f]], f, grid_size, grid_type))
    names(values) <- features
    return(expand_grid_points(values))
  }
  if (is.data.frame(grid)) {
    check_grid_names(names(grid), features)
    if (nrow(grid) == 0L) {
      stop("`grid` has no rows.", call. = FALSE)
    }
    points <- lapply(features, function(f) grid_values(grid[[f]], f, data[[f]]))
    names(points) <- features
    return(list2DF(points, nrow = nrow(grid)))
  }
  if (!is.list(grid)) {
    if (length(features) == 1L && is.atomic(grid)) {
      grid <- stats::setNames(list(grid), features)
    } else {
      stop(sprintf(paste0("`grid` must be a named list with one vector per feature or a ",
                          "data.frame with one column per feature, not %s."),
                   class_label(grid)), call. = FALSE)
    }
  }
  check_grid_names(names(grid), features)
  values <- lapply(features, function(f) grid_values(grid[[f]], f, data[[f]]))
  names(values) <- features
  expand_grid_points(values)
}

#' Every combination of the features' values, the first varying fastest
#' @noRd
expand_grid_points <- function(values) {
  lengths <- lengths(values)
  index <- expand.grid(lapply(lengths, seq_len), KEEP.OUT.ATTRS = FALSE)
  points <- lapply(seq_along(values), function(j) values[[j]][index[[j]]])
  names(points) <- names(values)
  list2DF(points, nrow = nrow(index))
}

#' @noRd
check_grid_names <- function(grid_names, features) {
  if (is.null(grid_names) || !setequal(grid_names, features) || anyDuplicated(grid_names)) {
    stop(sprintf("`grid` must have exactly one element (or column) per feature, named %s; it has %s.",
                 format_names(features),
                 if (length(grid_names) == 0L) "no names" else format_names(grid_names)),
         call. = FALSE)
  }
}

#' The default grid of one column
#' @noRd
default_grid <- function(x, name, grid_size, grid_type) {
  if (is.factor(x)) {
    return(factor(levels(x), levels = levels(x), ordered = is.ordered(x)))
  }
  if (is.logical(x) && !is.object(x)) {
    return(c(FALSE, TRUE))
  }
  if (is.character(x) && !is.object(x)) {
    values <- sort(unique(x[!is.na(x)]))
  } else if (is_plain_number(x)) {
    values <- sort(unique(as.vector(x[is.finite(x)])))
    if (length(values) > grid_size) {
      values <- if (grid_type == "even") {
        seq(values[[1L]], values[[length(values)]], length.out = grid_size)
      } else {
        unique(stats::quantile(as.vector(x), probs = seq(0, 1, length.out = grid_size),
                               na.rm = TRUE, names = FALSE, type = 7))
      }
    }
  } else {
    stop(sprintf("partial_dependence() cannot make a grid for `%s`, of class %s; give its values in `grid`.",
                 name, class_label(x)), call. = FALSE)
  }
  if (length(values) == 0L) {
    stop(sprintf("`%s` has no non-missing values in `data` to make a grid from; give its values in `grid`.",
                 name), call. = FALSE)
  }
  values
}

#' A user's grid values for one feature, in the column's own type
#' @noRd
grid_values <- function(values, name, column) {
  label <- sprintf("`grid` for `%s`", name)
  if (!is.atomic(values) || length(values) == 0L) {
    stop(sprintf("%s must be a non-empty vector of values, not %s.", label,
                 describe_value(values, type_ok = FALSE)), call. = FALSE)
  }
  if (anyNA(values)) {
    stop(sprintf("%s has missing values; give values to set the feature to.", label),
         call. = FALSE)
  }
  if (is.factor(column)) {
    if (!is.character(values) && !is.factor(values)) {
      stop(sprintf("%s must give levels of the factor (as strings or a factor), not %s.",
                   label, class_label(values)), call. = FALSE)
    }
    unknown <- setdiff(as.character(values), levels(column))
    if (length(unknown) > 0L) {
      stop(sprintf("%s has %s, not among the levels %s of `data$%s`.", label,
                   format_names(unknown), format_names(levels(column)), name), call. = FALSE)
    }
    return(factor(as.character(values), levels = levels(column), ordered = is.ordered(column)))
  }
  if (is.logical(column) && !is.object(column)) {
    if (!is.logical(values)) {
      stop(sprintf("%s must be TRUE or FALSE values, not %s.", label, class_label(values)),
           call. = FALSE)
    }
    return(as.vector(values))
  }
  if (is.character(column) && !is.object(column)) {
    if (!is.character(values)) {
      stop(sprintf("%s must be strings, not %s.", label, class_label(values)), call. = FALSE)
    }
    return(as.vector(values))
  }
  if (is_plain_number(column)) {
    if (!is_plain_number(values) || !all(is.finite(values))) {
      stop(sprintf("%s must be finite numbers, not %s.", label,
                   describe_value(values, type_ok = is_plain_number(values))), call. = FALSE)
    }
    return(as.vector(values))
  }
  if (!identical(class(values), class(column))) {
    stop(sprintf("%s must be of the column's class %s, not %s.", label, class_label(column),
                 class_label(values)), call. = FALSE)
  }
  values
}

#' The forest's raw predictions with the features set to each grid point:
#' averaged over the rows of `data` (one row per grid point), or per row
#' (grid point by grid point, the rows of `data` within each) for ICE
#'
#' @param chunk_rows Largest number of rows predicted in one call (always at
#'   least one copy of `data`).
#' @noRd
pd_values <- function(object, data, points, ice, n_tree, n_thread, chunk_rows, survival = NULL) {
  n <- nrow(data)
  n_point <- nrow(points)
  per_chunk <- max(1L, floor(chunk_rows / n))
  starts <- seq(1L, n_point, by = per_chunk)
  features <- names(points)
  pieces <- lapply(starts, function(start) {
    index <- seq(start, min(n_point, start + per_chunk - 1L))
    rows <- rep(seq_len(n), times = length(index))
    copies <- lapply(data, function(column) column[rows])
    copies <- list2DF(copies, nrow = length(rows))
    names(copies) <- names(data)
    for (f in features) {
      copies[[f]] <- rep(points[[f]][index], each = n)
    }
    matrix_x <- predictor_matrix(object, copies, arg = "data")
    values <- if (is.null(survival)) {
      predict_values(object, matrix_x, n_tree, n_thread)
    } else {
      survival_pd_predict(object, matrix_x, survival, n_tree, n_thread)
    }
    if (ice) values else rowsum(values, rep(seq_along(index), each = n), reorder = FALSE) / n
  })
  values <- do.call(rbind, pieces)
  dimnames(values) <- NULL
  task_record(object$task)$to_output_units(values, object$response)
}

#' partial_dependence()'s type for a forest whose leaves hold averaged values,
#' checked: there is nothing to specify beyond the values (NULL)
#' @noRd
mean_pd_spec <- function(object, type, times) {
  if (!is.null(times)) {
    stop("`times` is for survival forests.", call. = FALSE)
  }
  record <- task_record(object$task)
  type <- type %||% record$pd_type
  type <- check_choice(type, "type", c("prob", "response"))
  if (type != record$pd_type) {
    owner <- Filter(function(r) identical(r$pd_type, type), task_records)[[1L]]
    stop(sprintf("type = \"%s\" is for %s; this one is %s: use %s.", type, owner$forests,
                 record$described, record$pd_advice), call. = FALSE)
  }
  NULL
}

#' Names of the prediction columns, as in tree_info()
#' @noRd
pd_value_labels <- function(response) {
  task_record(response$task)$value_labels(response)
}

#' Plot partial dependence or ICE curves
#'
#' Base graphics. For one feature without ICE curves, every prediction
#' column (every class of a classifier) is one curve in a single panel, in
#' its own colour with a legend: a line for a numeric feature, points joined
#' by lines for a factor, logical or character one. With `ice = TRUE` (one
#' thin line per row and their average in bold) or two features (an image
#' with contours for two numeric features on a full grid, otherwise one line
#' per value of the second feature against the first), each prediction
#' column gets a panel, laid out in a grid that suits the device's shape.
#' [ggplot2::autoplot()] draws the same as a ggplot (see [plot.ccforest()]).
#'
#' @param x A `"ccforest_pd"` from [partial_dependence()].
#' @param col Colours of the curves (one per prediction column in a shared
#'   panel), or the colours of the image for two numeric features.
#' @param ice_col Colour of the ICE curves.
#' @param main Title (of each panel, when there are several); by default
#'   the prediction columns' names.
#' @param ... Passed on to [graphics::plot()] (or [graphics::image()]).
#' @return `x`, invisibly.
#' @examples
#' fit <- ccforest(Species ~ ., data = iris, n_tree = 30, seed = 1)
#' plot(partial_dependence(fit, iris, "Petal.Width", grid_size = 15))
#' plot(partial_dependence(fit, iris, c("Petal.Length", "Petal.Width"), grid_size = 10))
#' @export
plot.ccforest_pd <- function(x, col = NULL, ice_col = "grey75", main = NULL, ...) {
  features <- attr(x, "features")
  value_columns <- attr(x, "value_columns")
  if (is.null(features) || is.null(value_columns) ||
      !all(c(features, value_columns) %in% names(x))) {
    stop("`x` has lost the attributes of partial_dependence()'s result; plot the result ",
         "itself rather than a subset of it.", call. = FALSE)
  }
  ice <- isTRUE(attr(x, "ice"))
  frame <- as.data.frame(unclass(x)[c(features, value_columns, if (ice) ".row")],
                         optional = TRUE, stringsAsFactors = FALSE)
  n_panel <- length(value_columns)
  if (length(features) == 1L && !ice && n_panel > 1L) {
    plot_pd_shared(frame, features, value_columns, attr(x, "task"), col, main, ...)
    return(invisible(x))
  }
  main <- main %||% value_columns
  if (length(main) != length(value_columns)) {
    main <- rep_len(main, length(value_columns))
  }
  if (n_panel > 1L) {
    old <- graphics::par(mfrow = panel_grid(n_panel), mar = c(4, 4, 2, 1) + 0.1,
                         mgp = c(2.2, 0.7, 0))
    on.exit(graphics::par(old), add = TRUE)
  }
  for (k in seq_len(n_panel)) {
    value <- value_columns[[k]]
    if (length(features) == 1L) {
      plot_pd_one(frame, features, value, ice, col %||% "black", ice_col, main[[k]], ...)
    } else {
      plot_pd_two(frame, features, value, ice, col, main[[k]], ...)
    }
  }
  invisible(x)
}

#' Rows and columns of panels for the current device: about as many columns
#' as its width allows panels of its height's share (three classes side by
#' side on a wide device, in a 2 x 2 grid on a square one)
#' @noRd
panel_grid <- function(n) {
  size <- graphics::par("din")
  aspect <- if (all(size > 0)) size[[1L]] / size[[2L]] else 1
  n_col <- max(1L, min(n, ceiling(sqrt(n * aspect))))
  c(ceiling(n / n_col), n_col)
}

#' Every prediction column of a one-feature partial dependence in one panel
#' @noRd
plot_pd_shared <- function(frame, feature, value_columns, task, col, main, ...) {
  grid <- frame[[feature]]
  numeric <- is_numeric_feature(grid)
  position <- if (numeric) grid else seq_along(grid)
  values <- as.matrix(frame[value_columns])
  colours <- rep_len(col %||% grDevices::hcl.colors(length(value_columns), "Dark 3"),
                     length(value_columns))
  labels <- strip_value_prefix(value_columns, task)
  ylab <- pd_task_record(task)$value_axis
  # Room above the curves for a legend in one row, so it covers none of them.
  span <- range(values, finite = TRUE)
  ylim <- c(span[[1L]], span[[2L]] + 0.15 * max(diff(span), 1e-8))
  graphics::matplot(position, values, type = if (numeric) "l" else "b", lty = 1, lwd = 1.5,
                    pch = 19, col = colours, xlab = feature, ylab = ylab, ylim = ylim,
                    main = main %||% sprintf("Partial dependence on %s", feature),
                    xaxt = if (numeric) "s" else "n", ...)
  if (!numeric) {
    graphics::axis(1L, at = position, labels = as.character(grid))
  }
  graphics::legend("top", legend = labels, col = colours, lty = 1, lwd = 1.5, bty = "n",
                   cex = 0.8, horiz = length(labels) <= 6L, inset = 0.01)
}

#' @noRd
is_numeric_feature <- function(values) {
  is_plain_number(values)
}

#' Averages over the rows of ICE curves, one per grid point
#' @noRd
pd_average <- function(frame, features, value) {
  key <- do.call(paste, c(lapply(features, function(f) as.character(frame[[f]])), sep = "\r"))
  first <- !duplicated(key)
  out <- frame[first, features, drop = FALSE]
  out[[value]] <- as.vector(tapply(frame[[value]], factor(key, levels = key[first]), mean))
  out
}

#' @noRd
plot_pd_one <- function(frame, feature, value, ice, col, ice_col, main, ...) {
  average <- if (ice) pd_average(frame, feature, value) else frame
  grid <- average[[feature]]
  numeric <- is_numeric_feature(grid)
  position <- if (numeric) grid else seq_along(grid)
  ylim <- range(frame[[value]])
  graphics::plot(position, average[[value]], type = "n", ylim = ylim, xlab = feature,
                 ylab = value, main = main, xaxt = if (numeric) "s" else "n", ...)
  if (!numeric) {
    graphics::axis(1L, at = position, labels = as.character(grid))
  }
  if (ice) {
    at <- if (numeric) frame[[feature]] else match(as.character(frame[[feature]]), as.character(grid))
    for (rows in split(seq_len(nrow(frame)), frame$.row)) {
      ordered <- rows[order(at[rows])]
      graphics::lines(at[ordered], frame[[value]][ordered], col = ice_col)
    }
  }
  if (numeric) {
    graphics::lines(position, average[[value]], col = col, lwd = if (ice) 2 else 1.5)
  } else {
    graphics::points(position, average[[value]], col = col, pch = 19)
  }
}

#' @noRd
plot_pd_two <- function(frame, features, value, ice, col, main, ...) {
  average <- if (ice) pd_average(frame, features, value) else frame
  first <- average[[features[[1L]]]]
  second <- average[[features[[2L]]]]
  u1 <- sort(unique(first))
  u2 <- sort(unique(second))
  full <- nrow(average) == length(u1) * length(u2) &&
    !anyDuplicated(paste(first, second, sep = "\r"))
  if (is_numeric_feature(first) && is_numeric_feature(second) && full &&
      length(u1) > 1L && length(u2) > 1L) {
    z <- matrix(NA_real_, length(u1), length(u2))
    z[cbind(match(first, u1), match(second, u2))] <- average[[value]]
    graphics::image(u1, u2, z, col = col %||% grDevices::hcl.colors(24, "YlOrRd", rev = TRUE),
                    xlab = features[[1L]], ylab = features[[2L]], main = main, ...)
    graphics::contour(u1, u2, z, add = TRUE, col = "grey20", labcex = 0.7)
    return(invisible())
  }
  numeric <- is_numeric_feature(first)
  levels_1 <- if (is.factor(first)) levels(droplevels(first)) else u1
  position <- if (numeric) first else match(as.character(first), as.character(levels_1))
  groups <- if (is.factor(second)) levels(droplevels(second)) else u2
  colours <- col %||% grDevices::hcl.colors(length(groups), "Dark 3")
  colours <- rep_len(colours, length(groups))
  graphics::plot(position, average[[value]], type = "n", xlab = features[[1L]], ylab = value,
                 main = main, xaxt = if (numeric) "s" else "n", ...)
  if (!numeric) {
    graphics::axis(1L, at = seq_along(levels_1), labels = as.character(levels_1))
  }
  for (g in seq_along(groups)) {
    rows <- which(as.character(second) == as.character(groups[[g]]))
    rows <- rows[order(position[rows])]
    graphics::lines(position[rows], average[[value]][rows], col = colours[[g]],
                    type = if (numeric) "l" else "b", pch = 19)
  }
  graphics::legend("topright", legend = format(groups), col = colours, lty = 1,
                   title = features[[2L]], bty = "n", cex = 0.8)
}
