# Child R sessions for the tests that signal a running fit or prediction
# (test-interrupt.R, test-future.R). The child loads this ccforest from the
# same library paths, writes "pid <n>" to its log first and then runs
# `lines`, which can append to the log with say(...).
start_child_session <- function(lines, envir = parent.frame()) {
  dir <- withr::local_tempdir(.local_envir = envir)
  script <- file.path(dir, "child.R")
  session <- list(log = file.path(dir, "log.txt"), output = file.path(dir, "output.txt"))
  writeLines(c(
    sprintf(".libPaths(%s)", paste(deparse(.libPaths()), collapse = "")),
    "library(ccforest)",
    sprintf("log <- %s", deparse(session$log)),
    "say <- function(...) cat(..., '\\n', file = log, append = TRUE)",
    "say('pid', Sys.getpid())",
    lines
  ), script)
  system2(file.path(R.home("bin"), "Rscript"), script, wait = FALSE, stdout = session$output,
          stderr = session$output)
  session
}

child_lines <- function(path) if (file.exists(path)) readLines(path, warn = FALSE) else character(0)

# The lines of `path` once one matches `pattern`, or after `seconds` whatever
# they are (the caller's expectations then report what was there).
wait_for_line <- function(path, pattern, seconds) {
  deadline <- Sys.time() + seconds
  while (Sys.time() < deadline) {
    lines <- child_lines(path)
    if (any(grepl(pattern, lines))) return(lines)
    Sys.sleep(0.1)
  }
  child_lines(path)
}

child_pid <- function(log_lines) as.integer(sub("^pid ", "", grep("^pid", log_lines, value = TRUE)))
