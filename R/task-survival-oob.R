# Out-of-bag estimates of survival forests grown on samples: each training
# row's risk and curves from the trees that did not draw it, Harrell's C of
# the risk and the integrated Brier score of the curves, and out-of-bag
# permutation and negation importance by Harrell's C.

#' A survival fit's out-of-bag estimates beside `predictions` and
#' `oob_error` (which combine_forests() drops, as it drops those)
#' @noRd
survival_oob_fields <- c("oob_survival", "oob_c_index", "oob_ibs", "oob_ibs_null")

#' What a survival fit's out-of-bag estimates need besides its trees: each
#' tree's in-bag flags (a byte per row and tree), and the curves at the 50
#' times of the Brier score and the risk, per row and cause, in the core's
#' result and twice in R (incidences and the survival curves kept)
#' @noRd
survival_oob_bytes <- function(n_row, n_tree, n_cause) {
  as.double(n_row) * n_tree + 3 * 8 * as.double(n_row) * 51 * n_cause
}

#' Times of the integrated Brier score: 50 equally spaced from the 10th to
#' the 75th percentile of the observed times
#' @noRd
brier_times <- function(time) {
  # The percentiles as stats::quantile(type = 7) computes them, step for
  # step: its checks and generality took longer than the computation.
  x <- sort(time)
  index <- 1 + max(length(x) - 1, 0) * c(0.10, 0.75)
  lo <- floor(index)
  hi <- ceiling(index)
  q <- x[lo]
  i <- which(index > lo & x[hi] != q)
  h <- (index - lo)[i]
  q[i] <- (1 - h) * q[i] + h * x[hi[i]]
  if (!(q[[2L]] > q[[1L]])) {
    return(q[[1L]])
  }
  seq(q[[1L]], q[[2L]], length.out = 50L)
}

#' The censoring distribution's survival function G by the reverse
#' Kaplan-Meier estimator; at a time shared by events and censorings the
#' events come first (they are no longer at risk of censoring there)
#' @noRd
censoring_survival <- function(time, status) {
  # In C++ (src/survival_curves.cpp): sorting, matching and tabulating here
  # were a few per cent of a small fit.
  ccf_censoring_survival_cpp(as.double(time), as.integer(status))
}

#' The inverse-probability-of-censoring weighted Brier score of predicted
#' cumulative incidences of one cause at each of `times` (Graf et al. 1999;
#' for competing risks, rows with another cause by t are controls), and its
#' integral over the times divided by their range (the integrated Brier
#' score). For one cause, the incidence is 1 - S.
#'
#' @param cif Predicted incidence, rows x times, or one row x times that is
#'   every row's (a null model's).
#' @param cause The cause's code (1..K) in `status`.
#' @noRd
integrated_brier <- function(cif, time, status, cause, times, G) {
  # Rows with an event are weighted 1 / G(T-) once it has happened, rows
  # still at risk 1 / G(t) (the two are never both); NA when G reaches 0 at
  # one of the times. Computed in C++ (src/brier.cpp), each score summed as
  # mean() sums it and the trapezoids as sum() does.
  ccf_integrated_brier_cpp(cif, as.double(time), as.integer(status), as.integer(cause),
                           as.double(times), as.double(G$time), as.double(G$surv))
}

#' Harrell's C of a risk score (larger = earlier events of `cause`); other
#' causes count as never having the event (Wolbers et al. 2009)
#'
#' Only the order of the times matters, so C is computed from comparisons of
#' the times (below 3,000 rows) or of their ranks: the
#' same in days, years or nanoseconds. (survival::concordance()'s default
#' `timefix = TRUE` merges times less than about 1.5e-8 apart, absolutely or
#' relative to their mean, which in small units ties most of them; ranks are
#' integers, and `timefix = FALSE` keeps large ranks apart too.)
#' @return C, or NA when no pair of rows is comparable (no event of the
#'   cause, or every event tied in time with every other row): see
#'   undefined_c_index().
#' @noRd
harrell_c <- function(risk, time, status, cause = 1L) {
  event <- status == cause
  if (!any(event)) {
    return(NA_real_)
  }
  # A row with another cause outlives every row.
  other <- status > 0L & status != cause
  if (length(risk) <= 3000L && !anyNA(risk)) {
    # The pairs counted in C++ (a few milliseconds less per small fit), C
    # as concordance() computes it: Somers' d of the unreversed counts. The
    # counts compare times only by order, so they are the ranks' counts.
    order_time <- as.double(time)
    order_time[other] <- Inf
    counts <- ccf_concordance_counts_cpp(as.double(risk), order_time, event)
    npair <- sum(counts[c(2L, 1L, 3L)])
    if (npair == 0) {
      return(NA_real_)
    }
    return(1 - ((counts[[2L]] - counts[[1L]]) / npair + 1) / 2)
  }
  distinct <- sort(unique(time))
  rank <- match(time, distinct)
  rank[other] <- length(distinct) + 1L
  fit <- survival::concordance(survival::Surv(rank, event) ~ risk, reverse = TRUE,
                               timefix = FALSE)
  counts <- fit$count
  if (counts[["concordant"]] + counts[["discordant"]] + counts[["tied.x"]] == 0) {
    return(NA_real_)
  }
  fit$concordance[[1L]]
}

