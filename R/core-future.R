# Growing trees and predicting on the future framework (backend = "future").
#
# Every tree is a pure function of (data, options, seed, tree number), so the
# trees can be grown anywhere, in any grouping, and merged in tree order: the
# forest is the one the threads backend grows. The work is cut into batches of
# contiguous trees (or chunks of rows, for prediction); each batch is one
# future on the user's plan (future::plan()), run with `n_thread` threads.
#
# What travels. A batch needs the encoded training set (for prediction: the
# trees), which is large, and its own range, which is small. On plans whose
# workers are persistent R processes (multisession, cluster), the large part
# is sent to each worker once and kept there for the following batches; a
# worker that turns out not to hold it (restarted, or first reached late)
# answers so and gets the batch again with the data. Elsewhere (sequential,
# callr, batchtools: a fresh process per future, or no transfer at all) it
# goes with every batch. After the work, the kept copies are released.

#' The installed version of a suggested package, or NULL if it cannot be
#' loaded (a function, so that tests can pretend it is absent or old)
#' @noRd
suggested_version <- function(package) {
  if (!requireNamespace(package, quietly = TRUE)) {
    return(NULL)
  }
  utils::packageVersion(package)
}

#' @noRd
has_package <- function(package) !is.null(suggested_version(package))

#' The oldest future with what the backend uses (cancel(), to stop batches)
#' @noRd
future_min_version <- "1.49.0"

#' The execution backend: "threads" (this process) or "future" (the current
#' future::plan()), which needs the future package
#' @noRd
check_backend <- function(backend) {
  # The default, on every served call.
  if (identical(backend, "threads")) {
    return(backend)
  }
  backend <- check_choice(backend, "backend", c("threads", "future"))
  if (backend == "future") {
    installed <- suggested_version("future")
    if (is.null(installed) || installed < future_min_version) {
      stop(sprintf(paste0(
        "backend = \"future\" needs the future package (version %s or later), %s. ",
        "Install it with install.packages(\"future\"), then choose where the work runs with ",
        "future::plan(); or use backend = \"threads\"."), future_min_version,
        if (is.null(installed)) "which is not installed" else
          sprintf("but version %s is installed", format(installed))), call. = FALSE)
    }
  }
  backend
}

#' Number of workers of the current plan (Inf for some schedulers)
#' @noRd
plan_workers <- function() {
  n <- suppressWarnings(as.numeric(future::nbrOfWorkers()))
  if (length(n) != 1L || is.na(n) || n < 1) 1 else n
}

#' Batches of trees: `n_batch`, or one per worker of the plan (at most one
#' per tree)
#' @noRd
resolve_n_batch <- function(n_batch, n_tree, backend) {
  if (is.null(n_batch)) {
    if (backend != "future") {
      return(1L)
    }
    workers <- plan_workers()
    if (!is.finite(workers)) {
      stop("The current future plan has no fixed number of workers, so ccforest cannot ",
           "choose one batch per worker: say how many batches of trees to grow with `n_batch`.",
           call. = FALSE)
    }
    return(as.integer(min(n_tree, workers)))
  }
  n_batch <- check_count(n_batch, "n_batch", min = 1L)
  if (backend != "future") {
    stop(sprintf("`n_batch` (%d) splits the trees into futures, so it needs backend = \"future\".",
                 n_batch), call. = FALSE)
  }
  if (n_batch > n_tree) {
    stop(sprintf(paste0("`n_batch` must be at most `n_tree` (%d), not %d: every batch grows ",
                        "at least one tree."), n_tree, n_batch), call. = FALSE)
  }
  n_batch
}

#' Split `n` items into `k` contiguous runs of near-equal length
#' @return A data.frame with the 0-based `start` and the `size` of each run.
#' @noRd
contiguous_runs <- function(n, k) {
  size <- rep(n %/% k, k) + (seq_len(k) <= n %% k)
  data.frame(start = c(0, cumsum(size)[-k]), size = size)
}

# ---------------------------------------------------------------------------
# Growing

