# The predictor data contract. `new_blueprint()` records how training
# features become the numeric matrix the C++ core sees; `apply_blueprint()`
# repeats exactly that on any later data, so predictions never depend on
# column order, on the levels present in a batch, or on the batch's own
# means. Columns are z-scored with the training statistics so that the
# CCA's rank tolerance does not depend on the features' units.

#' Turn a user's `x` into a plain data.frame of features
#'
#' Records whether `x` was a matrix and whether it had column names, so that
#' at predict time an unnamed matrix can be matched by position.
#'
#' @param x A data.frame (tibbles included) or a numeric, integer or logical
#'   matrix.
#' @param arg Name of the argument, for messages.
#' @return A data.frame with attributes `ccforest_input` ("matrix" or
#'   "data.frame") and `ccforest_had_colnames`. The user's object is left as
#'   it was.
#' @noRd
as_feature_frame <- function(x, arg = "x") {
  if (is_sparse_matrix(x)) {
    return(sparse_feature_frame(x, arg))
  }
  if (is.data.frame(x)) {
    # Built column by column rather than with list2DF(), which refuses
    # data.frame columns before new_blueprint() can explain the problem.
    out <- lapply(seq_along(x), function(j) .subset2(x, j))
    out <- structure(
      out,
      names = names(x),
      row.names = .set_row_names(nrow(x)),
      class = "data.frame"
    )
    attr(out, "ccforest_input") <- "data.frame"
    attr(out, "ccforest_had_colnames") <- TRUE
    return(out)
  }
  if (!is.matrix(x)) {
    stop(
      sprintf("`%s` must be a data.frame or a matrix, not %s.", arg, class_label(x)),
      call. = FALSE
    )
  }
  if (!typeof(x) %in% c("double", "integer", "logical")) {
    stop(
      sprintf(
        "`%s` must be a data.frame or a numeric, integer or logical matrix, not %s.",
        arg, class_label(x)
      ),
      call. = FALSE
    )
  }
  if (ncol(x) == 0L) {
    stop(sprintf("`%s` has no columns; at least one feature is needed.", arg), call. = FALSE)
  }
  column_names <- colnames(x)
  had_colnames <- !is.null(column_names)
  if (!had_colnames) {
    column_names <- paste0("X", seq_len(ncol(x)))
  }
  columns <- lapply(seq_len(ncol(x)), function(j) unname(x[, j]))
  out <- list2DF(columns, nrow = nrow(x))
  names(out) <- column_names
  attr(out, "ccforest_input") <- "matrix"
  attr(out, "ccforest_had_colnames") <- had_colnames
  out
}

#' Is `x` a sparse matrix of the Matrix package (a dgCMatrix, say)?
#' @noRd
is_sparse_matrix <- function(x) {
  isS4(x) && methods::is(x, "sparseMatrix")
}

#' A sparse matrix (Matrix package, e.g. a dgCMatrix) as the feature frame
#' of a matrix: one dense column per column
#'
#' For the readers that take dense rows (survival forests, and predictions
#' other than classes, probabilities and responses, which go through sparse
#' rows a batch at a time): n x p doubles, and as many again for the matrix
#' the trees read. They are filled in column by column from the sparse
#' entries, never through a dense copy of the whole matrix (as.matrix()
#' followed by splitting it into columns peaked at about four times the
#' dense size), and only after the memory guard has counted them.
#' @noRd
sparse_feature_frame <- function(x, arg) {
  if (!requireNamespace("Matrix", quietly = TRUE)) {
    stop(sprintf("`%s` is a sparse matrix, which needs the Matrix package to read.", arg),
         call. = FALSE)
  }
  n <- nrow(x)
  p <- ncol(x)
  if (p == 0L) {
    stop(sprintf("`%s` has no columns; at least one feature is needed.", arg), call. = FALSE)
  }
  check_dense_memory(n, p, arg)
  x <- methods::as(methods::as(x, "CsparseMatrix"), "generalMatrix")
  logical_values <- methods::is(x, "lMatrix") || methods::is(x, "nMatrix")
  if (!logical_values) x <- methods::as(x, "dMatrix")
  start <- x@p
  rows <- x@i + 1L
  values <- if (methods::is(x, "nMatrix")) NULL else x@x
  empty <- if (logical_values) logical(n) else numeric(n)
  columns <- lapply(seq_len(p), function(j) {
    column <- empty
    k <- seq.int(start[[j]] + 1L, length.out = start[[j + 1L]] - start[[j]])
    column[rows[k]] <- if (is.null(values)) TRUE else values[k]
    column
  })
  column_names <- colnames(x)
  had_colnames <- !is.null(column_names)
  if (!had_colnames) column_names <- paste0("X", seq_len(p))
  out <- list2DF(columns, nrow = n)
  names(out) <- column_names
  attr(out, "ccforest_input") <- "matrix"
  attr(out, "ccforest_had_colnames") <- had_colnames
  out
}

