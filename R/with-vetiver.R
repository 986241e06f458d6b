# Deployment with vetiver and plumber: the methods of vetiver's generics for
# a fitted forest, registered when vetiver is loaded (see zzz.R). A served
# forest must answer exactly what predict() answers in R, so the request's
# rows go to predict() with as little conversion as JSON makes necessary,
# and predict()'s own checks and messages reach the client.

#' Deploying a forest with vetiver and plumber
#'
#' With the vetiver package loaded, a fitted forest is a model vetiver can
#' version, share and serve: `vetiver::vetiver_model(fit, "name")` records
#' the input prototype (the features, their types and factor levels, read
#' from the fit), `vetiver::vetiver_pin_write()` stores it on a pins board,
#' and `vetiver::vetiver_api()` adds a `/predict` endpoint to a plumber
#' router that takes rows as JSON and answers with their predictions. A
#' tidymodels workflow with the `"ccforest"` engine of `rand_forest()` is
#' served by vetiver's own workflow methods.
#'
#' @section Requests:
#' The body of a POST to `/predict` is a JSON array of objects, one per row
#' (as `jsonlite::toJSON(data)` writes a data.frame), or one object for one
#' row. Columns are matched by name; extra columns are ignored. `null` is a
#' missing value, imputed as by `predict()`. Factor levels are sent as
#' strings (numbers are read as the level of the same label), dates as
#' `"2024-01-31"`, date-times as ISO 8601 in UTC. The rows are predicted by
#' `predict()`, so a level the forest has not seen gives the same prediction
#' as in R; its warning is sent in the response's `Warning` header.
#'
#' @section Answers:
#' A JSON array with one object per row, numbers to 15 significant digits
#' (not the four decimals of vetiver's default serializer, which would
#' change probabilities and predicted values):
#'
#' * classification: `.pred_class`, or with `type = "prob"` one column
#'   `.pred_<level>` per class;
#' * regression: `.pred` (one column `.pred_<output>` per output of a
#'   multivariate forest; `type = "quantiles"` gives `.pred_quantile_<p>`);
#' * survival: `.pred_risk` by default (one column `.pred_risk_<cause>` per
#'   cause with competing risks); `type = "time"` gives `.pred_time`; `type =
#'   "survival"`, `"chf"` or `"cif"` give, for each row, a column `.pred` of
#'   rows `.eval_time` and `.pred_survival` (`.pred_chf`, or one column per
#'   cause), the shape tidymodels' censored package uses, at the `times`
#'   given to `vetiver_api()`.
#'
#' Arguments of [predict.ccforest()] are given to `vetiver_api()`, which
#' passes them on: `vetiver_api(pr, v, type = "prob")` serves
#' probabilities, `vetiver_api(pr, v, type = "survival", times = c(180,
#' 365))` survival curves at those times.
#'
#' @section Errors:
#' A request whose rows `predict()` refuses (a missing column, a column of
#' the wrong type, an empty body) gets HTTP status 400 with `predict()`'s
#' message as `error`; the server goes on serving. A body that is not JSON
#' fails in plumber's parser before it reaches the forest: plumber answers
#' with status 500 and a generic message (with its error text only when the
#' router has `debug = TRUE`).
#'
#' @section Latency:
#' A request costs plumber's own work (reading the request, parsing JSON,
#' writing the answer) plus one `predict()` call. The script
#' [`bench/comparisons/serving-api.R`](https://github.com/ccforest/ccforest/blob/main/bench/comparisons/serving-api.R)
#' measures both; see
#' `vignette("frameworks")`. Each answer of the prediction endpoint closes
#' its connection (`Connection: close`): on a connection kept open, httpuv,
#' plumber's server, which sends a response in pieces without disabling
#' Nagle's algorithm, would make every answer after the first wait about
#' 40 ms on Linux for the client's delayed acknowledgement, while a new local
#' connection costs a fraction of a millisecond. Clients that keep their
#' connection (curl handles, `httr2`, Python's `requests.Session`) simply
#' reconnect.
#'
#' @name ccforest_vetiver
#' @examples
#' if (requireNamespace("vetiver", quietly = TRUE) &&
#'     requireNamespace("plumber", quietly = TRUE)) {
#'   fit <- ccforest(Species ~ ., data = iris, n_tree = 20, seed = 1)
#'   v <- vetiver::vetiver_model(fit, "iris_forest")
#'   print(v)
#'   print(v$prototype)
#'   router <- vetiver::vetiver_api(plumber::pr(), v, type = "prob")
#'   # plumber::pr_run(router, host = "127.0.0.1", port = 8080) serves it
#' }
NULL

