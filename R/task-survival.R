# Survival forests: a right-censored outcome, `Surv(time, status)`, or
# competing risks, `Surv(time, event)` with `event` a factor whose first level
# is censoring (survival's own convention). The core sees each row's time as
# its rank among the data's distinct event times and its event as 0
# (censored) or a cause 1..K (see SurvivalOutcome in src/core/Data.h); the
# event times themselves are kept once, in the fitted object's response, for
# prediction.

#' The CCA's response at a node: martingale residuals per cause over this
#' many periods of the node's event times (see martingale_residuals() in
#' src/core/SurvivalNode.h): three for one cause, which let the canonical
#' directions tell early from late risk, and one for competing risks, whose
#' causes give a column each already (bench/results/survival-design.md).
#' `ccforest.survival_intervals` overrides it, for measurements.
#' @noRd
survival_intervals <- function(n_cause) {
  check_count(getOption("ccforest.survival_intervals", if (n_cause == 1L) 3L else 1L),
              "options(ccforest.survival_intervals)", min = 1L)
}

#' Whether `y` is a survival outcome: a Surv object, or a data.frame holding
#' one (the formula interface wraps its outcome in one)
#' @noRd
is_survival_outcome <- function(y) {
  inherits(y, "Surv") || (is.data.frame(y) && any(vapply(y, inherits, logical(1), "Surv")))
}

#' Check a survival outcome
#'
#' @param y A Surv object (or a one-column data.frame holding one).
#' @param arg Name of `y` in messages.
#' @param name Name of the outcome (the formula's left-hand side).
#' @return A "ccforest_response" with task "survival": `names`, `n`,
#'   `n_output` (1), `time`, `status` (0 censored, else the cause 1..K) and
#'   `causes`; standardise_survival_response() adds the rest.
#' @noRd
parse_survival_response <- function(y, arg = "y", name = NULL) {
  if (is.data.frame(y)) {
    if (ncol(y) != 1L) {
      stop(sprintf(paste0("`%s` holds a survival outcome (Surv) beside other outputs; a ",
                          "survival forest has the Surv outcome as its only output."), arg),
           call. = FALSE)
    }
    name <- names(y)[[1L]]
    y <- y[[1L]]
  }
  # The formula interface reads the outcome from `data`: name the outcome
  # itself, not the data.frame it came from.
  label <- if (identical(arg, "data") && !is.null(name)) {
    sprintf("The outcome `%s`", name)
  } else {
    sprintf("`%s`", arg)
  }
  type <- attr(y, "type")
  if (!identical(type, "right") && !identical(type, "mright")) {
    kind <- switch(type %||% "",
      left = "a left-censored", interval = , interval2 = "an interval-censored",
      counting = , mcounting = "a counting-process (start, stop]",
      sprintf("a \"%s\"", type %||% "unknown")
    )
    stop(sprintf(paste0(
      "%s is %s Surv object; survival forests take right-censored times: ",
      "Surv(time, status), or Surv(time, event) with a factor `event` whose first level is ",
      "censoring for competing risks."), label, kind), call. = FALSE)
  }
  n <- nrow(y)
  if (n == 0L) {
    stop(sprintf("%s has length 0; at least one observation is needed.", label), call. = FALSE)
  }
  time <- as.double(y[, "time"])
  status <- as.integer(y[, "status"])
  bad_time <- which(is.na(time))
  if (length(bad_time) > 0L) {
    stop(sprintf(paste0("%s has %d missing time%s (row %s); remove those rows or use ",
                        "na_action = \"omit\"."), label, length(bad_time),
                 if (length(bad_time) == 1L) "" else "s", row_list(bad_time)), call. = FALSE)
  }
  bad_status <- which(is.na(status))
  if (length(bad_status) > 0L) {
    stop(sprintf(paste0(
      "%s has %d missing or invalid status%s (row %s). The status must be 0/1 (censored, ",
      "event), FALSE/TRUE or 1/2 (survival's codes), or for competing risks a factor whose ",
      "first level is censoring; Surv() turns other codes into NA. Remove those rows or use ",
      "na_action = \"omit\"."), label, length(bad_status),
      if (length(bad_status) == 1L) "" else "es", row_list(bad_status)), call. = FALSE)
  }
  bad_time <- which(!is.finite(time) | time < 0)
  if (length(bad_time) > 0L) {
    stop(sprintf("%s has %s time%s (row %s: %s); survival times must be finite and >= 0.",
                 label, if (all(is.finite(time[bad_time]))) "negative" else "negative or infinite",
                 if (length(bad_time) == 1L) "" else "s", row_list(bad_time),
                 format_value(time[[bad_time[[1L]]]])), call. = FALSE)
  }
  causes <- if (identical(type, "mright")) attr(y, "states") else "event"
  structure(list(
    task = "survival",
    names = if (is.null(name)) arg else name,
    n = n,
    n_output = 1L,
    time = time,
    status = status,
    arg = label,
    causes = as.character(causes)
  ), class = "ccforest_response")
}

