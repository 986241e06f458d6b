# backend = "future": trees grown in batches as futures on the user's plan,
# and predictions made in chunks. The reference is the threads backend: tree
# k depends only on (data, options, seed, k), so the forest, its out-of-bag
# results and its predictions must be identical, whatever the plan, the
# number of workers and the number of batches.

skip_if_no_future <- function() {
  skip_if_not_installed("future", "1.49.0")
}

# Sets a plan for the rest of the calling test, and restores the previous one
# (which shuts the workers down) when it ends. Workers load ccforest from
# this session's library paths, so they find a private build too.
local_plan <- function(strategy, ..., .env = parent.frame()) {
  old <- future::plan(strategy, ...)
  withr::defer(future::plan(old), envir = .env)
  invisible()
}

local_multisession <- function(..., .env = parent.frame()) {
  local_plan(future::multisession, workers = 2, rscript_libs = .libPaths(), ..., .env = .env)
}

local_localhost_cluster <- function(.env = parent.frame()) {
  local_plan(future::cluster, workers = c("localhost", "localhost"),
             rscript_libs = .libPaths(), .env = .env)
}

# Classification data with missing values (imputed at random, keyed on the
# tree number) and a factor.
future_class_data <- function() {
  withr::with_seed(11, {
    d <- iris[sample(150, 120), ]
    d$colour <- factor(sample(c("red", "green", "blue"), nrow(d), replace = TRUE))
  })
  d$Sepal.Width[c(2, 9, 30)] <- NA
  d$Petal.Length[c(5, 50)] <- NA
  d$colour[c(7, 60)] <- NA
  rownames(d) <- NULL
  d
}

future_reg_data <- function() {
  d <- mtcars
  d$wt[c(3, 12)] <- NA
  d$hp[20] <- NA
  d
}

# Everything but the call and the training time.
expect_same_fit <- function(a, b) {
  keep <- function(f) unclass(f)[setdiff(names(f), c("call", "train_time", "cache"))]
  expect_identical(keep(a), keep(b))
}

# The same forests and predictions from the threads backend and the future
# backend on the current plan: classification (projection bootstrap),
# regression, and a bagged forest with out-of-bag results and permutation
# importance, with several numbers of batches.
expect_plan_grows_same_forests <- function(batches) {
  d <- future_class_data()
  r <- future_reg_data()
  classes <- ccforest(Species ~ ., data = d, n_tree = 9, seed = 5, n_thread = 1)
  values <- ccforest(mpg ~ ., data = r, n_tree = 8, seed = 6, n_thread = 2)
  bagged <- ccforest(Species ~ ., data = d, n_tree = 7, seed = 7, sampling = "bagging",
                     importance = "permutation", n_thread = 1)
  for (n_batch in batches) {
    label <- paste("n_batch =", format(n_batch))
    expect_same_fit(
      ccforest(Species ~ ., data = d, n_tree = 9, seed = 5, n_thread = 1, backend = "future",
               n_batch = n_batch),
      classes
    )
    expect_same_fit(
      ccforest(mpg ~ ., data = r, n_tree = 8, seed = 6, n_thread = 2, backend = "future",
               n_batch = n_batch),
      values
    )
    grown <- ccforest(Species ~ ., data = d, n_tree = 7, seed = 7, sampling = "bagging",
                      importance = "permutation", n_thread = 1, backend = "future",
                      n_batch = n_batch)
    expect_same_fit(grown, bagged)
    expect_false(anyNA(grown$variable.importance), label = label)
  }
  # Predictions in chunks on the workers, rows with missing values included.
  expect_identical(
    predict(classes, d, type = "prob", backend = "future", chunk_size = 17),
    predict(classes, d, type = "prob")
  )
  expect_identical(predict(classes, d, backend = "future"), predict(classes, d))
  expect_identical(predict(values, r, backend = "future", chunk_size = 5, n_tree = 3),
                   predict(values, r, n_tree = 3))
}

test_that("backend = \"future\" grows the threads backend's forest on a sequential plan", {
  skip_if_no_future()
  local_plan(future::sequential)
  expect_plan_grows_same_forests(batches = list(NULL, 1, 4, 7))
})

