# The outcome contract. One or several outputs, all categorical
# (classification) or all numeric (regression), checked and encoded for the
# core: 0-based class codes, or z-scored values whose statistics are kept so
# that predictions can be put back on the original scale.

#' Split `y` into named outputs
#'
#' @return A list: `columns` (one vector per output), `names`, `labels`
#'   (how each output is named in messages) and `single` (whether `y` was a
#'   vector).
#' @noRd
response_outputs <- function(y, arg, name) {
  unsupported <- function(what) {
    stop(
      sprintf(
        "`%s` must be a factor, character, logical or numeric vector, or a data.frame or matrix of such outputs, not %s.",
        arg, what
      ),
      call. = FALSE
    )
  }
  if (is.data.frame(y) || is.matrix(y)) {
    if (is.matrix(y) && !typeof(y) %in% c("double", "integer", "logical", "character")) {
      unsupported(class_label(y))
    }
    if (NCOL(y) == 0L) {
      stop(sprintf("`%s` has no columns; at least one output is needed.", arg),
           call. = FALSE)
    }
    if (NROW(y) == 0L) {
      stop(sprintf("`%s` has no rows; at least one observation is needed.", arg),
           call. = FALSE)
    }
    output_names <- colnames(y)
    if (is.matrix(y)) {
      columns <- lapply(seq_len(ncol(y)), function(j) unname(y[, j]))
      if (is.null(output_names)) {
        output_names <- paste0(arg, seq_len(ncol(y)))
      }
    } else {
      columns <- as.list(y)
    }
    check_output_names(output_names, arg)
    return(list(
      columns = unname(columns),
      names = output_names,
      labels = sprintf("Column `%s` of `%s`", output_names, arg),
      single = FALSE
    ))
  }
  if (!is.atomic(y) || is.null(y)) {
    unsupported(class_label(y))
  }
  if (is.na(output_kind(y))) {
    unsupported(class_label(y))
  }
  if (length(y) == 0L) {
    stop(sprintf("`%s` has length 0; at least one observation is needed.", arg),
         call. = FALSE)
  }
  list(
    columns = list(y),
    names = if (is.null(name)) arg else name,
    labels = sprintf("`%s`", arg),
    single = TRUE
  )
}

#' Output names must be present and distinct: they name the predictions
#' @noRd
check_output_names <- function(output_names, arg) {
  check_column_names(output_names, arg, "output")
  invisible(output_names)
}

#' Kind of one output: "factor", "character", "logical", "numeric" or NA
#' @noRd
output_kind <- function(col) {
  if (is.factor(col)) {
    return("factor")
  }
  if (is.list(col) || !is.null(dim(col)) ||
      (is.object(col) && !identical(class(col), "AsIs"))) {
    return(NA_character_)
  }
  switch(typeof(col),
    double = "numeric",
    integer = "numeric",
    logical = "logical",
    character = "character",
    NA_character_
  )
}

#' Check and encode the outcome
#'
#' parse_response() then standardise_response(): the outputs are checked and
#' encoded once, and regression outputs z-scored over the rows that take
#' part (which the weights, and so the classes, decide).
#'
#' @param y A factor, character, logical or numeric vector, or a data.frame
#'   or matrix whose columns are all categorical or all numeric.
#' @param arg Name of `y` in messages.
#' @param name Output name for a vector `y` (e.g. the formula's left-hand
#'   side); defaults to `arg`.
#' @param stat_rows Rows the z-score statistics are taken over (NULL: all).
#' @return A list of class "ccforest_response" with `task`
#'   ("classification" or "regression"), `names`, `n`, `n_output` and, for
#'   classification, `levels` (all levels of each output, empty ones too),
#'   `codes` (n x M integer matrix of 0-based classes) and `n_class`; for
#'   regression, `values` (n x M double matrix of z-scores), `center` and
#'   `scale` (population standard deviation; 1 for a constant output) and
#'   `original` (the outputs as given, n x M).
#' @noRd
prepare_response <- function(y, arg = "y", name = NULL, stat_rows = NULL) {
  standardise_response(parse_response(y, arg, name), stat_rows)
}

#' The outputs checked and encoded: class codes, regression values not yet
#' z-scored (`values` on the outputs' own scale, no `center` or `scale`), or
#' a survival outcome's times and events (parse_survival_response())
#' @noRd
parse_response <- function(y, arg = "y", name = NULL) {
  if (is_survival_outcome(y)) {
    return(parse_survival_response(y, arg, name))
  }
  outputs <- response_outputs(y, arg, name)
  kinds <- vapply(outputs$columns, output_kind, character(1))
  bad <- which(is.na(kinds))
  if (length(bad) > 0L) {
    col <- outputs$columns[[bad[[1L]]]]
    stop(
      sprintf(
        "%s has class %s; outputs must be factor, character, logical or numeric.",
        outputs$labels[[bad[[1L]]]], class_label(col)
      ),
      call. = FALSE
    )
  }
  is_numeric <- kinds == "numeric"
  if (any(is_numeric) && !all(is_numeric)) {
    stop(
      sprintf(
        "`%s` mixes categorical outputs (%s) and numeric outputs (%s); all outputs must be of one kind.",
        arg, format_names(outputs$names[!is_numeric]),
        format_names(outputs$names[is_numeric])
      ),
      call. = FALSE
    )
  }
  check_response_missing(outputs, arg)

  n <- length(outputs$columns[[1L]])
  common <- list(
    names = outputs$names,
    n = n,
    n_output = length(outputs$columns)
  )
  encoded <- if (all(is_numeric)) {
    regression_values(outputs, n)
  } else {
    encode_classification(outputs, kinds, arg, n)
  }
  structure(c(encoded[1L], common, encoded[-1L]), class = "ccforest_response")
}

