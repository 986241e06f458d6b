# One test file against the installed package (make test-file FILE=...):
# exits non-zero if any expectation fails or errors.
file <- commandArgs(trailingOnly = TRUE)[1L]
results <- as.data.frame(testthat::test_file(file, package = "ccforest", load_package = "installed"))
if (sum(results$failed) + sum(results$error) > 0L) quit(status = 1L)