test_that("multisession workers grow the same forests, in any number of batches", {
  skip_if_no_future()
  skip_on_cran()
  local_multisession()
  expect_plan_grows_same_forests(batches = list(NULL, 3, 7))
})

test_that("a cluster of workers (two localhost R processes) grows the same forests", {
  skip_if_no_future()
  skip_on_cran()
  local_localhost_cluster()
  expect_plan_grows_same_forests(batches = list(NULL, 5))
})

test_that("the training data go to each persistent worker once, and are released after", {
  skip_if_no_future()
  skip_on_cran()
  local_multisession()
  d <- future_class_data()
  fit <- ccforest(Species ~ ., data = d, n_tree = 10, seed = 1, n_thread = 1)
  training <- ccforest:::training_set(
    ccforest:::apply_blueprint(fit$blueprint, d, na_action = "impute_random", arg = "data"),
    fit$blueprint, ccforest:::prepare_response(d["Species"])
  )
  core <- ccforest:::core_options(fit$options, fit$seed, training)
  grown <- ccforest:::grow_on_futures(training, core, first_tree = 0L, n_tree = 10L,
                                      n_thread = 1L, n_batch = 5L, verbose = FALSE)
  # Five batches on two workers: the first batch on each worker carries the
  # data, the other three only their range of trees.
  expect_identical(grown$transfers$tasks, 5L)
  expect_identical(grown$transfers$with_shared, 2L)
  expect_identical(grown$transfers$misses, 0L)
  # Shared with each worker once: the data and the options twice, not five
  # times (the options' fixed size is not small beside 150 rows).
  shared_size <- as.double(object.size(training)) + as.double(object.size(core))
  expect_lt(grown$transfers$data_bytes, 3 * shared_size)
  expect_gt(grown$transfers$data_bytes, 2 * as.double(object.size(training)))
  expect_identical(grown$trees, fit$forest$trees)
  # Nothing is left on the workers.
  left <- future::value(lapply(1:2, function(i) future::future(ls(ccforest:::worker_store))))
  expect_identical(left, list(character(0), character(0)))
  # A worker that has lost the data (here: each task drops its worker's copy
  # when done) answers so, and the task is sent again with the data.
  forgetful <- function(shared, task, progress) {
    store <- asNamespace("ccforest")$worker_store
    rm(list = ls(store), envir = store)
    sum(shared$values) * task$k
  }
  environment(forgetful) <- baseenv()
  k <- 0L
  values <- list()
  stats <- ccforest:::run_futures(
    shared = list(values = 1:10),
    next_task = function() if (k < 5L) list(k = (k <<- k + 1L)),
    work = forgetful,
    keep = function(j, value) values[[j]] <<- value
  )
  expect_identical(values, as.list(55L * 1:5))
  expect_identical(stats$tasks, 5L + stats$misses)
  expect_identical(stats$misses, 3L)
  expect_identical(stats$with_shared, 5L)
})

test_that("a batch that finds no data on its worker is sent again with the data", {
  skip_if_no_future()
  local_plan(future::sequential)
  # run_job() is what runs on a worker: without the data and without a kept
  # copy it answers that it lacks them.
  version <- as.character(utils::packageVersion("ccforest"))
  job <- list(token = "never-sent", shared = NULL, keep = TRUE,
              work = function(shared, task, progress) stop("must not run"), task = list(),
              progress = NULL, version = version)
  out <- ccforest:::run_job(job)
  expect_true(out$miss)
  expect_match(out$worker, "process [0-9]+")
  # With a kept copy of the same run it works from it, and forget_shared()
  # drops it.
  job$shared <- list(value = 41)
  job$work <- function(shared, task, progress) shared$value + 1
  expect_identical(ccforest:::run_job(job)$value, 42)
  job$shared <- NULL
  expect_identical(ccforest:::run_job(job)$value, 42)
  ccforest:::forget_shared("never-sent")
  expect_true(ccforest:::run_job(job)$miss)
  # A worker with another version of ccforest refuses the work.
  job$version <- "0.0.1"
  expect_error(
    ccforest:::run_job(job),
    paste0("^A worker \\(.*, process [0-9]+\\) has ccforest ",
           gsub(".", "\\.", version, fixed = TRUE),
           ", but this R session has 0\\.0\\.1\\. Install the same version on every worker")
  )
})

