# Predictions of survival forests (predict(type = "survival", "chf", "cif",
# "risk", "time")): the core averages the trees' Nelson-Aalen increments for
# each row and turns them into curves at the requested times (see
# src/core/SurvivalPredictor.h).

#' What the core computes per row: curves at `times`, and which outputs
#' @noRd
survival_request <- function(survival, times = numeric(0), outputs, horizon = NULL) {
  list(time_count = findInterval(times, survival$event_times),
       event_time = as.double(survival$event_times),
       horizon = as.double(horizon %||% 0), outputs = outputs)
}

#' The times of a survival prediction: finite numbers >= 0, in any order
#' @noRd
check_times <- function(times, survival, arg = "times") {
  if (is.null(times)) {
    return(survival$event_times)
  }
  if (!is_plain_number(times) || !is.null(dim(times)) || length(times) == 0L) {
    stop(sprintf("`%s` must be a numeric vector of times >= 0, not %s.", arg,
                 describe_value(times, type_ok = FALSE)), call. = FALSE)
  }
  bad <- which(is.na(times) | !is.finite(times) | times < 0)
  if (length(bad) > 0L) {
    stop(sprintf("`%s` must be finite times >= 0, but element %d is %s.", arg, bad[[1L]],
                 format_value(times[[bad[[1L]]]])), call. = FALSE)
  }
  as.double(times)
}

#' The horizon of restricted mean survival times: a time > 0, by default the
#' last event time of the training data
#' @noRd
check_horizon <- function(horizon, survival) {
  if (is.null(horizon)) {
    return(max(survival$event_times))
  }
  if (!is_plain_number(horizon) || length(horizon) != 1L || is.na(horizon) ||
      !is.finite(horizon) || horizon <= 0) {
    stop(sprintf("`horizon` must be one finite time > 0, not %s.",
                 describe_value(horizon, is_plain_number(horizon) && length(horizon) == 1L)),
         call. = FALSE)
  }
  as.double(horizon)
}

#' predict() for a survival forest
#' @noRd
predict_survival_forest <- function(object, new_data, type, times, horizon, n_tree, n_thread,
                                    na_action, backend, chunk_size, predict_all,
                                    beyond_mean = list()) {
  survival <- object$response$survival
  type <- type %||% "risk"
  others <- c("class", "prob", "response", "quantiles", "interval", "se")
  if (identical(type, "mortality")) {
    stop("type = \"mortality\" is randomForestSRC's; ccforest calls the same number ",
         "type = \"risk\".", call. = FALSE)
  }
  if (is.character(type) && length(type) == 1L && type %in% others) {
    stop(sprintf(paste0("type = \"%s\" is not for survival forests: use \"survival\", ",
                        "\"chf\", \"cif\", \"risk\" or \"time\" (or \"terminal_nodes\")."), type),
         call. = FALSE)
  }
  type <- check_choice(type, "type", c("risk", "survival", "chf", "cif", "time", "terminal_nodes"))
  if (isTRUE(predict_all)) {
    stop("predict_all = TRUE gives each tree's \"class\", \"prob\" or \"response\"; survival ",
         "forests predict curves of the whole forest only.", call. = FALSE)
  }
  given <- names(beyond_mean)[!vapply(beyond_mean, is.null, logical(1))]
  if (length(given) > 0L) {
    stop(sprintf("%s %s for type = \"interval\", not for survival forests.",
                 format_names(given), if (length(given) == 1L) "is" else "are"), call. = FALSE)
  }
  if (!is.null(times) && !type %in% c("survival", "chf", "cif")) {
    stop(sprintf(paste0("`times` is for type = \"survival\", \"chf\" or \"cif\", not \"%s\"",
                        "%s."), type,
                 if (type == "time") " (which integrates the survival curve up to `horizon`)" else ""),
         call. = FALSE)
  }
  if (!is.null(horizon) && type != "time") {
    stop(sprintf("`horizon` is for type = \"time\" (restricted mean survival time), not \"%s\".",
                 type), call. = FALSE)
  }
  n_tree <- if (is.null(n_tree)) n_trees(object) else {
    check_count(n_tree, "n_tree", min = 1L, max = n_trees(object))
  }
  n_thread <- resolve_n_thread(n_thread)
  if (!is.null(na_action)) {
    na_action <- check_choice(na_action, "na_action", c("impute_random", "impute_mean", "fail"))
  }
  backend <- check_backend(backend)
  chunk_size <- check_count(chunk_size, "chunk_size", min = 1L, allow_null = TRUE)
  impute_random <- (na_action %||% "") == "impute_random" || imputes_at_random(object)
  whole <- backend == "threads" && is.null(chunk_size) && !is.function(new_data)
  if (type == "terminal_nodes") {
    if (!whole) {
      stop("type = \"terminal_nodes\" predicts `new_data` in one piece in this session: give ",
           "a data.frame or matrix, without `chunk_size` or backend = \"future\".", call. = FALSE)
    }
    return(predict_terminal_nodes(object, predictor_matrix(object, new_data, na_action), n_tree,
                                  n_thread, impute_random))
  }
  times <- if (type %in% c("survival", "chf", "cif")) check_times(times, survival) else numeric(0)
  horizon <- if (type == "time") check_horizon(horizon, survival)
  output <- switch(type, time = "rmst", risk = "risk", type)
  # Futures get only the trees they use; this session uses the fit's own
  # trees and what it has prepared for them.
  shared <- list(
    request = predict_request(object, n_tree, n_thread, impute_random,
                              for_workers = backend != "threads"),
    asked = survival_request(survival, times, output, horizon)
  )
  values <- if (whole) {
    core_call(object, predict_survival_chunk(
      shared, list(x = predictor_matrix(object, new_data, na_action)), NULL))[[output]]
  } else {
    survival_in_chunks(object, shared, new_data, na_action, backend, chunk_size, output)
  }
  format_survival(values, type, times, survival)
}

