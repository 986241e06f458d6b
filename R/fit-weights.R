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
  if (!one_class_output(response)) {
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
#'
#' A weight counts as that many copies of its row, relative to the other
#' rows: only ratios matter. The weights reach the core scaled by a power of
#' two (exact: ratios are kept to the last bit) so that their mean over the
#' rows of positive weight lies in [1, 2), whatever their scale, so no sum
#' of them overflows; weights whose mean is already there are unchanged.
#' Ratios beyond 1e15 are refused: sums of weights keep about 16 digits, so
#' a lighter row would vanish from every sum it shares with a heavier one
#' (trees would stop splitting nodes that hold both).
#' @noRd
row_weights <- function(case_weights, class_weights, response) {
  if (is.null(case_weights) && is.null(class_weights)) {
    return(NULL)
  }
  w <- if (is.null(case_weights)) rep(1, response$n) else scale_by_power_of_two(case_weights)
  if (!is.null(class_weights)) {
    w <- w * scale_by_power_of_two(unname(class_weights))[response$codes[, 1L] + 1L]
  }
  if (!any(w > 0)) {
    stop("Every row has weight 0 (`case_weights` times `class_weights`): at least one row ",
         "needs a positive weight.", call. = FALSE)
  }
  check_weight_range(w, case_weights, class_weights, response)
  positive <- w[w > 0]
  scale_by_power_of_two(w, mean(positive))
}

#' x times the power of two that brings `reference` (default: the largest
#' of x) into [1, 2): exact, and done in two steps so that neither factor
#' overflows, however large or small the values
#' @noRd
scale_by_power_of_two <- function(x, reference = max(x)) {
  if (!(reference > 0)) {
    return(as.double(x))
  }
  e <- floor(log2(reference))
  half <- e %/% 2
  as.double(x) * 2^-half * 2^-(e - half)
}

#' Rows of positive case and class weight must keep a usable weight once
#' scaled: at least 1e-15 of the largest
#' @noRd
check_weight_range <- function(w, case_weights, class_weights, response) {
  intended <- if (is.null(case_weights)) rep(TRUE, length(w)) else case_weights > 0
  if (!is.null(class_weights)) {
    intended <- intended & (unname(class_weights) > 0)[response$codes[, 1L] + 1L]
  }
  tiny <- which(intended & w < 1e-15 * max(w))
  if (length(tiny) == 0L) {
    return(invisible())
  }
  row <- tiny[[1L]]
  if (is.null(class_weights)) {
    stop(sprintf(paste0(
      "`case_weights` span too wide a range: row %d's weight, %s, is less than 1e-15 times ",
      "the largest, %s. Give the row weight 0 to leave it out, or narrow the range."),
      row, format_value(case_weights[[row]]), format_value(max(case_weights))), call. = FALSE)
  }
  level <- response$levels[[1L]][[response$codes[row, 1L] + 1L]]
  stop(sprintf(paste0(
    "`case_weights` times `class_weights` span too wide a range: row %d (class `%s`) weighs ",
    "less than 1e-15 times the heaviest row. Give such rows or classes weight 0 to leave ",
    "them out, or narrow the range of the weights."), row, level), call. = FALSE)
}

#' Trees must see at least two classes of every output
#'
#' Data with one class are refused when the outputs are read
#' (encode_classification()); the same situation reached through weights or
#' sampling (rows of weight 0, a class weight of 0, a class fraction of 0)
#' would grow single-leaf trees that predict one class with probability 1
#' everywhere, so it is refused here with its cause.
#' @param weights The rows' combined weights (row_weights()), or NULL.
#' @param sample_fraction The resolved fraction: one, or one per class.
#' @noRd
check_classes_drawn <- function(response, weights, sample_fraction, case_weights,
                                class_weights) {
  if (!task_record(response$task)$class_outputs) {
    return(invisible())
  }
  per_class <- !is.null(names(sample_fraction))
  for (m in seq_len(response$n_output)) {
    levels <- response$levels[[m]]
    codes <- response$codes[, m] + 1L
    present <- tabulate(codes, length(levels)) > 0L
    weighted <- present
    if (!is.null(weights)) weighted <- tabulate(codes[weights > 0], length(levels)) > 0L
    drawn <- weighted
    if (per_class && m == 1L) drawn <- weighted & sample_fraction > 0
    if (sum(drawn) >= 2L) next
    cause <- if (sum(weighted) >= 2L) {
      sprintf("`sample_fraction` draws no row of class %s",
              format_names(levels[weighted & !drawn]))
    } else if (!is.null(class_weights) && any(present & class_weights == 0)) {
      sprintf("`class_weights` gives class %s weight 0",
              format_names(levels[present & class_weights == 0]))
    } else {
      sprintf("`case_weights` are 0 for every row of class %s",
              format_names(levels[present & !weighted]))
    }
    stop(sprintf(paste0(
      "%s leaves output `%s` with rows of only one class (%s) to learn from: every tree would ",
      "predict it with probability 1 everywhere. Classification needs rows of at least two ",
      "classes."), cause, response$names[[m]], format_names(levels[drawn])), call. = FALSE)
  }
  invisible()
}
