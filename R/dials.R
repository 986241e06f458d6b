# dials parameter objects for the engine arguments of ccforest that can be
# tuned. The parsnip engine names these functions (see
# register_parsnip_engine()), so tune and extract_parameter_set_dials() find
# them without a hand-made parameter set.

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
  qual_param(values, "values", c("cca", "rotation", "pca", "axis"),
             c(ccf_projection = "Projection of the sampled features"))
}

#' @rdname ccf_projection
#' @export
ccf_split_rule <- function(values = c("entropy", "gini")) {
  qual_param(values, "values", c("entropy", "gini", "variance"),
             c(ccf_split_rule = "Split rule"))
}

#' @rdname ccf_projection
#' @export
ccf_sampling <- function(values = c("projection", "bagging")) {
  qual_param(values, "values", c("projection", "bagging", "auto"),
             c(ccf_sampling = "Sampling of rows"))
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
