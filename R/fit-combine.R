# Forests grown as ranges of trees (ccforest(first_tree = k)) and joined.
#
# Tree k of a forest depends only on (data, options, seed, k): ranges grown
# apart hold exactly the trees one fit would grow, and joined in tree order
# they are that fit's forest. What cannot be rebuilt without the data are the
# out-of-bag results of bagged forests, which need the training rows.

#' The first tree's number: a whole number such that every tree number of
#' the fit fits in an integer
#' @noRd
check_first_tree <- function(first_tree, n_tree) {
  first_tree <- check_count(first_tree, "first_tree", min = 1L)
  last <- as.double(first_tree) + n_tree - 1
  if (last > .Machine$integer.max) {
    stop(sprintf(paste0(
      "`first_tree` + `n_tree` - 1 (the last tree's number) must be at most %d, ",
      "not %s (first_tree = %d, n_tree = %d)."),
      .Machine$integer.max, format(last, scientific = FALSE), first_tree, n_tree), call. = FALSE)
  }
  first_tree
}

#' Combine forests grown as ranges of trees of one forest
#'
#' Joins forests fitted with [ccforest()] on the same data, with the same
#' options and `seed`, and different `first_tree` (see the section on scaling
#' out in [ccforest()]), into one forest holding their trees in tree order.
#' The trees of `ccforest(..., n_tree = 500)` and of the combination of
#' `first_tree = 1, n_tree = 250` and `first_tree = 251, n_tree = 250` are
#' identical, and so are the predictions and the projection importance (the
#' per-feature sums are kept exactly, so their grouping does not matter).
#'
#' The forests must together cover one range of consecutive trees, without
#' gaps or overlaps, and come from the same version of ccforest. Forests of
#' different data, options or seeds are refused: their trees are not parts
#' of one forest.
#'
#' Out-of-bag predictions, the out-of-bag error and out-of-bag permutation
#' importance of forests grown on samples (`sampling = "bagging"`, or a
#' `sample_fraction` below 1) need the training
#' data, which a forest does not store: the combined forest has none, and a
#' message says so. To have them, grow the whole forest in one call
#' (`backend = "future"` spreads it over workers and computes them after
#' merging), or use [importance()] with held-out data. Ranges that differ
#' only in `oob_error` are ranges of one forest, since it does not change
#' the trees: grow them with `oob_error = FALSE` to skip estimates the
#' combination drops anyway.
#'
#' @param ... Forests (`"ccforest"` objects), or a single list of them.
#' @return A `"ccforest"` with the trees of all of them. `train_time` is the
#'   sum of their training times, and `call` a call that grows the combined
#'   forest at once (the first range's call with `n_tree` and `first_tree`
#'   updated).
#' @seealso [ccforest()] and its `first_tree` argument.
#' @examples
#' whole <- ccforest(Species ~ ., data = iris, n_tree = 20, seed = 7)
#' first <- ccforest(Species ~ ., data = iris, n_tree = 10, seed = 7)
#' second <- ccforest(Species ~ ., data = iris, n_tree = 10, seed = 7, first_tree = 11)
#' both <- combine_forests(first, second)
#' identical(both$forest, whole$forest)
#' identical(predict(both, iris, type = "prob"), predict(whole, iris, type = "prob"))
#' @export
combine_forests <- function(...) {
  forests <- list(...)
  labels <- argument_labels(as.list(substitute(list(...)))[-1L], names(forests))
  if (length(forests) == 1L && is.list(forests[[1L]]) && !inherits(forests[[1L]], "ccforest")) {
    inner <- names(forests[[1L]])
    labels <- ifelse(nzchar(inner %||% rep("", length(forests[[1L]]))),
                     sprintf("%s$%s", labels[[1L]], inner %||% ""),
                     sprintf("%s[[%d]]", labels[[1L]], seq_along(forests[[1L]])))
    forests <- forests[[1L]]
  }
  if (length(forests) == 0L) {
    stop("combine_forests() needs at least one forest.", call. = FALSE)
  }
  for (i in seq_along(forests)) {
    check_ccforest(forests[[i]], arg = labels[[i]])
  }
  first <- vapply(forests, function(f) f$forest$first_tree, integer(1))
  order <- order(first)
  forests <- forests[order]
  labels <- labels[order]
  reference <- forests[[1L]]
  for (i in seq_along(forests)[-1L]) {
    check_same_forest(forests[[i]], labels[[i]], reference, labels[[1L]])
  }
  check_tree_ranges(forests, labels)
  known <- c("format", "trees", "first_tree", "importance", "exact_remainder", "limits",
             "data_hash", "weights_hash")
  unknown <- setdiff(unique(unlist(lapply(forests, function(f) names(f$forest)))), known)
  if (length(unknown) > 0L) {
    stop(sprintf(paste0(
      "The forests hold %s, which combine_forests() does not know how to join; update ccforest, ",
      "or grow the whole forest in one call."), format_names(unknown)), call. = FALSE)
  }

  n_tree <- sum(vapply(forests, n_trees, integer(1)))
  parts <- lapply(forests, function(f) {
    cbind(f$forest$importance, f$forest$exact_remainder)
  })
  importance <- exact_row_sums(do.call(cbind, parts))
  fit <- reference
  fit$forest <- list(
    format = reference$forest$format,
    trees = unlist(lapply(forests, function(f) f$forest$trees), recursive = FALSE,
                   use.names = FALSE),
    first_tree = reference$forest$first_tree,
    importance = importance$sum,
    exact_remainder = importance$tail,
    limits = combined_limits(forests),
    data_hash = reference$forest$data_hash,
    weights_hash = reference$forest$weights_hash
  )
  if (is.null(fit$forest$limits)) fit$forest$limits <- NULL
  if (!is.null(reference$quantile)) {
    # The training outputs are the same for every part (checked); each
    # tree's leaf samples follow their tree.
    fit$quantile$samples <- unlist(lapply(forests, function(f) f$quantile$samples),
                                   recursive = FALSE, use.names = FALSE)
  }
  fit$options$n_tree <- n_tree
  # Said to be skipped only where every range skipped its estimates; a
  # combination has none either way.
  if (!all(vapply(forests, function(f) oob_skipped(f$options), logical(1)))) {
    fit$options$oob_error <- NULL
  }
  fit$train_time <- sum(vapply(forests, function(f) as.double(f$train_time), numeric(1)))
  fit$call <- combined_call(reference$call, n_tree, reference$forest$first_tree)
  if (length(forests) > 1L) {
    out_of_bag <- intersect(c("predictions", "oob_error", "residuals", "oob_prob",
                              "oob_error_curve", survival_oob_fields), names(fit))
    if (length(out_of_bag) > 0L) {
      fit[out_of_bag] <- NULL
      dropped <- "out-of-bag predictions or error"
      if (reference$options$importance %in% c("permutation", "negation")) {
        fit$variable.importance <- NULL
        dropped <- "out-of-bag predictions, error or permutation importance"
      }
      message(sprintf(paste0(
        "The combined forest has no %s: they need the training data. To have them, grow the ",
        "whole forest in one call (backend = \"future\" spreads it over workers)."), dropped))
    }
  }
  if (identical(reference$options$importance, "projection")) {
    fit$variable.importance <- projection_importance(fit)
  }
  seal_ccforest(fit)
}

