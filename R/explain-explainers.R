# Model-agnostic explanation packages (DALEX, pdp, iml, kernelshap, hstats) ask a fitted model for numbers: a classifier's class
# probabilities, a regression's predicted values. predict() of a classifier
# gives classes by default, which those packages would read as factor codes
# (DALEX) or refuse ("Predictions must be numeric!"). Each package looks up
# its own methods for a model's class; the ones below are registered on its
# generics when it is loaded (see zzz.R), so that ccforest works with it out
# of the box. Every package is run on ccforest in tests/testthat/test-explainers.R.

#' Explaining a ccforest with DALEX, pdp, iml, kernelshap and hstats
#'
#' @description
#' Loading ccforest registers methods on the generics of the model-agnostic
#' explanation packages, so that a forest can be passed to them as it is,
#' with no prediction function of your own:
#'
#' * **DALEX**: `yhat()` and `model_info()`, for `explain()` and everything
#'   built on it (`model_parts()`, `model_profile()`, `predict_parts()`,
#'   ...).
#' * **pdp**: the task (classification or regression) and the predictions
#'   that `partial()` asks for, so `prob = TRUE` and `which.class` work.
#' * **iml**: the task and the prediction function of `Predictor$new()`.
#' * **kernelshap**: `kernelshap()` and `permshap()` (Kernel SHAP and exact
#'   or sampled permutation SHAP).
#' * **hstats**: `hstats()`, `partial_dep()`, `ice()`, `perm_importance()`
#'   and `average_loss()`.
#'
#' What the packages receive: for a regression forest, the predicted values
#' (a vector, or a matrix with one column per output); for a classifier, the
#' class probabilities, one column per class named by its level (with several
#' outputs, one column per output and level, named `<output>.<level>`); for
#' a survival forest, its risk (`predict(type = "risk")`: a vector, or with
#' competing risks a matrix with one column per cause, named
#' `risk.<cause>`). The packages treat a survival forest as a regression of
#' its risk (DALEX's `model_info()` says "regression"); their default losses
#' (squared error against `y`) do not suit a risk, so give permutation
#' importance a loss of your own (one minus Harrell's C of the risk, say), or
#' use [importance()], which measures it by Harrell's C. To explain something
#' else, such as the survival probability at a time, give the package a
#' prediction function, e.g. `function(m, d) predict(m, d, type =
#' "survival", times = 365)[, 1]`.
#' Packages that explain one number per row pick it as they usually do:
#' DALEX takes the probability of the second level of a two-class output (its
#' convention for binary classifiers; the attribute
#' `predict_function_target_column` chooses another column, as in DALEX) and
#' every column for more classes; pdp takes `which.class`. For competing
#' risks, DALEX and pdp need the cause: set the attribute
#' `predict_function_target_column` to it (e.g. `"death"`), or they stop
#' and say so. kernelshap, hstats and
#' iml explain every column at once. DALEX and pdp explain one output: for
#' forests with several outputs they stop and say so.
#'
#' A prediction function given to the package (`predict_function`,
#' `pred.fun`, `predict.function`, `pred_fun`, `pred_wrapper`) is used
#' instead, as the package documents.
#'
#' @section Tree SHAP:
#' Exact tree SHAP (the path algorithm of treeshap and of xgboost's and
#' lightgbm's own SHAP values) assumes that each split tests one feature.
#' A canonical correlation forest splits on hyperplanes over several
#' features, so exact tree SHAP does not apply; the model-agnostic
#' estimators above (Kernel SHAP, permutation SHAP, Monte Carlo SHAP) do,
#' at the cost of many predictions. ccforest's own explanations are
#' [importance()] (projection, permutation and negation importance) and
#' [partial_dependence()].
#'
#' @param object A `"ccforest"`.
#' @param newdata The rows to predict, as for [predict.ccforest()].
#' @param ... Passed on to [predict.ccforest()] (e.g. `n_tree`).
#' @return `ccforest_numeric_predictions()`: what the packages receive (see
#'   the description): a numeric vector or matrix with one row per row of
#'   `newdata`.
#' @examples
#' fit <- ccforest(Species ~ ., data = iris, n_tree = 20, seed = 1)
#' head(ccforest_numeric_predictions(fit, iris))
#'
#' if (requireNamespace("kernelshap", quietly = TRUE)) {
#'   shap <- kernelshap::permshap(fit, iris[c(1, 51, 101), -5], bg_X = iris[-5],
#'                                verbose = FALSE)
#'   shap$S$virginica
#' }
#' @name ccforest-explainers
#' @export
ccforest_numeric_predictions <- function(object, newdata, ...) {
  check_ccforest(object)
  task_record(object$task)$numeric_predictions(object, newdata, ...)
}

