# dials parameter objects for the engine arguments of ccforest that can be
# tuned. The parsnip engine names these functions (the option table's
# `parsnip` rows, R/fit-options.R), so tune and extract_parameter_set_dials()
# find them without a hand-made parameter set; the values a qualitative one
# may take are the option's, from the table.

#' Tuning parameters of ccforest's engine arguments (dials)
#'
#' Parameter objects of the \pkg{dials} package for the arguments of
#' [ccforest()] that the tidymodels engine ([details_rand_forest_ccforest])
#' can tune: `projection`, `split_rule` and `sampling`. tune finds them by
#' itself when an engine argument is marked for tuning, as in
#' `set_engine("ccforest", projection = tune())`; call them to build or
#' change a grid by hand.
#'
#' @param values The values to try, a subset of the possible ones (the
#'   default: all of them, except `"variance"`, the only rule for
#'   regression, and `"auto"` sampling, which is one of the other two).
#' @return A qualitative parameter object of class `"qual_param"` from
#'   [dials::new_qual_param()]. The dials package must be installed.
#' @seealso [ccforest()] for what each value means.
#' @examples
#' if (requireNamespace("dials", quietly = TRUE)) {
#'   ccf_projection()
#'   ccf_split_rule()
#'   ccf_sampling(values = "bagging")
#'   dials::grid_regular(ccf_projection(), ccf_sampling())
#' }
#' @export
ccf_projection <- function(values = c("cca", "rotation", "pca", "axis")) {
  qual_param(values, "values", option_table$projection$type$values,
             c(ccf_projection = "Projection of the sampled features"))
}

#' @rdname ccf_projection
#' @export
ccf_split_rule <- function(values = c("entropy", "gini")) {
  # Survival's log-rank rule is the only one for its task: nothing to tune.
  qual_param(values, "values", setdiff(option_table$split_rule$type$values, "logrank"),
             c(ccf_split_rule = "Split rule"))
}

#' @rdname ccf_projection
#' @export
ccf_sampling <- function(values = c("projection", "bagging")) {
  qual_param(values, "values", c("projection", "bagging", "auto"),
             c(ccf_sampling = "Sampling of rows"))
}

#' Tuning parameters of ccforest's options beyond the paper (dials)
#'
#' Parameter objects of the \pkg{dials} package for [ccforest()]'s
#' `max_directions` (canonical directions searched per node),
#' `direction_ratio` (classification: how close to the first a further
#' direction's canonical correlation must be for it to be searched),
#' `axis_candidates` (the sampled features' axes among the candidates) and
#' `output_bins` (regression: the CCA against quantile bins of the output),
#' found by tune when the engine argument is marked for tuning, as in
#' `set_engine("ccforest", axis_candidates = tune())`.
#'
#' @param range The smallest and largest values to try.
#' @param values The values to try.
#' @return A parameter object from [dials::new_quant_param()] (integers;
#'   numbers for `direction_ratio`) or
#'   [dials::new_qual_param()] (`axis_candidates`' modes). The dials package
#'   must be installed.
#' @seealso [ccforest()] for what each option does.
#' @examples
#' if (requireNamespace("dials", quietly = TRUE)) {
#'   ccf_max_directions()
#'   ccf_direction_ratio(range = c(0.5, 1))
#'   ccf_axis_candidates()
#'   ccf_output_bins(range = c(2, 6))
#' }
#' @export
ccf_max_directions <- function(range = c(1L, 5L)) {
  quant_param(range, c(ccf_max_directions = "Canonical directions searched"))
}

#' @rdname ccf_max_directions
#' @export
ccf_direction_ratio <- function(range = c(0, 1)) {
  needs_dials("ccf_direction_ratio")
  type_ok <- is_plain_number(range)
  if (!type_ok || length(range) != 2L || anyNA(range) || range[[1L]] < 0 || range[[2L]] > 1 ||
      range[[1L]] > range[[2L]]) {
    stop(sprintf("`range` must be two increasing numbers between 0 and 1, not %s.",
                 describe_value(range, type_ok)), call. = FALSE)
  }
  dials::new_quant_param(type = "double", range = as.double(range), inclusive = c(TRUE, TRUE),
                         label = c(ccf_direction_ratio = "Correlation ratio of further directions"),
                         finalize = NULL)
}

#' @rdname ccf_max_directions
#' @export
ccf_axis_candidates <- function(values = c("none", "random", "search")) {
  qual_param(values, "values", option_table$axis_candidates$type$values,
             c(ccf_axis_candidates = "Axes among the candidates"))
}

#' @rdname ccf_max_directions
#' @export
ccf_output_bins <- function(range = c(2L, 8L)) {
  if (is_plain_number(range) && length(range) == 2L && !anyNA(range) && min(range) < 2) {
    stop(sprintf("`range` must be two whole numbers >= 2, not %s.", describe_value(range, TRUE)),
         call. = FALSE)
  }
  quant_param(range, c(ccf_output_bins = "Quantile bins of the output"))
}

#' A dials integer parameter after checking its range
#' @noRd
quant_param <- function(range, label) {
  needs_dials(names(label))
  if (!is_plain_number(range) || length(range) != 2L || anyNA(range) ||
      any(range != trunc(range)) || range[[1L]] < 1 || range[[1L]] > range[[2L]]) {
    stop(sprintf("`range` must be two increasing whole numbers >= 1, not %s.",
                 describe_value(range, is_plain_number(range))), call. = FALSE)
  }
  dials::new_quant_param(type = "integer", range = as.integer(range), inclusive = c(TRUE, TRUE),
                         label = label, finalize = NULL)
}

#' @noRd
needs_dials <- function(fn) {
  if (!requireNamespace("dials", quietly = TRUE)) {
    stop(sprintf("%s() needs the dials package; install it with install.packages(\"dials\").",
                 fn), call. = FALSE)
  }
}

#' A dials qualitative parameter after checking its values
#' @noRd
qual_param <- function(values, arg, choices, label) {
  if (!requireNamespace("dials", quietly = TRUE)) {
    stop(sprintf("%s() needs the dials package; install it with install.packages(\"dials\").",
                 names(label)), call. = FALSE)
  }
  if (!is.character(values) || is.object(values) || length(values) < 1L || anyNA(values)) {
    stop(sprintf("`%s` must be a character vector of one or more of %s, not %s.", arg,
                 paste0("\"", choices, "\"", collapse = ", "),
                 describe_value(values, type_ok = is.character(values))), call. = FALSE)
  }
  unknown <- setdiff(values, choices)
  if (length(unknown) > 0L) {
    stop(sprintf("`%s` must be among %s; %s is not.", arg,
                 paste0("\"", choices, "\"", collapse = ", "),
                 paste0("\"", unknown, "\"", collapse = ", ")), call. = FALSE)
  }
  dials::new_qual_param(type = "character", values = unique(values), label = label,
                        finalize = NULL)
}
