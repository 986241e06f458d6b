# Argument checks. Every message names the argument, states the rule and
# shows the offending value, so a user can fix the call without reading the
# source. Errors use `call. = FALSE` because the internal call that raised
# them means nothing to the user.

#' Format a value for an error message
#'
#' Short and single-line, so a long vector or a data.frame cannot flood the
#' console.
#'
#' @param x Any R object.
#' @param width Maximum number of characters kept.
#' @return A string.
#' @noRd
format_value <- function(x, width = 40L) {
  if (is.character(x) && length(x) == 1L && !is.na(x)) {
    text <- encodeString(x, quote = "\"")
  } else if (is.numeric(x) && !is.object(x) && length(x) == 1L) {
    text <- format(x, digits = 15L)
  } else {
    text <- paste(deparse(x, width.cutoff = 60L, nlines = 1L), collapse = "")
  }
  if (nchar(text) > width) {
    text <- paste0(substr(text, 1L, width - 3L), "...")
  }
  text
}

#' List names in backticks for a message, e.g. "`a`, `b` and 3 more"
#'
#' @param max How many names to show before summarising the rest.
#' @noRd
format_names <- function(x, max = 10L) {
  x <- as.character(x)
  shown <- paste0("`", utils::head(x, max), "`", collapse = ", ")
  if (length(x) > max) {
    shown <- sprintf("%s and %d more", shown, length(x) - max)
  }
  shown
}

#' Name the kind of an object, e.g. "<data.frame>" or "<character matrix>"
#' @noRd
class_label <- function(x) {
  if (is.matrix(x) && !is.object(x)) {
    return(paste0("<", typeof(x), " matrix>"))
  }
  if (is.null(x)) {
    return("<NULL>")
  }
  paste0("<", class(x)[1L], ">")
}

#' Describe a value that broke a rule
#'
#' `type_ok` says whether `x` has an acceptable type; a single value of the
#' wrong type is shown with its type ("a character vector of length 1
#' (\"a\")") because its printed form alone can look valid. Several values
#' are shown with their type and their first values, and the first missing
#' one is pointed out: a vector of the right length can break a rule by its
#' type, a missing value or a value out of range, and its length alone does
#' not say which.
#' @noRd
describe_value <- function(x, type_ok) {
  if (is.null(x)) {
    return("NULL")
  }
  if (is.function(x)) {
    return("a function")
  }
  if (is.data.frame(x)) {
    return(sprintf("a data.frame with %d column(s)", length(x)))
  }
  if (!is.atomic(x)) {
    return(sprintf("an object of class %s", class_label(x)))
  }
  kind <- if (is.object(x)) class_label(x) else paste(typeof(x), "vector")
  if (!is.null(dim(x))) {
    shape <- if (is.object(x)) class_label(x) else {
      paste(typeof(x), if (length(dim(x)) == 2L) "matrix" else "array")
    }
    return(sprintf("%s %s with dimensions %s", article(shape), shape,
                   paste(dim(x), collapse = " x ")))
  }
  if (length(x) == 0L) {
    return(sprintf("%s %s of length 0", article(kind), kind))
  }
  if (length(x) != 1L) {
    text <- sprintf("%s %s of length %d (%s)", article(kind), kind, length(x),
                    format_value(if (is.object(x)) as.vector(x) else x, width = 40L))
    missing <- which(is.na(x))
    if (length(missing) > 0L) {
      text <- sprintf("%s, %s at element %d", text,
                      if (is.nan(x[[missing[[1L]]]])) "NaN" else "NA", missing[[1L]])
    }
    return(text)
  }
  if (is.na(x) && !is.nan(x)) {
    return("NA")
  }
  if (!type_ok) {
    return(sprintf("%s %s of length 1 (%s)", article(kind), kind, format_value(x)))
  }
  format_value(x)
}

#' "a" or "an" before a word
#' @noRd
article <- function(word) {
  if (grepl("^[aeiouAEIOU]", word)) "an" else "a"
}

#' Is `x` a plain number (no class such as Date or factor)?
#' @noRd
is_plain_number <- function(x) {
  is.numeric(x) && (!is.object(x) || identical(class(x), "AsIs"))
}

#' Describe a numeric range, e.g. ">= 1" or "between 0 and 1"
#' @noRd
range_rule <- function(min, max, open_min = FALSE, open_max = FALSE) {
  lo <- if (open_min) "> " else ">= "
  hi <- if (open_max) "< " else "<= "
  if (is.finite(min) && is.finite(max)) {
    if (!open_min && !open_max) {
      return(sprintf("between %s and %s", format_value(min), format_value(max)))
    }
    return(sprintf("%s%s and %s%s", lo, format_value(min), hi, format_value(max)))
  }
  if (is.finite(min)) {
    return(paste0(lo, format_value(min)))
  }
  if (is.finite(max)) {
    return(paste0(hi, format_value(max)))
  }
  ""
}

