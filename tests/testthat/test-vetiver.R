# Deployment with vetiver: the prototype a forest records, the pins round
# trip, and a real plumber API in a child process answered over HTTP, whose
# answers must be predict()'s in this session.
skip_if_not_installed("vetiver")
skip_if_not_installed("plumber")
skip_if_not_installed("pins")
skip_if_not_installed("curl")
skip_if_not_installed("jsonlite")
skip_if_not_installed("callr")

# Loading vetiver here registers ccforest's methods on its generics.
loadNamespace("vetiver")

flowers <- function() {
  d <- iris
  d$colour <- factor(rep(c("red", "green", "blue"), length.out = nrow(d)))
  d$day <- as.Date("2024-01-01") + seq_len(nrow(d)) - 1L
  d
}

test_that("vetiver_model() records the features, their types and levels", {
  d <- flowers()
  fit <- ccforest(Species ~ ., data = d, n_tree = 10, seed = 1)
  v <- vetiver::vetiver_model(fit, "flowers")
  expect_s3_class(v, "vetiver_model")
  expect_match(v$description, "classification forest of 10 trees")
  expect_identical(v$metadata$required_pkgs, "ccforest")
  ptype <- v$prototype
  expect_identical(nrow(ptype), 0L)
  expect_identical(names(ptype), setdiff(names(d), "Species"))
  expect_identical(levels(ptype$colour), levels(d$colour))
  expect_s3_class(ptype$day, "Date")
  expect_type(ptype$Sepal.Length, "double")

  # x, y fits: the blueprint's names; ordered factors stay ordered.
  x <- data.frame(a = c(1.5, 2, 3, 4), b = factor(c("lo", "hi", "lo", "hi"), ordered = TRUE))
  xy <- ccforest(x, c(1, 2, 3, 4), n_tree = 5, seed = 1)
  p <- vetiver::vetiver_model(xy, "xy")$prototype
  expect_identical(names(p), c("a", "b"))
  expect_true(is.ordered(p$b))
  expect_identical(levels(p$b), levels(x$b))
})

test_that("a formula's computed terms ask for the columns they read", {
  d <- flowers()
  fit <- ccforest(Sepal.Length ~ log(Petal.Length) + Species, data = d, n_tree = 5, seed = 1)
  p <- vetiver::vetiver_ptype(fit)
  expect_identical(names(p), c("Petal.Length", "Species"))
  expect_type(p$Petal.Length, "double")
  expect_identical(levels(p$Species), levels(d$Species))
  p <- vetiver::vetiver_ptype(fit, prototype_data = data.frame(Petal.Length = 1L))
  expect_type(p$Petal.Length, "integer")

  # A non-numeric term's column has no recorded type.
  coded <- ccforest(Sepal.Length ~ factor(colour == "red") + Petal.Length, data = d,
                    n_tree = 5, seed = 1)
  expect_error(vetiver::vetiver_ptype(coded),
               "type of column `colour`, which feature `factor\\(colour == \"red\"\\)`.*prototype_data")
  expect_identical(levels(vetiver::vetiver_ptype(coded, prototype_data = d)$colour),
                   levels(d$colour))
  expect_error(vetiver::vetiver_ptype(fit, prototype_data = as.matrix(d[1:3])),
               "`prototype_data` must be a data.frame, not <double matrix>")
  expect_error(vetiver::vetiver_ptype(fit, prototype = d), "prototype")
})

test_that("a pinned forest reads back and predicts as the fit", {
  d <- flowers()
  fit <- ccforest(Species ~ ., data = d, n_tree = 10, seed = 1)
  board <- pins::board_temp()
  suppressMessages(vetiver::vetiver_pin_write(board, vetiver::vetiver_model(fit, "flowers")))
  v <- vetiver::vetiver_pin_read(board, "flowers")
  expect_identical(predict(v, d[c(1, 60, 120), ], type = "prob"),
                   predict(fit, d[c(1, 60, 120), ], type = "prob"))
  expect_identical(names(v$prototype), setdiff(names(d), "Species"))
})