#' Regression outputs z-scored over `stat_rows` (NULL: all rows), the
#' statistics kept to put predictions back on the outputs' scale; class
#' outputs as they are; a survival outcome's event times taken over
#' `stat_rows`
#' @noRd
standardise_response <- function(response, stat_rows = NULL) {
  task_record(response$task)$standardise(response, stat_rows)
}

#' Regression outputs z-scored over `stat_rows` (NULL: all rows)
#' @noRd
standardise_values <- function(response, stat_rows = NULL) {
  values <- response$values
  moments <- lapply(seq_len(ncol(values)), function(m) {
    scaled_moments(if (is.null(stat_rows)) values[, m] else values[stat_rows, m])
  })
  center <- vapply(moments, `[[`, numeric(1), "center")
  scale <- vapply(moments, `[[`, numeric(1), "scale")
  # A constant output is left unscaled so that predictions map back exactly.
  scale[!is.finite(scale) | scale == 0] <- 1
  z <- values
  for (m in seq_len(ncol(values))) {
    z[, m] <- zscore(values[, m], center[[m]], scale[[m]])
  }
  response$values <- z
  response$center <- unname(center)
  response$scale <- unname(scale)
  # The outputs themselves: quantiles are training outputs, exactly (z-scores
  # mapped back would turn a 0 into 2.8e-17, say).
  response$original <- unname(values)
  response
}

#' Missing outcomes cannot be learned from; say how many and what to do
#' @noRd
check_response_missing <- function(outputs, arg) {
  missing <- lapply(outputs$columns, is.na)
  if (!any(vapply(missing, any, logical(1)))) {
    return(invisible())
  }
  advice <- "remove those rows or use na_action = \"omit\"."
  if (outputs$single) {
    count <- sum(missing[[1L]])
    stop(
      sprintf(
        "`%s` has %d missing value%s; %s",
        arg, count, if (count == 1L) "" else "s", advice
      ),
      call. = FALSE
    )
  }
  rows <- Reduce(`|`, missing)
  affected <- outputs$names[vapply(missing, any, logical(1))]
  stop(
    sprintf(
      "`%s` has missing values in %d row%s (column(s) %s); %s",
      arg, sum(rows), if (sum(rows) == 1L) "" else "s",
      format_names(affected), advice
    ),
    call. = FALSE
  )
}

#' 0-based class codes for each categorical output
#' @noRd
encode_classification <- function(outputs, kinds, arg, n) {
  converted <- kinds %in% c("character", "logical")
  if (any(converted)) {
    message(
      if (outputs$single) {
        sprintf("Treating %s `%s` as a factor (classification).", kinds[[1L]], arg)
      } else {
        sprintf(
          "Treating %s column(s) %s of `%s` as factors (classification).",
          paste(unique(kinds[converted]), collapse = " and "),
          format_names(outputs$names[converted]), arg
        )
      }
    )
  }
  factors <- lapply(seq_along(outputs$columns), function(m) {
    col <- outputs$columns[[m]]
    switch(kinds[[m]],
      logical = factor(col, levels = c(FALSE, TRUE)),
      character = factor(col),
      col
    )
  })
  for (m in seq_along(factors)) {
    observed <- levels(factors[[m]])[tabulate(factors[[m]], nlevels(factors[[m]])) > 0L]
    if (length(observed) < 2L) {
      stop(
        sprintf(
          "%s has only one class (%s); classification needs at least two.",
          outputs$labels[[m]], format_names(observed)
        ),
        call. = FALSE
      )
    }
  }
  codes <- matrix(
    unlist(lapply(factors, function(f) as.integer(f) - 1L), use.names = FALSE),
    nrow = n, dimnames = list(NULL, outputs$names)
  )
  list(
    task = "classification",
    levels = lapply(factors, levels),
    codes = codes,
    n_class = lengths(lapply(factors, levels))
  )
}

#' The numeric outputs as one matrix, infinite values refused
#' @noRd
regression_values <- function(outputs, n) {
  for (m in seq_along(outputs$columns)) {
    col <- as.double(outputs$columns[[m]])
    rows <- which(is.infinite(col))
    if (length(rows) > 0L) {
      stop(
        sprintf(
          "%s contains infinite values (row %s); remove or replace them.",
          outputs$labels[[m]], paste(utils::head(rows, 5L), collapse = ", ")
        ),
        call. = FALSE
      )
    }
  }
  list(
    task = "regression",
    values = matrix(
      as.double(unlist(outputs$columns, use.names = FALSE)),
      nrow = n, dimnames = list(NULL, outputs$names)
    )
  )
}

#' Rows where no output is missing, for na_action = "omit"
#'
#' @param y The raw outcome: a vector, factor, data.frame or matrix.
#' @return A logical vector, one element per row.
#' @noRd
response_row_ok <- function(y) {
  missing_rows <- function(col) {
    if (is.null(dim(col))) is.na(col) else rowSums(is.na(as.matrix(col))) > 0
  }
  if (is.data.frame(y)) {
    ok <- rep(TRUE, nrow(y))
    for (col in y) {
      ok <- ok & !missing_rows(col)
    }
    return(ok)
  }
  !missing_rows(y)
}