#' A sparse matrix is read as dense columns and then as the dense matrix the
#' trees read: refuse it, before allocating, when the two do not fit
#' @noRd
check_dense_memory <- function(n, p, arg, limit = memory_limit()) {
  needed <- 2 * 8 * as.double(n) * p
  if (needed > limit) {
    stop(sprintf(paste0(
      "`%s` is a sparse %d x %d matrix, which ccforest reads dense here: that needs about %s ",
      "(its %s of columns and as much again for the matrix the trees read), but only %s is ",
      "available. Use fewer rows (predict them in parts), or drop columns that are almost all ",
      "zero."), arg, n, p, format_bytes(needed),
      format_bytes(needed / 2), format_bytes(limit)), call. = FALSE)
  }
  invisible()
}

#' What kind of feature column is `col`?
#'
#' The kinds the core can use are "numeric", "integer", "logical", "factor",
#' "ordered", "character", "date", "datetime" and "difftime"; the rest
#' ("data.frame", "list", "matrix", "other") are rejected by
#' `check_feature_kind()`.
#' @noRd
feature_kind <- function(col) {
  # Plain numbers, the common case, without the class tests below.
  if (!is.object(col) && is.null(attributes(col))) {
    return(switch(typeof(col), double = "numeric", integer = "integer", logical = "logical",
                  character = "character", list = "list", "other"))
  }
  if (is.data.frame(col)) {
    return("data.frame")
  }
  # Dates and times are numbers underneath and are used as such (days,
  # seconds, or the difference's units), as ranger does.
  if (inherits(col, "Date")) {
    return("date")
  }
  if (inherits(col, "POSIXct") || inherits(col, "POSIXlt")) {
    return("datetime")
  }
  if (inherits(col, "difftime")) {
    return("difftime")
  }
  if (is.list(col)) {
    return("list")
  }
  if (!is.null(dim(col))) {
    return("matrix")
  }
  if (is.ordered(col)) {
    return("ordered")
  }
  if (is.factor(col)) {
    return("factor")
  }
  if (is.object(col) && !identical(class(col), "AsIs")) {
    return("other")
  }
  switch(typeof(col),
    double = "numeric",
    integer = "integer",
    logical = "logical",
    character = "character",
    "other"
  )
}

#' A date, time or time difference as the number it stands for: days since
#' 1970 for a Date, seconds since 1970 (UTC) for a date-time, and a
#' difference in `units` (those of the training column)
#' @noRd
time_values <- function(col, kind, units = NULL) {
  switch(kind,
    date = as.double(unclass(col)),
    datetime = as.double(as.POSIXct(col)),
    difftime = as.double(col, units = units %||% units(col)),
    as.double(col)
  )
}

#' A kind as users know it: a date is a <Date>, and a factor whose levels
#' were valued by the outputs is still a <factor>
#' @noRd
kind_label <- function(kind) {
  switch(kind, date = "Date", datetime = "POSIXct", scored = "factor", kind)
}

#' Reject columns the core cannot use
#' @noRd
check_feature_kind <- function(col, kind, name, arg) {
  problem <- switch(kind,
    data.frame = "is a data.frame column; flatten it into separate columns first.",
    list = "is a list column; features must be numeric, integer, logical, factor or character vectors.",
    matrix = "is a matrix column; split it into separate columns first.",
    NULL
  )
  if (!is.null(problem)) {
    stop(sprintf("Column `%s` of `%s` %s", name, arg, problem), call. = FALSE)
  }
  if (kind == "other") {
    stop(
      sprintf(
        "Column `%s` has class %s; convert it to numeric first (e.g. as.numeric()).",
        name, class_label(col)
      ),
      call. = FALSE
    )
  }
  invisible(kind)
}

