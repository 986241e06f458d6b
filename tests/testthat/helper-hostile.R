# Helpers for the hostile-input tests (test-hostile-*.R, test-fuzz.R).
# Names start with `hostile_` so they cannot clash with other helpers.

#' Run `fun(...)` in a fresh R process with the package loaded from the same
#' library as this test run, so that a crash or an abort in compiled code is
#' reported as an outcome instead of killing the test run.
#'
#' @return A list: `status` ("ok", "error" or "crash"), `value` (for "ok"),
#'   `message` (for "error" and "crash") and `stderr` (what the child wrote
#'   to its standard error, e.g. messages printed by C++ libraries).
hostile_isolated <- function(fun, args = list(), timeout = 120) {
  testthat::skip_if_not_installed("callr")
  err_file <- tempfile(fileext = ".txt")
  on.exit(unlink(err_file), add = TRUE)
  wrapped <- function(fun, args, lib) {
    .libPaths(lib)
    suppressPackageStartupMessages(loadNamespace("ccforest"))
    tryCatch(
      list(status = "ok", value = do.call(fun, args)),
      error = function(e) list(status = "error", message = conditionMessage(e))
    )
  }
  outcome <- tryCatch(
    callr::r(
      wrapped,
      args = list(fun = fun, args = args, lib = .libPaths()),
      stderr = err_file, timeout = timeout
    ),
    error = function(e) {
      list(status = "crash", message = conditionMessage(e))
    }
  )
  err_lines <- if (file.exists(err_file)) readLines(err_file, warn = FALSE) else character(0)
  outcome$stderr <- paste(err_lines, collapse = "\n")
  if (identical(outcome$status, "crash")) {
    # Say how the child died (e.g. "caught segfault"), not only that it did.
    cause <- grep("caught|segfault|abort|terminate|memory", err_lines, value = TRUE)
    outcome$message <- paste(c(outcome$message, utils::head(cause, 2L)), collapse = " | ")
  }
  outcome
}

#' Run several self-contained cases (functions of no arguments) in child
#' processes: one process runs them in turn, and when a case crashes it, a
#' new process carries on with the next case. So a crash costs one process,
#' not the whole batch, and it is pinned on the case that caused it.
#'
#' @return A named list of outcomes as from `hostile_isolated()`.
hostile_isolated_cases <- function(cases, timeout = 120) {
  cases <- lapply(cases, function(f) {
    environment(f) <- globalenv()
    f
  })
  dir <- tempfile("hostile-cases-")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  runner <- function(batch, dir, first) {
    for (i in seq_along(batch)) {
      index <- first + i - 1L
      cat(index, "\n", file = file.path(dir, "started"), append = TRUE)
      result <- tryCatch(
        list(status = "ok", value = batch[[i]]()),
        error = function(e) list(status = "error", message = conditionMessage(e))
      )
      saveRDS(result, file.path(dir, sprintf("%d.rds", index)))
    }
    TRUE
  }
  results <- vector("list", length(cases))
  names(results) <- names(cases)
  first <- 1L
  while (first <= length(cases)) {
    outcome <- hostile_isolated(
      runner, list(batch = cases[first:length(cases)], dir = dir, first = first),
      timeout = timeout
    )
    for (index in first:length(cases)) {
      file <- file.path(dir, sprintf("%d.rds", index))
      if (file.exists(file)) results[[index]] <- readRDS(file)
    }
    if (identical(outcome$status, "ok")) break
    started <- suppressWarnings(as.integer(readLines(file.path(dir, "started"), warn = FALSE)))
    crashed <- max(c(first, started), na.rm = TRUE)
    results[[crashed]] <- list(status = "crash", message = outcome$message,
                               stderr = outcome$stderr)
    first <- crashed + 1L
  }
  results
}

#' Expect that an isolated run ended in an R error (not a crash) whose
#' message matches `pattern`.
hostile_expect_isolated_error <- function(outcome, pattern, label = NULL) {
  label <- label %||% "the case"
  testthat::expect(
    identical(outcome$status, "error"),
    sprintf(
      "%s should give an R error, but the outcome was %s: %s",
      label, outcome$status, outcome$message %||% "(no message)"
    )
  )
  if (identical(outcome$status, "error")) {
    testthat::expect_match(outcome$message, pattern, label = label)
  }
  invisible(outcome)
}

#' Expect that an isolated run ended normally.
hostile_expect_isolated_ok <- function(outcome, label = NULL) {
  label <- label %||% "the case"
  testthat::expect(
    identical(outcome$status, "ok"),
    sprintf(
      "%s should run, but the outcome was %s: %s",
      label, outcome$status, outcome$message %||% "(no message)"
    )
  )
  invisible(outcome)
}

`%||%` <- function(a, b) if (is.null(a)) b else a

#' Deep copy that shares no memory with the original (data.table's
#' reference semantics included).
hostile_deep_copy <- function(x) {
  unserialize(serialize(x, NULL))
}

#' A small classification data.frame with every supported column kind.
hostile_mixed_data <- function(n = 40L, seed = 1L) {
  withr::with_seed(seed, {
    data.frame(
      num = stats::rnorm(n),
      int = sample.int(20L, n, replace = TRUE),
      fac = factor(sample(c("p", "q", "r"), n, replace = TRUE)),
      ord = factor(sample(c("lo", "mid", "hi"), n, replace = TRUE),
                   levels = c("lo", "mid", "hi"), ordered = TRUE),
      lgl = sample(c(TRUE, FALSE), n, replace = TRUE),
      y = factor(rep_len(c("u", "v", "w"), n)),
      stringsAsFactors = FALSE
    )
  })
}

#' A small two-feature classification data.frame whose classes depend on the
#' features, so a working forest fits it far better than chance.
hostile_signal_data <- function(n = 60L, seed = 1L) {
  withr::with_seed(seed, {
    a <- stats::rnorm(n)
    b <- stats::rnorm(n)
    data.frame(
      a = a, b = b,
      y = factor(ifelse(a + b > 0.5, "hi", ifelse(a - b > 0, "mid", "lo")))
    )
  })
}

#' Predictions must hold no NA, NaN or Inf, whatever their form.
hostile_expect_finite <- function(pred, label = "predictions") {
  values <- if (is.factor(pred)) {
    as.integer(pred)
  } else if (is.data.frame(pred) || is.list(pred)) {
    unlist(lapply(pred, function(col) if (is.factor(col)) as.integer(col) else col))
  } else {
    as.vector(pred)
  }
  testthat::expect(
    all(is.finite(values)),
    sprintf("%s hold %d non-finite value(s)", label, sum(!is.finite(values)))
  )
  invisible(pred)
}

#' Probability matrices: in [0, 1], each row summing to 1.
hostile_expect_probabilities <- function(prob, label = "probabilities") {
  testthat::expect_true(is.matrix(prob), label = paste(label, "is a matrix"))
  hostile_expect_finite(prob, label)
  testthat::expect(
    all(prob >= 0 & prob <= 1),
    sprintf("%s fall outside [0, 1]: range %s", label, paste(range(prob), collapse = " to "))
  )
  if (nrow(prob) > 0L) {
    testthat::expect(
      max(abs(rowSums(prob) - 1)) < 1e-9,
      sprintf("%s rows do not sum to 1 (largest gap %g)", label, max(abs(rowSums(prob) - 1)))
    )
  }
  invisible(prob)
}

#' Training accuracy of a classification forest on its own data.
hostile_accuracy <- function(fit, data, truth) {
  mean(as.character(stats::predict(fit, data)) == as.character(truth))
}
