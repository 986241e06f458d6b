# The forest inside a fitted object, and the calls that grow and read it.
#
# fit$forest is plain data:
#   format      3L: the stored tree format (see src/core/TreeCodec.h); 2L
#               for forests grown by ccforest 0.2.0, still read
#   trees       a list with one raw vector per tree, in tree order
#   first_tree  the global number of trees[[1]] (1 unless the forest is a
#               range of a larger one, see `first_tree` in ccforest())
#   importance  per original feature, the projection importance summed over
#               the trees: the exact sum, rounded once (see importance())
#   exact_remainder  the rest of each exact sum (a feature x k matrix, k >= 0,
#               see exact_row_sums()), so that forests grown as ranges and
#               combined (combine_forests()) have the same importance as one
#               forest grown at once
#   limits      how often each limit ccforest adds to the paper acted while
#               the trees grew (max_directions, direction_ratio,
#               bootstrap_max_rows, exact_split_max_rows; see LimitCounts in
#               src/core/Options.h), counted by the core, so that print()
#               says which of them changed the fit; absent before 0.4.0
#   data_hash   a fingerprint of the training data as the core saw it, so
#               that only ranges grown from the same data are combined
#   weights_hash  a fingerprint of the row weights (case and class weights;
#               in data_hash before 0.3.0), so that ranges grown with
#               other weights are refused as such
# Every reader of the trees goes through the core, which checks each tree
# against the model's shape before using it.

#' What the core needs to grow trees on: the encoded features and outputs
#' @noRd
training_set <- function(matrix_x, blueprint, response, weights = NULL) {
  record <- task_record(response$task)
  positive <- weights[weights > 0]
  c(
    list(
      x = matrix_x,
      weights = weights %||% numeric(0),
      uniform_weights = length(positive) > 0L && all(positive == positive[[1L]]),
      feature_start = as.integer(blueprint$feature_start),
      # The core drops one redundant indicator of a one-hot factor per node; a
      # factor valued on several axes has no redundant column.
      indicators = as.integer(blueprint$feature_type == "factor")
    ),
    record$training_outputs(response, nrow(matrix_x)),
    list(shape = record$model_shape(ncol(matrix_x), response))
  )
}

#' A fit's axis_candidates as a mode; fits made before the modes stored a flag,
#' and earlier ones nothing
#' @noRd
axis_mode <- function(axis_candidates) {
  check_axis_candidates(axis_candidates %||% "none")
}

#' Where a forest's stored trees came from, as the core reads it: enough to
#' redraw what was not stored (the trees' samples, imputations)
#' @param first_tree The 1-based number of the first stored tree.
#' @param sample The rows each tree was grown on (row_sample()).
#' @noRd
forest_source <- function(seed, first_tree, sample, impute_random) {
  list(seed = seed, first_tree = first_tree - 1, sample = sample, impute_random = impute_random)
}

#' Grow trees first_tree, ..., first_tree + n_tree - 1 (0-based global numbers)
#' @return list(trees = list of raw vectors, importance = feature x tree matrix)
#' @noRd
grow_trees <- function(training, core, first_tree, n_tree, n_thread, verbose,
                       limit = memory_limit()) {
  # Every tree takes at least a few dozen bytes in R and a few in the core
  # (see ccf_grow_cpp()): refuse absurd forests before allocating anything
  # for them.
  floor_bytes <- 128 * n_tree
  if (floor_bytes > limit) {
    stop(sprintf(paste0(
      "n_tree = %s would need at least %s of memory, but only %s is available. ",
      "Reduce `n_tree`."), format(n_tree, big.mark = ","), format_bytes(floor_bytes),
      format_bytes(limit)), call. = FALSE)
  }
  with_memory_advice(
    ccf_grow_cpp(training, core, first_tree, n_tree, n_thread, progress_style(verbose), limit),
    doing = sprintf("grow this forest of %s trees", format(n_tree, big.mark = ",")),
    advice = "Reduce `n_tree`, or grow smaller trees with a larger `min_leaf` or a `max_depth`."
  )
}

#' How a fit shows its progress, as the core's ProgressStyle: 0 not at all,
#' 1 a line every few seconds with the time left (output that is not a
#' terminal: a log file, knitr, an RStudio job), 2 one line rewritten in
#' place (a terminal, or RStudio's console). `options(ccforest.progress =
#' "lines")` or `"bar"` chooses.
#' @noRd
progress_style <- function(verbose) {
  if (!isTRUE(verbose)) {
    return(0L)
  }
  chosen <- getOption("ccforest.progress")
  if (!is.null(chosen)) {
    if (!identical(chosen, "lines") && !identical(chosen, "bar")) {
      stop(sprintf("options(ccforest.progress) must be \"lines\" or \"bar\" (or NULL), not %s.",
                   describe_value(chosen, is.character(chosen))), call. = FALSE)
    }
    return(if (chosen == "bar") 2L else 1L)
  }
  knitting <- isTRUE(getOption("knitr.in.progress"))
  terminal <- isatty(stdout()) || (interactive() && identical(Sys.getenv("RSTUDIO"), "1"))
  if (!knitting && sink.number() == 0L && terminal) 2L else 1L
}