#' Why Harrell's C is undefined for the rows scored, for messages
#' @noRd
undefined_c_index <- function(status, cause) {
  if (!any(status == cause)) "no event of the cause" else "no two rows with comparable times"
}

#' The Aalen-Johansen estimate of the training rows' cumulative incidences
#' (Kaplan-Meier for one cause) at `times`: rows x causes
#' @noRd
null_incidence <- function(time, status, n_cause, times) {
  # In C++ (src/survival_curves.cpp), as censoring_survival().
  ccf_null_incidence_cpp(as.double(time), as.integer(status), as.integer(n_cause),
                         as.double(times))
}

#' Out-of-bag estimates of a survival forest grown on samples
#'
#' @param response The prepared outcome of the training rows.
#' @return `fit` with `predictions` (out-of-bag risk: a vector, or a matrix
#'   of one column per cause), `oob_survival` (list(times, survival or cif)),
#'   `oob_c_index` and `oob_ibs` (per cause), `oob_ibs_null` (the same of
#'   the Kaplan-Meier or Aalen-Johansen estimate of the training rows),
#'   `oob_error` (1 - C, averaged over causes) and, if asked,
#'   `variable.importance`.
#' @noRd
survival_out_of_bag <- function(fit, training, core, n_thread, importance, kept_rows, response,
                                cache) {
  survival <- fit$response$survival
  counted <- if (length(training$weights) > 0L) training$weights > 0 else rep(TRUE, response$n)
  time <- response$time
  status <- response$status
  times <- brier_times(time[counted])
  source <- forest_source(fit$seed, fit$forest$first_tree, core$sample, core$impute_random)
  request <- survival_request(survival, times, c("cif", "risk"))
  oob <- with_memory_advice(
    core_call(fit, ccf_oob_survival_cpp(fit$forest$trees, training, source, n_thread, request,
                                        -1L, FALSE, cache)),
    doing = "compute the out-of-bag predictions",
    advice = "Use sampling = \"projection\", which has none, or fit on fewer rows."
  )
  causes <- survival$causes
  n_cause <- length(causes)
  scored <- counted & oob$count > 0L
  # Usually every row: then the curves are scored where they lie (subsetting
  # the rows of a 3-d array was a third of the scores' cost).
  every <- all(scored)
  c_index <- ibs <- ibs_null <- stats::setNames(rep(NA_real_, n_cause), causes)
  if (sum(scored) >= 2L) {
    G <- censoring_survival(time[counted], status[counted])
    null <- null_incidence(time[counted], status[counted], n_cause, times)
    for (k in seq_len(n_cause)) {
      cif <- cause_curves(oob$cif, k)
      c_index[[k]] <- harrell_c(oob$risk[scored, k], time[scored], status[scored], k)
      ibs[[k]] <- integrated_brier(if (every) cif else cif[scored, , drop = FALSE], time[scored],
                                   status[scored], k, times, G)
      # The null model's one curve is every row's.
      ibs_null[[k]] <- integrated_brier(matrix(null[, k], 1L), time[scored], status[scored], k,
                                        times, G)
    }
  }
  risk <- if (n_cause == 1L) oob$risk[, 1L] else structure(oob$risk, dimnames = list(NULL, causes))
  curves <- if (n_cause == 1L) {
    list(times = times, survival = 1 - cause_curves(oob$cif, 1L))
  } else {
    list(times = times, cif = structure(oob$cif, dimnames = list(NULL, format(times), causes)))
  }
  if (!is.null(kept_rows)) {
    risk <- expand_rows(risk, kept_rows)
    curves[[2L]] <- if (n_cause == 1L) expand_rows(curves[[2L]], kept_rows) else {
      curves[[2L]][ifelse(kept_rows, cumsum(kept_rows), NA), , , drop = FALSE]
    }
  }
  fit$bagging <- bagging_record(training, kept_rows, core$sample)
  fit$predictions <- risk
  fit$oob_survival <- curves
  fit$oob_c_index <- c_index
  fit$oob_ibs <- ibs
  fit$oob_ibs_null <- ibs_null
  # A cause without out-of-bag events has no C (NA, and print() says so):
  # the error averages the causes that have one.
  fit$oob_error <- if (all(is.na(c_index))) NA_real_ else 1 - mean(c_index, na.rm = TRUE)
  if (importance %in% c("permutation", "negation")) {
    if (all(is.na(c_index))) {
      warning(sprintf(paste0(
        "Out-of-bag %s importance is NA for every variable: Harrell's C of the out-of-bag ",
        "risk is undefined (%s). Measure it on held-out data with importance(fit, new_data = ",
        "...)."), importance, if (sum(scored) < 2L) "fewer than two rows are out of bag" else
          "no two out-of-bag rows have comparable times"), call. = FALSE)
    }
    fit$variable.importance <- survival_oob_importance(fit, training, source, n_thread, importance,
                                                       c_index, time, status, scored, cache)
  }
  fit
}

