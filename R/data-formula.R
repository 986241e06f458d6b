# The formula interface's data. Features and outputs are evaluated directly
# in `data` rather than through model.frame(), which would drop unused
# factor levels and rows with missing values: levels must survive intact
# for predictions to line up, and missing values are `na_action`'s business.

#' Evaluate a formula's features and outputs in `data`
#'
#' @param formula A two-sided formula. `.` expands to every column of `data`
#'   not used by the left-hand side, `-` removes terms, terms may be
#'   expressions such as `log(x1)`, and `cbind(y1, y2)` on the left gives
#'   several outputs. Interactions are not supported.
#' @param data A data.frame.
#' @param env Where to look up functions and constants used by the terms
#'   when the formula carries no environment of its own.
#' @return A list: `x` (data.frame of features, named by term), `y` (a
#'   vector for one output, a data.frame for several) and `terms_info`
#'   (what `formula_new_data()` needs to rebuild `x` from new data).
#' @noRd
formula_data <- function(formula, data, env = parent.frame()) {
  if (!inherits(formula, "formula") || length(formula) != 3L) {
    stop(
      sprintf(
        "`formula` must be a two-sided formula such as `y ~ .`, not %s.",
        if (inherits(formula, "formula")) format_value(formula) else class_label(formula)
      ),
      call. = FALSE
    )
  }
  if (!is.data.frame(data)) {
    stop(
      sprintf(
        "`data` must be a data.frame, not %s.%s",
        class_label(data),
        if (is.matrix(data)) {
          " Convert it with as.data.frame()."
        } else if (is_sparse_matrix(data)) {
          paste0(" A formula reads data.frame columns; give a sparse matrix as `x` with the ",
                 "outputs as `y` (ccforest(x, y)) to have it read without making it dense.")
        } else {
          ""
        }
      ),
      call. = FALSE
    )
  }
  enclos <- environment(formula)
  if (is.null(enclos)) {
    enclos <- env
  }
  tt <- tryCatch(
    stats::terms(formula, data = data),
    error = function(e) {
      stop(sprintf("Cannot read `formula`: %s", conditionMessage(e)), call. = FALSE)
    }
  )
  features <- formula_features(tt)
  outputs <- formula_outputs(tt)
  overlap <- intersect(features$names, outputs$names)
  if (length(overlap) > 0L) {
    stop(
      sprintf(
        "%s appear(s) on both sides of `formula`; an output cannot also be a feature.",
        format_names(overlap)
      ),
      call. = FALSE
    )
  }

  n <- nrow(data)
  x_columns <- lapply(seq_along(features$exprs), function(j) {
    eval_term(features$exprs[[j]], features$names[[j]], data, enclos, n, "data")
  })
  used <- lapply(features$exprs, function(expr) intersect(all.vars(expr), names(data)))
  x <- list2DF(x_columns, nrow = n)
  names(x) <- features$names

  # An output may be a matrix or data.frame column: each of its columns is
  # an output, as cbind() would make it.
  y_columns <- list()
  for (m in seq_along(outputs$exprs)) {
    value <- eval_output(outputs$exprs[[m]], outputs$names[[m]], data, enclos, n)
    # A survival outcome is one output, whatever its columns.
    y_columns <- c(y_columns, if (inherits(value, "Surv")) {
      stats::setNames(list(value), outputs$names[[m]])
    } else {
      output_columns(value, outputs$names[[m]])
    })
  }
  several <- outputs$several || length(y_columns) > 1L
  y <- if (several) list2DF(y_columns, nrow = n) else y_columns[[1L]]

  needs_env <- !all(vapply(features$exprs, is.name, logical(1)))
  list(
    x = x,
    y = y,
    terms_info = list(
      formula = paste(deparse(formula, width.cutoff = 500L), collapse = " "),
      feature_names = features$names,
      feature_exprs = features$exprs,
      feature_columns = used,
      response_names = names(y_columns),
      # Only expressions such as log(x1) need an environment at predict
      # time; plain columns do not, and the fitted object stays plain data.
      env = if (needs_env) term_environment(features$exprs, names(data), enclos) else NULL
    )
  )
}