#' Register the vetiver methods for "ccforest" objects
#' @return `TRUE` if vetiver was loaded and the methods registered, invisibly.
#' @noRd
register_vetiver_methods <- function() {
  if (!isNamespaceLoaded("vetiver")) {
    return(invisible(FALSE))
  }
  ns <- asNamespace("vetiver")
  methods <- list(
    vetiver_create_description = vetiver_description_ccforest,
    vetiver_create_meta = vetiver_meta_ccforest,
    vetiver_prepare_model = vetiver_prepare_ccforest,
    vetiver_ptype = vetiver_ptype_ccforest,
    handler_startup = vetiver_startup_ccforest,
    handler_predict = vetiver_handler_ccforest
  )
  for (generic in names(methods)) {
    if (is.function(get0(generic, envir = ns, inherits = FALSE))) {
      registerS3method(generic, "ccforest", methods[[generic]], envir = ns)
    }
  }
  invisible(TRUE)
}

#' @noRd
vetiver_description_ccforest <- function(model) {
  check_ccforest(model, "model")
  sprintf("A ccforest %s forest of %d trees", model$task, n_trees(model))
}

#' @noRd
vetiver_meta_ccforest <- function(model, metadata) {
  vetiver::vetiver_meta(metadata, required_pkgs = "ccforest")
}

#' The fit is plain data, with nothing to butcher; it is bundled only so
#' that unbundling it loads ccforest. A deployment reads the pin in a fresh
#' session that loads vetiver, not ccforest (vetiver_write_plumber() names
#' the model's packages for renv only), and vetiver finds the methods of
#' handler_predict() for a forest only once ccforest has registered them.
#' @noRd
vetiver_prepare_ccforest <- function(model) {
  check_ccforest(model, "model")
  bundle::bundle_constr(
    object = model,
    situate = bundle::situate_constr(function(object) {
      loadNamespace("ccforest")
      object
    }),
    desc_class = "ccforest"
  )
}

#' A zero-row data.frame of the columns a request must have, with their types
#'
#' For a formula fit these are the data's columns the formula reads. A term
#' such as `log(x)` records only that it reads `x`, not x's type: that is
#' taken from `prototype_data` when given, else numeric when the term itself
#' is numeric.
#' @noRd
vetiver_ptype_ccforest <- function(model, ...) {
  dots <- list(...)
  check_dots(dots, valid = "prototype_data", fn = "vetiver_ptype")
  check_ccforest(model, "model")
  data <- dots$prototype_data
  if (!is.null(data) && !is.data.frame(data)) {
    stop(sprintf("`prototype_data` must be a data.frame, not %s.", class_label(data)),
         call. = FALSE)
  }
  bp <- model$blueprint
  own <- lapply(seq_along(bp$feature_names), function(d) feature_ptype(bp, d))
  names(own) <- bp$feature_names
  columns <- if (is.null(model$formula)) own else formula_ptype(model$formula, own, data)
  tibble::as_tibble(list2DF(columns, nrow = 0L))
}

#' A zero-length vector of feature `d`'s type, factor levels included
#' @noRd
feature_ptype <- function(bp, d) {
  levels <- bp$levels[[d]]
  switch(bp$feature_type[[d]],
    numeric = double(0),
    integer = integer(0),
    logical = logical(0),
    factor = ,
    scored = factor(character(0), levels = levels),
    ordered = factor(character(0), levels = levels, ordered = TRUE),
    date = structure(double(0), class = "Date"),
    datetime = structure(double(0), class = c("POSIXct", "POSIXt"), tzone = "UTC"),
    difftime = structure(double(0), units = bp$units[[d]], class = "difftime"),
    double(0)
  )
}

#' The data columns a formula's terms read, typed
#' @noRd
formula_ptype <- function(info, own, data) {
  columns <- list()
  for (j in seq_along(info$feature_names)) {
    name <- info$feature_names[[j]]
    if (is.name(info$feature_exprs[[j]])) {
      columns[[name]] <- own[[name]]
      next
    }
    for (column in setdiff(info$feature_columns[[j]], names(columns))) {
      if (!is.null(data) && column %in% names(data)) {
        columns[[column]] <- data[[column]][0L]
      } else if (is.numeric(own[[name]]) || is.logical(own[[name]])) {
        columns[[column]] <- double(0)
      } else {
        stop(sprintf(paste0(
          "The type of column `%s`, which feature `%s` of the formula is computed from, ",
          "is not recorded in the forest: give training rows as `prototype_data`, or ",
          "`save_prototype = FALSE`."), column, name), call. = FALSE)
      }
    }
  }
  # A column read by a term and also a feature of its own keeps its own type.
  columns[intersect(names(own), names(columns))] <-
    own[intersect(names(own), names(columns))]
  columns
}

#' @noRd
vetiver_startup_ccforest <- function(vetiver_model) {
  vetiver::load_pkgs(vetiver_model$metadata$required_pkgs)
}