#' @param training The training_set() the trees were grown from.
#' @noRd
new_forest <- function(grown, first_tree, training) {
  importance <- exact_row_sums(grown$importance)
  list(
    format = 3L,
    trees = grown$trees,
    first_tree = as.integer(first_tree),
    importance = importance$sum,
    exact_remainder = importance$tail,
    limits = limit_counts(grown$limits),
    data_hash = training_fingerprint(training),
    weights_hash = ccf_fingerprint_cpp(unname(training[c("weights", "uniform_weights")]))
  )
}

#' The limits the core counted (a column per range of trees grown apart),
#' summed and named
#' @noRd
limit_counts <- function(counts) {
  stats::setNames(rowSums(counts), limit_names)
}

#' The limits beyond the paper the core counts, in its order (LimitCounts)
#' @noRd
limit_names <- c("max_directions", "direction_ratio", "bootstrap_max_rows",
                 "exact_split_max_rows")

#' The exact sum of each row of a matrix: `sum`, rounded once to the nearest
#' double, and `tail`, the rest of its canonical expansion (zero padded
#' columns; see src/core/ExactSum.h). Both depend only on the exact sums, not
#' on the order or grouping of the columns, so sums of ranges of trees add up
#' to the same doubles as one sum over all of them.
#' @noRd
exact_row_sums <- function(m) {
  storage.mode(m) <- "double"
  ccf_exact_row_sums_cpp(m)
}

#' A fingerprint of the training data as the core sees it (every element of
#' the training set but its shape and the weights, which have their own)
#' @noRd
training_fingerprint <- function(training) {
  if (isS4(training$x)) {
    # Sparse features, by their slots: the fingerprint reads plain vectors.
    x <- training$x
    training$x <- list(x@Dim, x@p, x@i, x@x)
  }
  ccf_fingerprint_cpp(unname(training[setdiff(names(training),
                                              c("shape", "weights", "uniform_weights"))]))
}

#' The shape every stored tree must fit: columns after encoding, and classes
#' or outputs
#' @noRd
model_shape <- function(object) {
  # .subset2(), not `$`: every prediction builds the shape, and `$` on the
  # classed fit looks for a method first.
  task_record(.subset2(object, "task"))$model_shape(
    length(.subset2(.subset2(object, "blueprint"), "column_names")),
    .subset2(object, "response"))
}

#' @noRd
n_trees <- function(object) length(object$forest$trees)

#' Number of leaves and depth of every tree, each tree checked on the way
#' @noRd
tree_sizes <- function(object) {
  core_call(object, ccf_tree_sizes_cpp(object$forest$trees, model_shape(object)))
}

#' Run a core call that reads stored trees; a damaged tree is reported
#' against the object, with what to do
#' @noRd
core_call <- function(object, expr, arg = "object") {
  # A calling handler, not tryCatch(): any other error goes on as it was, and
  # a served call does not pay for tryCatch()'s three closures, each a few
  # cache misses when gc() has just run.
  withCallingHandlers(expr, error = function(e) {
    message <- conditionMessage(e)
    if (startsWith(message, "the forest is damaged: ")) {
      stop(sprintf("`%s` is damaged: %s. Refit the forest.", arg,
                   sub("^the forest is damaged: ", "", message)), call. = FALSE)
    }
  })
}

#' The first problem with the forest's structure, or NULL
#' @noRd
forest_problem <- function(forest, n_feature) {
  if (!is.list(forest)) {
    return("its `forest` is not a list")
  }
  if (is.null(forest$format) && !is.null(forest$node_start)) {
    return(NULL)  # the 0.1.0 format, reported by check_ccforest()
  }
  if (!(identical(forest$format, 2L) || identical(forest$format, 3L))) {
    return("its forest has an unknown format")
  }
  trees <- forest$trees
  if (!is.list(trees) || length(trees) < 1L) {
    return("its forest has no trees")
  }
  if (!all(vapply(trees, is.raw, logical(1)))) {
    return("its trees are not raw vectors")
  }
  first <- forest$first_tree
  if (!is.integer(first) || length(first) != 1L || is.na(first) || first < 1L ||
      first > .Machine$integer.max - length(trees) + 1) {
    return("its first tree number is invalid")
  }
  importance <- forest$importance
  if (!is.numeric(importance) || length(importance) != n_feature || !all(is.finite(importance))) {
    return("its stored importance does not match its features")
  }
  tail <- forest[["exact_remainder"]]
  if (!is.null(tail) && (!is.double(tail) || !is.matrix(tail) || nrow(tail) != n_feature ||
                         !all(is.finite(tail)))) {
    return("its stored importance does not match its features")
  }
  limits <- forest[["limits"]]
  if (!is.null(limits) && (!is.double(limits) || !identical(names(limits), limit_names) ||
                           !all(is.finite(limits)) || any(limits < 0) ||
                           any(limits != round(limits)))) {
    return("its counts of the limits that acted are unreadable")
  }
  for (field in c("data_hash", "weights_hash")) {
    hash <- forest[[field]]
    if (!is.null(hash) && (!is.character(hash) || length(hash) != 1L || is.na(hash) ||
                           !grepl("^[0-9a-f]{16}$", hash))) {
      return("its data fingerprint is unreadable")
    }
  }
  NULL
}

