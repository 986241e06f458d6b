# The rows each tree is grown on: `sampling`, `sample_fraction` and
# `replace`, validated here and turned into the core's RowSample (see
# src/core/Sampling.h).
#
# The fit stores `sampling` ("bagging" or "projection": whether each node's
# CCA is fitted on a bootstrap sample of the node's rows), `sample_fraction`
# (one number, or one per class named by the classes) and `replace`. Every
# row once is `sample_fraction = 1, replace = FALSE`, the default of
# projection bootstrapping; bagging's default is `sample_fraction = 1,
# replace = TRUE`. Fits made before these were stored hold neither.

#' Check `sample_fraction` and `replace` and fill in the defaults of the
#' sampling scheme
#'
#' @param bagging Whether the trees are bagged (sampling resolved).
#' @param response The prepared outputs, for per-class fractions.
#' @param weights One weight per row, or NULL: sample sizes count the rows of
#'   positive weight.
#' @param class_weights The checked class weights, or NULL.
#' @return list(sample_fraction, replace), as the fit stores them.
#' @noRd
resolve_sample <- function(sample_fraction, replace, bagging, response, weights,
                           class_weights) {
  if (!is.null(replace)) {
    replace <- check_flag(replace, "replace")
  }
  replace <- replace %||% bagging
  if (is.null(sample_fraction)) {
    # ranger's default without replacement: the expected share of distinct
    # rows in a bootstrap sample.
    sample_fraction <- if (bagging && !replace) 0.632 else 1
  } else {
    sample_fraction <- check_sample_fraction(sample_fraction, response, class_weights)
  }
  n_positive <- if (is.null(weights)) response$n else sum(weights > 0)
  sizes <- sample_sizes(sample_fraction, n_positive)
  if (sum(sizes) < 1) {
    stop(sprintf(paste0(
      "`sample_fraction = %s` draws no row: %s of the %d rows rounds to 0. ",
      "Give a larger fraction."), format_value(sample_fraction),
      format_value(sum(sample_fraction)), n_positive), call. = FALSE)
  }
  if (length(sample_fraction) > 1L) {
    check_class_sizes(sizes, sample_fraction, n_positive, replace, response, weights)
  }
  list(sample_fraction = sample_fraction, replace = replace)
}

#' One fraction in (0, 1], or one per class of a single output (in [0, 1],
#' summing to at most 1), named by the classes or in the order of the levels
#' @noRd
check_sample_fraction <- function(sample_fraction, response, class_weights) {
  type_ok <- is_plain_number(sample_fraction) && is.null(dim(sample_fraction))
  if (!type_ok || length(sample_fraction) < 1L || anyNA(sample_fraction) ||
      !all(is.finite(sample_fraction))) {
    stop(sprintf(paste0("`sample_fraction` must be a number in (0, 1], or one per class, ",
                        "not %s."), describe_value(sample_fraction, type_ok)), call. = FALSE)
  }
  named <- !is.null(names(sample_fraction))
  if (length(sample_fraction) == 1L && !named) {
    if (!(sample_fraction > 0 && sample_fraction <= 1)) {
      stop(sprintf("`sample_fraction` must be a number in (0, 1], not %s.",
                   format_value(sample_fraction)), call. = FALSE)
    }
    return(as.double(sample_fraction))
  }
  if (!one_class_output(response)) {
    stop("One `sample_fraction` per class is for classification with one output; give one ",
         "number in (0, 1].", call. = FALSE)
  }
  levels <- response$levels[[1L]]
  if (named) {
    unknown <- setdiff(names(sample_fraction), levels)
    if (length(unknown) > 0L || anyNA(names(sample_fraction))) {
      stop(sprintf("`sample_fraction` names %s, not classes of the output (%s).",
                   format_names(if (length(unknown)) unknown else NA), format_names(levels)),
           call. = FALSE)
    }
    repeated <- unique(names(sample_fraction)[duplicated(names(sample_fraction))])
    if (length(repeated) > 0L) {
      stop(sprintf("`sample_fraction` names %s more than once.", format_names(repeated)),
           call. = FALSE)
    }
    missing_classes <- setdiff(levels, names(sample_fraction))
    if (length(missing_classes) > 0L) {
      stop(sprintf("`sample_fraction` has no value for class %s: give one per class (%s).",
                   format_names(missing_classes), format_names(levels)), call. = FALSE)
    }
    sample_fraction <- sample_fraction[levels]
  } else if (length(sample_fraction) != length(levels)) {
    stop(sprintf(paste0("`sample_fraction` has %d values but the output has %d classes (%s): ",
                        "give one number, or one per class."),
                 length(sample_fraction), length(levels), format_names(levels)), call. = FALSE)
  }
  if (any(sample_fraction < 0 | sample_fraction > 1) || !(sum(sample_fraction) > 0) ||
      sum(sample_fraction) > 1 + 1e-12) {
    stop(sprintf(paste0("One `sample_fraction` per class must be in [0, 1], the fractions of ",
                        "all rows drawn from each class, and sum to more than 0 and at most ",
                        "1; not %s (sum %s)."),
                 format_value(stats::setNames(as.double(sample_fraction), levels), width = 60L),
                 format(sum(sample_fraction))), call. = FALSE)
  }
  if (!is.null(class_weights)) {
    stop("`class_weights` and one `sample_fraction` per class both set the classes' shares ",
         "of the trees' samples: give one of them.", call. = FALSE)
  }
  stats::setNames(as.double(sample_fraction), levels)
}

