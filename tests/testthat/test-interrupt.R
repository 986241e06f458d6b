# Ctrl-C is SIGINT to the R process. A child R session runs a long fit (then
# a long predict); the test interrupts each once it has started and checks
# that control returns promptly and that the session still works.

run_interrupted <- function(workload) {
  dir <- withr::local_tempdir(.local_envir = parent.frame())
  script <- file.path(dir, "child.R")
  log <- file.path(dir, "log.txt")
  writeLines(c(
    sprintf(".libPaths(%s)", paste(deparse(.libPaths()), collapse = "")),
    "library(ccforest)",
    sprintf("log <- %s", deparse(log)),
    "say <- function(...) cat(..., '\\n', file = log, append = TRUE)",
    "say('pid', Sys.getpid())",
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
  ), script)
  system2(file.path(R.home("bin"), "Rscript"), script, wait = FALSE, stdout = FALSE,
          stderr = FALSE)
  read_log <- function() if (file.exists(log)) readLines(log) else character(0)
  wait_for <- function(pattern, seconds) {
    deadline <- Sys.time() + seconds
    while (Sys.time() < deadline) {
      lines <- read_log()
      if (any(grepl(pattern, lines))) return(lines)
      Sys.sleep(0.1)
    }
    read_log()
  }
  lines <- wait_for("^started", 120)
  expect_true(any(grepl("^started", lines)), info = paste(lines, collapse = "\n"))
  pid <- as.integer(sub("^pid ", "", grep("^pid", lines, value = TRUE)))
  Sys.sleep(1.5)
  signalled <- Sys.time()
  tools::pskill(pid, tools::SIGINT)
  lines <- wait_for("^usable", 60)
  list(
    lines = lines,
    seconds = as.numeric(difftime(Sys.time(), signalled, units = "secs"))
  )
}

test_that("Ctrl-C during a long fit returns promptly and the session stays usable", {
  skip_on_cran()
  skip_on_os("windows")
  out <- run_interrupted("ccforest(big_x, rep(y, 20), n_tree = 500, n_thread = 2, seed = 1)")
  expect_true(any(grepl("^result interrupted", out$lines)), info = paste(out$lines, collapse = "\n"))
  expect_true(any(grepl("^usable TRUE", out$lines)))
  # The whole fit takes minutes; the interrupt must end it within one batch of trees.
  expect_lt(out$seconds, 30)
})

test_that("Ctrl-C during a long predict returns promptly and the session stays usable", {
  skip_on_cran()
  skip_on_os("windows")
  out <- run_interrupted("predict(small, big_x, n_thread = 2)")
  expect_true(any(grepl("^result interrupted", out$lines)), info = paste(out$lines, collapse = "\n"))
  expect_true(any(grepl("^usable TRUE", out$lines)))
  expect_lt(out$seconds, 30)
})
