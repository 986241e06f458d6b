# Methods of the usual model generics of stats: formula(), terms(), nobs(),
# update(), fitted(), residuals(), and clear errors from coef() and
# deviance(), which a forest does not have.

#' Model formula, terms, size and updates of a canonical correlation forest
#'
#' @description
#' The usual model generics of \pkg{stats}:
#'
#' * `formula()` returns the formula of a forest fitted with the formula
#'   interface, with `.` expanded to the features the forest uses (as
#'   `formula()` of an [lm()] fit does), and `terms()` its terms.
#' * `nobs()` is the number of rows the forest was grown on (after
#'   `na_action = "omit"` dropped incomplete rows).
#' * `update()` refits the forest with some arguments changed, like
#'   [stats::update()]: `update(fit, . ~ . - cyl)` changes the formula,
#'   `update(fit, n_tree = 100, seed = 2)` any argument of [ccforest()], for
#'   formula and x/y fits alike.
#'
#' @details
#' The environment of the formula is the one that the fit kept for
#' transformed terms such as `log(x1)` or `f(x1)` with a helper function `f`
#' (it holds only the objects those terms use), and otherwise the global
#' environment: a forest keeps no reference to the frame it was fitted in, so
#' that it stays small and can be saved as it is. Column names are looked up
#' in the data, so they need no environment.
#'
#' `update()` evaluates the changed call in the environment it is called
#' from, as [stats::update()] does: the data named in the original call must
#' be found there. A fit made through [do.call()] or caret records a call
#' without the data it was given (it shows them as, e.g.,
#' `<data.frame: 150 x 4>`): give them to `update()` again. Arguments given to `update()` replace those of the
#' original call, and arguments set to `NULL` are removed from it.
#'
#' @param x,object A `"ccforest"` fitted by [ccforest()].
#' @param formula. Changes to the formula, as in [stats::update.formula()]
#'   (`.` stands for what the formula had); only for forests fitted with a
#'   formula.
#' @param evaluate If `FALSE`, return the updated call instead of fitting
#'   it.
#' @param ... For `update()`, arguments of [ccforest()] to change; not used
#'   by the other methods.
#' @return `formula()`: a formula; `terms()`: a `"terms"` object; `nobs()`: a
#'   whole number; `update()`: the refitted `"ccforest"`, or the call when
#'   `evaluate = FALSE`.
#' @seealso [fitted.ccforest()] for out-of-bag fitted values and residuals.
#' @examples
#' fit <- ccforest(mpg ~ ., data = mtcars, n_tree = 50, seed = 1)
#' formula(fit)
#' nobs(fit)
#' smaller <- update(fit, . ~ . - cyl - disp)
#' formula(smaller)
#' more_trees <- update(fit, n_tree = 100)
#' more_trees$options$n_tree
#'
#' # x/y fits update their arguments
#' xy <- ccforest(x = iris[, 1:4], y = iris$Species, n_tree = 20, seed = 1)
#' update(xy, x = iris[, 3:4])$blueprint$feature_names
#' @name ccforest-model-methods
#' @export
formula.ccforest <- function(x, ...) {
  check_ccforest(x, arg = "x")
  info <- x$formula
  if (is.null(info)) {
    stop("`x` was fitted with x and y, not a formula, so it has no formula. ",
         "Its features are ", format_names(x$blueprint$feature_names), ".", call. = FALSE)
  }
  written <- str2lang(info$formula)
  right <- Reduce(function(a, b) call("+", a, b), info$feature_exprs)
  stats::as.formula(call("~", written[[2L]], right), env = info$env %||% globalenv())
}

#' @rdname ccforest-model-methods
#' @export
terms.ccforest <- function(x, ...) {
  stats::terms(formula.ccforest(x))
}

#' @rdname ccforest-model-methods
#' @export
nobs.ccforest <- function(object, ...) {
  check_ccforest(object)
  as.integer(object$n_obs)
}

#' @rdname ccforest-model-methods
#' @export
update.ccforest <- function(object, formula., ..., evaluate = TRUE) {
  check_ccforest(object)
  evaluate <- check_flag(evaluate, "evaluate")
  call <- object$call
  if (!is.call(call)) {
    stop("`object` has no call recorded, so it cannot be updated; call ccforest() again.",
         call. = FALSE)
  }
  if (!missing(formula.)) {
    if (is.null(object$formula)) {
      stop("`formula.` can only change the formula of a forest fitted with one; `object` ",
           "was fitted with x and y. Change its arguments instead, e.g. ",
           "update(fit, x = <new features>).", call. = FALSE)
    }
    call$formula <- stats::update(formula.ccforest(object), formula.)
  }
  extras <- match.call(expand.dots = FALSE)$...
  if (length(extras) > 0L) {
    extra_names <- names(extras)
    if (is.null(extra_names) || any(!nzchar(extra_names))) {
      stop("Every argument given to update() must be named, e.g. update(fit, n_tree = 100).",
           call. = FALSE)
    }
    for (name in extra_names) {
      call[[name]] <- extras[[name]]
    }
  }
  omitted <- omitted_arguments(call)
  if (length(omitted) > 0L) {
    stop(sprintf(paste0(
      "update() cannot refit `object`: its call does not hold %s (the fit was called through ",
      "do.call() or caret, which pass values rather than names, and a fit keeps no copy of ",
      "its data). Give %s to update(), e.g. update(object, %s = <the data>)."),
      format_names(omitted), if (length(omitted) == 1L) "it" else "them", omitted[[1L]]),
      call. = FALSE)
  }
  if (!evaluate) {
    return(call)
  }
  # Through the namespace, so that update() works without library(ccforest);
  # the refit records its call as `ccforest(...)` again.
  call[[1L]] <- quote(ccforest::ccforest)
  eval(call, parent.frame())
}

