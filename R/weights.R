# Case weights and class weights: validated here, combined into one weight
# per row for the core (see Data::weight in src/core/Data.h).

#' Check case weights: one finite weight >= 0 per row
#'
#' tidymodels passes hardhat's importance or frequency weights; they are
#' plain numbers underneath.
#' @return The weights as a double vector, or NULL.
#' @noRd
check_case_weights <- function(case_weights, n) {
  if (is.null(case_weights)) {
    return(NULL)
  }
  if (inherits(case_weights, "hardhat_case_weights")) {
    case_weights <- as.double(unclass(case_weights))
  }
  if (!is_plain_number(case_weights) || !is.null(dim(case_weights))) {
    stop(sprintf("`case_weights` must be a numeric vector with one weight per row, not %s.",
                 describe_value(case_weights, type_ok = FALSE)), call. = FALSE)
  }
  if (length(case_weights) != n) {
    stop(sprintf("`case_weights` has %d value%s but the data has %d rows; give one weight per row.",
                 length(case_weights), if (length(case_weights) == 1L) "" else "s", n),
         call. = FALSE)
  }
  bad <- which(is.na(case_weights) | !is.finite(case_weights) | case_weights < 0)
  if (length(bad) > 0L) {
    stop(sprintf("`case_weights` must be finite and >= 0, but row %d has %s.", bad[[1L]],
                 format_value(case_weights[[bad[[1L]]]])), call. = FALSE)
  }
  as.double(case_weights)
}

#' Check class weights: a named numeric vector over the classes of `y`
#' @return A weight per class (1 for classes not named), or NULL.
#' @noRd
check_class_weights <- function(class_weights, response) {
  if (is.null(class_weights)) {
    return(NULL)
  }
  if (response$task != "classification" || response$n_output != 1L) {
    stop("`class_weights` is for classification with one output; ",
         "use `case_weights` to weight rows otherwise.", call. = FALSE)
  }
  levels <- response$levels[[1L]]
  if (!is_plain_number(class_weights) || is.null(names(class_weights)) ||
      anyNA(names(class_weights)) || !all(nzchar(names(class_weights)))) {
    stop(sprintf(paste0("`class_weights` must be a numeric vector named by classes of the ",
                        "output (%s), not %s."), format_names(levels),
                 describe_value(class_weights, type_ok = FALSE)), call. = FALSE)
  }
  # The NA class of an addNA() response is named "NA" (unless a class is
  # already called that).
  labels <- levels
  if (!"NA" %in% levels) labels[is.na(labels)] <- "NA"
  unknown <- setdiff(names(class_weights), labels)
  if (length(unknown) > 0L) {
    stop(sprintf("`class_weights` names %s, not classes of the output (%s).",
                 format_names(unknown), format_names(levels)), call. = FALSE)
  }
  repeated <- unique(names(class_weights)[duplicated(names(class_weights))])
  if (length(repeated) > 0L) {
    stop(sprintf("`class_weights` names %s more than once.", format_names(repeated)),
         call. = FALSE)
  }
  bad <- which(is.na(class_weights) | !is.finite(class_weights) | class_weights < 0)
  if (length(bad) > 0L) {
    stop(sprintf("`class_weights` must be finite and >= 0, but class `%s` has %s.",
                 names(class_weights)[[bad[[1L]]]], format_value(class_weights[[bad[[1L]]]])),
         call. = FALSE)
  }
  out <- stats::setNames(rep(1, length(levels)), levels)
  out[match(names(class_weights), labels)] <- unname(class_weights)
  out
}

#' One weight per row from case and class weights (NULL when neither)
#' @noRd
row_weights <- function(case_weights, class_weights, response) {
  if (is.null(case_weights) && is.null(class_weights)) {
    return(NULL)
  }
  w <- case_weights %||% rep(1, response$n)
  if (!is.null(class_weights)) {
    w <- w * unname(class_weights)[response$codes[, 1L] + 1L]
  }
  if (!any(w > 0)) {
    stop("Every row has weight 0 (`case_weights` times `class_weights`): at least one row ",
         "needs a positive weight.", call. = FALSE)
  }
  w
}
