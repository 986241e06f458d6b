# The thread that runs a binding's work while R's main thread watches for
# Ctrl-C (src/helper_thread.h) is made once per process and kept: a child
# forked after the parent made it, and the package unloaded and loaded
# again, must each get a working one (the interrupts themselves are
# test-interrupt.R's).

test_that("forked children and a reloaded package fit and predict as the parent", {
  skip_on_cran()
  skip_on_os("windows")
  session <- start_child_session(c(
    "d <- iris",
    "fit <- ccforest(Species ~ ., d, n_tree = 30, n_thread = 2, seed = 1, verbose = FALSE)",
    "p <- predict(fit, d, type = 'prob', n_thread = 2)",
    "in_children <- parallel::mclapply(1:3, function(i) {",
    "  f <- ccforest(Species ~ ., d, n_tree = 30, n_thread = 2, seed = 1, verbose = FALSE)",
    "  identical(predict(f, d, type = 'prob', n_thread = 2), p) && identical(f$predictions, fit$predictions)",
    "}, mc.cores = 2)",
    "say('children', paste(unlist(in_children), collapse = ' '))",
    "unloadNamespace('ccforest')",
    "library(ccforest)",
    "again <- ccforest(Species ~ ., d, n_tree = 30, n_thread = 2, seed = 1, verbose = FALSE)",
    "say('reloaded', identical(predict(again, d, type = 'prob', n_thread = 2), p))",
    "say('finished')"
  ))
  lines <- wait_for_line(session$log, "^finished", 60)
  expect_true("children TRUE TRUE TRUE " %in% lines, label = paste(lines, collapse = " | "))
  expect_true("reloaded TRUE " %in% lines, label = paste(lines, collapse = " | "))
})

test_that("a call from inside a job runs in place, one made while the helper is busy on its own thread", {
  paths <- utils::getFromNamespace("ccf_helper_thread_paths_cpp", "ccforest")
  # The job on the helper (1), the call it makes in place (1), the call R
  # code run by the main thread's poll makes on a thread of its own (2).
  expect_identical(sort(paths()), c(1L, 1L, 2L))
  expect_identical(paths()[[1]], 1L)
})