#' A survival outcome's event times over the rows that count, and what the
#' core and prediction need of them
#'
#' @param response parse_survival_response()'s.
#' @param stat_rows Rows that count (positive weight), or NULL for all.
#' @return The response with `time_rank` (each row's time as its rank among
#'   the event times, 0-based), `values` (the whole data's martingale
#'   residuals, one column per cause: what a factor with many levels is
#'   valued by, see level_scores()) and `survival`, what prediction needs:
#'   `event_times` (the distinct event times, increasing), `causes` (the
#'   causes' names; "event" for one), `n_cause` and `max_time` (the largest
#'   observed time).
#' @noRd
standardise_survival_response <- function(response, stat_rows = NULL) {
  time <- response$time
  status <- response$status
  causes <- response$causes
  arg <- response$arg
  counted <- if (is.null(stat_rows)) rep(TRUE, response$n) else stat_rows
  n_event <- sum(status[counted] > 0L)
  if (n_event < 2L) {
    stop(sprintf(paste0(
      "%s has %s: a survival forest needs at least two events to learn from%s."), arg,
      if (n_event == 0L) "no events (every time is censored)" else "only one event",
      if (is.null(stat_rows)) "" else " among the rows of positive weight"), call. = FALSE)
  }
  event_times <- sort(unique(time[counted & status > 0L]))
  if (as.double(length(event_times)) * (length(causes) + 1) > .Machine$integer.max) {
    stop(sprintf("%s has too many distinct event times (%d) for a survival forest.", arg,
                 length(event_times)), call. = FALSE)
  }
  response$arg <- NULL
  response$causes <- NULL
  response$time_rank <- findInterval(time, event_times) - 1L
  response$survival <- list(event_times = event_times, causes = causes,
                            n_cause = length(causes), max_time = max(time[counted]))
  response$values <- ccf_martingale_residuals_cpp(response$time_rank, response$status,
                                                  numeric(0), length(causes), 1L)
  response
}

#' Row numbers for a message: the first few
#' @noRd
row_list <- function(rows) {
  shown <- paste(utils::head(rows, 5L), collapse = ", ")
  if (length(rows) > 5L) paste0(shown, ", ...") else shown
}

#' What the core reads of a survival outcome (the training set's `survival`)
#' @noRd
survival_training <- function(response,
                              intervals = survival_intervals(response$survival$n_cause)) {
  list(time_rank = as.integer(response$time_rank), event = as.integer(response$status),
       n_time = length(response$survival$event_times), n_cause = response$survival$n_cause,
       intervals = as.integer(intervals))
}

#' The survival part of a model's shape (see ModelShape in src/core/Model.h)
#' @noRd
survival_shape <- function(survival) {
  list(n_time = length(survival$event_times), n_cause = as.integer(survival$n_cause))
}

#' Split rules of survival forests: the log-rank test
#' @noRd
check_survival_split_rule <- function(split_rule) {
  if (is.null(split_rule) || identical(split_rule, "logrank")) {
    return("logrank")
  }
  stop(sprintf(paste0("split_rule = %s is not for survival outcomes; survival forests split ",
                      "by the log-rank test, split_rule = \"logrank\" (the default)."),
               describe_value(split_rule, is.character(split_rule) && length(split_rule) == 1L)),
       call. = FALSE)
}

#' The options of a survival fit beyond the common ones: the least events in
#' a child (checked by check_min_events()), the log-rank statistic a split
#' must reach (check_min_statistic()) and the periods of the CCA's response
#' @noRd
survival_options <- function(options, response, min_events, min_statistic) {
  options$min_events <- min_events
  options$min_statistic <- min_statistic
  options$survival_intervals <- survival_intervals(response$survival$n_cause)
  options
}

#' The default of `min_events`: for one cause, each child of a split holds
#' at least ceiling(sqrt(E)) rows with an event, E the training rows with an
#' event (of positive weight), so trees grow fewer, better-filled leaves
#' where events are few: with the log-rank stopping rule
#' (default_min_statistic()) it raised the held-out IPA on the small
#' weak-signal sets and on 8 of the 10 development sets, and levelled pbc
#' (bench/results/survival-defaults.md, rounds 8, 9 and 11; held out:
#' fourth session). 1 (leaves bounded by min_leaf in rows only, as 0.3.0)
#' for competing risks (not measured) and for the paper's variant.
#' @noRd
default_min_events <- function(response, variant, weights = NULL) {
  if (response$survival$n_cause != 1L || identical(variant, "paper")) return(1L)
  counted <- if (is.null(weights)) TRUE else weights > 0
  as.integer(max(1, ceiling(sqrt(sum(response$status[counted] > 0L)))))
}