#' Raise "`arg` must be <rule>, not <value>."
#' @noRd
stop_rule <- function(arg, rule, x, type_ok) {
  stop(
    sprintf("`%s` must be %s, not %s.", arg, rule, describe_value(x, type_ok)),
    call. = FALSE
  )
}

#' Check a count such as `n_tree`
#'
#' @param x Value to check.
#' @param arg Argument name used in the message.
#' @param min,max Inclusive bounds.
#' @param allow_null Whether `NULL` is accepted (and returned as is).
#' @return `x` as an integer, or `NULL`.
#' @noRd
check_count <- function(x, arg, min = 1L, max = Inf, allow_null = FALSE) {
  if (allow_null && is.null(x)) {
    return(NULL)
  }
  type_ok <- is_plain_number(x)
  # The rule's words only for a message: a served prediction checks counts
  # on every call.
  rule <- function() {
    words <- paste("a single whole number", range_rule(min, max))
    if (allow_null) paste(words, "or NULL") else words
  }
  if (!type_ok || length(x) != 1L || !is.finite(x) || x != trunc(x) ||
      x < min || x > max) {
    stop_rule(arg, rule(), x, type_ok)
  }
  if (abs(x) > .Machine$integer.max) {
    stop(
      sprintf(
        "`%s` must be %s that fits in an integer (at most %d), not %s.",
        arg, rule(), .Machine$integer.max, format_value(x)
      ),
      call. = FALSE
    )
  }
  as.integer(x)
}

#' Check a single finite number
#'
#' @param open_min,open_max Whether the bounds are excluded (e.g. a fraction
#'   in (0, 1]).
#' @return `x` as a double, or `NULL`.
#' @noRd
check_number <- function(x, arg, min = -Inf, max = Inf, allow_null = FALSE,
                         open_min = FALSE, open_max = FALSE) {
  if (allow_null && is.null(x)) {
    return(NULL)
  }
  # The rule's words only for a message (as check_count()): formatting them
  # was a few per cent of a small fit.
  rule <- function() {
    bounds <- range_rule(min, max, open_min, open_max)
    words <- if (nzchar(bounds)) {
      paste("a single finite number", bounds)
    } else {
      "a single finite number"
    }
    if (allow_null) paste(words, "or NULL") else words
  }
  type_ok <- is_plain_number(x)
  if (!type_ok || length(x) != 1L || !is.finite(x)) {
    stop_rule(arg, rule(), x, type_ok)
  }
  below <- if (open_min) x <= min else x < min
  above <- if (open_max) x >= max else x > max
  if (below || above) {
    stop_rule(arg, rule(), x, type_ok)
  }
  as.double(x)
}

#' Check TRUE or FALSE
#' @return `x` without attributes.
#' @noRd
check_flag <- function(x, arg) {
  type_ok <- is.logical(x) && !is.object(x)
  if (!type_ok || length(x) != 1L || is.na(x)) {
    stop_rule(arg, "TRUE or FALSE", x, type_ok)
  }
  as.vector(x)
}

#' Check a single non-missing string
#' @param allow_empty Whether "" is accepted.
#' @noRd
check_string <- function(x, arg, allow_null = FALSE, allow_empty = FALSE) {
  if (allow_null && is.null(x)) {
    return(NULL)
  }
  rule <- if (allow_empty) "a single string" else "a single non-empty string"
  if (allow_null) {
    rule <- paste(rule, "or NULL")
  }
  type_ok <- is.character(x) && !is.object(x)
  if (!type_ok || length(x) != 1L || is.na(x)) {
    stop_rule(arg, rule, x, type_ok)
  }
  if (!allow_empty && !nzchar(x)) {
    stop_rule(arg, rule, x, type_ok)
  }
  as.vector(x)
}

#' Check one string from a fixed set
#'
#' Exact matching only: partial matching (as `match.arg()` does) lets a typo
#' select the wrong option silently. Passing the whole `choices` vector, as
#' happens when an argument's default is that vector, selects the first.
#'
#' @param choices Character vector of valid values.
#' @return The chosen string.
#' @noRd
check_choice <- function(x, arg, choices) {
  # One of the choices, as every served call gives its type: no other call.
  if (is.character(x) && is.null(attributes(x)) && length(x) == 1L && !is.na(x) &&
      any(x == choices)) {
    return(x)
  }
  if (identical(x, choices)) {
    return(choices[[1L]])
  }
  type_ok <- is.character(x) && !is.object(x)
  if (type_ok && length(x) == 1L && !is.na(x) && x %in% choices) {
    return(as.vector(x))
  }
  listed <- paste0("\"", choices, "\"", collapse = ", ")
  message <- sprintf(
    "`%s` must be one of %s, not %s.",
    arg, listed, describe_value(x, type_ok)
  )
  if (type_ok && length(x) == 1L && !is.na(x)) {
    hint <- closest_name(x, choices)
    if (!is.na(hint)) {
      message <- paste0(message, sprintf(" Did you mean \"%s\"?", hint))
    }
  }
  stop(message, call. = FALSE)
}