#' A classifier's class probabilities as one matrix, columns named
#' "output.class" when there are several outputs
#' @noRd
class_numeric_predictions <- function(object, newdata, ...) {
  response <- object$response
  probs <- stats::predict(object, newdata = newdata, type = "prob", ...)
  if (response$n_output == 1L) {
    return(probs)
  }
  blocks <- lapply(seq_len(response$n_output), function(m) {
    block <- probs[[m]]
    colnames(block) <- paste(response$names[[m]], colnames(block), sep = ".")
    block
  })
  do.call(cbind, blocks)
}

#' A prediction function with the signature the SHAP and hstats packages
#' call, `f(model, newdata, ...)`
#' @noRd
explainer_pred_fun <- function(model, newdata, ...) {
  ccforest_numeric_predictions(model, newdata, ...)
}

#' Explanation packages built for one output stop clearly on several
#' @noRd
check_one_output <- function(object, package, instead) {
  if (object$response$n_output != 1L) {
    stop(sprintf(paste0(
      "%s explains one output, but this forest has %d (%s). %s"), package,
      object$response$n_output, format_names(object$response$names), instead), call. = FALSE)
  }
}

# DALEX ----------------------------------------------------------------------

#' DALEX's yhat(): probabilities of a classifier (the second class's for two
#' classes, as DALEX does for binary classifiers), values of a regression
#' @noRd
dalex_yhat <- function(X.model, newdata, ...) {
  check_one_output(X.model, "DALEX", paste0(
    "Give explain() a `predict_function` that returns one of them, e.g. ",
    "function(m, d) ccforest_numeric_predictions(m, d)[, 1]."))
  pred <- ccforest_numeric_predictions(X.model, newdata, ...)
  if (is.null(dim(pred))) {
    return(pred)
  }
  task_record(X.model$task)$one_column(X.model, pred, "DALEX")
}

#' A classifier's one column for DALEX: the class named by the attribute
#' `predict_function_target_column`, or the second of two classes
#' @noRd
one_class_probability <- function(object, probs) {
  target <- attr(object, "predict_function_target_column")
  if (!is.null(target)) {
    return(unname(probs[, target]))
  }
  if (ncol(probs) == 2L) {
    return(unname(probs[, 2L]))
  }
  probs
}

#' The risk of one cause of a competing-risks forest, chosen by the
#' attribute `predict_function_target_column` (DALEX's), or a clear error
#' @noRd
one_cause_risk <- function(object, risk, package) {
  causes <- object$response$survival$causes
  target <- attr(object, "predict_function_target_column")
  if (is.null(target)) {
    stop(sprintf(paste0(
      "%s explains one number per row, but this competing-risks forest has a risk per cause ",
      "(%s). Choose the cause with attr(fit, \"predict_function_target_column\") <- \"%s\", ",
      "or give %s a prediction function, e.g. ",
      "function(m, d) ccforest_numeric_predictions(m, d)[, \"risk.%s\"]."),
      package, format_names(causes), causes[[1L]], package, causes[[1L]]), call. = FALSE)
  }
  column <- if (is.character(target) && length(target) == 1L && target %in% causes) {
    paste0("risk.", target)
  } else {
    target
  }
  if (!(is.character(column) && column %in% colnames(risk)) &&
      !(is.numeric(column) && length(column) == 1L && column %in% seq_len(ncol(risk)))) {
    stop(sprintf("`predict_function_target_column` must name a cause of the forest (%s), not %s.",
                 format_names(causes), describe_value(target, TRUE)), call. = FALSE)
  }
  unname(risk[, column])
}

#' @noRd
dalex_model_info <- function(model, is_multiclass = FALSE, ...) {
  # A survival forest is explained by its risk, a number per row (or per
  # row and cause): a regression, to DALEX.
  type <- if (task_record(model$task)$explained_as == "regression") {
    "regression"
  } else if (isTRUE(is_multiclass) || any(model$response$n_class > 2L)) {
    "multiclass"
  } else {
    "classification"
  }
  structure(list(package = "ccforest", ver = ccforest_version(),
                 type = type), class = "model_info")
}

# pdp ------------------------------------------------------------------------