#' Reject infinite values, pointing at the first rows that hold them
#' @noRd
check_finite_column <- function(values, name, arg) {
  if (!is.double(values)) {
    return(invisible(values))
  }
  rows <- which(is.infinite(values))
  if (length(rows) > 0L) {
    where <- if (length(rows) == 1L) {
      paste("row", rows)
    } else {
      shown <- paste(utils::head(rows, 5L), collapse = ", ")
      paste("rows", if (length(rows) > 5L) paste0(shown, ", ...") else shown)
    }
    stop(
      sprintf(
        "Column `%s` of `%s` contains infinite values (%s); remove or replace them.",
        name, arg, where
      ),
      call. = FALSE
    )
  }
  invisible(values)
}

#' Check the names and shape of a feature data.frame
#' @noRd
check_feature_frame <- function(x, arg) {
  if (length(x) == 0L) {
    stop(sprintf("`%s` has no columns; at least one feature is needed.", arg),
         call. = FALSE)
  }
  if (nrow(x) == 0L) {
    stop(sprintf("`%s` has no rows; at least one observation is needed.", arg),
         call. = FALSE)
  }
  feature_names <- names(x)
  if (is.null(feature_names)) {
    feature_names <- rep("", length(x))
  }
  check_column_names(feature_names, arg, "feature")
  invisible(x)
}

#' Record how training features become the core's matrix
#'
#' @param x A data.frame of features, usually from `as_feature_frame()`.
#' @param arg Name of the data in messages.
#' @param stat_rows Rows the z-score statistics are taken over (NULL: all);
#'   rows of case weight 0 take no part in them.
#' @param response,weights The prepared outputs and the row weights (or
#'   NULL), to value the levels of factors with more than
#'   `onehot_max_levels` levels (their kind becomes "scored").
#' @param seed The fit's seed, which shuffles the training rows into the folds
#'   such factors are valued across (see level_scores()).
#' @return A list of class "ccforest_blueprint": `feature_names`,
#'   `feature_type`, `levels` (per feature), `scores` (per feature: the
#'   numeric values of each level of a "scored" factor, a matrix with one
#'   column per axis, else NULL), `units`
#'   (per feature: a difftime's units, else NULL), `column_names`,
#'   `column_feature` (1-based feature of each column), `feature_start`
#'   (0-based column offsets, length D + 1), `center`, `scale` (population
#'   statistics of each column over its non-missing rows), `input`
#'   ("matrix" or "data.frame") and `had_colnames`.
#' @noRd
new_blueprint <- function(x, arg = "x", stat_rows = NULL, response = NULL, weights = NULL,
                          onehot_max_levels = Inf, seed = 0) {
  if (!is.data.frame(x)) {
    stop("Internal error: new_blueprint() needs a data.frame.", call. = FALSE)
  }
  check_feature_frame(x, arg)
  feature_names <- names(x)
  kinds <- vapply(x, feature_kind, character(1), USE.NAMES = FALSE)
  for (d in seq_along(kinds)) {
    check_feature_kind(x[[d]], kinds[[d]], feature_names[[d]], arg)
  }

  columns <- as.list(x)
  is_character <- kinds == "character"
  if (any(is_character)) {
    message(sprintf(
      "Treating character column(s) %s as factors.",
      format_names(feature_names[is_character])
    ))
    columns[is_character] <- lapply(columns[is_character], factor)
    kinds[is_character] <- "factor"
  }

  for (d in seq_along(columns)) {
    check_finite_column(columns[[d]], feature_names[[d]], arg)
    if (!anyNA(columns[[d]])) {
      next
    }
    if (all(is.na(columns[[d]]))) {
      stop(sprintf("Column `%s` is entirely missing.", feature_names[[d]]),
           call. = FALSE)
    }
  }

  feature_levels <- lapply(seq_along(columns), function(d) {
    if (kinds[[d]] %in% c("factor", "ordered")) levels(columns[[d]]) else character(0)
  })
  # Factors with many levels are not expanded: their levels are valued by
  # the outputs, one numeric column per axis (see level_scores()).
  scores <- vector("list", length(columns))
  own_scores <- list()
  many <- which(kinds == "factor" & lengths(feature_levels) > onehot_max_levels)
  for (d in many) {
    if (is.null(response)) {
      stop("Internal error: valuing factor levels needs the outputs.", call. = FALSE)
    }
    scores[[d]] <- level_scores(as.integer(columns[[d]]), length(feature_levels[[d]]),
                                response, weights, stat_rows, seed)
    own_scores[[d]] <- attr(scores[[d]], "own")
    attr(scores[[d]], "own") <- NULL
    kinds[[d]] <- "scored"
  }
  units <- lapply(seq_along(columns), function(d) {
    if (kinds[[d]] == "difftime") units(columns[[d]])
  })
  width <- vapply(seq_along(columns), function(d) {
    switch(kinds[[d]], factor = length(feature_levels[[d]]), scored = ncol(scores[[d]]), 1L)
  }, integer(1))
  column_names <- unlist(lapply(seq_along(columns), function(d) {
    if (kinds[[d]] == "factor") {
      paste0(feature_names[[d]], "=", feature_levels[[d]])
    } else if (width[[d]] > 1L) {
      paste0(feature_names[[d]], "[", seq_len(width[[d]]), "]")
    } else {
      feature_names[[d]]
    }
  }), use.names = FALSE)
  clashing <- unique(column_names[duplicated(column_names)])
  if (length(clashing) > 0L) {
    stop(
      sprintf(
        "Expanding factors in `%s` gives duplicated column name(s) %s; rename the columns or levels involved.",
        arg, format_names(clashing)
      ),
      call. = FALSE
    )
  }

  stats <- lapply(seq_along(columns), function(d) {
    column <- columns[[d]]
    if (kinds[[d]] == "scored") {
      column <- scores[[d]][as.integer(column), , drop = FALSE]
    } else if (kinds[[d]] %in% c("date", "datetime", "difftime")) {
      column <- time_values(column, kinds[[d]])
    }
    if (!is.null(stat_rows)) {
      column <- if (is.matrix(column)) column[stat_rows, , drop = FALSE] else column[stat_rows]
    }
    column_stats(column, kinds[[d]], width[[d]])
  })
  center <- unlist(lapply(stats, `[[`, "center"), use.names = FALSE)
  scale <- unlist(lapply(stats, `[[`, "scale"), use.names = FALSE)
  # A constant column has no spread to divide by; leaving it at 1 keeps it
  # constant, and the core drops constant features at each node.
  scale[!is.finite(scale) | scale == 0] <- 1
  center[!is.finite(center)] <- 0

  input <- attr(x, "ccforest_input")
  had_colnames <- attr(x, "ccforest_had_colnames")
  bp <- structure(
    list(
      feature_names = feature_names,
      feature_type = unname(kinds),
      levels = feature_levels,
      scores = scores,
      units = units,
      column_names = column_names,
      column_feature = rep.int(seq_along(columns), width),
      feature_start = as.integer(c(0L, cumsum(width))),
      center = center,
      scale = scale,
      input = if (is.null(input)) "data.frame" else input,
      had_colnames = if (is.null(had_colnames)) TRUE else had_colnames
    ),
    class = "ccforest_blueprint"
  )
  # The training rows' own values of scored factors (see level_scores()),
  # for training_matrix(); never stored in a fitted object.
  if (length(own_scores) > 0L) attr(bp, "own_scores") <- own_scores
  bp
}