#' How to call each argument in messages: its name, or the expression the
#' caller wrote (`fit_a`, `fits[[2]]`), or `..i` for values passed by
#' do.call()
#' @noRd
argument_labels <- function(exprs, arg_names) {
  vapply(seq_along(exprs), function(i) {
    if (!is.null(arg_names) && nzchar(arg_names[[i]])) return(arg_names[[i]])
    e <- exprs[[i]]
    if (is.name(e) || is.call(e)) {
      text <- paste(deparse(e, width.cutoff = 60L), collapse = " ")
      return(if (nchar(text) > 40L) paste0(substr(text, 1L, 37L), "...") else text)
    }
    sprintf("..%d", i)
  }, character(1))
}

#' Refuse a forest that is not a range of the same forest as `reference`
#' @noRd
check_same_forest <- function(f, label, reference, reference_label) {
  refuse <- function(what, advice) {
    stop(sprintf("`%s` and `%s` %s, so they are not ranges of one forest%s", label,
                 reference_label, what, advice), call. = FALSE)
  }
  if (!identical(f$version, reference$version)) {
    refuse(sprintf("were fitted with different versions of ccforest (%s and %s)", f$version,
                   reference$version),
           ": grow every range with the same version.")
  }
  # The seed shuffles factors' folds and the weights enter the data's
  # statistics: either would make the data look different, so they come first.
  if (!identical(f$seed, reference$seed)) {
    refuse(sprintf("have different seeds (%s and %s)", format(f$seed, scientific = FALSE),
                   format(reference$seed, scientific = FALSE)),
           ": grow every range with the same `seed`.")
  }
  if (!identical(f$options$class_weights, reference$options$class_weights)) {
    refuse(sprintf("were fitted with different class_weights (%s and %s)",
                   format_value(f$options$class_weights),
                   format_value(reference$options$class_weights)),
           ": grow every range with the same `class_weights`.")
  }
  if (!identical(f$options$case_weights, reference$options$case_weights) ||
      !identical(f$forest$weights_hash, reference$forest$weights_hash)) {
    refuse("were fitted with different case weights",
           ": grow every range with the same `case_weights`, row for row.")
  }
  if (!identical(f$task, reference$task) || !identical(f$response, reference$response)) {
    refuse("have different outputs", ".")
  }
  if (!identical(f$blueprint, reference$blueprint) ||
      !identical(formula_signature(f$formula), formula_signature(reference$formula)) ||
      !identical(f$n_obs, reference$n_obs) ||
      !identical(f$forest$data_hash, reference$forest$data_hash)) {
    refuse("were fitted on different data",
           ": grow every range from the same rows, in the same order.")
  }
  # oob_error changes what a fit computes after its trees, not the trees.
  a <- f$options[setdiff(names(f$options), c("n_tree", "oob_error"))]
  b <- reference$options[setdiff(names(reference$options), c("n_tree", "oob_error"))]
  if (!identical(a, b)) {
    names <- union(names(a), names(b))
    differ <- names[!vapply(names, function(n) identical(a[[n]], b[[n]]), logical(1))]
    shown <- vapply(differ, function(n) {
      sprintf("%s (%s and %s)", n, format_value(a[[n]]), format_value(b[[n]]))
    }, character(1))
    refuse(sprintf("were fitted with different options: %s", paste(shown, collapse = ", ")),
           ": grow every range with the same options.")
  }
  # Anything else a fit records about its data or outputs must agree too.
  own <- c("forest", "options", "train_time", "call", "checksum", "sealed", "cache", "formula",
           "predictions", "oob_error", "residuals", "variable.importance", "version", "task",
           "response", "blueprint", "n_obs", "seed", "quantile", "oob_prob", "oob_error_curve",
           survival_oob_fields)
  if (is.null(f$quantile) != is.null(reference$quantile) ||
      (!is.null(f$quantile) &&
       !identical(f$quantile[c("y", "weights")], reference$quantile[c("y", "weights")]))) {
    refuse("differ in their quantile data (fit all with quantiles = TRUE on the same data)", ".")
  }
  other <- setdiff(union(names(f), names(reference)), own)
  differ <- other[!vapply(other, function(n) identical(f[[n]], reference[[n]]), logical(1))]
  if (length(differ) > 0L) {
    refuse(sprintf("differ in %s", format_names(differ)), ".")
  }
  invisible()
}