#' The rows x times matrix of cause k's curves in the core's rows x times x
#' causes array
#' @noRd
cause_curves <- function(cif, k) {
  d <- dim(cif)
  if (d[[3L]] == 1L) {
    dim(cif) <- d[1:2]
    return(cif)
  }
  matrix(cif[, , k], d[[1L]], d[[2L]])
}

#' Out-of-bag permutation (or negation) importance by Harrell's C: the mean
#' over causes of the out-of-bag C of the forest as grown, less its C with
#' one variable's columns read from a permutation of the rows (drawn from the
#' forest's seed and the variable) or with their signs flipped
#' @noRd
survival_oob_importance <- function(fit, training, source, n_thread, type, c_index, time, status,
                                    scored, cache) {
  survival <- fit$response$survival
  n_cause <- length(survival$causes)
  request <- survival_request(survival, numeric(0), "risk")
  features <- fit$blueprint$feature_names
  values <- vapply(seq_along(features), function(d) {
    oob <- core_call(fit, ccf_oob_survival_cpp(fit$forest$trees, training, source, n_thread,
                                               request, d - 1L, type == "negation", cache))
    # Causes whose C is undefined (no out-of-bag event) take no part.
    defined <- which(!is.na(c_index))
    if (length(defined) == 0L) return(NA_real_)
    drops <- vapply(defined, function(k) {
      c_index[[k]] - harrell_c(oob$risk[scored, k], time[scored], status[scored], k)
    }, numeric(1))
    mean(drops)
  }, numeric(1))
  structure(new_importance(values, features, type), measure = "c_index")
}

#' The held-out survival outcome of `new_data` (or `y`), coded as the
#' forest's: list(time, status) with status 0 (censored) or the cause's number
#' @noRd
survival_held_out <- function(object, new_data, y, purpose) {
  if (is.null(y)) {
    if (is.null(object$formula)) {
      stop(sprintf(paste0("`y` is missing: %s needs the survival outcome of `new_data`. The ",
                          "forest was fitted with `x` and `y`, so give it as `y` (a Surv ",
                          "object)."), purpose), call. = FALSE)
    }
    y <- survival_outcome_in(object, new_data, purpose)
  }
  if (is.data.frame(y) && ncol(y) == 1L) y <- y[[1L]]
  if (!inherits(y, "Surv")) {
    stop(sprintf("`y` must be the held-out survival outcome, a Surv object, not %s.",
                 class_label(y)), call. = FALSE)
  }
  causes <- object$response$survival$causes
  status <- as.integer(y[, "status"])
  if (identical(attr(y, "type"), "mright")) {
    code <- match(attr(y, "states"), causes)
    if (anyNA(code)) {
      stop(sprintf("The held-out outcome has cause(s) %s, which the forest (causes %s) never saw.",
                   format_names(attr(y, "states")[is.na(code)]), format_names(causes)),
           call. = FALSE)
    }
    status <- ifelse(status > 0L, code[pmax(status, 1L)], 0L)
  } else if (!identical(attr(y, "type"), "right") || length(causes) != 1L) {
    stop(sprintf("The held-out outcome must be right-censored like the forest's (%s).",
                 if (length(causes) == 1L) "Surv(time, status)" else
                   "Surv(time, event) with the same causes"), call. = FALSE)
  }
  list(time = as.double(y[, "time"]), status = status)
}