# ---- the API over HTTP ---------------------------------------------------

# Serves `routes` (a list of vetiver_model()s with their predict() arguments,
# named by path) from a child R process on 127.0.0.1; the child is killed
# when the calling test ends, however it ends. The child attaches no
# package: unbundling the model must load ccforest (from the same
# libraries as this session) and register its methods, as in a deployment
# from a pin.
serve_routes <- function(routes, envir = parent.frame()) {
  port <- httpuv::randomPort(host = "127.0.0.1")
  spec <- withr::local_tempfile(fileext = ".rds", .local_envir = envir)
  saveRDS(routes, spec)
  child <- callr::r_bg(function(spec, port, libs) {
    .libPaths(libs)
    routes <- readRDS(spec)
    router <- plumber::pr()
    for (path in names(routes)) {
      router <- do.call(vetiver::vetiver_api, c(
        list(router, routes[[path]]$model, path = path, debug = FALSE), routes[[path]]$args))
    }
    plumber::pr_run(router, host = "127.0.0.1", port = port, docs = FALSE, quiet = TRUE)
  }, args = list(spec, port, .libPaths()), supervise = TRUE)
  withr::defer(child$kill(), envir = envir)
  url <- sprintf("http://127.0.0.1:%d", port)
  # Starting R, vetiver and plumber takes seconds; give up after a minute.
  deadline <- Sys.time() + 60
  repeat {
    status <- tryCatch(http_get(paste0(url, "/ping"))$status, error = function(e) NA)
    if (identical(status, 200L)) break
    if (!child$is_alive() || Sys.time() > deadline) {
      stop("The API did not start: ", paste(child$read_all_error_lines(), collapse = "\n"))
    }
    Sys.sleep(0.2)
  }
  url
}

http_get <- function(url) {
  r <- curl::curl_fetch_memory(url, handle = curl::new_handle(timeout = 20))
  list(status = r$status_code)
}

# POSTs `body` (JSON text) and returns the status, the answer read back with
# jsonlite and the response's headers.
post_json <- function(url, body) {
  h <- curl::new_handle(timeout = 20, customrequest = "POST", postfields = body)
  curl::handle_setheaders(h, "Content-Type" = "application/json")
  r <- curl::curl_fetch_memory(url, handle = h)
  list(status = r$status_code,
       answer = jsonlite::fromJSON(rawToChar(r$content)),
       headers = curl::parse_headers_list(r$headers))
}

rows_json <- function(rows) {
  jsonlite::toJSON(rows, dataframe = "rows", na = "null", digits = NA, Date = "ISO8601")
}

predict_message <- function(expr) tryCatch(expr, error = conditionMessage)