#' The default of `min_statistic`: the log-rank test's 5% critical value
#' (chi-squared, one degree of freedom) for one cause, as aorsf's
#' split_min_stat. On small, weak-signal data growing every tree to its
#' smallest leaves overfitted (a held-out IPA below the Kaplan-Meier
#' curve's); the test stops there and seldom binds on larger sets
#' (bench/results/survival-defaults.md, round 8). 0 for competing risks (not
#' measured: their statistic sums one per cause) and for the paper's
#' variant.
#' @noRd
default_min_statistic <- function(n_cause, variant) {
  if (n_cause == 1L && !identical(variant, "paper")) stats::qchisq(0.95, 1) else 0
}

#' The first inconsistency of a survival forest's stored outcome, or NULL
#' @noRd
survival_problem <- function(response) {
  s <- response$survival
  if (!is.list(s)) {
    return("its survival outcome is missing")
  }
  times <- s$event_times
  if (!is.double(times) || length(times) < 1L || anyNA(times) || !all(is.finite(times)) ||
      any(times < 0) || is.unsorted(times, strictly = TRUE) ||
      !is.character(s$causes) || length(s$causes) < 1L || anyNA(s$causes) ||
      !identical(as.integer(s$n_cause), length(s$causes)) ||
      !is.numeric(s$max_time) || length(s$max_time) != 1L || !is.finite(s$max_time)) {
    return("its survival outcome is inconsistent")
  }
  NULL
}

#' tree_info() of a survival forest: each leaf's Nelson-Aalen estimator as
#' list columns `time` (its event times), `at_risk` (rows at risk there) and
#' `events` (a matrix: those times x causes)
#' @noRd
survival_tree_info <- function(out, table, survival) {
  k <- length(survival$causes)
  empty_events <- matrix(numeric(0), 0L, k, dimnames = list(NULL, survival$causes))
  leaves <- lapply(seq_along(table$node), function(j) {
    if (!table$terminal[[j]]) {
      return(list(time = numeric(0), at_risk = numeric(0), events = empty_events))
    }
    index <- table$value_index[[j]]
    value <- table$values[[j]]
    time <- index %/% (k + 1L)
    part <- index %% (k + 1L)
    heads <- which(part == 0L)
    events <- matrix(0, length(heads), k, dimnames = list(NULL, survival$causes))
    jump <- cumsum(part == 0L)
    for (e in which(part > 0L)) events[jump[[e]], part[[e]]] <- value[[e]]
    list(time = survival$event_times[time[heads] + 1L], at_risk = value[heads], events = events)
  })
  out$time <- lapply(leaves, `[[`, "time")
  out$at_risk <- lapply(leaves, `[[`, "at_risk")
  out$events <- lapply(leaves, `[[`, "events")
  out
}

#' The task as print() names it
#' @noRd
survival_task_label <- function(survival) {
  if (survival$n_cause == 1L) {
    return(sprintf("survival (right-censored), %d event times", length(survival$event_times)))
  }
  sprintf("survival with competing risks (%s), %d event times",
          paste(survival$causes, collapse = ", "), length(survival$event_times))
}

#' The out-of-bag estimates as print() shows them
#' @noRd
format_survival_oob <- function(x) {
  c_index <- x$oob_c_index
  if (is.null(c_index)) {
    return(NA_character_)
  }
  null <- if (length(c_index) == 1L) "Kaplan-Meier" else "Aalen-Johansen"
  per_cause <- function(v, digits) {
    text <- ifelse(is.na(v), "NA", formatC(v, format = "f", digits = digits))
    if (length(v) == 1L) text else paste(sprintf("%s %s", names(v), text), collapse = ", ")
  }
  # An undefined C is said to be, so that an error averaged over fewer
  # causes (or none) is not taken for the whole.
  undefined <- names(c_index)[is.na(c_index)]
  note <- if (length(undefined) == 0L) {
    ""
  } else if (length(c_index) == 1L) {
    " (C undefined: no two out-of-bag rows with comparable times)"
  } else {
    sprintf(" (C undefined for %s: no out-of-bag events to compare; the error averages the %s)",
            format_names(undefined),
            if (length(undefined) == length(c_index)) "causes that have one, none here" else
              "other causes")
  }
  sprintf("C-index %s; integrated Brier score %s (%s: %s)%s",
          per_cause(c_index, 3L), per_cause(x$oob_ibs, 4L), null, per_cause(x$oob_ibs_null, 4L),
          note)
}