#' The training rows as the core sees them: the blueprint applied, except
#' that a factor valued by the outputs gives each row the values of its level
#' computed from the level's rows in the other folds (see level_scores())
#' @return The matrix, with the blueprint (its transient attribute removed)
#'   as attribute "blueprint".
#' @noRd
training_matrix <- function(bp, x, na_action, arg) {
  out <- apply_blueprint(bp, x, na_action = na_action, arg = arg, training = TRUE)
  own <- attr(bp, "own_scores")
  for (d in which(!vapply(own, is.null, logical(1)))) {
    rows <- !is.na(own[[d]][, 1L])
    for (k in seq_len(ncol(own[[d]]))) {
      j <- bp$feature_start[[d]] + k
      out[rows, j] <- zscore(own[[d]][rows, k], bp$center[[j]], bp$scale[[j]])
    }
  }
  attr(bp, "own_scores") <- NULL
  attr(out, "blueprint") <- bp
  out
}

#' Mean and population standard deviation of a feature's columns
#'
#' Population (divide by n) rather than sample statistics, as in the paper.
#' For a factor the columns are 0/1 indicators, whose mean is the level's
#' share p and whose population variance is p (1 - p).
#' @noRd
column_stats <- function(col, kind, width) {
  if (kind == "factor") {
    codes <- as.integer(col)
    observed <- codes[!is.na(codes)]
    share <- tabulate(observed, nbins = width) / length(observed)
    return(list(center = share, scale = sqrt(share * (1 - share))))
  }
  if (is.matrix(col)) {
    # A factor valued on several axes: one column each.
    stats <- lapply(seq_len(ncol(col)), function(k) scaled_moments(col[, k]))
    return(list(center = vapply(stats, `[[`, 0, "center"),
                scale = vapply(stats, `[[`, 0, "scale")))
  }
  values <- as.double(if (kind == "ordered") as.integer(col) else col)
  scaled_moments(values)
}

