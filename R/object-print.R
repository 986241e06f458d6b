#' Print and summarise a canonical correlation forest
#'
#' `print()` shows what was fitted, in the spirit of ranger: the task, the
#' number of trees, `mtry`, the sampling scheme, the options beyond the paper
#' that change this fit (`max_directions` only where a node can have more
#' directions, `onehot_max_levels` only where a factor has more levels,
#' `bootstrap_max_rows` only where a tree has more rows), the
#' data's size, the mean tree size, the out-of-bag estimates (or that they
#' were not computed, with `oob_error = FALSE`) and the training time.
#' `summary()` adds the options and the spread of tree sizes and depths.
#'
#' @param x,object A `"ccforest"`.
#' @param ... Not used.
#' @return `print()` returns `x` invisibly; `summary()` returns an object of
#'   class `"summary.ccforest"`, a list of the figures it prints.
#' @examples
#' fit <- ccforest(Species ~ ., data = iris, n_tree = 20, seed = 1)
#' print(fit)
#' summary(fit)
#' @export
print.ccforest <- function(x, ...) {
  s <- summary.ccforest(x)
  cat("Canonical correlation forest\n\n")
  rows <- c(
    "Call:" = paste(deparse(x$call, width.cutoff = 60L), collapse = paste0("\n", strrep(" ", 17L))),
    "Task:" = s$task_label,
    "Trees:" = format_tree_count(s$n_tree, s$first_tree),
    option_rows(x$options, s$beyond_paper, n_feature = s$n_feature),
    "Rows:" = format(x$n_obs),
    "Features:" = sprintf("%d (%d columns after encoding)", s$n_feature, s$n_column),
    "Mean tree size:" = sprintf("%.1f leaves, depth %.1f", mean(s$leaves), mean(s$depth)),
    "OOB error:" = format_oob_error(x),
    "Training time:" = format_seconds(x$train_time)
  )
  rows <- rows[!is.na(rows)]
  names(rows)[names(rows) == "OOB error:"] <- task_record(x$task)$oob_label
  cat(sprintf("%-16s %s", names(rows), rows), sep = "\n")
  invisible(x)
}

#' @rdname print.ccforest
#' @export
summary.ccforest <- function(object, ...) {
  check_ccforest(object)
  sizes <- tree_sizes(object)
  response <- object$response
  task_label <- task_record(object$task)$task_label(response)
  structure(
    list(
      task_label = task_label,
      n_tree = n_trees(object),
      first_tree = object$forest$first_tree,
      n_feature = length(object$blueprint$feature_names),
      n_column = length(object$blueprint$column_names),
      sampling_label = sampling_label(object$options),
      beyond_paper = beyond_paper_label(object$options, acting = acting_options(object)),
      projection_label = projection_label(object$options$projection),
      leaves = sizes$leaves,
      depth = sizes$depth,
      options = object$options,
      seed = object$seed,
      n_obs = object$n_obs,
      train_time = object$train_time,
      outputs = response$names,
      oob_label = task_record(object$task)$oob_label,
      oob = format_oob_error(object)
    ),
    class = "summary.ccforest"
  )
}

#' @rdname print.ccforest
#' @export
print.summary.ccforest <- function(x, ...) {
  cat("Canonical correlation forest:", x$task_label, "\n\n")
  opts <- x$options
  rows <- c(
    "Outputs:" = paste(x$outputs, collapse = ", "),
    "Trees:" = format_tree_count(x$n_tree, x$first_tree),
    "Rows:" = format(x$n_obs),
    "Features:" = sprintf("%d (%d columns after encoding)", x$n_feature, x$n_column),
    option_rows(opts, x$beyond_paper %||% beyond_paper_label(opts), summary = TRUE),
    "Seed:" = format(x$seed, scientific = FALSE),
    "Leaves per tree:" = five_numbers(x$leaves),
    "Depth:" = five_numbers(x$depth),
    "OOB error:" = x$oob %||% NA_character_,
    "Training time:" = format_seconds(x$train_time)
  )
  rows <- rows[!is.na(rows)]
  names(rows)[names(rows) == "OOB error:"] <- x$oob_label %||% "OOB error:"
  cat(sprintf("%-21s %s", names(rows), rows), sep = "\n")
  invisible(x)
}