test_that("the API answers what predict() answers, and refuses bad rows with its message", {
  skip_on_cran()
  skip_if_not_installed("httpuv")
  d <- flowers()
  train <- d[-(1:10), ]
  fit <- ccforest(Species ~ ., data = train, n_tree = 20, seed = 1)
  reg <- ccforest(Sepal.Length ~ ., data = train, n_tree = 20, seed = 2)
  lung <- survival::lung
  surv <- ccforest(survival::Surv(time, status) ~ age + sex + ph.ecog, data = lung,
                   n_tree = 20, seed = 3)
  url <- serve_routes(list(
    "/class" = list(model = vetiver::vetiver_model(fit, "flowers")),
    "/prob" = list(model = vetiver::vetiver_model(fit, "flowers"), args = list(type = "prob")),
    "/regression" = list(model = vetiver::vetiver_model(reg, "sepals")),
    "/risk" = list(model = vetiver::vetiver_model(surv, "lung")),
    "/survival" = list(model = vetiver::vetiver_model(surv, "lung"),
                       args = list(type = "survival", times = c(180, 365)))
  ))
  new <- d[1:10, setdiff(names(d), "Species")]

  # One row, then many.
  one <- post_json(paste0(url, "/class"), rows_json(new[3, ]))
  expect_identical(one$status, 200L)
  expect_identical(one$answer$.pred_class, as.character(predict(fit, new[3, ])))
  many <- post_json(paste0(url, "/prob"), rows_json(new))
  expect_identical(many$status, 200L)
  expected <- predict(fit, new, type = "prob")
  expect_identical(names(many$answer), paste0(".pred_", colnames(expected)))
  expect_equal(unname(as.matrix(many$answer)), unname(expected), tolerance = 1e-12)
  # One request per connection (?ccforest_vetiver, latency): the answer says
  # so, and a client that keeps its connection still gets every answer.
  expect_identical(one$headers$connection, "close")
  kept <- curl::new_handle(timeout = 20, customrequest = "POST", postfields = rows_json(new[3, ]))
  curl::handle_setheaders(kept, "Content-Type" = "application/json")
  for (k in 1:3) {
    again <- curl::curl_fetch_memory(paste0(url, "/class"), handle = kept)
    expect_identical(again$status_code, 200L)
    expect_identical(jsonlite::fromJSON(rawToChar(again$content))$.pred_class,
                     one$answer$.pred_class)
  }
  # One JSON object is one row.
  single <- post_json(paste0(url, "/class"), jsonlite::toJSON(as.list(new[5, ]),
                                                              auto_unbox = TRUE, digits = NA))
  expect_identical(single$answer$.pred_class, as.character(predict(fit, new[5, ])))

  # A missing value is imputed as predict() imputes it.
  holed <- new[1:3, ]
  holed$Petal.Length[2] <- NA
  holed$colour[3] <- NA
  answer <- post_json(paste0(url, "/prob"), rows_json(holed))
  expect_identical(answer$status, 200L)
  expect_equal(unname(as.matrix(answer$answer)), unname(predict(fit, holed, type = "prob")),
               tolerance = 1e-12)
  # ... also when the column's only value is null.
  nulls <- post_json(paste0(url, "/prob"), sub("\"colour\":\"red\"", "\"colour\":null",
                                                 rows_json(new[1, ])))
  lone <- new[1, ]
  lone$colour[1] <- NA
  expect_equal(unname(as.matrix(nulls$answer)), unname(predict(fit, lone, type = "prob")),
               tolerance = 1e-12)

  # An unseen level: predict()'s prediction, its warning in the header.
  odd <- new[1:2, ]
  odd$colour <- as.character(odd$colour)
  odd$colour[1] <- "purple"
  expect_warning(reference <- predict(fit, odd, type = "prob"), "purple")
  answer <- post_json(paste0(url, "/prob"), rows_json(odd))
  expect_identical(answer$status, 200L)
  expect_equal(unname(as.matrix(answer$answer)), unname(reference), tolerance = 1e-12)
  expect_match(answer$headers$warning, "^199 ccforest \".*`purple`.*not seen when fitting")

  # Rows predict() refuses: status 400 and predict()'s message.
  no_width <- new[1:2, setdiff(names(new), "Petal.Width")]
  answer <- post_json(paste0(url, "/class"), rows_json(no_width))
  expect_identical(answer$status, 400L)
  expect_identical(answer$answer$error, predict_message(predict(fit, no_width)))
  expect_match(answer$answer$error, "missing column(s) `Petal.Width`", fixed = TRUE)
  wrong <- new[1:2, ]
  wrong$Petal.Width <- c("wide", "narrow")
  answer <- post_json(paste0(url, "/class"), rows_json(wrong))
  expect_identical(answer$status, 400L)
  expect_identical(answer$answer$error, predict_message(predict(fit, wrong)))
  # Bodies that hold no rows.
  answer <- post_json(paste0(url, "/class"), "[1, 2, 3]")
  expect_identical(answer$status, 400L)
  expect_match(answer$answer$error, "must be a JSON array of objects, one per row")
  answer <- post_json(paste0(url, "/class"), "{}")
  expect_identical(answer$status, 400L)
  expect_match(answer$answer$error, "it has no rows")
  answer <- post_json(paste0(url, "/class"), "{\"Sepal.Length\": [1, 2], \"colour\": [\"red\"]}")
  expect_identical(answer$status, 400L)
  expect_match(answer$answer$error, "or one object whose values are the row's features")
  # Not JSON at all: plumber's parser refuses it before the forest sees it.
  answer <- post_json(paste0(url, "/class"), "[{\"Sepal.Length\": 5.1,")
  expect_identical(answer$status, 500L)
  expect_identical(answer$answer$error, "500 - Internal server error")

  # The server goes on serving after all that.
  expect_identical(http_get(paste0(url, "/ping"))$status, 200L)
  again <- post_json(paste0(url, "/class"), rows_json(new))
  expect_identical(again$answer$.pred_class, as.character(predict(fit, new)))

  # Regression: the predicted mean, whole.
  answer <- post_json(paste0(url, "/regression"), rows_json(d[1:10, -1]))
  expect_identical(answer$status, 200L)
  expect_equal(answer$answer$.pred, unname(predict(reg, d[1:10, -1])), tolerance = 1e-12)

  # Survival: risk by default, curves at the API's times as nested rows.
  rows <- lung[c(1, 5, 14), c("age", "sex", "ph.ecog")]
  rows$ph.ecog[2] <- NA
  answer <- post_json(paste0(url, "/risk"), rows_json(rows))
  expect_equal(answer$answer$.pred_risk, unname(predict(surv, rows)), tolerance = 1e-12)
  answer <- post_json(paste0(url, "/survival"), rows_json(rows))
  curves <- predict(surv, rows, type = "survival", times = c(180, 365))
  expect_length(answer$answer$.pred, 3L)
  for (i in 1:3) {
    expect_equal(answer$answer$.pred[[i]]$.eval_time, c(180, 365))
    expect_equal(answer$answer$.pred[[i]]$.pred_survival, unname(curves[i, ]),
                 tolerance = 1e-12)
  }
})

