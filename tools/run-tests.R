# Run the testthat suite against the *installed* ccforest (make install first).
# Usage: Rscript tools/run-tests.R [SUMMARY_FILE]
# Ends with one line "N passed, N failed, N skipped" (also written to
# SUMMARY_FILE if given, so `make test` can repeat it as its last line) and
# exits 1 if any expectation failed, any test errored, or nothing ran.

Sys.setenv(NOT_CRAN = "true")  # run skip_on_cran() tests too
args <- commandArgs(trailingOnly = TRUE)
summary_file <- if (length(args)) args[[1]] else NA

# max_failures = Inf: the progress reporter otherwise gives up after 10.
reporter <- testthat::ProgressReporter$new(show_praise = FALSE,
                                           max_failures = Inf)
res <- testthat::test_dir("tests/testthat", package = "ccforest",
                          load_package = "installed", reporter = reporter,
                          stop_on_failure = FALSE)
df <- as.data.frame(res)

# Counts are of expectations; a test that errored counts once as failed,
# a skipped test once as skipped.
n <- function(x) if (is.null(x)) 0L else sum(as.integer(x), na.rm = TRUE)
passed <- n(df$passed)
failed <- n(df$failed) + n(df$error)
skipped <- n(df$skipped)

line <- sprintf("%d passed, %d failed, %d skipped", passed, failed, skipped)
cat("\n", line, "\n", sep = "")
if (!is.na(summary_file)) writeLines(line, summary_file)

if (failed > 0 || passed == 0) {
  if (passed == 0 && failed == 0) cat("ERROR: no test ran\n")
  quit(status = 1)
}