#' How features were sampled, when not uniformly (`feature_weights`): NA
#' for uniform sampling, so print() leaves the row out
#' @noRd
feature_weights_label <- function(opts) {
  weights <- opts$feature_weights
  rule <- opts$screen_rule
  if (isTRUE(rule$acts)) {
    top <- names(sort(weights, decreasing = TRUE))[seq_len(min(3L, length(weights)))]
    return(sprintf(paste0("\"auto\": screened, R^2 to the 4th power (%s of %s features ",
                          "stand out from noise, R^2 > %.3g; highest: %s)"),
                   format(rule$standing_out, big.mark = ","), format(rule$n_feature, big.mark = ","),
                   rule$threshold, paste(top, collapse = ", ")))
  }
  if (isTRUE(opts$feature_screen)) {
    if (is.null(weights)) {
      return("\"screen\" (the outputs explain no feature: uniform)")
    }
    top <- names(sort(weights, decreasing = TRUE))[seq_len(min(3L, length(weights)))]
    return(sprintf("\"screen\" (R^2 with the outputs, squared; highest: %s)",
                   paste(top, collapse = ", ")))
  }
  if (is.null(weights)) {
    return(NA_character_)
  }
  sprintf("given, %d of %d positive", sum(weights > 0), length(weights))
}

#' The number of trees, and for a range of a larger forest (see
#' `first_tree` in ccforest()) which trees it holds
#' @noRd
format_tree_count <- function(n_tree, first_tree = 1L) {
  if (is.null(first_tree) || first_tree == 1L) {
    return(format(n_tree))
  }
  sprintf("%d (trees %d to %d of the forest with this seed)", n_tree, first_tree,
          first_tree + n_tree - 1L)
}

#' Whether the defaults beyond the paper changed this fit at all, as the
#' core counted while growing it (fit$forest$limits; see LimitCounts in
#' src/core/Options.h): `max_directions` when a node's search of its ranked
#' directions ended at the limit, `direction_ratio` when it ended earlier on
#' a direction too weak against the first, `bootstrap_max_rows` when a node drew
#' fewer rows for its CCA than it had, `exact_split_max_rows` when a node was
#' searched binned. `onehot_max_levels` when a factor had more levels (it was
#' valued by the outputs instead of expanded). A fit grown before the core
#' counted (0.3.0 and earlier) shows every limit it sets.
#' @noRd
acting_options <- function(object) {
  onehot <- any(object$blueprint$feature_type == "scored")
  counts <- object$forest[["limits"]]
  acted <- if (is.null(counts)) {
    stats::setNames(rep(TRUE, length(limit_names)), limit_names)
  } else {
    counts[limit_names] > 0
  }
  c(acted[c("max_directions", "direction_ratio")], onehot_max_levels = onehot,
    acted[c("bootstrap_max_rows", "exact_split_max_rows")])
}

#' @noRd
projection_label <- function(projection) {
  switch(projection %||% "cca",
    cca = "canonical correlations",
    rotation = "random rotation",
    pca = "principal components",
    axis = "axis-aligned"
  )
}

#' @noRd
format_oob_error <- function(x) {
  if (oob_skipped(x$options)) {
    return("not computed (oob_error = FALSE)")
  }
  if (is.null(x$oob_error)) {
    return(NA_character_)
  }
  task_record(x$task)$format_oob(x)
}

#' print()'s words for a classifier's task: its classes (per output)
#' @noRd
classification_task_label <- function(response) {
  classes <- vapply(response$levels, length, integer(1))
  if (response$n_output == 1L) {
    sprintf("classification, %d classes", classes)
  } else {
    sprintf("multi-output classification, %d outputs (%s classes)", response$n_output,
            paste(classes, collapse = ", "))
  }
}

#' @noRd
five_numbers <- function(x) {
  q <- stats::quantile(x, c(0, 0.5, 1), names = FALSE)
  sprintf("min %g, median %g, mean %.1f, max %g", q[[1L]], q[[2L]], mean(x), q[[3L]])
}

#' @noRd
format_seconds <- function(seconds) {
  if (seconds < 1) sprintf("%.0f ms", 1000 * seconds) else sprintf("%.2f s", seconds)
}