#' Grow trees first_tree, ..., first_tree + n_tree - 1 (0-based) as futures
#'
#' @return What grow_trees() returns (trees in tree order and the feature x
#'   tree importance matrix), with `transfers`: how the work travelled.
#' @noRd
grow_on_futures <- function(training, core, first_tree, n_tree, n_thread, n_batch, verbose,
                            limit = memory_limit()) {
  runs <- contiguous_runs(n_tree, n_batch)
  # Progress about ten times per batch, in steps of at least a few trees per
  # thread so that splitting a batch costs little.
  runs$step <- pmax(ceiling(runs$size / 10), pmin(runs$size, 4L * n_thread))
  shared <- list(training = training, core = core, n_thread = n_thread)
  grown <- vector("list", n_batch)
  stored <- 0
  done <- 0
  progress <- new_progressor(n_tree)
  next_batch <- local({
    j <- 0L
    function() {
      if (j >= n_batch) return(NULL)
      j <<- j + 1L
      list(first = first_tree + runs$start[[j]], n = runs$size[[j]], step = runs$step[[j]])
    }
  })
  keep <- function(j, value) {
    grown[[j]] <<- value
    # This session holds the merged forest: check that all of it will fit,
    # extrapolating from the batches received so far.
    stored <<- stored + sum(lengths(value$trees)) + 56 * length(value$trees)
    done <<- done + length(value$trees)
    projected <- stored / done * n_tree
    if (projected > limit) {
      stop(sprintf(paste0(
        "The merged forest of %s trees would need about %s of memory in this R session ",
        "(%s per tree, measured on the %s received so far), but only %s is available. ",
        "Reduce `n_tree`, or grow ranges of trees in separate jobs (`first_tree`) and keep ",
        "them apart, or grow smaller trees with a larger `min_leaf` or a `max_depth`."),
        format(n_tree, big.mark = ","), format_bytes(projected), format_bytes(stored / done),
        format(done, big.mark = ","), format_bytes(limit)), call. = FALSE)
    }
    if (verbose) {
      cat(sprintf("Grown %d of %d trees (%d batches on the future plan)\n", done, n_tree,
                  n_batch))
    }
  }
  transfers <- run_futures(shared, next_batch, grow_batch, keep, progress,
                           label = "ccforest-grow")
  c(bind_grown(grown), list(transfers = transfers))
}

#' Join what grow_trees() returned for consecutive ranges of trees, in tree
#' order: per-tree lists are concatenated, per-tree matrix columns bound
#' @noRd
bind_grown <- function(parts) {
  if (length(parts) == 1L) return(parts[[1L]])
  fields <- names(parts[[1L]])
  out <- lapply(fields, function(name) {
    pieces <- lapply(parts, `[[`, name)
    if (is.matrix(pieces[[1L]])) {
      do.call(cbind, pieces)
    } else {
      unlist(pieces, recursive = FALSE, use.names = FALSE)
    }
  })
  stats::setNames(out, fields)
}

#' On a worker: grow one batch of trees, in steps, signalling progress after
#' each, under this worker's own memory limit
#' @noRd
grow_batch <- function(shared, batch, progress) {
  n <- batch$n
  steps <- list()
  limit <- memory_limit()
  stored <- 0
  done <- 0L
  while (done < n) {
    k <- as.integer(min(batch$step, n - done))
    grown <- grow_trees(shared$training, shared$core, first_tree = batch$first + done,
                        n_tree = k, n_thread = shared$n_thread, verbose = FALSE,
                        limit = max(limit - stored, 1))
    steps[[length(steps) + 1L]] <- grown
    stored <- stored + sum(lengths(grown$trees)) + 56 * k
    done <- done + k
    projected <- stored / done * n
    if (done < n && done >= min(10L, n) && projected > limit) {
      stop(sprintf(paste0(
        "Trees %s to %s (one batch) would need about %s of memory on worker %s, but only %s ",
        "is available there. Use more batches (`n_batch`), or grow smaller trees with a larger ",
        "`min_leaf` or a `max_depth`."),
        format(batch$first + 1, scientific = FALSE), format(batch$first + n, scientific = FALSE),
        format_bytes(projected), worker_id(), format_bytes(limit)), call. = FALSE)
    }
    if (!is.null(progress)) progress(amount = k)
  }
  bind_grown(steps)
}

