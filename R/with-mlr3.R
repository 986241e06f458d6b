# mlr3 integration: learners "classif.ccforest" and "regr.ccforest" in
# mlr3::mlr_learners. mlr3 is only suggested, and its learners are R6
# classes inheriting from mlr3's own, so the classes cannot exist when
# ccforest is built: they are made when mlr3 is loaded (see `.onLoad()` in
# zzz.R), as mlr3's extension packages register theirs.

#' Canonical correlation forests in mlr3
#'
#' @description
#' When ccforest and mlr3 are both loaded (in either order), the learners
#' `"classif.ccforest"` and `"regr.ccforest"` are in mlr3's dictionary of
#' learners, so `mlr3::lrn("classif.ccforest")` gives a canonical correlation
#' forest that [mlr3::resample()], [mlr3::benchmark()] and mlr3tuning use
#' like any other learner.
#'
#' @section Parameters:
#' Every argument of [ccforest()] that a task does not already give is a
#' parameter, with the same name, range and default (see [ccforest()]):
#' `n_tree`, `mtry`, `min_split`, `min_leaf`, `max_depth`, `split_rule`
#' (classification), `sampling`, `sample_fraction`, `replace`, `projection`,
#' `importance`, `na_action`, `class_weights` (classification),
#' `onehot_max_levels`, `max_directions`, `direction_ratio`,
#' `bootstrap_max_rows`, `exact_split_max_rows`, `output_bins` (regression),
#' `axis_candidates`, `feature_weights`, `variant`, `n_thread`, `seed`,
#' `verbose`, `backend` and `n_batch`. The features and outputs come from the task, case weights from
#' its weights (the learner has the property `"weights"`).
#'
#' Two depart from [ccforest()]'s, as mlr3 expects of its learners:
#' `n_thread` is tagged `"threads"` and set to 1 (mlr3 parallelises over
#' resampling iterations; [mlr3::set_threads()] changes it), and `verbose`
#' is set to `FALSE`. `mtry_ratio`, a number in \[0, 1\], gives `mtry` as a
#' share of the task's features (`max(1, round(mtry_ratio * D))`), so one
#' search space fits tasks of any width; give `mtry` or `mtry_ratio`, not
#' both.
#'
#' The parameters worth tuning carry the tag `"tune"`
#' (`lrn("classif.ccforest")$param_set$ids(tags = "tune")`): `mtry`,
#' `mtry_ratio`, `min_split`, `min_leaf`, `max_depth`, `split_rule`,
#' `sampling`, `sample_fraction`, `replace`, `projection`, `max_directions`,
#' `direction_ratio`, `output_bins` and `axis_candidates`. `n_tree` is
#' better set large than tuned.
#'
#' @section Predictions, importance and out-of-bag error:
#' `"classif.ccforest"` predicts classes (`predict_type = "response"`) or
#' class probabilities (`"prob"`; the class is then the most probable one, as
#' `predict(type = "class")` gives it); `"regr.ccforest"` predicts values
#' (`"response"`) or standard errors too (`"se"`, which needs
#' `sampling = "bagging"`: see [predict.ccforest()]).
#'
#' `$importance()` returns [importance()] of the fitted forest as a named
#' numeric vector, sorted decreasingly: the importance the forest stores
#' when the parameter `importance` asked for one, else projection importance,
#' which is computed from the forest alone. `$oob_error()` is the forest's
#' out-of-bag error (misclassification rate, or mean squared error); it
#' needs trees grown on samples (`sampling = "bagging"`, or
#' `sample_fraction` below 1): with projection bootstrapping, the default
#' when `mtry` is less than the number of features, every tree sees every row
#' and there is none, which is an error. The parameter `oob_error = FALSE`
#' (ranger's `oob.error`) skips the out-of-bag estimates to save their time;
#' `$oob_error()` is then an error, and mlr3 stores none.
#'
#' mlr3proba, which defines survival tasks and learners in mlr3, is not on
#' CRAN, so there is no `"surv.ccforest"`: fit survival forests with
#' [ccforest()], or tune them with tidymodels (see
#' [details_rand_forest_ccforest]).
#'
#' @name mlr_learners_ccforest
#' @aliases mlr_learners_classif.ccforest mlr_learners_regr.ccforest
#' @seealso [ccforest()], [details_rand_forest_ccforest], [ccforest_caret()]
#' @examples
#' if (requireNamespace("mlr3", quietly = TRUE)) {
#'   learner <- mlr3::lrn("classif.ccforest", n_tree = 50, predict_type = "prob")
#'   task <- mlr3::tsk("sonar")
#'   rr <- mlr3::resample(task, learner, mlr3::rsmp("cv", folds = 3))
#'   rr$aggregate(mlr3::msr("classif.ce"))
#'   learner$train(task)
#'   head(learner$importance())
#' }
NULL