#' The formula interface's record without its environment (which differs
#' between sessions even for the same formula)
#' @noRd
formula_signature <- function(terms_info) {
  if (is.null(terms_info)) return(NULL)
  terms_info[setdiff(names(terms_info), "env")]
}

#' Ranges sorted by their first tree must follow one another exactly
#' @noRd
check_tree_ranges <- function(forests, labels) {
  first <- vapply(forests, function(f) as.double(f$forest$first_tree), numeric(1))
  last <- first + vapply(forests, n_trees, integer(1)) - 1
  range_text <- function(i) {
    sprintf("`%s` (trees %s to %s)", labels[[i]], format(first[[i]], scientific = FALSE),
            format(last[[i]], scientific = FALSE))
  }
  for (i in seq_along(forests)[-1L]) {
    if (first[[i]] <= last[[i - 1L]]) {
      stop(sprintf("%s and %s overlap: each tree must come from exactly one forest.",
                   range_text(i - 1L), range_text(i)), call. = FALSE)
    }
    if (first[[i]] > last[[i - 1L]] + 1) {
      gap_first <- last[[i - 1L]] + 1
      gap_n <- first[[i]] - gap_first
      stop(sprintf(paste0(
        "Trees %s to %s are missing between %s and %s: grow them with first_tree = %s, ",
        "n_tree = %s and combine them too."),
        format(gap_first, scientific = FALSE), format(first[[i]] - 1, scientific = FALSE),
        range_text(i - 1L), range_text(i), format(gap_first, scientific = FALSE),
        format(gap_n, scientific = FALSE)), call. = FALSE)
    }
  }
  invisible()
}

#' The call that grows the combined forest at once
#' @noRd
combined_call <- function(call, n_tree, first_tree) {
  if (!is.call(call)) return(call)
  # Numbers keep the type the user wrote (500 or 500L).
  as_written <- function(value, written) if (is.integer(written)) value else as.double(value)
  call$n_tree <- as_written(n_tree, call$n_tree)
  call$first_tree <- if (first_tree == 1L) NULL else as_written(first_tree, call$first_tree)
  call
}

#' The counts of the limits that acted in every part, summed; NULL when a
#' part was grown before the core counted them
#' @noRd
combined_limits <- function(forests) {
  parts <- lapply(forests, function(f) f$forest[["limits"]])
  if (any(vapply(parts, is.null, logical(1)))) {
    return(NULL)
  }
  Reduce(`+`, parts)
}
