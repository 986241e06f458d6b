# Ctrl-C is SIGINT to the R process. A child R session runs a long fit (then
# a long predict); the test interrupts each once it is under way and checks
# that control returns promptly and that the session still works.

run_interrupted <- function(workload, ready_pattern = "^started") {
  child <- start_child_session(c(
    # The interrupt is the subject here: the fit must start on any machine.
    "options(ccforest.memory_limit = Inf)",
    "set.seed(1); n <- 50000; x <- matrix(rnorm(n * 10), n)",
    "y <- factor(x[, 1] + rnorm(n) > 0)",
    "small <- ccforest(x[1:2000, ], y[1:2000], n_tree = 500, n_thread = 2, seed = 1)",
    "big_x <- x[rep(seq_len(n), 20), ]",
    "say('started')",
    "t0 <- Sys.time()",
    sprintf("r <- tryCatch({ %s; 'finished' }, interrupt = function(e) 'interrupted')", workload),
    "say('result', r, as.numeric(difftime(Sys.time(), t0, units = 'secs')))",
    "again <- ccforest(x[1:200, ], y[1:200], n_tree = 5, seed = 2)",
    "say('usable', inherits(again, 'ccforest'))"
  ), envir = parent.frame())
  lines <- wait_for_line(child$log, "^started", 300)
  expect_true(any(grepl("^started", lines)), info = paste(lines, collapse = "\n"))
  # Wait until the work itself runs (its progress output), not R's set-up.
  progress <- wait_for_line(child$output, ready_pattern, 300)
  expect_true(any(grepl(ready_pattern, progress)), info = paste(progress, collapse = "\n"))
  child$progress <- progress
  signalled <- Sys.time()
  tools::pskill(child_pid(lines), tools::SIGINT)
  lines <- wait_for_line(child$log, "^usable", 120)
  list(
    lines = lines,
    progress = child$progress,
    seconds = as.numeric(difftime(Sys.time(), signalled, units = "secs"))
  )
}

test_that("Ctrl-C during a long fit returns promptly and the session stays usable", {
  skip_on_cran()
  skip_on_os("windows")
  # 1,000,000 rows x 10 features, 500 trees, binary: the fit starts (no
  # memory refusal) and is interrupted inside the growing of its trees.
  out <- run_interrupted(
    "ccforest(big_x, rep(y, 20), n_tree = 500, n_thread = 2, seed = 1, verbose = TRUE)",
    ready_pattern = "Growing trees"
  )
  expect_true(any(grepl("^result interrupted", out$lines)), info = paste(out$lines, collapse = "\n"))
  expect_true(any(grepl("^usable TRUE", out$lines)))
  # The whole fit takes many minutes; trees check for the interrupt at every
  # node, so it ends in about the time of one node's work.
  expect_lt(out$seconds, 60)
  # Its output is a file, not a terminal: whole lines with the time left.
  report <- grep("Growing trees", out$progress, value = TRUE)[[1L]]
  expect_match(report, "^Growing trees: +[0-9]+% \\([0-9]+ of 500\\), [0-9.]+ s, about .* left$")
  expect_false(grepl("\r", report, fixed = TRUE))
})

test_that("Ctrl-C during a long predict returns promptly and the session stays usable", {
  skip_on_cran()
  skip_on_os("windows")
  out <- run_interrupted("Sys.sleep(2); cat('predicting\\n'); predict(small, big_x, n_thread = 2)",
                         ready_pattern = "^predicting")
  expect_true(any(grepl("^result interrupted", out$lines)), info = paste(out$lines, collapse = "\n"))
  expect_true(any(grepl("^usable TRUE", out$lines)))
  expect_lt(out$seconds, 60)
})

test_that("Ctrl-C during a long survival fit and prediction returns promptly", {
  skip_on_cran()
  skip_on_os("windows")
  skip_if_not_installed("survival")
  # The same 1,000,000 rows with a survival outcome of 997 distinct times.
  # Projection bootstrapping, so no out-of-bag curves (about 1 GB with
  # bagging) for the memory guard to weigh against a smaller machine.
  out <- run_interrupted(paste(
    "ccforest(big_x, survival::Surv(seq_len(nrow(big_x)) %% 997 + 1, rep(y == 'TRUE', 20)),",
    "n_tree = 500, n_thread = 2, seed = 1, sampling = 'projection', verbose = TRUE)"),
    ready_pattern = "Growing trees"
  )
  expect_true(any(grepl("^result interrupted", out$lines)), info = paste(out$lines, collapse = "\n"))
  expect_true(any(grepl("^usable TRUE", out$lines)))
  expect_lt(out$seconds, 60)
  out <- run_interrupted(paste(
    "surv <- ccforest(x[1:2000, ], survival::Surv(seq_len(2000), rep(1, 2000)), n_tree = 500,",
    "seed = 1); Sys.sleep(2); cat('predicting\\n');",
    "predict(surv, big_x, type = 'survival', times = c(100, 500, 1000), n_thread = 2)"),
    ready_pattern = "^predicting"
  )
  expect_true(any(grepl("^result interrupted", out$lines)), info = paste(out$lines, collapse = "\n"))
  expect_true(any(grepl("^usable TRUE", out$lines)))
  expect_lt(out$seconds, 60)
})

test_that("Ctrl-C during quantile prediction returns promptly", {
  # Quantiles used to check for Ctrl-C every 256th row, and the rows after a
  # cancelled one went on: control came back only when all were done.
  skip_on_cran()
  skip_on_os("windows")
  out <- run_interrupted(paste(
    "q <- ccforest(x[, 1:3], x[, 1] + rnorm(n), n_tree = 30, quantiles = TRUE, seed = 1,",
    "max_depth = 3, verbose = FALSE); cat('predicting\\n');",
    "predict(q, big_x[, 1:3], type = 'quantiles', n_thread = 1)"
  ), ready_pattern = "^predicting")
  expect_true(any(grepl("^result interrupted", out$lines)), info = paste(out$lines, collapse = "\n"))
  expect_true(any(grepl("^usable TRUE", out$lines)))
  expect_lt(out$seconds, 60)
})

test_that("Ctrl-C during permutation importance and partial dependence returns promptly", {
  skip_on_cran()
  skip_on_os("windows")
  workloads <- c(
    "importance(small, new_data = big_x, y = rep(y, 20), n_thread = 2)",
    "partial_dependence(small, 'X1', data = big_x, n_thread = 2)"
  )
  for (workload in workloads) {
    out <- run_interrupted(paste("Sys.sleep(2); cat('predicting\\n');", workload),
                           ready_pattern = "^predicting")
    info <- paste(c(workload, out$lines), collapse = "\n")
    expect_true(any(grepl("^result interrupted", out$lines)), info = info)
    expect_true(any(grepl("^usable TRUE", out$lines)), info = info)
    expect_lt(out$seconds, 60)
  }
})