#' A formula fit's Surv outcome evaluated in `new_data` (Surv() found even
#' where the survival package is not attached)
#' @noRd
survival_outcome_in <- function(object, new_data, purpose) {
  name <- object$formula$response_names[[1L]]
  if (!is.data.frame(new_data)) {
    new_data <- as.data.frame(new_data, stringsAsFactors = FALSE)
  }
  if (name %in% names(new_data)) {
    return(new_data[[name]])
  }
  expr <- tryCatch(str2lang(name), error = function(e) NULL)
  enclos <- new.env(parent = object$formula$env %||% globalenv())
  enclos$Surv <- survival::Surv
  value <- if (is.null(expr) || !any(all.vars(expr) %in% names(new_data))) NULL else {
    tryCatch(eval(expr, new_data, enclos), error = function(e) NULL)
  }
  if (is.null(value)) {
    stop(sprintf(paste0("`new_data` has no outcome `%s`: %s compares predictions with the ",
                        "held-out outcome, so include its columns (or give it as `y`)."),
                 name, purpose), call. = FALSE)
  }
  value
}

#' Permutation or negation importance of a survival forest on held-out data:
#' the mean over causes of Harrell's C of the predicted risk, less its C with
#' the variable permuted (or its sign flipped)
#' @noRd
survival_held_out_importance <- function(object, new_data, y, type, n_repeat, n_thread, seed,
                                         local) {
  if (local) {
    stop("local = TRUE is not available for survival forests: their importance is a change in ",
         "Harrell's C, which is not a sum of each row's share.", call. = FALSE)
  }
  what <- sprintf("%s importance", type)
  truth <- survival_held_out(object, new_data, y, what)
  matrix_x <- predictor_matrix(object, new_data)
  if (nrow(matrix_x) != length(truth$time)) {
    stop(sprintf("`new_data` has %d rows but `y` has %d; they must match.",
                 nrow(matrix_x), length(truth$time)), call. = FALSE)
  }
  keep <- !is.na(truth$time) & !is.na(truth$status)
  if (sum(truth$status[keep] > 0L) < 1L || sum(keep) < 2L) {
    stop(sprintf("%s needs held-out rows with at least one event.", what), call. = FALSE)
  }
  matrix_x <- matrix_x[keep, , drop = FALSE]
  time <- truth$time[keep]
  status <- truth$status[keep]
  causes <- object$response$survival$causes
  n_tree <- n_trees(object)
  asked <- survival_request(object$response$survival, numeric(0), "risk")
  concordance_of <- function(negate = c(0L, 0L), x = matrix_x) {
    request <- predict_request(object, n_tree, n_thread, negate = negate)
    risk <- core_call(object, ccf_predict_survival_cpp(request, x, asked))$risk
    mean(vapply(seq_along(causes), function(k) {
      harrell_c(risk[, k], time, status, k)
    }, numeric(1)), na.rm = TRUE)
  }
  base <- concordance_of()
  if (is.na(base)) {
    stop(sprintf(paste0("%s needs held-out rows whose times can be compared: Harrell's C is ",
                        "undefined on these (every event is tied in time with every other row)."),
                 what), call. = FALSE)
  }
  bp <- object$blueprint
  n_feature <- length(bp$feature_names)
  drop <- numeric(n_feature)
  if (type == "negation") {
    for (d in seq_len(n_feature)) {
      drop[[d]] <- base - concordance_of(as.integer(bp$feature_start[c(d, d + 1L)]))
    }
  } else {
    if (!is.null(seed)) {
      restore_rng <- preserve_rng()
      on.exit(restore_rng(), add = TRUE)
      set.seed(seed)
    }
    n <- nrow(matrix_x)
    for (r in seq_len(n_repeat)) {
      for (d in seq_len(n_feature)) {
        columns <- which(bp$column_feature == d)
        permuted <- matrix_x
        permuted[, columns] <- matrix_x[sample.int(n), columns, drop = FALSE]
        drop[[d]] <- drop[[d]] + base - concordance_of(x = permuted)
      }
    }
    drop <- drop / n_repeat
  }
  structure(new_importance(drop, bp$feature_names, type), measure = "c_index")
}