#' Find the blueprint's features in `data`
#'
#' @return A list: `columns` (in the blueprint's feature order) and `n`
#'   (the number of rows).
#' @noRd
match_feature_columns <- function(bp, data, arg) {
  if (is.matrix(data) || is_sparse_matrix(data)) {
    if (is.null(colnames(data))) {
      if (!identical(bp$input, "matrix") || isTRUE(bp$had_colnames)) {
        stop(
          sprintf(
            "`%s` is a matrix without column names, so its columns cannot be matched to the features %s used to fit the forest.",
            arg, format_names(bp$feature_names)
          ),
          call. = FALSE
        )
      }
      if (ncol(data) != length(bp$feature_names)) {
        stop(
          sprintf(
            "`%s` has %d unnamed columns, but the forest was fitted on a matrix of %d unnamed columns; unnamed columns are matched by position.",
            arg, ncol(data), length(bp$feature_names)
          ),
          call. = FALSE
        )
      }
      colnames(data) <- bp$feature_names
    }
    data <- as_feature_frame(data, arg)
  } else if (!is.data.frame(data)) {
    stop(
      sprintf("`%s` must be a data.frame or a matrix, not %s.", arg, class_label(data)),
      call. = FALSE
    )
  }
  available <- names(data)
  position <- match(bp$feature_names, available)
  absent <- bp$feature_names[is.na(position)]
  if (length(absent) > 0L) {
    stop(
      sprintf(
        "`%s` is missing column(s) %s used to fit the forest.",
        arg, format_names(absent)
      ),
      call. = FALSE
    )
  }
  repeated <- intersect(bp$feature_names, available[duplicated(available)])
  if (length(repeated) > 0L) {
    stop(
      sprintf(
        "`%s` has duplicated column name(s) %s; each feature must appear once.",
        arg, format_names(repeated)
      ),
      call. = FALSE
    )
  }
  # .subset2(): a column as `[[` gives it, without a method dispatch per
  # column (data.frame and tibble alike).
  list(columns = lapply(position, function(j) .subset2(data, j)), n = nrow(data))
}

#' Map factor or character values to training level codes
#'
#' @return Integer codes into `known`; NA where the value is missing or its
#'   label was not seen at fit time, with the unseen labels attached as the
#'   attribute "unseen".
#' @noRd
level_codes <- function(col, known) {
  if (is.factor(col)) {
    codes <- match(levels(col), known)[as.integer(col)]
  } else {
    codes <- match(col, known)
  }
  unseen_rows <- is.na(codes) & !is.na(col)
  attr(codes, "unseen") <- unique(as.character(col[unseen_rows]))
  codes
}

#' Warn about levels the forest has never seen
#' @noRd
warn_unseen <- function(unseen, name, treatment) {
  if (length(unseen) == 0L) {
    return(invisible())
  }
  warning(
    sprintf(
      "Column `%s` has level(s) %s not seen when fitting; treated as %s.",
      name, format_names(unseen, max = 5L), treatment
    ),
    call. = FALSE
  )
}