#' The rows a fit learns from: those of positive weight
#' @noRd
rows_counted <- function(matrix_x, weights) {
  if (is.null(weights)) nrow(matrix_x) else sum(weights > 0)
}

#' @section Survival forests:
#' A survival outcome, `survival::Surv(time, status)` with `status` 0/1
#' (censored, event), `FALSE`/`TRUE` or 1/2 as survival codes it, grows a
#' survival forest of right-censored times: `ccforest(Surv(time, status) ~
#' ., data)` or `ccforest(x, y = Surv(time, status))`. Competing risks take
#' survival's multi-state form, `Surv(time, event)` with `event` a factor
#' whose first level is censoring and whose other levels are the causes. Other
#' kinds of censoring (left, interval, counting-process start and stop
#' times) are refused; times must be finite and >= 0, and at least two rows
#' need an event.
#'
#' At each node, the canonical correlation analysis is fitted between the
#' sampled features and the node's martingale residuals: each row's events
#' minus the node's Nelson-Aalen cumulative hazard at its time (the residuals
#' of a Cox model at beta = 0, so that X'M is its score), one column per
#' period for three periods of the node's event times holding about equal
#' numbers of events, so that the canonical directions can tell early from
#' late risk (for competing risks, one column per cause instead). Each
#' direction is then cut where the log-rank statistic of the two children is
#' largest (survival::survdiff's, with ties; for competing risks the sum of
#' the causes' log-rank statistics), over all cuts that leave `min_leaf` rows
#' and `min_events` rows with an event on each side. Each leaf keeps its Nelson-Aalen counts (the
#' rows at risk and the events of each cause at its event times), a few
#' bytes per event time; the data's event times are kept once, in the
#' fitted object.
#'
#' The defaults differ from the other tasks', as measured against aorsf on
#' the data of
#' [`bench/results/survival-design.md`](https://github.com/ccforest/ccforest/blob/main/bench/results/survival-design.md):
#' `sampling = "auto"` bags the trees (as accurate as projection
#' bootstrapping or more, and it gives out-of-bag estimates), and leaves hold
#' at least the square root of the rows (at least 5; `min_split` twice
#' that), which predicted survival curves better than leaves of 3 to 30 rows
#' or leaves of a fixed number of events. With one cause, each child of a
#' split also holds at least the square root of the training events in
#' event rows (`min_events`), and a node whose best split's log-rank
#' statistic is below the test's 5% critical value is a leaf
#' (`min_statistic`): both keep trees from growing noise where events are
#' few
#' ([`bench/results/survival-defaults.md`](https://github.com/ccforest/ccforest/blob/main/bench/results/survival-defaults.md)). Out-of-bag risk (`predictions`), survival
#' curves at 50 times from the 10th to the 75th percentile of the observed
#' times (`oob_survival`), Harrell's C-index (`oob_c_index`, per cause) and
#' the integrated Brier score (`oob_ibs`; inverse probability of censoring
#' weighted, over the same times, next to the Kaplan-Meier or
#' Aalen-Johansen estimate's, `oob_ibs_null`) are stored in the fit and
#' shown by `print()` (unless `oob_error = FALSE`, which skips them and about
#' a tenth of the fit's time); `oob_error` is 1 - C, averaged over causes. C depends
#' only on the order of the times (it is the same in any unit); a cause with
#' no out-of-bag event has no C (`NA`, which `print()` says), and the error
#' averages the causes that have one. `importance = "permutation"` or
#' `"negation"` measure the decrease in the out-of-bag C-index (over the
#' causes that have one; `NA`, with a warning, when none has). See [predict.ccforest()] for the
#' predictions, and `vignette("survival", package = "ccforest")`.
#'
#' Comparisons with aorsf and ranger (C-index, index of prediction
#' accuracy, times and model size on five data sets of the survival package,
#' and competing risks on mgus2) are in
#' [`bench/results/survival.md`](https://github.com/ccforest/ccforest/blob/main/bench/results/survival.md).
#' @rdname ccforest
#' @name ccforest
NULL

#' Why a survival forest has no out-of-bag error curve
#' @noRd
survival_no_error_curve <- function(x) {
  sprintf(paste0(
    "which survival forests do not keep: their out-of-bag error, 1 - Harrell's C%s, is a ",
    "ranking of the whole forest's risks, not a sum of each tree's errors."),
    if (is.numeric(x$oob_error) && !is.na(x$oob_error)) {
      sprintf(" (%s here)", formatC(x$oob_error, format = "f", digits = 3L))
    } else {
      ""
    })
}