#' The /predict endpoint: rows in, predict()'s answer out
#'
#' `...` are arguments of predict() (type, times, ...), fixed when the API
#' is built.
#' @noRd
vetiver_handler_ccforest <- function(vetiver_model, ...) {
  model <- vetiver_model$model
  check_ccforest(model, "vetiver_model$model")
  args <- list(...)
  predict_rows <- function(new_data) stats::predict(model, new_data, ...)
  # vetiver's serializer writes four decimals; predictions are sent whole.
  serializer <- plumber::serializer_content_type("application/json", answer_json)
  function(req, res) {
    res$serializer <- serializer
    # One request per connection: on a kept-alive connection httpuv's answer
    # waits about 40 ms for the client's delayed acknowledgement (Nagle's
    # algorithm, which it leaves on); the first answer on a connection does
    # not, and a new local connection costs far less than that wait.
    res$setHeader("Connection", "close")
    warnings <- character()
    answer <- withCallingHandlers(
      tryCatch({
        new_data <- request_rows(req$body, model)
        prediction_frame(predict_rows(new_data), model, args)
      }, error = function(e) e),
      warning = function(w) {
        warnings <<- c(warnings, conditionMessage(w))
        invokeRestart("muffleWarning")
      }
    )
    if (inherits(answer, "error")) {
      res$status <- 400L
      return(list(error = conditionMessage(answer)))
    }
    if (length(warnings) > 0L) {
      res$setHeader("Warning", warning_header(warnings))
    }
    answer
  }
}

#' The answer as JSON: a data.frame as an array of row objects, numbers to
#' 15 significant digits, missing values as null
#'
#' Flat answers (numbers and text) are written here: jsonlite takes about
#' 0.3 ms per value of a data.frame, 8 ms for the 26 probabilities of one
#' row, more than the forest takes to predict it. Nested answers (survival
#' curves), errors, and text jsonlite must escape go through jsonlite.
#' @noRd
answer_json <- function(value) {
  flat <- if (is.data.frame(value)) flat_rows_json(value)
  if (!is.null(flat)) {
    return(flat)
  }
  jsonlite::toJSON(value, dataframe = "rows", auto_unbox = TRUE, digits = NA, null = "null",
                   na = "null")
}

#' JSON text of a data.frame of plain numeric and character columns, or
#' NULL if it holds anything else
#' @noRd
flat_rows_json <- function(df) {
  keys <- names(df)
  if (length(keys) == 0L || !json_safe_text(keys)) {
    return(NULL)
  }
  fields <- vector("list", length(keys))
  for (j in seq_along(keys)) {
    # .subset2(): `[[` on a data.frame dispatches to R code, per column.
    value <- .subset2(df, j)
    if (is.object(value) || !is.null(dim(value))) {
      return(NULL)
    }
    if (is.numeric(value)) {
      if (any(is.infinite(value))) {
        return(NULL)
      }
      text <- sprintf("%.15g", as.double(value))
    } else if (is.character(value) && json_safe_text(value[!is.na(value)])) {
      text <- paste0("\"", value, "\"")
    } else {
      return(NULL)
    }
    text[is.na(value)] <- "null"
    fields[[j]] <- paste0("\"", keys[[j]], "\":", text)
  }
  rows <- do.call(paste, c(fields, sep = ","))
  paste0("[", paste0("{", rows, "}", collapse = ","), "]")
}

#' Strings that JSON can carry between quotes as they are (valid UTF-8,
#' no quote, backslash or control character)
#' @noRd
json_safe_text <- function(x) {
  !anyNA(iconv(x, "UTF-8", "UTF-8")) && !any(grepl("[\"\\\\[:cntrl:]]", x))
}

#' An HTTP Warning header (RFC 7234, code 199) carrying R's warnings
#' @noRd
warning_header <- function(messages) {
  text <- gsub("[\r\n]+", " ", paste(unique(messages), collapse = " "))
  sprintf("199 ccforest \"%s\"", gsub("\"", "\\\\\"", text))
}