#' Add the learners to mlr3's dictionary
#'
#' Safe to call more than once; the classes are made afresh each time,
#' against the mlr3 that is loaded.
#' @return `TRUE` if mlr3 was loaded and the learners added, invisibly.
#' @noRd
register_mlr3_learners <- function() {
  if (!isNamespaceLoaded("mlr3")) {
    return(invisible(FALSE))
  }
  learners <- mlr3::mlr_learners
  for (task_type in c("classif", "regr")) {
    learners$add(paste0(task_type, ".ccforest"), mlr3_learner_class(task_type))
  }
  invisible(TRUE)
}

#' Take the learners out of mlr3's dictionary when ccforest is unloaded,
#' so that no key is left pointing at code that is gone
#' @noRd
unregister_mlr3_learners <- function() {
  if (!isNamespaceLoaded("mlr3")) {
    return(invisible(FALSE))
  }
  learners <- mlr3::mlr_learners
  for (key in intersect(c("classif.ccforest", "regr.ccforest"), learners$keys())) {
    learners$remove(key)
  }
  invisible(TRUE)
}

# R6 binds these in the environment of each method when a learner is made.
utils::globalVariables(c("self", "private", "super"))

#' The R6 class of one learner, inheriting from mlr3's LearnerClassif or
#' LearnerRegr
#' @param task_type `"classif"` or `"regr"`.
#' @noRd
mlr3_learner_class <- function(task_type) {
  classif <- task_type == "classif"
  base <- if (classif) mlr3::LearnerClassif else mlr3::LearnerRegr
  R6::R6Class(
    if (classif) "LearnerClassifCcforest" else "LearnerRegrCcforest",
    inherit = base,
    public = list(
      initialize = function() {
        param_set <- mlr3_param_set(task_type)
        param_set$set_values(n_thread = 1L, verbose = FALSE)
        super$initialize(
          id = paste0(task_type, ".ccforest"),
          param_set = param_set,
          predict_types = if (classif) c("response", "prob") else c("response", "se"),
          feature_types = c("logical", "integer", "numeric", "character", "factor", "ordered",
                            "POSIXct", "Date"),
          properties = c("weights", "missings", "importance", "oob_error",
                         if (classif) c("twoclass", "multiclass")),
          packages = "ccforest",
          label = "Canonical Correlation Forest",
          man = "ccforest::mlr_learners_ccforest"
        )
      },
      importance = function() {
        if (is.null(self$model)) {
          stop("No model stored: train the learner first.", call. = FALSE)
        }
        mlr3_importance(self$model)
      },
      oob_error = function() {
        if (is.null(self$model)) {
          stop("No model stored: train the learner first.", call. = FALSE)
        }
        mlr3_oob_error(self$model)
      }
    ),
    private = list(
      .train = function(task) {
        values <- self$param_set$get_values(tags = "train")
        values <- mlr3_resolve_mtry(values, length(task$feature_names))
        weights <- if (is.function(private$.get_weights)) {
          private$.get_weights(task)
        } else {
          task$weights$weight  # mlr3 before 0.23
        }
        x <- as.data.frame(task$data(cols = task$feature_names))
        args <- c(list(x = x, y = task$truth(), case_weights = weights), values)
        # The learner declares character features: saying that they are
        # treated as factors would only add noise to every resampling.
        withCallingHandlers(
          do.call(ccforest, args),
          message = function(m) {
            if (startsWith(conditionMessage(m), "Treating character column")) {
              invokeRestart("muffleMessage")
            }
          }
        )
      },
      .predict = function(task) {
        values <- self$param_set$get_values(tags = "predict")
        # The model matches columns by name; the task's order may differ.
        new_data <- as.data.frame(task$data(cols = task$feature_names))
        mlr3_predict(self$model, new_data, self$predict_type, values)
      },
      # mlr3 asks after every fit and keeps the answer in $state: NULL where
      # the forest has none (projection bootstrapping), so that fit succeeds.
      .extract_oob_error = function() {
        error <- self$model$oob_error
        if (is.null(error) || is.na(error)) NULL else error
      }
    ),
    parent_env = environment()
  )
}