#' The valid name closest to a misspelt one, or NA when none is close
#'
#' "Close" is an edit distance of at most max(2, a third of the length), so
#' short names are not matched to unrelated ones.
#' @noRd
closest_name <- function(name, valid) {
  if (length(valid) == 0L) {
    return(NA_character_)
  }
  distance <- utils::adist(name, valid)[1L, ]
  best <- which.min(distance)
  if (distance[best] <= max(2, nchar(name) / 3)) valid[[best]] else NA_character_
}

#' ranger's argument names, and what they are in ccforest: users coming
#' from ranger write them first (num.trees, or predict(fit, data = )), and
#' edit distance does not find snake_case names for dotted ones
#' @noRd
ranger_names <- list(
  ccforest = c(
    num.trees = "is `n_tree` in ccforest",
    num.threads = "is `n_thread` in ccforest",
    min.node.size = "is `min_split` in ccforest (the smallest node that is split; `min_leaf` bounds the leaves)",
    min.bucket = "is `min_leaf` in ccforest",
    max.depth = "is `max_depth` in ccforest",
    sample.fraction = "is `sample_fraction` in ccforest",
    case.weights = "is `case_weights` in ccforest",
    class.weights = "is `class_weights` in ccforest",
    splitrule = "is `split_rule` in ccforest",
    quantreg = "is `quantiles` in ccforest",
    probability = paste0("has no counterpart in ccforest: a classification forest always ",
                         "estimates class probabilities; ask predict(fit, new_data, ",
                         "type = \"prob\") for them"),
    respect.unordered.factors = paste0("has no counterpart in ccforest: factors with up to ",
                                       "`onehot_max_levels` levels are expanded to indicators, ",
                                       "larger ones valued by the outputs"),
    holdout = paste0("has no counterpart in ccforest: rows of weight 0 in `case_weights` ",
                     "take no part and still get out-of-bag predictions"),
    keep.inbag = paste0("has no counterpart in ccforest: each tree's sample is redrawn from ",
                        "the seed when needed"),
    write.forest = "has no counterpart in ccforest: the forest is always kept",
    oob.error = "is `oob_error` in ccforest",
    dependent.variable.name = "has no counterpart in ccforest: give `y`, or a formula"
  ),
  predict = c(
    data = "is `new_data` in ccforest's predict()",
    num.trees = "is `n_tree` in ccforest's predict()",
    num.threads = "is `n_thread` in ccforest's predict()",
    predict.all = "has no counterpart in ccforest's predict()"
  )
)

#' "ranger's `num.trees` is `n_tree` in ccforest", or NA
#' @noRd
ranger_hint <- function(name, fn) {
  hints <- ranger_names[[fn]]
  if (is.null(hints) || !name %in% names(hints)) {
    return(NA_character_)
  }
  sprintf("ranger's `%s` %s", name, hints[[name]])
}