#' The right-hand side's features: one expression and one name per term
#' @noRd
formula_features <- function(tt) {
  check_formula_specials(tt)
  labels <- attr(tt, "term.labels")
  interactions <- labels[attr(tt, "order") > 1L]
  if (length(interactions) > 0L) {
    stop(
      sprintf(
        "Interaction terms (%s) are not supported in `formula`; trees find interactions themselves, so list the features separately.",
        format_names(interactions)
      ),
      call. = FALSE
    )
  }
  if (length(labels) == 0L) {
    stop("`formula` has no features on its right-hand side.", call. = FALSE)
  }
  variables <- as.list(attr(tt, "variables"))[-1L]
  factors <- attr(tt, "factors")
  exprs <- lapply(seq_along(labels), function(j) {
    variables[[which(factors[, j] > 0L)[[1L]]]]
  })
  feature_names <- vapply(exprs, term_name, character(1), USE.NAMES = FALSE)
  list(exprs = exprs, names = feature_names)
}

#' What the special terms of model formulas ask of a linear or Cox model,
#' and why a forest cannot do it
#' @noRd
formula_specials <- c(
  strata = paste0(
    "strata() gives each stratum its own baseline hazard in survival::coxph(); a forest has no ",
    "baseline hazard to stratify, and would read <call> as a factor feature. Write the variable ",
    "as a feature (e.g. `<feature>`) to let the trees split on it, or fit one forest per stratum."),
  cluster = paste0(
    "cluster() marks correlated rows for the robust variance of survival::coxph(), which a ",
    "forest has none of. Remove it (the rows are then treated as independent), or write the ",
    "variable as a feature (e.g. `<feature>`)."),
  tt = paste0(
    "tt() asks survival::coxph() for a time-dependent transform of a covariate, which a ",
    "forest does not fit. Remove it, or write the variable as a feature (e.g. `<feature>`)."),
  offset = paste0(
    "offset() fixes a term's coefficient at 1 in a linear predictor, which a forest has none ",
    "of. Remove it, or write the variable as a feature (e.g. `<feature>`)."),
  frailty = paste0(
    "frailty() adds a random effect to survival::coxph(), which a forest does not fit. ",
    "Remove it, or write the variable as a feature (e.g. `<feature>`)."),
  ridge = paste0(
    "ridge() penalises coefficients of survival::coxph(); a forest has none. Write the ",
    "variables as features (e.g. `<feature>`)."),
  pspline = paste0(
    "pspline() is a spline basis for survival::coxph(); a forest finds non-linear effects ",
    "itself. Write the variable as a feature (e.g. `<feature>`).")
)

#' Refuse the special terms of model formulas (formula_specials) anywhere on
#' the right-hand side: evaluated as ordinary functions they would become
#' features that mean something else (strata(inst) an 18-level factor)
#' @noRd
check_formula_specials <- function(tt) {
  variables <- as.list(attr(tt, "variables"))[-1L]
  response <- attr(tt, "response")
  if (response > 0L) variables <- variables[-response]
  for (expr in variables) {
    found <- find_special_call(expr)
    if (is.null(found)) next
    special <- found$name
    key <- if (startsWith(special, "frailty")) "frailty" else special
    variable <- all.vars(found$call)
    feature <- if (length(variable) > 0L) variable[[1L]] else "x"
    text <- gsub("<call>", term_name(found$call), formula_specials[[key]], fixed = TRUE)
    text <- gsub("<feature>", feature, text, fixed = TRUE)
    stop(sprintf("`%s` in `formula`: %s", term_name(found$call), text), call. = FALSE)
  }
  invisible()
}

#' The first call of a formula special in `expr` (as `f()` or
#' `survival::f()`), or NULL
#' @noRd
find_special_call <- function(expr) {
  if (!is.call(expr)) {
    return(NULL)
  }
  fn <- expr[[1L]]
  if (is.call(fn) && length(fn) == 3L &&
      (identical(fn[[1L]], as.name("::")) || identical(fn[[1L]], as.name(":::")))) {
    fn <- fn[[3L]]
  }
  if (is.name(fn)) {
    name <- as.character(fn)
    if (name %in% c(names(formula_specials), "frailty.gamma", "frailty.gaussian", "frailty.t")) {
      return(list(name = name, call = expr))
    }
  }
  for (arg in as.list(expr)[-1L]) {
    found <- find_special_call(arg)
    if (!is.null(found)) return(found)
  }
  NULL
}