#' Repeat the training encoding on new data
#'
#' @param bp A "ccforest_blueprint".
#' @param data A data.frame (tibbles included) or a matrix.
#' @param na_action "impute_random" keeps missing values as NA for the core
#'   to impute; "impute_mean" replaces them by 0, the training mean in
#'   z-score units; "fail" raises an error.
#' @param arg Name of the data in messages.
#' @param training Whether `data` are the training rows: a level of a factor
#'   valued by the outputs that no row of positive weight had is then no
#'   news (its rows take no part) and gets the overall mean's value.
#' @return A double matrix, rows of `data` by `bp$column_names`, of z-scores.
#' @noRd
apply_blueprint <- function(bp, data,
                            na_action = c("impute_random", "impute_mean", "fail"),
                            arg = "new_data", training = FALSE) {
  na_action <- check_choice(
    na_action, "na_action", c("impute_random", "impute_mean", "fail")
  )
  matched <- match_feature_columns(bp, data, arg)
  n <- matched$n
  out <- matrix(
    NA_real_, nrow = n, ncol = length(bp$column_names),
    dimnames = list(NULL, bp$column_names)
  )
  has_missing <- logical(length(bp$feature_names))
  # Per feature, labels the forest has no value for: levels not seen when
  # fitting, and levels of a valued factor no training row of positive
  # weight had.
  unseen <- vector("list", length(bp$feature_names))
  valueless <- vector("list", length(bp$feature_names))
  plain <- vector("list", length(bp$feature_names))

  # Numbers given as numbers, the usual case, need no check one by one:
  # they are taken together here and encoded together after the loop.
  kinds <- vapply(matched$columns, feature_kind, character(1))
  numeric_like <- c("numeric", "integer", "logical")
  as_numbers <- bp$feature_type %in% numeric_like & kinds %in% numeric_like
  plain[as_numbers] <- lapply(matched$columns[as_numbers], as.double)
  for (d in which(!as_numbers)) {
    name <- bp$feature_names[[d]]
    fitted_type <- bp$feature_type[[d]]
    col <- matched$columns[[d]]
    kind <- kinds[[d]]
    check_feature_kind(col, kind, name, arg)
    check_matching_type(kind, fitted_type, name, arg)
    first <- bp$feature_start[[d]]

    if (fitted_type == "factor") {
      codes <- level_codes(col, bp$levels[[d]])
      warn_unseen(attr(codes, "unseen"), name, "none of the known levels")
      # An unseen level matches no indicator: code 0 gives an all-zero group,
      # while a missing value (code NA) gives an all-NA group.
      codes[!is.na(col) & is.na(codes)] <- 0L
      has_missing[[d]] <- anyNA(codes)
      for (k in seq_along(bp$levels[[d]])) {
        j <- first + k
        out[, j] <- encode_values(as.double(codes == k), bp, j, na_action)
      }
      next
    }

    if (fitted_type == "ordered") {
      codes <- level_codes(col, bp$levels[[d]])
      unseen[[d]] <- attr(codes, "unseen")
      values <- as.double(codes)
      has_missing[[d]] <- anyNA(col)
      out[, first + 1L] <- encode_values(values, bp, first + 1L, na_action)
      next
    } else if (fitted_type == "scored") {
      codes <- level_codes(col, bp$levels[[d]])
      unseen[[d]] <- attr(codes, "unseen")
      values <- as.matrix(bp$scores[[d]])[codes, , drop = FALSE]
      # A level no training row of positive weight had has no values.
      without <- !is.na(codes) & is.na(values[, 1L])
      if (training) {
        values[without, ] <- 0  # the overall mean, for rows that take no part
      } else {
        valueless[[d]] <- unique(as.character(col[without]))
      }
      has_missing[[d]] <- anyNA(col)
      for (k in seq_len(ncol(values))) {
        out[, first + k] <- encode_values(values[, k], bp, first + k, na_action)
      }
      next
    } else if (fitted_type %in% c("date", "datetime", "difftime")) {
      values <- time_values(col, fitted_type, bp$units[[d]])
      # Refused when fitting, so refused here: no z-score of an infinite date.
      check_finite_column(values, name, arg)
    } else {
      # Numbers are encoded together after the loop.
      plain[[d]] <- as.double(col)
      next
    }
    has_missing[[d]] <- anyNA(values)
    out[, first + 1L] <- encode_values(values, bp, first + 1L, na_action)
  }
  numbers <- which(bp$feature_type %in% c("numeric", "integer", "logical"))
  if (length(numbers) > 0L) {
    values <- matrix(unlist(plain[numbers], use.names = FALSE), nrow = n, ncol = length(numbers))
    if (any(is.infinite(values))) {
      d <- numbers[[which(colSums(is.infinite(values)) > 0)[[1L]]]]
      check_finite_column(plain[[d]], bp$feature_names[[d]], arg)
    }
    has_missing[numbers] <- colSums(is.na(values)) > 0
    j <- bp$feature_start[numbers] + 1L
    out[, j] <- zscore_columns(values, bp, j, na_action)
  }

  no_value <- lengths(unseen) + lengths(valueless) > 0L
  if (na_action == "fail" && any(no_value)) {
    d <- which(no_value)[[1L]]
    stop(sprintf(paste0(
      "Column `%s` of `%s` has %s, which the forest has no value for; na_action = \"fail\" ",
      "does not impute them: use na_action = \"impute_random\" or \"impute_mean\" to treat ",
      "them as missing."), bp$feature_names[[d]], arg,
      paste(c(if (length(unseen[[d]])) {
        sprintf("level(s) %s not seen when fitting", format_names(unseen[[d]], max = 5L))
      }, if (length(valueless[[d]])) {
        sprintf("level(s) %s that no training row of positive weight had",
                format_names(valueless[[d]], max = 5L))
      }), collapse = " and ")), call. = FALSE)
  }
  for (d in which(no_value)) {
    warn_unseen(unseen[[d]], bp$feature_names[[d]], "missing")
    if (length(valueless[[d]]) > 0L) {
      warning(sprintf(paste0(
        "Column `%s` has level(s) %s that no training row of positive weight had, so the ",
        "forest has no value for them; treated as missing."), bp$feature_names[[d]],
        format_names(valueless[[d]], max = 5L)), call. = FALSE)
    }
  }
  if (na_action == "fail" && any(has_missing)) {
    stop(
      sprintf(
        "`%s` has missing values in column(s) %s; impute them with na_action = \"impute_random\" or \"impute_mean\" (an argument of ccforest() and of predict()).",
        arg, format_names(bp$feature_names[has_missing])
      ),
      call. = FALSE
    )
  }
  out
}