#' A request's body as the data.frame predict() expects
#'
#' plumber hands over a data.frame for an array of objects and a named list
#' for one object. JSON has no factors, dates or time differences, and a
#' column of nulls arrives as logical: such columns are turned back into the
#' fitted type where that is unambiguous; anything else is left for
#' predict() to accept or refuse with its own message.
#' @noRd
request_rows <- function(body, model) {
  if (is.data.frame(body)) {
    rows <- body
  } else if (is.list(body) && length(body) > 0L && !is.null(names(body)) &&
             all(nzchar(names(body)))) {
    body <- lapply(body, function(value) if (is.null(value)) NA else value)
    lengths_ok <- all(vapply(body, is.atomic, logical(1))) && length(unique(lengths(body))) == 1L
    if (!lengths_ok) {
      stop("The request must be a JSON array of objects, one per row, or one object whose ",
           "values are the row's features.", call. = FALSE)
    }
    rows <- list2DF(body)
  } else {
    stop("The request must be a JSON array of objects, one per row, such as ",
         "[{\"x1\": 1.5, \"x2\": \"a\"}]; it has no rows.", call. = FALSE)
  }
  bp <- model$blueprint
  plain <- if (is.null(model$formula)) {
    bp$feature_names
  } else {
    model$formula$feature_names[vapply(model$formula$feature_exprs, is.name, logical(1))]
  }
  # JSON carries numbers as numbers: only the other columns may need turning
  # back, and a data.frame is assigned to only where one does (`[[<-` on a
  # data.frame costs more than a one-row prediction).
  numeric_like <- bp$feature_type %in% c("numeric", "integer", "logical")
  for (name in intersect(plain, names(rows))) {
    d <- match(name, bp$feature_names)
    if (numeric_like[[d]]) next
    column <- rows[[name]]
    turned <- json_column(column, bp$feature_type[[d]], bp$units[[d]])
    if (!identical(turned, column)) rows[[name]] <- turned
  }
  rows
}

#' One JSON column as the fitted type, where JSON cannot carry that type
#' @noRd
json_column <- function(col, fitted_type, units) {
  all_missing <- is.logical(col) && all(is.na(col))
  switch(fitted_type,
    factor = ,
    ordered = ,
    scored = if (all_missing || is.numeric(col)) as.character(col) else col,
    date = if (is.character(col) || all_missing) {
      tryCatch(as.Date(col), error = function(e) col)
    } else col,
    datetime = if (is.character(col) || all_missing) {
      tryCatch(as.POSIXct(col, tz = "UTC", tryFormats = c(
        "%Y-%m-%dT%H:%M:%OSZ", "%Y-%m-%dT%H:%M:%OS", "%Y-%m-%d %H:%M:%OS", "%Y-%m-%d %H:%M",
        "%Y-%m-%d")), error = function(e) col)
    } else col,
    difftime = if (is.numeric(col) || all_missing) {
      as.difftime(as.double(col), units = units)
    } else col,
    col
  )
}

#' predict()'s answer as a data.frame with tidymodels' column names
#' @noRd
prediction_frame <- function(pred, model, args) {
  task <- model$task
  type <- args$type %||% task_record(task)$default_type
  n <- NROW(pred)
  if (type %in% task_record(task)$curve_types) {
    times <- args$times %||% model$response$survival$event_times
    return(curves_frame(pred, type, as.double(times)))
  }
  if (is.factor(pred)) {
    return(list2DF(list(.pred_class = as.character(pred))))
  }
  if (is.data.frame(pred) && type == "interval") {
    return(list2DF(list(.pred = pred$prediction, .pred_lower = pred$lower,
                        .pred_upper = pred$upper)))
  }
  stem <- switch(type, class = ".pred_class", prob = ".pred", response = ".pred",
                 quantiles = ".pred_quantile", paste0(".pred_", type))
  if (is.list(pred) && !is.data.frame(pred)) {
    # Several outputs of a classifier: one block of columns per output.
    blocks <- lapply(names(pred), function(m) {
      block <- as.data.frame(unclass(pred[[m]]), optional = TRUE)
      stats::setNames(block, paste(stem, m, colnames(pred[[m]]), sep = "_"))
    })
    return(do.call(cbind, unname(blocks)))
  }
  if (is.data.frame(pred) || is.matrix(pred)) {
    labels <- colnames(pred)
    if (type == "quantiles") labels <- sub("^quantile= *", "", labels)
    columns <- if (is.matrix(pred)) {
      values <- unname(pred)
      lapply(seq_len(ncol(values)), function(j) values[, j])
    } else {
      lapply(unname(as.list(pred)), function(value) {
        if (is.factor(value)) as.character(value) else unname(value)
      })
    }
    return(stats::setNames(list2DF(columns, nrow = n), paste(stem, labels, sep = "_")))
  }
  stats::setNames(list2DF(list(unname(pred)), nrow = n), stem)
}

#' Survival curves as one nested data.frame per row (`.eval_time` and the
#' values), as tidymodels' censored package gives them
#' @noRd
curves_frame <- function(pred, type, times) {
  one_per_row <- lapply(seq_len(dim(pred)[[1L]]), function(i) {
    if (length(dim(pred)) == 2L) {
      values <- list(unname(pred[i, ]))
      names(values) <- paste0(".pred_", type)
    } else {
      causes <- dimnames(pred)[[3L]]
      values <- lapply(causes, function(k) unname(pred[i, , k]))
      names(values) <- paste0(".pred_", type, "_", causes)
    }
    list2DF(c(list(.eval_time = times), values), nrow = length(times))
  })
  list2DF(list(.pred = one_per_row), nrow = length(one_per_row))
}