#' Inspect one tree of a canonical correlation forest
#'
#' Returns the nodes of one tree as a data.frame, in the spirit of
#' `ranger::treeInfo()`: the split hyperplane of every inner node and the
#' prediction of every leaf. Nodes are numbered from 0 in breadth-first
#' order; rows whose projection is at most `threshold` go to `left`.
#'
#' A split's hyperplane is \eqn{\sum_j w_j z_j \le t}{sum_j w_j z_j <= t} over the z-scored
#' columns \eqn{z_j} of the encoded data (a factor contributes one 0/1
#' column per level, z-scored too); the largest coefficient is 1. Leaves hold
#' class proportions (classification) or output means (regression), on the
#' original scale of the outputs.
#'
#' Thresholds and coefficients are therefore on the z-score scale. Column
#' \eqn{j} (named `object$blueprint$column_names[j]`) is
#' \eqn{z_j = (x_j - c_j) / s_j}{z_j = (x_j - c_j) / s_j}, with \eqn{c_j}
#' and \eqn{s_j} the training mean and standard deviation kept in
#' `object$blueprint$center[j]` and `object$blueprint$scale[j]`, so in the
#' columns' own units the split is
#' \eqn{\sum_j (w_j / s_j) x_j \le t + \sum_j w_j c_j / s_j}{sum_j (w_j / s_j) x_j <= t + sum_j w_j c_j / s_j};
#' a split on one numeric column sends \eqn{x_j \le c_j + s_j t}{x_j <= c_j + s_j t}
#' left (see the example). Dates, date-times and time differences are in
#' days, seconds and their units; a factor's indicator is 1 for its level.
#'
#' @param object A `"ccforest"` fitted by [ccforest()].
#' @param tree Which tree, from 1 to the number of trees.
#' @return A data.frame with one row per node: `node`, `left`, `right`
#'   (child nodes; `NA` for leaves), `terminal`, `threshold`, the list columns
#'   `columns` (names of the encoded columns of the split) and `coefficients`,
#'   and for leaves the prediction: one column per class (`prob.<level>`, for
#'   each output) or per output. A survival forest's leaves hold their
#'   Nelson-Aalen estimator instead, in the list columns `time` (the event
#'   times where it jumps), `at_risk` (the rows at risk there; with case
#'   weights on every row, their weight) and `events` (a matrix of those
#'   times x causes).
#' @examples
#' fit <- ccforest(Species ~ ., data = iris, n_tree = 5, seed = 1)
#' info <- tree_info(fit, 1)
#' head(info)
#'
#' # The root's hyperplane in the features' own units: coefficients of x and
#' # the threshold they are compared with.
#' root <- info[1, ]
#' j <- match(root$columns[[1]], fit$blueprint$column_names)
#' center <- fit$blueprint$center[j]
#' scale <- fit$blueprint$scale[j]
#' w <- root$coefficients[[1]]
#' stats::setNames(w / scale, root$columns[[1]])
#' root$threshold + sum(w * center / scale)
#' @export
tree_info <- function(object, tree = 1L) {
  check_ccforest(object)
  tree <- check_count(tree, "tree", min = 1L, max = n_trees(object))
  table <- core_call(object, ccf_tree_table_cpp(object$forest$trees[[tree]], model_shape(object)))
  column_names <- object$blueprint$column_names
  out <- data.frame(node = table$node, left = table$left, right = table$right,
                    terminal = table$terminal, threshold = table$threshold)
  out$columns <- lapply(table$columns, function(j) column_names[j + 1L])
  out$coefficients <- lapply(table$coefficients, function(w) if (is.null(w)) numeric(0) else w)
  task_record(object$task)$leaf_table(out, table, object$response)
}

#' tree_info()'s nodes with the predictions of their leaves (NA for inner
#' nodes), in the outputs' units, for a task whose leaves hold averaged
#' values
#' @noRd
mean_leaf_table <- function(out, table, response, task) {
  record <- task_record(task)
  n <- length(table$node)
  values <- matrix(NA_real_, n, record$prediction_width(response))
  for (j in which(table$terminal)) {
    values[j, ] <- 0
    values[j, table$value_index[[j]] + 1L] <- table$values[[j]]
  }
  values <- record$to_output_units(values, response)
  colnames(values) <- record$value_labels(response)
  cbind(out, as.data.frame(values, optional = TRUE))
}