# ---------------------------------------------------------------------------
# Predicting

#' The averaged leaf values of the first `n_tree` trees for the rows of
#' `new_data`, chunk by chunk: in this process (bounded memory) or as futures
#'
#' @param new_data A data.frame or matrix, or a function returning the next
#'   piece of rows on each call and NULL after the last.
#' @noRd
predict_in_chunks <- function(object, new_data, na_action, n_tree, n_thread, impute_random,
                              backend, chunk_size) {
  reader <- is.function(new_data)
  if (is.null(chunk_size) && backend == "future" && !reader) {
    chunk_size <- max(1, ceiling((nrow(new_data) %||% 1L) / plan_workers()))
  }
  next_chunk <- chunk_source(new_data, chunk_size)
  encode <- function(rows) predictor_matrix(object, rows, na_action)
  values <- list()
  keep <- function(j, value) values[[j]] <<- value
  impute_random <- impute_random || imputes_at_random(object)
  collect_conditions(if (backend == "threads") {
    j <- 0L
    while (!is.null(rows <- next_chunk())) {
      j <- j + 1L
      keep(j, predict_values(object, encode(rows), n_tree, n_thread, impute_random))
    }
  } else {
    shared <- predict_request(object, n_tree, n_thread, impute_random, for_workers = TRUE)
    next_task <- function() {
      rows <- next_chunk()
      if (is.null(rows)) NULL else list(x = encode(rows))
    }
    core_call(object, run_futures(shared, next_task, predict_chunk, keep, progress = NULL,
                                  label = "ccforest-predict"))
  })
  if (length(values) == 0L) {
    return(matrix(0, 0L, prediction_width(object$response)))
  }
  do.call(rbind, values)
}

#' On a worker: predict one chunk of encoded rows
#' @noRd
predict_chunk <- function(shared, task, progress) {
  ccf_predict_cpp(shared, task$x)
}

#' A function returning the next chunk of rows of `new_data`, NULL at the end
#' @noRd
chunk_source <- function(new_data, chunk_size) {
  if (!is.function(new_data) && !is.data.frame(new_data) && !is.matrix(new_data) &&
      !is_sparse_matrix(new_data)) {
    # Not rows at all: handed on whole, for the usual message about it.
    given <- FALSE
    return(function() {
      if (given) return(NULL)
      given <<- TRUE
      new_data
    })
  }
  if (!is.function(new_data)) {
    n <- nrow(new_data) %||% 0L
    size <- chunk_size %||% max(n, 1L)
    starts <- if (n == 0L) 1L else seq(1, n, by = size)
    j <- 0L
    return(function() {
      if (j >= length(starts)) return(NULL)
      j <<- j + 1L
      rows <- seq.int(starts[[j]], length.out = min(size, max(n - starts[[j]] + 1L, 0L)))
      new_data[rows, , drop = FALSE]
    })
  }
  piece <- NULL
  at <- 1L
  function() {
    repeat {
      if (!is.null(piece) && at <= nrow(piece)) {
        size <- chunk_size %||% nrow(piece)
        rows <- seq.int(at, min(nrow(piece), at + size - 1L))
        at <<- at + length(rows)
        return(piece[rows, , drop = FALSE])
      }
      piece <<- new_data()
      at <<- 1L
      if (is.null(piece)) return(NULL)
      if (!is.data.frame(piece) && !is.matrix(piece)) {
        stop(sprintf(paste0(
          "`new_data` is a function, so each call must return the next rows as a data.frame or ",
          "a matrix (NULL after the last), but it returned %s."), class_label(piece)),
          call. = FALSE)
      }
    }
  }
}

#' Evaluate `expr`, showing each distinct warning and message once at the
#' end: chunk after chunk would otherwise repeat the same warning about an
#' unseen level
#' @noRd
collect_conditions <- function(expr) {
  seen <- list()
  record <- function(condition) {
    key <- paste(class(condition)[[1L]], conditionMessage(condition))
    if (!key %in% names(seen)) seen[[key]] <<- condition
  }
  withCallingHandlers(expr,
    warning = function(w) {
      record(w)
      invokeRestart("muffleWarning")
    },
    message = function(m) {
      record(m)
      invokeRestart("muffleMessage")
    }
  )
  for (condition in seen) {
    if (inherits(condition, "warning")) warning(condition) else message(condition)
  }
  invisible()
}