test_that("progress reaches progressr handlers from every worker, n_tree steps in all", {
  skip_if_no_future()
  skip_if_not_installed("progressr")
  withr::local_options(progressr.enable = TRUE)
  record_progress <- function(expr) {
    seen <- list()
    withCallingHandlers(expr, progression = function(p) {
      seen[[length(seen) + 1L]] <<- list(type = p$type, amount = p$amount, steps = p$steps)
    })
    types <- vapply(seen, `[[`, character(1), "type")
    list(
      steps = as.numeric(seen[[which(types == "initiate")[[1L]]]]$steps),
      updates = sum(vapply(seen[types == "update"], `[[`, numeric(1), "amount")),
      finished = any(types == "finish")
    )
  }
  d <- future_class_data()
  local_plan(future::sequential)
  seen <- record_progress(ccforest(Species ~ ., data = d, n_tree = 23, seed = 1,
                                   backend = "future", n_batch = 3))
  expect_identical(seen, list(steps = 23, updates = 23, finished = TRUE))
  skip_on_cran()
  local_multisession()
  seen <- record_progress(ccforest(Species ~ ., data = d, n_tree = 31, seed = 1, n_thread = 1,
                                   backend = "future", n_batch = 4))
  expect_identical(seen, list(steps = 31, updates = 31, finished = TRUE))
  # A progressr handler shows it too.
  expect_output(
    progressr::with_progress(
      ccforest(Species ~ ., data = d, n_tree = 12, seed = 1, backend = "future"),
      handlers = progressr::handler_txtprogressbar(file = stdout())
    ),
    "100%"
  )
})

test_that("backend and n_batch are checked, and a missing or old future is named", {
  d <- future_class_data()
  expect_error(ccforest(Species ~ ., data = d, n_tree = 3, backend = "snow"),
               "`backend` must be one of \"threads\", \"future\", not \"snow\".", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = d, n_tree = 3, n_batch = 2),
               "`n_batch` (2) splits the trees into futures, so it needs backend = \"future\".",
               fixed = TRUE)
  expect_error(predict(ccforest(Species ~ ., data = d, n_tree = 3), d, backend = 1),
               "`backend` must be", fixed = TRUE)
  # Pretend future is absent, then too old.
  pretend <- function(version) {
    utils::assignInNamespace("suggested_version", function(package) {
      if (package == "future") version else utils::packageVersion(package)
    }, ns = "ccforest")
  }
  real <- ccforest:::suggested_version
  withr::defer(utils::assignInNamespace("suggested_version", real, ns = "ccforest"))
  pretend(NULL)
  expect_error(
    ccforest(Species ~ ., data = d, n_tree = 3, backend = "future"),
    paste0("backend = \"future\" needs the future package (version 1.49.0 or later), which is ",
           "not installed. Install it with install.packages(\"future\"), then choose where the ",
           "work runs with future::plan(); or use backend = \"threads\"."),
    fixed = TRUE
  )
  fit <- ccforest(Species ~ ., data = d, n_tree = 3, seed = 1)
  expect_error(predict(fit, d, backend = "future"), "which is not installed", fixed = TRUE)
  pretend(package_version("1.40.0"))
  expect_error(ccforest(Species ~ ., data = d, n_tree = 3, backend = "future"),
               "(version 1.49.0 or later), but version 1.40.0 is installed.", fixed = TRUE)
  # Without future, the threads backend works as ever.
  expect_identical(predict(fit, d, chunk_size = 10), predict(fit, d))
})