#' Rows drawn per tree (one size, or one per class) for `n_positive` rows
#' of positive weight
#' @noRd
sample_sizes <- function(sample_fraction, n_positive) {
  floor(sample_fraction * n_positive + 0.5)
}

#' Without replacement, a class cannot give more rows than it has; and the
#' rounded sizes must not add up to more rows than there are
#' @noRd
check_class_sizes <- function(sizes, sample_fraction, n_positive, replace, response, weights) {
  codes <- response$codes[, 1L] + 1L
  if (!is.null(weights)) codes <- codes[weights > 0]
  available <- tabulate(codes, nbins = length(sizes))
  if (!replace) {
    short <- which(sizes > available)
    if (length(short) > 0L) {
      k <- short[[1L]]
      stop(sprintf(paste0(
        "`sample_fraction` asks for %d rows of class `%s` (%s of the %d rows) without ",
        "replacement, but the class has %d. Use replace = TRUE, or a smaller fraction."),
        as.integer(sizes[[k]]), names(sample_fraction)[[k]], format_value(sample_fraction[[k]]),
        n_positive, available[[k]]), call. = FALSE)
    }
  }
  empty <- which(sizes > 0 & available == 0)
  if (length(empty) > 0L) {
    stop(sprintf("`sample_fraction` draws rows of class `%s`, which has no row of positive weight.",
                 names(sample_fraction)[[empty[[1L]]]]), call. = FALSE)
  }
  if (sum(sizes) > n_positive) {
    stop(sprintf(paste0("`sample_fraction` draws %d rows per tree after rounding, more than the %d ",
                        "rows: lower one of the fractions."), as.integer(sum(sizes)), n_positive),
         call. = FALSE)
  }
  invisible(sizes)
}

#' The stored sampling of a fit, with the defaults of fits made before it
#' was stored
#' @noRd
stored_sample <- function(options) {
  bagging <- identical(options$sampling, "bagging")
  list(sample_fraction = options$sample_fraction %||% 1,
       replace = options$replace %||% bagging)
}

#' Whether each tree is grown on every row once (no out-of-bag rows)
#' @noRd
every_row <- function(options) {
  s <- stored_sample(options)
  !s$replace && length(s$sample_fraction) == 1L && is.null(names(s$sample_fraction)) &&
    s$sample_fraction == 1
}

#' Whether the trees are grown on samples, so that rows have out-of-bag
#' predictions
#' @noRd
has_out_of_bag <- function(options) {
  !every_row(options)
}

#' The core's RowSample: list(every_row, replace, size, class_size)
#'
#' @param training The training_set(): sizes count its rows of positive
#'   weight.
#' @noRd
row_sample <- function(options, training) {
  s <- stored_sample(options)
  weights <- training$weights
  n_positive <- if (length(weights)) sum(weights > 0) else nrow(training$x)
  sizes <- sample_sizes(s$sample_fraction, n_positive)
  per_class <- !is.null(names(s$sample_fraction))
  list(
    every_row = every_row(options),
    replace = s$replace,
    size = if (per_class) 0 else as.double(sizes),
    class_size = if (per_class) as.double(sizes) else numeric(0)
  )
}

#' How print() and summary() describe the sampling
#' @noRd
sampling_label <- function(options) {
  scheme <- if (identical(options$sampling, "bagging")) "bagging" else "projection bootstrap"
  s <- stored_sample(options)
  default <- if (identical(options$sampling, "bagging")) {
    s$replace && identical(unname(s$sample_fraction), 1)
  } else {
    every_row(options)
  }
  if (default) {
    return(scheme)
  }
  if (every_row(options)) {
    return(paste0(scheme, ", every row in every tree"))
  }
  how <- if (s$replace) "with replacement" else "without replacement"
  fraction <- if (is.null(names(s$sample_fraction))) {
    sprintf("%s of the rows", format_percent(s$sample_fraction))
  } else {
    paste0(paste(sprintf("%s %s", names(s$sample_fraction), format_percent(s$sample_fraction)),
                 collapse = ", "), " of the rows")
  }
  sprintf("%s, each tree on %s, %s", scheme, fraction, how)
}

#' @noRd
format_percent <- function(x) {
  paste0(format(100 * x, digits = 3L, trim = TRUE), "%")
}