#' zscore() and encode_values() on the columns `j` of a matrix of numbers at
#' once, value for value the same arithmetic
#' @noRd
zscore_columns <- function(values, bp, j, na_action) {
  n <- nrow(values)
  center <- rep(bp$center[j], each = n)
  scale <- rep(bp$scale[j], each = n)
  z <- (values - center) / scale
  rearrange <- which(!is.finite(z) & is.finite(values))
  if (length(rearrange) > 0L) {
    z[rearrange] <- values[rearrange] / scale[rearrange] - center[rearrange] / scale[rearrange]
  }
  # NaN input counts as missing too; the core gets a single marker.
  z[is.na(z)] <- if (na_action == "impute_mean") 0 else NA_real_
  z
}

#' The encoded rows of a data.frame whose features, by name, are plain
#' columns of numbers and, for one-hot factors, factors or strings (the usual
#' request to a served model), encoded in one C++ pass (ccf_plain_rows_cpp())
#' without building the data.frame of features and checking each column as
#' apply_blueprint() does; NULL for anything else (dates, valued or ordered
#' factors, terms of a formula, unseen levels, infinite values, missing
#' values with na_action = "fail", ...), which apply_blueprint() then encodes
#' or refuses with its messages. The same matrix as apply_blueprint()'s.
#' @noRd
plain_rows_matrix <- function(object, data, na_action) {
  if (!inherits(data, "data.frame")) {
    return(NULL)
  }
  # The features are found by name in C++ (match() and anyDuplicated() are
  # closures, which a served call pays for in cache misses after gc()).
  ccf_plain_rows_cpp(data, .row_names_info(data, 2L),
                     .subset2(.subset2(object, "formula"), "feature_exprs"),
                     .subset2(object, "blueprint"), na_action)
}

#' Reject a column whose type cannot stand in for the fitted one
#'
#' Numeric, integer and logical inputs are interchangeable; factor, ordered
#' and character inputs are matched by level label. Crossing between the two
#' groups would silently mean something else, so it is an error.
#' @noRd
check_matching_type <- function(kind, fitted_type, name, arg) {
  compatible <- switch(fitted_type,
    numeric = , integer = , logical = kind == "numeric" || kind == "integer" || kind == "logical",
    factor = , ordered = , scored = kind == "factor" || kind == "ordered" || kind == "character",
    # A date stays a date: numbers in its place would mean something else.
    kind == fitted_type
  )
  if (!compatible) {
    stop(
      sprintf(
        "Column `%s` of `%s` has type <%s>, but it had type <%s> when the forest was fitted.",
        name, arg, kind_label(kind), kind_label(fitted_type)
      ),
      call. = FALSE
    )
  }
  invisible(kind)
}

#' z-score one column and apply the missing-value policy
#' @noRd
encode_values <- function(values, bp, j, na_action) {
  z <- zscore(values, bp$center[[j]], bp$scale[[j]])
  if (anyNA(z)) {
    # NaN input counts as missing too; hand the core a single marker.
    z[is.na(z)] <- if (na_action == "impute_mean") 0 else NA_real_
  }
  z
}
