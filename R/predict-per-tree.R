# Each tree's own prediction, and the leaf each row reaches, in the shapes
# ranger gives them (predict.all = TRUE, type = "terminalNodes").

#' Each tree's leaf values for the rows of an encoded matrix: an array rows x
#' values x trees (standardised outputs for regression)
#' @noRd
per_tree_raw <- function(object, matrix_x, n_tree, n_thread, impute_random) {
  core_call(object, ccf_predict_trees_cpp(
    predict_request(object, n_tree, n_thread, impute_random), matrix_x, nodes = FALSE
  ))
}

#' Refuse results that would not fit in memory, saying how large they are
#' and what to do
#' @noRd
check_result_memory <- function(bytes, what, n_row, n_tree) {
  limit <- memory_limit()
  if (bytes > limit) {
    stop(sprintf(paste0(
      "%s for %s rows and %s trees take %s, but only %s is available. Predict fewer rows at ",
      "a time (a piece of `new_data`), or use the first trees only (n_tree)."), what,
      format(n_row, big.mark = ","), format(n_tree, big.mark = ","), format_bytes(bytes),
      format_bytes(limit)), call. = FALSE)
  }
}

#' predict(predict_all = TRUE): every tree's prediction
#' @noRd
predict_all_trees <- function(object, matrix_x, type, n_tree, n_thread, impute_random) {
  response <- object$response
  n <- nrow(matrix_x)
  width <- prediction_width(response)
  check_result_memory(8 * n * width * n_tree, "Per-tree predictions", n, n_tree)
  values <- per_tree_raw(object, matrix_x, n_tree, n_thread, impute_random)
  task_record(object$task)$format_per_tree(values, response, type)
}

#' Each tree's values in the outputs' units: a matrix (rows x trees) for one
#' output, an array (rows x outputs x trees) for several
#' @param values The core's per-tree values, rows x outputs x trees.
#' @noRd
values_per_tree <- function(values, response) {
  n <- dim(values)[[1L]]
  n_tree <- dim(values)[[3L]]
  for (m in seq_len(response$n_output)) {
    values[, m, ] <- values[, m, ] * response$scale[[m]] + response$center[[m]]
  }
  if (response$n_output == 1L) {
    dim(values) <- c(n, n_tree)
    return(values)
  }
  dimnames(values) <- list(NULL, response$names, NULL)
  values
}

#' Each tree's class probabilities (`type` "prob": an array rows x classes x
#' trees per output) or classes (level numbers, rows x trees, per output)
#' @param values The core's per-tree values, rows x classes x trees.
#' @noRd
class_per_tree <- function(values, response, type) {
  n <- dim(values)[[1L]]
  n_tree <- dim(values)[[3L]]
  offsets <- c(0L, cumsum(response$n_class))
  per_output <- lapply(seq_len(response$n_output), function(m) {
    block <- values[, offsets[[m]] + seq_len(response$n_class[[m]]), , drop = FALSE]
    levels <- response$levels[[m]]
    if (type == "prob") {
      dimnames(block) <- list(NULL, levels, NULL)
      return(block)
    }
    # Each tree's class: its leaf's most frequent class (the lowest level on
    # ties), as a level number, as ranger's predict.all gives it.
    classes <- matrix(0L, n, n_tree)
    for (t in seq_len(n_tree)) {
      if (n > 0L) classes[, t] <- max.col(matrix(block[, , t], n), ties.method = "first")
    }
    structure(classes, levels = levels)
  })
  names(per_output) <- response$names
  if (response$n_output == 1L) per_output[[1L]] else per_output
}

#' predict(type = "terminal_nodes"): the node each row reaches in each tree
#' @noRd
predict_terminal_nodes <- function(object, matrix_x, n_tree, n_thread, impute_random) {
  n <- nrow(matrix_x)
  check_result_memory(4 * n * n_tree, "Terminal node numbers", n, n_tree)
  core_call(object, ccf_predict_trees_cpp(
    predict_request(object, n_tree, n_thread, impute_random), matrix_x, nodes = TRUE
  ))
}

#' predict() beyond the forest's mean: per-tree predictions, terminal nodes,
#' standard errors and intervals, all of `new_data` at once in this session
#' @noRd
predict_beyond_mean <- function(object, new_data, type, predict_all, whole, na_action, n_tree,
                                n_thread, impute_random, level, interval, calibration,
                                calibration_y) {
  what <- if (predict_all) "predict_all = TRUE" else sprintf("type = \"%s\"", type)
  if (predict_all && !type %in% c("class", "prob", "response")) {
    stop(sprintf(paste0("predict_all = TRUE gives each tree's \"class\", \"prob\" or ",
                        "\"response\", not type = \"%s\"."), type), call. = FALSE)
  }
  if (!whole) {
    stop(sprintf(paste0(
      "%s predicts `new_data` in one piece in this session: give a data.frame or matrix, ",
      "without `chunk_size` or backend = \"future\"."), what), call. = FALSE)
  }
  if (type == "interval") {
    level <- check_level(level)
    interval <- resolve_interval_method(object, interval, calibration)
  } else if (!is.null(calibration) || !is.null(calibration_y) || !is.null(interval)) {
    stop("`calibration`, `calibration_y` and `interval` are for type = \"interval\".",
         call. = FALSE)
  }
  matrix_x <- predictor_matrix(object, new_data, na_action)
  switch(type,
    interval = predict_interval(object, matrix_x, interval, level, calibration, calibration_y,
                                n_tree, n_thread, impute_random),
    se = format_se(predict_se_values(object, matrix_x, n_tree, n_thread, impute_random),
                   object, n_tree),
    terminal_nodes = predict_terminal_nodes(object, matrix_x, n_tree, n_thread, impute_random),
    predict_all_trees(object, matrix_x, type, n_tree, n_thread, impute_random)
  )
}