#' Out-of-bag fitted values and residuals of a bagged forest
#'
#' A forest whose trees are grown on samples (`sampling = "bagging"`, or a
#' `sample_fraction` below 1) keeps, for every training row, the prediction
#' of the trees that did not draw it (its out-of-bag prediction). `fitted()` returns these, and `residuals()` the observed
#' minus the out-of-bag predicted values of a regression forest. They are
#' honest estimates of how the forest does on new rows, unlike predictions
#' of the training rows by the whole forest.
#'
#' Forests grown with projection bootstrapping (the default) fit every tree to
#' every row unless given a `sample_fraction`, so they have no out-of-bag
#' predictions: `fitted()` and
#' `residuals()` then say so. A forest has neither coefficients nor a
#' deviance: `coef()` and `deviance()` are errors that say what to use
#' instead.
#'
#' @param object A `"ccforest"` fitted by [ccforest()].
#' @param type For `fitted()`: `"class"` (default for classification) or
#'   `"prob"` for a classifier's out-of-bag class probabilities (the share of
#'   the votes of the trees that did not draw the row, for out-of-bag AUC,
#'   Brier scores or stacking), `"response"` for a regression.
#' @param ... Not used.
#' @return One value per row of the data given to [ccforest()], in its
#'   order, `NA` for rows dropped by `na_action = "omit"` and for rows that
#'   every tree drew: for one output, a factor of classes (classification) or
#'   a numeric vector; for several outputs, a data.frame with one column per
#'   output. With `type = "prob"`, a matrix with one column per class (a list
#'   of them, one per output, for several outputs). `residuals()` is for
#'   regression forests only.
#' @examples
#' bag <- ccforest(mpg ~ ., data = mtcars, n_tree = 100, sampling = "bagging", seed = 1)
#' head(fitted(bag))
#' head(residuals(bag))
#'
#' # Out-of-bag class probabilities of a classifier
#' iris_bag <- ccforest(Species ~ ., data = iris, n_tree = 50, sampling = "bagging", seed = 1)
#' head(fitted(iris_bag, type = "prob"))
#' # the out-of-bag mean squared error
#' mean(residuals(bag)^2, na.rm = TRUE)
#' @export
fitted.ccforest <- function(object, type = NULL, ...) {
  check_dots(list(...), valid = c("object", "type"), fn = "fitted")
  check_ccforest(object)
  check_out_of_bag(object, "fitted")
  if (is.null(type)) {
    return(object$predictions)
  }
  type <- check_choice(type, "type", task_record(object$task)$fitted_types)
  if (type != "prob") {
    return(object$predictions)
  }
  if (is.null(object$oob_prob)) {
    stop("`object` was fitted by a ccforest version that did not keep out-of-bag ",
         "probabilities; refit it to get them.", call. = FALSE)
  }
  object$oob_prob
}

#' @rdname fitted.ccforest
#' @export
residuals.ccforest <- function(object, ...) {
  check_ccforest(object)
  record <- task_record(object$task)
  if (!record$real_outputs) {
    stop(sprintf(paste0("residuals() is for regression forests; `object` is %s. ",
                        "fitted() gives its out-of-bag %s."), record$described,
                 record$fitted_what), call. = FALSE)
  }
  check_out_of_bag(object, "residuals")
  if (is.null(object$residuals)) {
    stop("`object` was fitted by a ccforest version that did not keep out-of-bag residuals; ",
         "refit it to get them.", call. = FALSE)
  }
  object$residuals
}

#' @rdname fitted.ccforest
#' @export
coef.ccforest <- function(object, ...) {
  stop("A canonical correlation forest has no coefficients. Use importance() for how much ",
       "it relies on each variable, partial_dependence() for the shape of its response, ",
       "or tree_info() for the split hyperplanes of one tree.", call. = FALSE)
}

#' @rdname fitted.ccforest
#' @export
deviance.ccforest <- function(object, ...) {
  stop("A canonical correlation forest has no deviance. A forest whose trees are grown on ",
       "samples (sampling = \"bagging\", or a `sample_fraction` below 1) stores its ",
       "out-of-bag error in `oob_error`; otherwise measure the error of predict() on ",
       "held-out data.", call. = FALSE)
}

#' Out-of-bag values exist only for forests whose trees are grown on samples
#' @noRd
check_out_of_bag <- function(object, fn) {
  if (oob_skipped(object$options)) {
    stop(sprintf("%s() gives out-of-bag predictions, but %s, or use predict(object, ", fn,
                 oob_skipped_advice),
         "<held-out data>).", call. = FALSE)
  }
  if (is.null(object$predictions) && identical(object$options$sampling, "bagging")) {
    stop(sprintf("%s() needs out-of-bag predictions, which `object` does not have: it ", fn),
         "joins forests grown apart (combine_forests()), and out-of-bag predictions need ",
         "the training data. Grow the whole forest in one call to have them ",
         "(backend = \"future\" spreads it over workers), or use ",
         "predict(object, <held-out data>).", call. = FALSE)
  }
  if (is.null(object$predictions)) {
    stop(sprintf("%s() needs out-of-bag predictions, which only forests whose trees ", fn),
         "are grown on samples have (sampling = \"bagging\", or a `sample_fraction` below ",
         "1); every tree of `object` saw every row. Refit with sampling = \"bagging\", or ",
         "use predict(object, <data>) (predictions of training rows are optimistic).",
         call. = FALSE)
  }
  invisible(object)
}
