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

# Reading and damaging stored trees (format 2), written from the layout
# documented in src/core/TreeCodec.h and not with the package's code, so
# that tests can damage one chosen field of a tree's bytes. test-serialize.R
# checks this reading against tree_info().

#' The bytes of a whole number as a varint: 7 bits a byte, least
#' significant first, the high bit set on every byte but the last.
hostile_varint_bytes <- function(value) {
  out <- raw(0)
  repeat {
    low <- value %% 128
    value <- (value - low) / 128
    out <- c(out, as.raw(low + if (value > 0) 128 else 0))
    if (value == 0) return(out)
  }
}

#' Where every field of an encoded tree lies (1-based byte positions) and
#' what it holds. `n_class`: classes per output (classification) or
#' integer(0) (regression, with `n_output` outputs).
hostile_tree_layout <- function(bytes, n_class = integer(0), n_output = 1L) {
  pos <- 1L
  varint <- function() {
    value <- 0
    shift <- 0
    repeat {
      b <- as.integer(bytes[[pos]])
      pos <<- pos + 1L
      value <- value + (b %% 128L) * 2^shift
      shift <- shift + 7
      if (b < 128L) return(value)
    }
  }
  out <- list(format = as.integer(bytes[[1L]]))
  pos <- 2L
  out$n_nodes_at <- pos
  n_nodes <- varint()
  out$n_nodes <- n_nodes
  out$flags_at <- pos
  n_flag_bytes <- ceiling(n_nodes / 8)
  out$is_split <- as.integer(rawToBits(bytes[pos + seq_len(n_flag_bytes) - 1L]))[seq_len(n_nodes)] == 1L
  pos <- pos + n_flag_bytes
  n_split <- sum(out$is_split)
  n_leaf <- n_nodes - n_split
  out$n_split <- n_split
  out$n_leaf <- n_leaf
  out$count_at <- integer(n_split)
  out$counts <- integer(n_split)
  for (s in seq_len(n_split)) {
    out$count_at[[s]] <- pos
    out$counts[[s]] <- varint()
  }
  # Format 3: each split's precision, two bits (0: 16-bit codes, 1: one
  # float per column, 2: two floats per column, hi and lo); format 2 has none.
  out$precisions <- integer(n_split)
  if (out$format == 3L) {
    out$precision_at <- pos
    n_precision_bytes <- ceiling(n_split / 4)
    bits <- as.integer(rawToBits(bytes[pos + seq_len(n_precision_bytes) - 1L]))
    out$precisions <- vapply(seq_len(n_split), function(s) {
      bits[[2L * s - 1L]] + 2L * bits[[2L * s]]
    }, integer(1))
    pos <- pos + n_precision_bytes
  }
  # Entries are columns (one coefficient each, whatever its precision).
  n_entries <- sum(out$counts)
  out$n_entries <- n_entries
  out$split_of_entry <- rep(seq_len(n_split), out$counts)
  out$column_at <- integer(n_entries)
  out$columns <- integer(n_entries)  # 0-based
  e <- 0L
  for (s in seq_len(n_split)) {
    previous <- -1
    for (i in seq_len(out$counts[[s]])) {
      e <- e + 1L
      out$column_at[[e]] <- pos
      out$columns[[e]] <- previous + 1 + varint()
      previous <- out$columns[[e]]
    }
  }
  precision_of_entry <- out$precisions[out$split_of_entry]
  n_short <- sum(precision_of_entry == 0L)
  n_float <- sum(ifelse(precision_of_entry == 0L, 0L, precision_of_entry))
  out$coef_at <- pos
  codes <- as.integer(bytes[pos + seq_len(n_short) - 1L]) * 256L +
    as.integer(bytes[pos + n_short + seq_len(n_short) - 1L])
  sign <- ifelse(codes >= 32768L, -1, 1)
  short <- sign * (1 + (codes %% 1024L) / 1024) * 2^-((codes %/% 1024L) %% 32L)
  pos <- pos + 2L * n_short
  out$float_at <- pos
  floats <- vapply(seq_len(n_float), function(i) {
    hostile_read_word(bytes, pos, n_float, i, 4L)
  }, numeric(1))
  pos <- pos + 4L * n_float
  out$n_floats <- n_float
  out$coefficients <- numeric(n_entries)
  next_short <- 0L
  next_float <- 0L
  for (e in seq_len(n_entries)) {
    p <- precision_of_entry[[e]]
    if (p == 0L) {
      next_short <- next_short + 1L
      out$coefficients[[e]] <- short[[next_short]]
    } else {
      out$coefficients[[e]] <- sum(floats[next_float + seq_len(p)])
      next_float <- next_float + p
    }
  }
  out$threshold_at <- pos
  out$thresholds <- vapply(seq_len(n_split), function(s) {
    hostile_read_word(bytes, pos, n_split, s, 8L)
  }, numeric(1))
  pos <- pos + 8L * n_split
  if (length(n_class) > 0L) {
    n_out <- length(n_class)
    out$code_at <- integer(n_leaf * n_out)
    out$codes <- integer(n_leaf * n_out)
    for (i in seq_len(n_leaf * n_out)) {
      out$code_at[[i]] <- pos
      out$codes[[i]] <- varint()
    }
    out$mixed_count_at <- integer(0)
    out$mixed_classes <- list()
    out$mixed_class_at <- list()
    for (i in which(out$codes == 0L)) {
      out$mixed_count_at <- c(out$mixed_count_at, pos)
      k <- varint()
      at <- integer(k)
      classes <- integer(k)
      previous <- -1
      for (j in seq_len(k)) {
        at[[j]] <- pos
        classes[[j]] <- previous + 1 + varint()
        previous <- classes[[j]]
      }
      out$mixed_classes <- c(out$mixed_classes, list(classes))
      out$mixed_class_at <- c(out$mixed_class_at, list(at))
    }
    n_mixed <- sum(lengths(out$mixed_classes))
    out$n_proportions <- n_mixed
    out$proportion_at <- pos
    out$proportions <- vapply(seq_len(n_mixed), function(i) {
      hostile_read_word(bytes, pos, n_mixed, i, 4L)
    }, numeric(1))
    pos <- pos + 4L * n_mixed
  } else {
    n_mean <- n_leaf * n_output
    out$n_means <- n_mean
    out$mean_at <- pos
    out$means <- vapply(seq_len(n_mean), function(i) {
      hostile_read_word(bytes, pos, n_mean, i, 8L)
    }, numeric(1))
    pos <- pos + 8L * n_mean
  }
  out$end <- pos  # one past the last byte read
  out
}