test_that("n_batch must be a count no larger than n_tree", {
  skip_if_no_future()
  local_plan(future::sequential)
  d <- future_class_data()
  # verbose = TRUE reports the batches as they come back.
  expect_output(ccforest(Species ~ ., data = d, n_tree = 9, seed = 1, backend = "future",
                         n_batch = 3, verbose = TRUE),
                "Grown 3 of 9 trees.*Grown 6 of 9 trees.*Grown 9 of 9 trees")
  # A plan without a fixed number of workers (some schedulers) needs n_batch.
  real <- ccforest:::plan_workers
  withr::defer(utils::assignInNamespace("plan_workers", real, ns = "ccforest"))
  utils::assignInNamespace("plan_workers", function() Inf, ns = "ccforest")
  expect_error(ccforest(Species ~ ., data = d, n_tree = 3, backend = "future"),
               paste0("The current future plan has no fixed number of workers, so ccforest cannot ",
                      "choose one batch per worker: say how many batches of trees to grow with ",
                      "`n_batch`."), fixed = TRUE)
  utils::assignInNamespace("plan_workers", real, ns = "ccforest")
  expect_error(ccforest(Species ~ ., data = d, n_tree = 3, backend = "future", n_batch = 4),
               paste0("`n_batch` must be at most `n_tree` (3), not 4: every batch grows at least ",
                      "one tree."), fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = d, n_tree = 3, backend = "future", n_batch = 0),
               "`n_batch` must be a single whole number >= 1, not 0.", fixed = TRUE)
  expect_error(ccforest(Species ~ ., data = d, n_tree = 3, backend = "future", n_batch = "2"),
               "`n_batch` must be a single whole number >= 1", fixed = TRUE)
})

test_that("a batch too large for its worker's memory, or a forest for this session, is refused", {
  skip_if_no_future()
  local_plan(future::sequential)
  d <- future_class_data()
  probe <- ccforest(Species ~ ., data = d, n_tree = 20, seed = 2, n_thread = 1)
  per_tree <- mean(lengths(probe$forest$trees)) + 56
  # One batch of 60 trees, grown in steps of 6: after 12 trees the batch is
  # projected at about 60 trees' worth, three times the limit.
  withr::local_options(ccforest.memory_limit = 20 * per_tree)
  expect_error(
    ccforest(Species ~ ., data = d, n_tree = 60, seed = 2, n_thread = 1, backend = "future",
             n_batch = 1),
    paste0("^Trees 1 to 60 \\(one batch\\) would need about .* of memory on worker .*process ",
           "[0-9]+.*, but only .* is available there\\. Use more batches \\(`n_batch`\\)")
  )
  # Six batches of 10 trees fit each worker, but not the merged forest in
  # this session.
  withr::local_options(ccforest.memory_limit = 25 * per_tree)
  expect_error(
    ccforest(Species ~ ., data = d, n_tree = 60, seed = 2, n_thread = 1, backend = "future",
             n_batch = 6),
    paste0("^The merged forest of 60 trees would need about .* of memory in this R session ",
           "\\(.* per tree, measured on the 10 received so far\\), but only .* is available\\.")
  )
})

test_that("an error on a worker stops the fit with its message, and the plan stays usable", {
  skip_if_no_future()
  skip_on_cran()
  # Workers that start with a memory limit of a few trees.
  local_multisession(rscript_startup = quote(options(ccforest.memory_limit = 20000)))
  d <- future_class_data()
  expect_error(
    ccforest(Species ~ ., data = d, n_tree = 400, seed = 2, n_thread = 1, backend = "future",
             n_batch = 4),
    "would need about .* of memory"
  )
  expect_identical(future::value(future::future(1 + 1)), 2)
  left <- future::value(lapply(1:2, function(i) future::future(ls(ccforest:::worker_store))))
  expect_identical(left, list(character(0), character(0)))
})