#' pdp knows classification and regression; a survival forest's risk is a
#' regression
#' @noRd
pdp_get_task <- function(object) {
  task_record(object$task)$explained_as
}

#' @noRd
pdp_get_probs <- function(object, newdata, which.class, logit, ...) {
  check_one_output(object, "pdp", "Use partial_dependence(), which gives every output.")
  probs <- stats::predict(object, newdata = newdata, type = "prob", ...)
  if (isTRUE(logit)) {
    # pdp's centred logit (Friedman, 2001, eq. 29) of the chosen class.
    eps <- .Machine$double.eps
    log_p <- log(pmax(probs, eps))
    return(log_p[, which.class] - rowMeans(log_p))
  }
  unname(probs[, which.class])
}

#' @noRd
pdp_get_predictions <- function(object, newdata, inv.link = NULL, ...) {
  check_one_output(object, "pdp", "Use partial_dependence(), which gives every output.")
  pred <- ccforest_numeric_predictions(object, newdata, ...)
  if (!is.null(dim(pred))) {
    pred <- task_record(object$task)$one_column(object, pred, "pdp")
  }
  if (is.null(inv.link)) pred else inv.link(pred)
}

# iml ------------------------------------------------------------------------

#' @noRd
iml_task <- function(model) {
  task_record(model$task)$explained_as
}

#' iml's prediction function: probabilities by default, or the `type` given
#' to Predictor$new() (a data.frame, one column per value)
#' @noRd
iml_predict_fun <- function(model, task, predict.fun = NULL, type = NULL) {
  force(model)
  force(type)
  function(newdata) {
    pred <- if (is.null(type)) {
      ccforest_numeric_predictions(model, newdata)
    } else {
      stats::predict(model, newdata = newdata, type = type)
    }
    if (is.factor(pred)) {
      # Classes as iml shows them: one 0/1 column per level.
      pred <- stats::setNames(lapply(levels(pred), function(l) as.numeric(pred == l)),
                              levels(pred))
    }
    if (is.null(dim(pred)) && !is.list(pred)) {
      return(data.frame(.prediction = pred))
    }
    as.data.frame(pred, optional = TRUE)
  }
}

# kernelshap, hstats ---------------------------------------------------------

#' A method that fills in `pred_fun` and calls the package's default method
#' @noRd
with_pred_fun <- function(default) {
  force(default)
  function(object, ..., pred_fun = NULL) {
    default(object, ..., pred_fun = pred_fun %||% explainer_pred_fun)
  }
}

# Registration ---------------------------------------------------------------

#' Register method `fn` of `generic` for class "ccforest" in package `pkg`,
#' if the package is loaded and has that generic
#' @noRd
register_method <- function(pkg, generic, fn) {
  ns <- asNamespace(pkg)
  if (!is.function(get0(generic, envir = ns, inherits = FALSE))) {
    return(FALSE)
  }
  registerS3method(generic, "ccforest", fn, envir = ns)
  TRUE
}

#' The default method of `generic` in package `pkg`
#' @noRd
default_method <- function(pkg, generic) {
  utils::getS3method(generic, "default", optional = TRUE, envir = asNamespace(pkg))
}

#' What to register with each explanation package once it is loaded
#' @noRd
explainer_registrations <- list(
  DALEX = function() {
    register_method("DALEX", "yhat", dalex_yhat)
    register_method("DALEX", "model_info", dalex_model_info)
  },
  pdp = function() {
    register_method("pdp", "get_task", pdp_get_task)
    register_method("pdp", "get_probs", pdp_get_probs)
    register_method("pdp", "get_predictions", pdp_get_predictions)
  },
  iml = function() {
    register_method("iml", "inferTaskFromModel", iml_task)
    register_method("iml", "create_predict_fun2", iml_predict_fun)
  },
  kernelshap = function() {
    for (generic in c("kernelshap", "permshap")) {
      default <- default_method("kernelshap", generic)
      if (!is.null(default)) register_method("kernelshap", generic, with_pred_fun(default))
    }
  },
  hstats = function() {
    for (generic in c("hstats", "partial_dep", "ice", "perm_importance", "average_loss")) {
      default <- default_method("hstats", generic)
      if (!is.null(default)) register_method("hstats", generic, with_pred_fun(default))
    }
  }
)

#' Run the registrations of `pkg` if it is loaded
#' @noRd
register_explainer <- function(pkg) {
  if (isNamespaceLoaded(pkg)) {
    explainer_registrations[[pkg]]()
  }
  invisible(isNamespaceLoaded(pkg))
}