#' Positions of word i (1-based) of `n` words of `width` bytes stored as byte
#' planes from `start`, most significant plane first.
hostile_word_positions <- function(start, n, i, width) {
  start + (seq_len(width) - 1L) * n + (i - 1L)
}

#' Word i of a plane block, as a double (width 8) or a float (width 4).
hostile_read_word <- function(bytes, start, n, i, width) {
  readBin(bytes[hostile_word_positions(start, n, i, width)], "double", size = width,
          endian = "big")
}

#' Overwrite word i of a plane block with `value`, stored as a double (width
#' 8) or a float (width 4).
hostile_write_word <- function(bytes, start, n, i, width, value) {
  bytes[hostile_word_positions(start, n, i, width)] <- writeBin(value, raw(), size = width,
                                                                 endian = "big")
  bytes
}

#' Replace the varint at `at` with the bytes of another value.
hostile_replace_varint <- function(bytes, at, value) {
  end <- at
  while (as.integer(bytes[[end]]) >= 128L) end <- end + 1L
  c(bytes[seq_len(at - 1L)], hostile_varint_bytes(value),
    bytes[seq_len(length(bytes) - end) + end])
}

#' Is `prob` a valid probability matrix: finite, in [0, 1], rows summing to
#' 1? "ok" or what is wrong. Self-contained, for child processes.
hostile_probability_problem <- function(prob) {
  values <- unlist(prob)
  if (!is.numeric(values) || !all(is.finite(values))) return("non-finite probabilities")
  if (any(values < 0 | values > 1)) return("probabilities outside [0, 1]")
  blocks <- if (is.list(prob) && !is.data.frame(prob)) prob else list(prob)
  gaps <- vapply(blocks, function(p) if (nrow(p)) max(abs(rowSums(p) - 1)) else 0, numeric(1))
  if (any(gaps > 1e-9)) return(sprintf("rows do not sum to 1 (gap %g)", max(gaps)))
  "ok"
}

#' Predict with each of several (possibly damaged) fitted objects in a child
#' process and say what happened: "error: <message>", "ok" (valid
#' predictions: finite, and for probabilities in [0, 1] with rows summing to
#' 1) or "ok: INVALID <what is wrong>". `cases` is a named list of
#' list(fit, new, type). One child runs every case; if it crashes, each case
#' is rerun alone, so that the crashing ones are named ("crash: ...").
#'
#' @return A list: `results` (named character vector) and `stderr`.
hostile_predict_cases <- function(cases, timeout = 300) {
  path <- tempfile(fileext = ".rds")
  on.exit(unlink(path), add = TRUE)
  saveRDS(cases, path)
  check <- hostile_probability_problem
  environment(check) <- globalenv()
  runner <- function(path, check, only = NULL) {
    cases <- readRDS(path)
    if (!is.null(only)) cases <- cases[only]
    vapply(cases, function(case) {
      tryCatch({
        pred <- stats::predict(case$fit, case$new, type = case$type)
        problem <- if (identical(case$type, "prob")) {
          check(pred)
        } else if (all(is.finite(unlist(pred)))) {
          "ok"
        } else {
          "non-finite predictions"
        }
        if (identical(problem, "ok")) "ok" else paste("ok: INVALID", problem)
      }, error = function(e) paste("error:", conditionMessage(e)))
    }, character(1))
  }
  outcome <- hostile_isolated(runner, list(path = path, check = check), timeout = timeout)
  if (identical(outcome$status, "ok")) {
    return(list(results = outcome$value, stderr = outcome$stderr))
  }
  single <- lapply(names(cases), function(name) {
    hostile_isolated(runner, list(path = path, check = check, only = name), timeout = timeout)
  })
  results <- vapply(seq_along(single), function(i) {
    one <- single[[i]]
    switch(one$status,
      ok = unname(one$value),
      paste0(one$status, ": ", one$message %||% "")
    )
  }, character(1))
  names(results) <- names(cases)
  list(results = results,
       stderr = paste(c(outcome$stderr, vapply(single, `[[`, "", "stderr")), collapse = "\n"))
}

#' Expect every named result to be an error saying the object is damaged.
hostile_expect_all_damaged <- function(outcome, cases = names(outcome$results)) {
  testthat::expect_setequal(names(outcome$results), cases)
  for (name in names(outcome$results)) {
    # Not an R internal message ("subscript out of bounds", "$ operator is
    # invalid"), an Rcpp conversion message ("Not compatible with requested
    # type"), an allocation failure or a crash, and never a prediction.
    testthat::expect_match(outcome$results[[name]], "^error: `object` is damaged: ",
                           label = name)
  }
  testthat::expect_false(grepl("TBB|terminate called", outcome$stderr))
}
