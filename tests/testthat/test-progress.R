# Progress of long fits: whole lines with the time left where output is not a
# terminal (log files, knitr, RStudio jobs), one line in place on a terminal.
# The timing itself is exercised by the child session of test-interrupt.R,
# whose output is a file.

test_that("a progress report gives the share done, the time so far and the time left", {
  expect_identical(ccf_progress_text_cpp(0, 500, 0), "Growing trees:   0% (0 of 500), 0.0 s")
  expect_identical(ccf_progress_text_cpp(225, 500, 12.3),
                   "Growing trees:  45% (225 of 500), 12 s, about 15 s left")
  expect_identical(ccf_progress_text_cpp(50, 500, 100),
                   "Growing trees:  10% (50 of 500), 1 min 40 s, about 15 min 00 s left")
  expect_identical(ccf_progress_text_cpp(10, 500, 3600),
                   "Growing trees:   2% (10 of 500), 1 h 00 min, about 49 h 00 min left")
  expect_identical(ccf_progress_text_cpp(500, 500, 4.26), "Growing trees: 100% (500 of 500), 4.3 s")
})

test_that("lines where output is not a terminal, a line in place where it is", {
  expect_identical(progress_style(FALSE), 0L)
  withr::local_options(ccforest.progress = NULL, knitr.in.progress = TRUE)
  expect_identical(progress_style(TRUE), 1L)
  withr::local_options(knitr.in.progress = NULL)
  # Output captured by sink() (as knitr and capture.output() do) is not a terminal.
  expect_identical(utils::capture.output(cat(progress_style(TRUE))), "1")
  withr::local_options(ccforest.progress = "bar")
  expect_identical(progress_style(TRUE), 2L)
  withr::local_options(ccforest.progress = "lines")
  expect_identical(progress_style(TRUE), 1L)
  withr::local_options(ccforest.progress = "fancy")
  expect_error(progress_style(TRUE),
               "options\\(ccforest.progress\\) must be \"lines\" or \"bar\" \\(or NULL\\), not \"fancy\".")
})

test_that("a verbose fit ends its report with a full line either way", {
  withr::local_options(ccforest.progress = "lines")
  lines <- utils::capture.output(ccforest(Species ~ ., iris, n_tree = 5, seed = 1, verbose = TRUE))
  expect_match(lines, "^Growing trees: 100% \\(5 of 5\\), [0-9.]+ s$", all = FALSE)
  expect_false(any(grepl("\r", lines, fixed = TRUE)))
  withr::local_options(ccforest.progress = "bar")
  lines <- utils::capture.output(ccforest(Species ~ ., iris, n_tree = 5, seed = 1, verbose = TRUE))
  expect_match(lines, "^\rGrowing trees: 100% \\(5 of 5\\), [0-9.]+ s$", all = FALSE)
  expect_silent(ccforest(Species ~ ., iris, n_tree = 5, seed = 1, verbose = FALSE))
})