test_that("a workflow with the ccforest engine is served by vetiver's workflow methods", {
  skip_on_cran()
  skip_if_not_installed("httpuv")
  skip_if_not_installed("parsnip")
  skip_if_not_installed("workflows")
  loadNamespace("parsnip")
  d <- flowers()
  spec <- parsnip::set_engine(parsnip::rand_forest(trees = 20, mode = "classification"),
                              "ccforest", seed = 1)
  wf <- workflows::add_formula(workflows::add_model(workflows::workflow(), spec),
                               Species ~ Sepal.Length + Sepal.Width + Petal.Length +
                                 Petal.Width + colour)
  fitted <- parsnip::fit(wf, data = d[-(1:10), ])
  v <- vetiver::vetiver_model(fitted, "flowers_wf")
  expect_identical(levels(v$prototype$colour), levels(d$colour))
  url <- serve_routes(list("/predict" = list(model = v)))
  new <- d[1:10, ]
  answer <- post_json(paste0(url, "/predict"), rows_json(new[, names(v$prototype)]))
  expect_identical(answer$status, 200L)
  expect_identical(answer$answer$.pred_class, as.character(predict(fitted, new)$.pred_class))
})

test_that("answers are JSON that reads back to the same values", {
  answer_json <- ccforest:::answer_json
  flat <- data.frame(.pred = c(1 / 3, NA, 1e-20, 123456789012), .pred_class = c("a", NA, "b", "c"))
  expect_equal(jsonlite::fromJSON(answer_json(flat)), flat, tolerance = 1e-14)
  # Text that must be escaped, and nested answers, go through jsonlite.
  odd <- data.frame(.pred_class = c("say \"hi\"", "tab\there", "caf\u00e9"))
  expect_identical(jsonlite::fromJSON(answer_json(odd)), odd)
  nested <- list2DF(list(.pred = list(data.frame(.eval_time = c(1, 2), .pred_survival = c(0.9, 0.5)))))
  expect_equal(jsonlite::fromJSON(answer_json(nested))$.pred[[1]], nested$.pred[[1]])
  expect_identical(as.character(answer_json(list(error = "bad"))), "{\"error\":\"bad\"}")
})