#' Check the arguments that arrived through `...`
#'
#' @param dots `list(...)` of the calling function.
#' @param valid Names accepted through `...`.
#' @param fn Name of the calling function, for the message.
#' @return `dots`, invisibly.
#' @noRd
check_dots <- function(dots, valid, fn) {
  if (length(dots) == 0L) {
    return(invisible(dots))
  }
  dot_names <- names(dots)
  if (is.null(dot_names)) {
    dot_names <- rep("", length(dots))
  }
  unnamed <- which(is.na(dot_names) | !nzchar(dot_names))
  if (length(unnamed) > 0L) {
    value <- dots[[unnamed[[1L]]]]
    shown <- if (is.atomic(value) && length(value) == 1L) {
      format_value(value)
    } else {
      describe_value(value, type_ok = TRUE)
    }
    stop(
      sprintf(
        "%s() got an unnamed argument in `...` (value %s): all arguments after the data must be named.",
        fn, shown
      ),
      call. = FALSE
    )
  }
  unknown <- unique(dot_names[!dot_names %in% valid])
  from_ranger <- vapply(unknown, ranger_hint, character(1), fn = fn, USE.NAMES = FALSE)
  if (length(unknown) == 1L) {
    hint <- closest_name(unknown, valid)
    message <- sprintf("Unknown argument `%s` in %s()", unknown, fn)
    message <- if (!is.na(from_ranger)) {
      sprintf("%s: %s.", message, from_ranger)
    } else if (is.na(hint)) {
      paste0(message, ".")
    } else {
      sprintf("%s; did you mean `%s`?", message, hint)
    }
    stop(message, call. = FALSE)
  }
  if (length(unknown) > 1L) {
    hints <- vapply(unknown, closest_name, character(1), valid = valid)
    items <- ifelse(
      is.na(hints),
      sprintf("`%s`", unknown),
      sprintf("`%s` (did you mean `%s`?)", unknown, hints)
    )
    items <- ifelse(is.na(from_ranger), items,
                    sprintf("`%s` (%s)", unknown, from_ranger))
    stop(
      sprintf("Unknown arguments in %s(): %s.", fn, paste(items, collapse = ", ")),
      call. = FALSE
    )
  }
  repeated <- unique(dot_names[duplicated(dot_names)])
  if (length(repeated) > 0L) {
    stop(
      sprintf(
        "Argument(s) %s given more than once in %s().",
        paste0("`", repeated, "`", collapse = ", "), fn
      ),
      call. = FALSE
    )
  }
  invisible(dots)
}

#' Resolve the number of threads
#'
#' Order: the argument, then `options(ccforest.n_thread)`, then the
#' environment variable `CCFOREST_N_THREAD`, then 2 (CRAN asks packages to
#' use at most two cores unless told otherwise). 0 means all cores.
#'
#' @param n_thread `NULL` or a whole number >= 0.
#' @return An integer >= 1.
#' @noRd
resolve_n_thread <- function(n_thread = NULL) {
  # A served call usually gives a plain count: what check_count() would
  # accept and return, without building its message's pieces.
  if (is.numeric(n_thread) && !is.object(n_thread) && length(n_thread) == 1L &&
      !is.na(n_thread) && n_thread >= 1 && n_thread <= .Machine$integer.max &&
      n_thread == trunc(n_thread)) {
    return(as.integer(n_thread))
  }
  arg <- "n_thread"
  if (is.null(n_thread)) {
    n_thread <- getOption("ccforest.n_thread")
    arg <- "options(ccforest.n_thread)"
  }
  if (is.null(n_thread)) {
    from_env <- Sys.getenv("CCFOREST_N_THREAD", unset = "")
    # nzchar() first: trimws() costs a regular expression on every predict().
    if (nzchar(from_env) && nzchar(trimws(from_env))) {
      parsed <- suppressWarnings(as.numeric(trimws(from_env)))
      if (is.na(parsed) || !is.finite(parsed) || parsed != trunc(parsed) ||
          parsed < 0) {
        stop(
          sprintf(
            "Environment variable CCFOREST_N_THREAD must be a whole number >= 0, not %s.",
            format_value(from_env)
          ),
          call. = FALSE
        )
      }
      n_thread <- parsed
      arg <- "CCFOREST_N_THREAD"
    }
  }
  if (is.null(n_thread)) {
    return(2L)
  }
  n_thread <- check_count(n_thread, arg, min = 0L)
  if (n_thread == 0L) {
    n_thread <- as.integer(RcppParallel::defaultNumThreads())
  }
  max(1L, n_thread)
}

#' Resolve the master seed
#'
#' `NULL` draws once from R's generator, so `set.seed()` governs the fit
#' while the user's stream is left where R's own draws would leave it. The
#' package never calls `set.seed()`.
#'
#' @param seed `NULL` or a whole number in [0, 2^31 - 1].
#' @return A whole number stored as a double.
#' @noRd
resolve_seed <- function(seed = NULL) {
  if (is.null(seed)) {
    seed <- as.integer(stats::runif(1, 0, .Machine$integer.max))
  }
  as.double(check_count(seed, "seed", min = 0L, max = 2^31 - 1))
}

#' Every column needs a distinct, non-empty name to be matched later
#'
#' @param what What a column is, for the message: "feature" or "output".
#' @noRd
check_column_names <- function(column_names, arg, what) {
  empty <- which(is.na(column_names) | !nzchar(column_names))
  if (length(empty) > 0L) {
    stop(
      sprintf(
        "`%s` has empty column name(s) at position(s) %s; every %s needs a name.",
        arg, paste(empty, collapse = ", "), what
      ),
      call. = FALSE
    )
  }
  repeated <- unique(column_names[duplicated(column_names)])
  if (length(repeated) > 0L) {
    stop(
      sprintf("`%s` has duplicated column name(s) %s.", arg, format_names(repeated)),
      call. = FALSE
    )
  }
  invisible(column_names)
}