#' The left-hand side's outputs: `cbind(a, b)` gives one per argument
#' @noRd
formula_outputs <- function(tt) {
  lhs <- as.list(attr(tt, "variables"))[-1L][[attr(tt, "response")]]
  several <- is.call(lhs) && identical(lhs[[1L]], as.name("cbind"))
  exprs <- if (several) as.list(lhs)[-1L] else list(lhs)
  output_names <- vapply(exprs, term_name, character(1), USE.NAMES = FALSE)
  given <- names(exprs)
  if (!is.null(given)) {
    output_names[nzchar(given)] <- given[nzchar(given)]
  }
  list(exprs = unname(exprs), names = output_names, several = several)
}

#' Name of a term: a column's own name, or the expression's text
#' @noRd
term_name <- function(expr) {
  if (is.name(expr)) {
    return(as.character(expr))
  }
  paste(deparse(expr, width.cutoff = 500L), collapse = " ")
}

#' Evaluate one feature term in a data.frame
#'
#' A bare name must be a column: looking it up elsewhere would silently pick
#' up a variable of the same name from the workspace. An expression must use
#' at least one column, for the same reason.
#' @noRd
eval_term <- function(expr, name, data, enclos, n, arg) {
  if (is.name(expr)) {
    if (!name %in% names(data)) {
      stop(sprintf("Feature `%s` in `formula` is not a column of `%s`.", name, arg),
           call. = FALSE)
    }
    value <- .subset2(data, name)
  } else {
    if (length(intersect(all.vars(expr), names(data))) == 0L) {
      stop(sprintf("Feature `%s` in `formula` uses no column of `%s`.", name, arg),
           call. = FALSE)
    }
    value <- tryCatch(
      eval(expr, data, enclos),
      error = function(e) {
        stop(
          sprintf("Cannot evaluate feature `%s` in `%s`: %s", name, arg, conditionMessage(e)),
          call. = FALSE
        )
      }
    )
  }
  check_term_value(value, sprintf("Feature `%s`", name), n, arg)
}

#' Evaluate one output, keeping factors and their levels as they are
#' @noRd
eval_output <- function(expr, name, data, enclos, n) {
  value <- tryCatch(
    eval(expr, data, enclos),
    error = function(e) {
      stop(
        sprintf("Cannot evaluate output `%s` in `data`: %s", name, conditionMessage(e)),
        call. = FALSE
      )
    }
  )
  if (is.data.frame(value) || is.matrix(value)) {
    if (NROW(value) != n) {
      stop(
        sprintf("Output `%s` has %d rows, but `data` has %d rows.", name, NROW(value), n),
        call. = FALSE
      )
    }
    return(value)
  }
  check_term_value(value, sprintf("Output `%s`", name), n, "data")
}

#' The columns of one output's value, named: a vector is one output named
#' `name`; a matrix or data.frame gives one output per column, named by its
#' column names or, where it has none, `name1`, `name2`, ...
#' @noRd
output_columns <- function(value, name) {
  if (!is.data.frame(value) && !is.matrix(value)) {
    return(stats::setNames(list(value), name))
  }
  k <- NCOL(value)
  labels <- colnames(value)
  if (is.null(labels)) labels <- rep("", k)
  missing <- is.na(labels) | !nzchar(labels)
  labels[missing] <- paste0(name, seq_len(k))[missing]
  columns <- if (is.data.frame(value)) unname(as.list(value)) else {
    lapply(seq_len(k), function(j) unname(value[, j]))
  }
  stats::setNames(columns, labels)
}