#' The learners' parameters: ccforest()'s arguments, with their ranges and
#' defaults, from the option table (R/fit-options.R), less those the task
#' gives (x, y, case_weights) or that make no sense inside mlr3 (first_tree:
#' a learner is a whole forest; quantiles, min_events and min_statistic: no mlr3 predict
#' type or task uses them); and mtry_ratio, mtry as a share of the task's
#' features
#' @noRd
mlr3_param_set <- function(task_type) {
  params <- mlr3_option_params(task_type)
  at <- match("mtry", names(params))
  params <- c(params[seq_len(at)],
              list(mtry_ratio = paradox::p_dbl(lower = 0, upper = 1, tags = c("train", "tune"))),
              params[-seq_len(at)])
  do.call(paradox::ps, params)
}

#' mtry from mtry_ratio, a share of the task's features
#' @noRd
mlr3_resolve_mtry <- function(values, n_feature) {
  ratio <- values$mtry_ratio
  values$mtry_ratio <- NULL
  if (is.null(ratio)) {
    return(values)
  }
  if (!is.null(values$mtry)) {
    stop("Give `mtry` or `mtry_ratio`, not both: `mtry_ratio` sets `mtry` to a share of ",
         "the task's features.", call. = FALSE)
  }
  values$mtry <- max(1L, as.integer(round(ratio * n_feature)))
  values
}

#' What mlr3 asks of a prediction: a list of response, prob or se
#' @noRd
mlr3_predict <- function(model, new_data, predict_type, values) {
  n_thread <- values$n_thread
  if (task_record(model$task)$class_outputs) {
    prob <- stats::predict(model, new_data, type = "prob", n_thread = n_thread)
    # The class predict(type = "class") gives: the first most probable.
    best <- max.col(prob, ties.method = "first")
    response <- factor(colnames(prob)[best], levels = colnames(prob))
    if (predict_type == "prob") {
      return(list(response = response, prob = prob))
    }
    return(list(response = response))
  }
  response <- stats::predict(model, new_data, type = "response", n_thread = n_thread)
  if (predict_type == "se") {
    se <- stats::predict(model, new_data, type = "se", n_thread = n_thread)
    return(list(response = response, se = as.numeric(se)))
  }
  list(response = response)
}

#' importance() as mlr3 wants it: a plain named numeric, largest first
#' @noRd
mlr3_importance <- function(model) {
  values <- importance(model)
  sort(stats::setNames(as.numeric(values), names(values)), decreasing = TRUE)
}

#' The out-of-bag error, or an error saying why there is none
#' @noRd
mlr3_oob_error <- function(model) {
  error <- model$oob_error
  if (oob_skipped(model$options)) {
    stop("This forest has no out-of-bag error: it was trained with oob_error = FALSE, which ",
         "skips the out-of-bag estimates. Drop that parameter to have one.", call. = FALSE)
  }
  if (is.null(error) || is.na(error)) {
    stop("This forest has no out-of-bag error: with projection bootstrapping every tree is ",
         "grown on every row. Set sampling = \"bagging\" (or a sample_fraction below 1) ",
         "to have one.", call. = FALSE)
  }
  error
}