#' On a worker (or here): survival predictions for one chunk of encoded rows
#' @noRd
predict_survival_chunk <- function(shared, task, progress) {
  ccf_predict_survival_cpp(shared$request, task$x, shared$asked)
}

#' Survival predictions chunk by chunk: in this process, or as futures
#' @noRd
survival_in_chunks <- function(object, shared, new_data, na_action, backend, chunk_size, output) {
  if (is.null(chunk_size) && backend == "future" && !is.function(new_data)) {
    chunk_size <- max(1, ceiling((nrow(new_data) %||% 1L) / plan_workers()))
  }
  next_chunk <- chunk_source(new_data, chunk_size)
  encode <- function(rows) predictor_matrix(object, rows, na_action)
  values <- list()
  keep <- function(j, value) values[[j]] <<- value[[output]]
  collect_conditions(if (backend == "threads") {
    j <- 0L
    while (!is.null(rows <- next_chunk())) {
      j <- j + 1L
      keep(j, core_call(object, predict_survival_chunk(shared, list(x = encode(rows)), NULL)))
    }
  } else {
    next_task <- function() {
      rows <- next_chunk()
      if (is.null(rows)) NULL else list(x = encode(rows))
    }
    core_call(object, run_futures(shared, next_task, predict_survival_chunk, keep,
                                  progress = NULL, label = "ccforest-predict"))
  })
  bind_rows_of(values, output, length(shared$asked$time_count), shared$request$shape$n_cause)
}

#' Chunks' results, rows after rows (arrays along their first dimension)
#' @noRd
bind_rows_of <- function(values, output, n_time, n_cause) {
  if (length(values) == 0L) {
    return(switch(output,
      rmst = numeric(0),
      risk = matrix(0, 0L, n_cause),
      survival = matrix(0, 0L, n_time),
      array(0, c(0L, n_time, n_cause))
    ))
  }
  if (output %in% c("chf", "cif")) {
    rows <- vapply(values, function(v) dim(v)[[1L]], integer(1))
    out <- array(0, c(sum(rows), n_time, n_cause))
    at <- 0L
    for (v in values) {
      out[at + seq_len(dim(v)[[1L]]), , ] <- v
      at <- at + dim(v)[[1L]]
    }
    return(out)
  }
  if (output == "rmst") unlist(values, use.names = FALSE) else do.call(rbind, values)
}

#' The user's shape of survival predictions: the causes' names on the last
#' dimension, the times on the second
#' @noRd
format_survival <- function(values, type, times, survival) {
  causes <- survival$causes
  time_names <- time_labels(times)
  switch(type,
    survival = {
      dimnames(values) <- list(NULL, time_names)
      values
    },
    chf = {
      if (length(causes) == 1L) {
        values <- matrix(values, dim(values)[[1L]], dim(values)[[2L]],
                         dimnames = list(NULL, time_names))
      } else {
        dimnames(values) <- list(NULL, time_names, causes)
      }
      values
    },
    cif = {
      dimnames(values) <- list(NULL, time_names, causes)
      values
    },
    risk = if (length(causes) == 1L) values[, 1L] else {
      dimnames(values) <- list(NULL, causes)
      values
    },
    time = values
  )
}