#' What transformed terms need at prediction, and nothing more
#'
#' A fit made inside a function would otherwise keep that function's whole
#' frame (and every large object in it) through the formula's environment.
#' The returned environment holds only the non-column names the terms use
#' that are bound in a local frame (a helper function or a constant defined
#' in the caller, say); names from the global environment or from packages
#' are looked up there at prediction, as for any formula. A helper function
#' taken from a local frame is given this environment, and the names its own
#' body uses are collected too, and its source reference dropped.
#' @noRd
term_environment <- function(exprs, columns, enclos) {
  kept <- new.env(parent = globalenv())
  shared <- function(env) {
    identical(env, globalenv()) || identical(env, baseenv()) || identical(env, emptyenv()) ||
      isNamespace(env) || !is.null(attr(env, "name"))
  }
  binding_frame <- function(name, env) {
    while (!identical(env, emptyenv())) {
      if (exists(name, envir = env, inherits = FALSE)) return(env)
      env <- parent.env(env)
    }
    NULL
  }
  pending <- setdiff(unique(unlist(lapply(exprs, all.names), use.names = FALSE)), columns)
  seen <- character(0)
  while (length(pending) > 0L) {
    name <- pending[[1L]]
    pending <- pending[-1L]
    seen <- c(seen, name)
    frame <- binding_frame(name, enclos)
    if (is.null(frame) || shared(frame)) next
    value <- get(name, envir = frame, inherits = FALSE)
    if (is.function(value) && !is.primitive(value) && !shared(environment(value))) {
      pending <- union(pending, setdiff(all.names(body(value)), c(seen, names(formals(value)))))
      environment(value) <- kept
      # Its source reference would keep the whole source file.
      value <- utils::removeSource(value)
    }
    assign(name, value, envir = kept)
  }
  kept
}

#' Whether a fit's formula takes every feature as a column by its name (or
#' there is no formula)
#' @noRd
plain_formula <- function(terms_info) {
  is.null(terms_info) || all(vapply(terms_info$feature_exprs, is.name, NA))
}

#' The features of a formula whose terms are all columns (`y ~ .`, `y ~ a +
#' b`), taken in one step, or NULL when a term is an expression or a column
#' that eval_term() would refuse (it then says why): what a served row of
#' the usual formula costs is this, not one evaluation per term
#' @noRd
plain_terms <- function(terms_info, new_data, n) {
  if (!plain_formula(terms_info)) {
    return(NULL)
  }
  columns <- unclass(new_data)[terms_info$feature_names]
  if (anyNA(names(columns)) || any(lengths(columns) != n) ||
      any(vapply(columns, function(v) is.data.frame(v) || is.matrix(v), logical(1)))) {
    return(NULL)
  }
  unname(columns)
}

#' A term must give one value per row
#' @noRd
check_term_value <- function(value, label, n, arg) {
  if (is.data.frame(value) || is.matrix(value)) {
    stop(
      sprintf("%s in `formula` gives several columns; write one term per column.", label),
      call. = FALSE
    )
  }
  if (length(value) != n) {
    stop(
      sprintf(
        "%s in `formula` has length %d, but `%s` has %d rows.",
        label, length(value), arg, n
      ),
      call. = FALSE
    )
  }
  value
}

#' Rebuild the formula's features from new data
#'
#' The outputs need not be present.
#'
#' @param terms_info The `terms_info` element of `formula_data()`.
#' @param new_data A data.frame, or a matrix with column names.
#' @param arg Name of `new_data` in messages.
#' @return A data.frame with one column per feature, named as at fit time.
#' @noRd
formula_new_data <- function(terms_info, new_data, arg = "new_data") {
  if (is.matrix(new_data)) {
    if (is.null(colnames(new_data))) {
      stop(
        sprintf(
          "`%s` is a matrix without column names, so its columns cannot be matched to the features %s used to fit the forest.",
          arg, format_names(terms_info$feature_names)
        ),
        call. = FALSE
      )
    }
    new_data <- as.data.frame(new_data, stringsAsFactors = FALSE)
  }
  if (!is.data.frame(new_data)) {
    stop(
      sprintf("`%s` must be a data.frame or a matrix, not %s.", arg, class_label(new_data)),
      call. = FALSE
    )
  }
  needed <- unique(unlist(terms_info$feature_columns, use.names = FALSE))
  absent <- setdiff(needed, names(new_data))
  if (length(absent) > 0L) {
    stop(
      sprintf(
        "`%s` is missing column(s) %s used to fit the forest.",
        arg, format_names(absent)
      ),
      call. = FALSE
    )
  }
  enclos <- terms_info$env
  if (is.null(enclos)) {
    enclos <- baseenv()
  }
  n <- nrow(new_data)
  columns <- plain_terms(terms_info, new_data, n)
  if (is.null(columns)) {
    columns <- lapply(seq_along(terms_info$feature_exprs), function(j) {
      eval_term(
        terms_info$feature_exprs[[j]], terms_info$feature_names[[j]],
        new_data, enclos, n, arg
      )
    })
  }
  x <- list2DF(columns, nrow = n)
  names(x) <- terms_info$feature_names
  x
}