# ---------------------------------------------------------------------------
# The scheduler

#' Run tasks as futures on the current plan and hand each value to `keep`
#'
#' At most one task per worker runs at a time; values are passed to
#' `keep(index, value)` as they arrive (in any order), with `index` the
#' task's position in the sequence `next_task()` produced. If anything fails,
#' or R is interrupted, the outstanding futures are cancelled.
#'
#' @param shared What every task needs: sent once per worker on plans with
#'   persistent workers, with every task elsewhere.
#' @param next_task A function returning the next task, NULL when none is left.
#' @param work A function of this package, `work(shared, task, progress)`,
#'   run on the worker.
#' @param progress A progressr progressor, or NULL.
#' @return How the work travelled: `tasks`, `with_shared` (futures that
#'   carried `shared`), `misses` (tasks sent again because their worker lacked
#'   it) and `data_bytes` (the size in memory of the data the futures carried,
#'   by object.size(); each future also carries the code it runs, a few KB).
#' @noRd
run_futures <- function(shared, next_task, work, keep, progress = NULL, label = "ccforest") {
  persistent <- inherits(future::plan("next"), "cluster")
  slots <- plan_workers()
  token <- if (persistent) new_token() else NULL
  version <- ccforest_version()
  running <- list()
  retry <- list()
  index <- 0L
  exhausted <- FALSE
  stats <- list(tasks = 0L, with_shared = 0L, misses = 0L, data_bytes = 0)
  finished <- FALSE
  interrupted <- FALSE
  on.exit({
    if (!finished) stop_futures(running)
    # Releasing takes a new future per worker, a second or more: after
    # Ctrl-C control comes back first. The interrupted tasks' workers drop
    # their copies themselves (run_job()); an idle worker keeps its copy until
    # the next run replaces it or the plan ends.
    if (persistent && stats$with_shared > 0L && !interrupted) release_shared(token, slots)
  }, add = TRUE)

  launch <- function(item) {
    # The first task for each worker carries the shared data; later ones
    # count on the worker having kept it (and are sent again if not).
    send <- !persistent || isTRUE(item$resend) || stats$with_shared < slots
    job <- list(token = token, shared = if (send) shared, keep = persistent, work = work,
                task = item$task, progress = progress, version = version)
    f <- future::future(run_job(job), globals = list(run_job = run_job, job = job),
                        packages = "ccforest", seed = FALSE,
                        label = sprintf("%s-%d", label, item$index))
    stats$tasks <<- stats$tasks + 1L
    stats$with_shared <<- stats$with_shared + send
    stats$data_bytes <<- stats$data_bytes + as.double(utils::object.size(job$shared)) +
      as.double(utils::object.size(job$task))
    c(item, list(future = f))
  }

  wait <- 0.005
  withCallingHandlers(repeat {
    while (length(running) < slots && (length(retry) > 0L || !exhausted)) {
      if (length(retry) > 0L) {
        item <- retry[[1L]]
        retry <- retry[-1L]
      } else {
        task <- next_task()
        if (is.null(task)) {
          exhausted <- TRUE
          break
        }
        index <- index + 1L
        item <- list(index = index, task = task)
      }
      running[[length(running) + 1L]] <- launch(item)
    }
    if (length(running) == 0L) break
    # resolved() also relays the workers' progress signals.
    done <- vapply(running, function(r) future::resolved(r$future), logical(1))
    if (!any(done)) {
      Sys.sleep(wait)
      wait <- min(0.1, wait * 1.5)
      next
    }
    wait <- 0.005
    finished_now <- running[done]
    running <- running[!done]
    for (r in finished_now) {
      out <- future::value(r$future)
      if (isTRUE(out$miss)) {
        # The worker lacked the shared data: send the task again, with it.
        stats$misses <- stats$misses + 1L
        retry[[length(retry) + 1L]] <- list(index = r$index, task = r$task, resend = TRUE)
        next
      }
      keep(r$index, out$value)
    }
  }, interrupt = function(e) interrupted <<- TRUE)
  finished <- TRUE
  stats
}