#' `format(times, trim = TRUE)`, kept for the last times formatted with the
#' same printing options: a served model is asked for the same times on every
#' call, and format() costs a one-row prediction more than the rest of its R
#' code
#' @noRd
time_labels <- function(times) {
  key <- list(times, getOption("digits"), getOption("scipen"), getOption("OutDec"))
  if (!identical(key, time_label_memo$key)) {
    time_label_memo$labels <- format(times, trim = TRUE)
    time_label_memo$key <- key
  }
  time_label_memo$labels
}

#' @noRd
time_label_memo <- new.env(parent = emptyenv())

#' What partial_dependence() predicts with a survival forest: its type, the
#' core's request and the names of the prediction columns
#' @noRd
survival_pd_spec <- function(object, type, times) {
  survival <- object$response$survival
  type <- check_choice(type %||% "risk", "type", c("risk", "survival", "chf", "cif"))
  causes <- survival$causes
  if (type == "risk") {
    if (!is.null(times)) {
      stop("`times` is for type = \"survival\", \"chf\" or \"cif\", not \"risk\".", call. = FALSE)
    }
    labels <- if (length(causes) == 1L) "risk" else paste0("risk.", causes)
    return(list(type = type, output = "risk", times = numeric(0), labels = labels,
                request = survival_request(survival, numeric(0), "risk")))
  }
  if (is.null(times)) {
    stop(sprintf("type = \"%s\" needs `times`: the time(s) at which the curves are averaged.",
                 type), call. = FALSE)
  }
  times <- check_times(times, survival)
  time_names <- format(times, trim = TRUE)
  labels <- if (type == "survival") {
    paste0("survival.", time_names)
  } else if (type == "chf" && length(causes) == 1L) {
    paste0("chf.", time_names)
  } else {
    paste0(type, ".", rep(causes, each = length(times)), ".", time_names)
  }
  list(type = type, output = type, times = times, labels = labels,
       request = survival_request(survival, times, type))
}

#' Survival predictions as a rows x columns matrix (columns as the spec's labels)
#' @noRd
survival_pd_predict <- function(object, matrix_x, spec, n_tree, n_thread) {
  values <- core_call(object, ccf_predict_survival_cpp(
    predict_request(object, n_tree, n_thread), matrix_x, spec$request))[[spec$output]]
  matrix(values, nrow(matrix_x))
}

#' @section Survival forests:
#' A survival forest predicts, for each row:
#' * `"risk"` (default): the ensemble cumulative hazard summed over the
#'   training data's distinct event times (randomForestSRC's "mortality"),
#'   larger for higher risk, the natural input to a C-index; for competing
#'   risks, a matrix with one column per cause, each cause's cumulative
#'   incidence summed over the event times.
#' * `"survival"`: a rows x `times` matrix of survival probabilities, the
#'   mean of the trees' Kaplan-Meier estimates (in their leaves), so
#'   non-increasing in time and in \[0, 1\]; with competing risks, the
#'   probability of no event of any cause.
#' * `"chf"`: the cumulative hazards, the mean of the trees' Nelson-Aalen
#'   estimates (a rows x `times` matrix; for competing risks an array rows x
#'   `times` x causes of the cause-specific ones).
#' * `"cif"`: cumulative incidence functions, an array rows x `times` x
#'   causes (named by the causes' levels), the mean of the trees'
#'   Aalen-Johansen estimates: each non-decreasing, their sum over causes
#'   one minus `"survival"`, so at most 1.
#' * `"time"`: the restricted mean survival time, the area under the
#'   survival curve from 0 to `horizon`.
#'
#' randomForestSRC averages the same way (Nelson-Aalen for the cumulative
#' hazard, Kaplan-Meier for survival); ranger takes exp(-chf). Averaging the
#' curves gave better Brier scores than the product-integral or the
#' exponential of the averaged hazards
#' ([`bench/results/survival-design.md`](https://github.com/ccforest/ccforest/blob/main/bench/results/survival-design.md)),
#' and a forest whose trees are single leaves on every row gives exactly the
#' Kaplan-Meier, Nelson-Aalen and Aalen-Johansen estimates of the data.
#' The curves are step functions that jump at the training event times:
#' `times` may be in any order and repeated (columns follow them); before
#' the first event time the survival is 1, and after the last training
#' event time the curves stay at their last value (the data say nothing
#' beyond). A row's prediction does not depend on the rows predicted with it:
#' `chunk_size`, `backend = "future"` and readers of pieces work as for the
#' other tasks.
#' @rdname predict.ccforest
#' @name predict.ccforest
NULL
