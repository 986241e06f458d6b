#!/usr/bin/env Rscript
# Latency of a forest served by vetiver and plumber on localhost, next to a
# direct predict() call in R (issue 35's goal: median request time for one
# row <= 10 ms through the API).
#
#   Rscript bench/comparisons/serving-api.R                    # 500 trees, 300 requests per model
#   Rscript bench/comparisons/serving-api.R --quick            # 50 trees, 50 requests
#   Rscript bench/comparisons/serving-api.R --trees 500 --requests 1000
#
# Models: a classifier of mlbench's LetterRecognition (16 features, 26
# classes; 16,000 training rows) served with type = "prob" (26
# probabilities per row), and a regression forest of BostonHousing (13
# features, one a factor; 400 training rows). The API runs in a child R
# process on 127.0.0.1 (vetiver_api() on a plumber router; one thread, as
# plumber serves). The client, this process, sends one-row requests one at
# a time (curl), each a different held-out row, after 20 warm-up requests,
# and times each from sending to the parsed answer, in two ways:
#   fresh       a new connection per request;
#   keep-alive  one connection reused: every request after the first on it
#               waits about 40 ms more, for the client's delayed ACK,
#               because httpuv (plumber's server) writes a response in
#               pieces without TCP_NODELAY (Nagle's algorithm holds the last
#               piece until the previous one is acknowledged). That is
#               httpuv's, outside ccforest and vetiver; it is measured so
#               that the numbers say what a client that keeps connections
#               open will see. Printed: median and 95% quantile of the request times, requests
# per second (requests / total time, one client), and the median time of
# predict() on one row here, which is the part of a request that is the
# forest's; the rest is HTTP, JSON and plumber. No competitor: ranger
# served by vetiver goes through the same plumber layers. What it prints goes
# to bench/results/serving-api.md (.md.tmp with --quick).
# Needs vetiver, plumber, curl, jsonlite and mlbench.

script_path <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])
source(file.path(dirname(script_path), "..", "common.R"))
BENCH_OPT <- bench_start(values = c("trees", "requests"), quick = TRUE)
bench_record("serving-api", "A forest served by vetiver and plumber: one-row request times")

quick <- bench_flag(BENCH_OPT, "quick")
n_tree <- bench_integer(BENCH_OPT, "trees", if (quick) 50L else 500L)
n_request <- bench_integer(BENCH_OPT, "requests", if (quick) 50L else 300L)
n_warmup <- 20L
suppressPackageStartupMessages({
  library(ccforest)
  invisible(loadNamespace("vetiver"))
})

commit <- tryCatch(
  system2("git", c("-C", dirname(script_path), "rev-parse", "--short", "HEAD"), stdout = TRUE),
  error = function(e) NA_character_)
uptime <- function() tryCatch(system("uptime", intern = TRUE), error = function(e) NA_character_)
cat("# bench/comparisons/serving-api.R\n")
cat(sprintf("commit %s, ccforest %s (%s), vetiver %s, plumber %s, R %s\n", commit,
            utils::packageVersion("ccforest"), dirname(find.package("ccforest")),
            utils::packageVersion("vetiver"), utils::packageVersion("plumber"),
            getRversion()))
cat(sprintf("%d trees, %d timed one-row requests per model (after %d warm-up)\n",
            n_tree, n_request, n_warmup))
cat("load at start:", uptime(), "\n")

set.seed(35)
letter <- mlb("LetterRecognition")
train <- sample(nrow(letter), 16000L)
letter_fit <- ccforest(lettr ~ ., data = letter[train, ], n_tree = n_tree, seed = 1)
letter_new <- letter[-train, -1L]
boston <- mlb("BostonHousing")
train_b <- sample(nrow(boston), 400L)
boston_fit <- ccforest(medv ~ ., data = boston[train_b, ], n_tree = n_tree, seed = 2)
boston_new <- boston[-train_b, setdiff(names(boston), "medv")]