#' On a worker: run one task, with the shared data sent along or kept from an
#' earlier task of the same run
#'
#' The code runs in the worker's own installation of ccforest, which must be
#' the version of this session: another version may grow other trees.
#' @noRd
run_job <- function(job) {
  installed <- ccforest_version()
  if (!identical(installed, job$version)) {
    stop(sprintf(paste0(
      "A worker (%s, process %d) has ccforest %s, but this R session has %s. Install the same ",
      "version on every worker (or give the workers this session's library paths): other ",
      "versions may grow other trees."), Sys.info()[["nodename"]], Sys.getpid(), installed,
      job$version), call. = FALSE)
  }
  worker <- worker_id()
  shared <- job$shared
  if (is.null(shared)) {
    if (!identical(worker_store$token, job$token)) {
      return(list(miss = TRUE, worker = worker))
    }
    shared <- worker_store$shared
  } else if (isTRUE(job$keep)) {
    # One shared object per worker: a new run replaces what an older one left.
    worker_store$token <- job$token
    worker_store$shared <- shared
  }
  # Cancelled (Ctrl-C in the session that launched it), the task drops the
  # run's shared data, which nothing will use again.
  value <- withCallingHandlers(
    job$work(shared, job$task, job$progress),
    interrupt = function(e) if (isTRUE(job$keep)) forget_shared(job$token)
  )
  list(miss = FALSE, worker = worker, value = value)
}

#' What a persistent worker keeps between the tasks of one run
#' @noRd
worker_store <- new.env(parent = emptyenv())

#' On a worker: drop what the run `token` left, and say who did
#' @noRd
forget_shared <- function(token) {
  if (identical(worker_store$token, token)) {
    rm(list = c("token", "shared"), envir = worker_store)
  }
  worker_id()
}

#' Release the workers' copies of the shared data: one small future per free
#' worker, launched together so that each lands on a different one (best
#' effort: a worker busy with other futures keeps its copy until the next run
#' replaces it or the plan shuts it down)
#' @noRd
release_shared <- function(token, n_worker) {
  tryCatch({
    n_free <- suppressWarnings(as.numeric(future::nbrOfFreeWorkers()))
    n <- min(n_worker, if (length(n_free) == 1L && !is.na(n_free)) n_free else 0)
    futures <- lapply(seq_len(n), function(i) {
      future::future(forget_shared(token), globals = list(forget_shared = forget_shared,
                                                          token = token),
                     packages = "ccforest", seed = FALSE, label = "ccforest-release")
    })
    for (f in futures) future::value(f)
  }, error = function(e) NULL, interrupt = function(e) NULL)
  invisible()
}

#' Cancel futures still running (after an error or an interrupt) and collect
#' them, so their workers are free again
#' @noRd
stop_futures <- function(running) {
  if (length(running) == 0L) return(invisible())
  futures <- lapply(running, `[[`, "future")
  tryCatch({
    future::cancel(futures)
    for (f in futures) tryCatch(future::value(f), error = function(e) NULL)
  }, error = function(e) NULL, interrupt = function(e) NULL)
  invisible()
}

#' Which R process this is, on which machine
#' @noRd
worker_id <- function() {
  sprintf("%s (process %d)", Sys.info()[["nodename"]], Sys.getpid())
}

#' A name for one run, unique enough among this session's runs, drawn
#' without touching R's random number stream
#' @noRd
new_token <- function() {
  basename(tempfile(sprintf("ccforest-%d-", Sys.getpid())))
}

#' A progressr progressor over `steps` steps, or NULL without progressr
#'
#' It belongs to the caller's frame, so progress ends when the caller
#' returns.
#' @noRd
new_progressor <- function(steps, envir = parent.frame()) {
  if (!has_package("progressr")) {
    return(NULL)
  }
  progressr::progressor(steps = steps, envir = envir)
}