test_that("Ctrl-C during a fit on workers cancels the batches and frees the workers", {
  skip_if_no_future()
  skip_on_cran()
  skip_on_os("windows")
  child <- start_child_session(c(
    "options(ccforest.memory_limit = Inf, progressr.enable = TRUE)",
    "future::plan(future::multisession, workers = 2, rscript_libs = .libPaths())",
    "set.seed(1); n <- 50000; x <- matrix(rnorm(n * 10), n)",
    "y <- factor(x[, 1] + rnorm(n) > 0)",
    "say('started')",
    "t0 <- Sys.time()",
    # 2,000 trees on 50,000 rows take minutes on two workers; progress comes
    # after the first 50 trees of a batch.
    "r <- tryCatch(withCallingHandlers({",
    "  ccforest(x, y, n_tree = 2000, n_thread = 1, seed = 1, backend = 'future', n_batch = 4)",
    "  'finished'",
    "}, progression = function(p) if (identical(p$type, 'update')) say('progress')),",
    "interrupt = function(e) 'interrupted')",
    "say('result', r, as.numeric(difftime(Sys.time(), t0, units = 'secs')))",
    # Both workers take new work at once: the batches no longer run.
    "t1 <- Sys.time()",
    "pids <- future::value(lapply(1:2, function(i) future::future(Sys.getpid())))",
    "say('free', as.numeric(difftime(Sys.time(), t1, units = 'secs')))",
    "again <- ccforest(x[1:200, ], y[1:200], n_tree = 5, seed = 2, backend = 'future')",
    "say('usable', inherits(again, 'ccforest'))"
  ))
  info <- function() paste(c(child_lines(child$log), child_lines(child$output)), collapse = "\n")
  lines <- wait_for_line(child$log, "^progress", 300)
  expect_true(any(grepl("^progress", lines)), info = info())
  signalled <- Sys.time()
  tools::pskill(child_pid(lines), tools::SIGINT)
  lines <- wait_for_line(child$log, "^usable", 180)
  seconds <- as.numeric(difftime(Sys.time(), signalled, units = "secs"))
  expect_true(any(grepl("^result interrupted", lines)), info = info())
  expect_true(any(grepl("^usable TRUE", lines)), info = info())
  free <- as.numeric(sub("^free ", "", grep("^free", lines, value = TRUE)))
  # A batch has minutes of work left; cancelled, its worker is free at once.
  expect_lt(free, 30)
  expect_lt(seconds, 90)
})

test_that("Ctrl-C during a prediction on workers returns promptly and leaves no data behind", {
  # Releasing the workers' copies of the trees takes a future per worker:
  # after Ctrl-C the interrupted tasks drop their copies themselves instead.
  skip_if_no_future()
  skip_on_cran()
  skip_on_os("windows")
  child <- start_child_session(c(
    "options(ccforest.memory_limit = Inf)",
    "future::plan(future::multisession, workers = 2, rscript_libs = .libPaths())",
    "set.seed(1); n <- 50000; x <- matrix(rnorm(n * 10), n)",
    "y <- factor(x[, 1] + rnorm(n) > 0)",
    "fit <- ccforest(x[1:2000, ], y[1:2000], n_tree = 500, n_thread = 2, seed = 1)",
    "big_x <- x[rep(seq_len(n), 20), ]",
    "say('started')",
    "r <- tryCatch({",
    "  predict(fit, big_x, backend = 'future', n_thread = 1, chunk_size = 250000)",
    "  'finished'",
    "}, interrupt = function(e) 'interrupted')",
    "say('result', r, format(as.numeric(Sys.time()), digits = 15))",
    "left <- future::value(lapply(1:2, function(i) future::future(ls(ccforest:::worker_store))))",
    "say('left', length(unlist(left)))"
  ))
  info <- function() paste(c(child_lines(child$log), child_lines(child$output)), collapse = "\n")
  lines <- wait_for_line(child$log, "^started", 300)
  expect_true(any(grepl("^started", lines)), info = info())
  # The chunks are on the workers once the first has been encoded and sent.
  Sys.sleep(8)
  signalled <- as.numeric(Sys.time())
  tools::pskill(child_pid(lines), tools::SIGINT)
  lines <- wait_for_line(child$log, "^left", 180)
  expect_true(any(grepl("^result interrupted", lines)), info = info())
  returned <- as.numeric(strsplit(grep("^result", lines, value = TRUE), " ")[[1]][[3]])
  expect_lt(returned - signalled, 30)
  expect_true(any(grepl("^left 0", lines)), info = info())
})