routes <- list(
  "/letter" = list(model = vetiver::vetiver_model(letter_fit, "letter"),
                   args = list(type = "prob")),
  "/boston" = list(model = vetiver::vetiver_model(boston_fit, "boston"), args = list())
)
spec <- tempfile(fileext = ".rds")
saveRDS(routes, spec)
port <- httpuv::randomPort(host = "127.0.0.1")
child <- callr::r_bg(function(spec, port, libs) {
  .libPaths(libs)
  routes <- readRDS(spec)
  router <- plumber::pr()
  for (path in names(routes)) {
    router <- do.call(vetiver::vetiver_api, c(list(router, routes[[path]]$model, path = path,
                                                   debug = FALSE), routes[[path]]$args))
  }
  plumber::pr_run(router, host = "127.0.0.1", port = port, docs = FALSE, quiet = TRUE)
}, args = list(spec, port, .libPaths()), supervise = TRUE)
on.exit(child$kill(), add = TRUE)
url <- sprintf("http://127.0.0.1:%d", port)

kept <- curl::new_handle(timeout = 30)
curl::handle_setheaders(kept, "Content-Type" = "application/json")
post <- function(path, body, fresh = TRUE) {
  handle <- if (fresh) {
    curl::handle_setheaders(curl::new_handle(timeout = 30, forbid_reuse = 1L, fresh_connect = 1L),
                            "Content-Type" = "application/json")
  } else {
    kept
  }
  curl::handle_setopt(handle, customrequest = "POST", postfields = body)
  r <- curl::curl_fetch_memory(paste0(url, path), handle = handle)
  if (r$status_code != 200L) stop("HTTP ", r$status_code, ": ", rawToChar(r$content))
  jsonlite::fromJSON(rawToChar(r$content))
}
deadline <- Sys.time() + 120
repeat {
  up <- tryCatch(curl::curl_fetch_memory(paste0(url, "/ping"))$status_code == 200L,
                 error = function(e) FALSE)
  if (up) break
  if (!child$is_alive() || Sys.time() > deadline) {
    stop("The API did not start: ", paste(child$read_all_error_lines(), collapse = "\n"))
  }
  Sys.sleep(0.2)
}

one_row_json <- function(rows, i) {
  jsonlite::toJSON(rows[i, , drop = FALSE], dataframe = "rows", digits = NA)
}

measure <- function(path, fit, rows, type, fresh) {
  bodies <- lapply(seq_len(n_request + n_warmup), function(k) {
    one_row_json(rows, (k - 1L) %% nrow(rows) + 1L)
  })
  for (k in seq_len(n_warmup)) post(path, bodies[[k]], fresh)
  seconds <- numeric(n_request)
  answers <- vector("list", n_request)
  started <- Sys.time()
  for (k in seq_len(n_request)) {
    t0 <- Sys.time()
    answers[[k]] <- post(path, bodies[[n_warmup + k]], fresh)
    seconds[[k]] <- as.double(Sys.time() - t0, units = "secs")
  }
  total <- as.double(Sys.time() - started, units = "secs")
  # The same rows predicted here, one call per row.
  direct <- numeric(n_request)
  for (k in seq_len(n_request)) {
    i <- (n_warmup + k - 1L) %% nrow(rows) + 1L
    t0 <- Sys.time()
    p <- predict(fit, rows[i, , drop = FALSE], type = type)
    direct[[k]] <- as.double(Sys.time() - t0, units = "secs")
  }
  # A served answer that differs from predict() would make the times moot.
  served <- unlist(answers[[n_request]])
  same <- isTRUE(all.equal(unname(served), unname(as.vector(p)), tolerance = 1e-12))
  data.frame(
    model = path, connection = if (fresh) "fresh" else "keep-alive", trees = n_tree,
    median_ms = 1000 * stats::median(seconds),
    q95_ms = 1000 * unname(stats::quantile(seconds, 0.95)),
    requests_per_s = n_request / total,
    predict_median_ms = 1000 * stats::median(direct),
    api_over_predict = stats::median(seconds) / stats::median(direct),
    answer_equals_predict = same
  )
}

results <- rbind(
  measure("/letter", letter_fit, letter_new, "prob", fresh = TRUE),
  measure("/boston", boston_fit, boston_new, "response", fresh = TRUE),
  measure("/letter", letter_fit, letter_new, "prob", fresh = FALSE),
  measure("/boston", boston_fit, boston_new, "response", fresh = FALSE)
)
cat("\n")
print(format(results, digits = 3), row.names = FALSE)
cat("\ngoal: median one-row request <= 10 ms:",
    paste(sprintf("%s (%s) %s", results$model, results$connection,
                  ifelse(results$median_ms <= 10, "met", "NOT met")), collapse = ", "), "\n")
cat("load at end:", uptime(), "\n")
bench_finish()
