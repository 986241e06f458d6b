# What differs between the tasks on the R side, in one record per task,
# looked up where a fit, a prediction, an explanation or an out-of-bag
# estimate needs it instead of a test of `object$task` in each file. A new
# task is one more record here (and one more strategy in the core,
# src/core/Task.h); what a record does not hold is listed in src/README.md
# ("Where a new task, criterion or leaf plugs in").
#
# The records are built once, when the namespace is loaded: a served
# prediction looks its record up, it does not rebuild it. Their functions
# call helpers by name, so that the helpers may live in any file. A field
# that a task's own code never asks for is NULL: survival predicts, explains
# and scores out of bag through its own functions (R/task-survival*.R),
# which its `predict`, `pd_spec`, `out_of_bag` and `held_out_importance`
# reach.

#' The record of a task: "classification", "regression" or "survival"
#'
#' Fields, by the step that asks:
#'
#' Describing the task
#' - `described`, `forests`: the task in messages ("a classifier", and
#'   "classification forests" for what something is for);
#' - `task_label(response)`: print()'s and summary()'s words for the task;
#' - `explained_as`: what explainer packages (DALEX, pdp, iml) are told the
#'   model is (a survival forest is explained by its risk, a number per row).
#'
#' Fitting
#' - `node_sizes(n)`: the default min_split and min_leaf for n rows of
#'   positive weight;
#' - `check_split_rule(split_rule)`: the split rule, checked, or the task's
#'   default for NULL; `split_rules`, the rules it takes (the first its
#'   default), `outcome`, what `y` is in messages, and `wrong_split_rule`,
#'   the message (sprintf()'s format) for another task's rule;
#' - `check_min_events(min_events, task, response, variant, weights)`:
#'   min_events, checked, with the task's default, or NULL for a task
#'   without events (refusing a given value);
#' - `check_min_statistic(min_statistic, response, variant)`: min_statistic,
#'   checked, with the task's default, or NULL for tasks without a log-rank
#'   test (an error if given);
#' - `real_outputs`: whether the outputs are numbers the leaves average, for
#'   which one output allows quantiles, output bins, intervals and residuals;
#' - `class_outputs`: whether the outputs are factors of classes, for which
#'   one output allows class weights and per-class sample fractions;
#' - `screens_features`: whether feature_weights = "screen" can rate the
#'   features (by an R^2 against the outputs);
#' - `bagged_by_default`: whether sampling = "auto" always bags the trees;
#' - `level_targets(response)`: the outputs a factor's levels are scored
#'   against (see level_scores());
#' - `standardise(response, stat_rows)`: the response as the core sees it
#'   (regression outputs z-scored over `stat_rows`, NULL: all rows);
#' - `training_outputs(response, n_row)`: the outputs' fields of the core's
#'   training set (read by training_data() in src/r_convert.h);
#' - `model_shape(n_column, response)`: the shape every tree must fit
#'   (ModelShape in src/core/Model.h);
#' - `task_options(options, response, opt)`: the stored options with the
#'   task's own added;
#' - `oob_bytes(n_row, n_tree, response)`: what a bagged fit's out-of-bag
#'   estimates hold beyond what fit_extra_bytes() counts (NULL: nothing).
#'
#' Predicting
#' - `predict(object, new_data, args)`: predict()'s answer, `args` its
#'   arguments as a list;
#' - `predict_types`, `type_advice`: the types predict_mean_forest() accepts
#'   for the task (the first its default), and the words advising them;
#' - `default_type`: the prediction a served model answers with;
#' - `fitted_types`, `fitted_what`: the types fitted() accepts (the first
#'   its default), and what it gives;
#' - `prediction_width(response)`: the core's values per row;
#' - `format_values(values, response, type)`: the core's averaged leaf
#'   values as predict() answers them;
#' - `format_spread(spread, response)`: standard errors (in the core's
#'   units, scaled by `error_scale`) in predict()'s shape;
#' - `format_per_tree(values, response, type)`: each tree's values
#'   (predict_all = TRUE) from the core's rows x values x trees array;
#' - `to_output_units(values, response)`: leaf values (a row per
#'   prediction, a column per output) in the outputs' units;
#' - `value_labels(response)`: names of those columns in tree_info() and
#'   partial_dependence();
#' - `value_prefix`, `value_axis`: the pattern of the prefix of those names
#'   (NULL: none to strip) and the axis label of their values in plots;
#' - `pd_spec(object, type, times)`: partial_dependence()'s type, checked,
#'   as what it predicts (NULL: the averaged values, of type `pd_type`,
#'   advised as `pd_advice`);
#' - `leaf_table(out, table, response)`: tree_info()'s nodes with their
#'   leaves' predictions;
#' - `numeric_predictions(object, newdata, ...)`: the predictions an
#'   explainer sees (ccforest_numeric_predictions());
#' - `one_column(object, pred, package)`: the one number per row an
#'   explainer package asks for, from a matrix of those predictions;
#' - `multi_predict(object, new_data, type, trees, dots)`: parsnip's
#'   multi_predict() of a fitted model spec for each number of trees;
#' - `curve_types`: predict()'s types that give curves over times;
#' - `bagging_advice`: what predict() suggests besides bagging when a
#'   type needs the trees' samples;
#' - `response_problem(response)`: what is wrong with a fitted object's
#'   record of its outputs, or NULL.
#'
#' Losses
#' - `error_scale(response)`: what an error in the core's standardised
#'   units is multiplied by to be in the outputs' units (per output), or NULL
#'   when the core's units are the outputs';
#' - `out_of_bag(...)`: the fit with its out-of-bag estimates (see
#'   add_out_of_bag());
#' - `oob_summary(values, seen, response_bp, response)`: out-of-bag
#'   predictions, errors per output and the task's extra estimates, from the
#'   averaged values of the rows' out-of-bag trees (see out_of_bag());
#' - `oob_label`, `format_oob(x)`, `oob_error_label(x)`: print()'s row name
#'   and text for the out-of-bag estimate, and a plot's axis label;
#' - `no_error_curve(x)`: why the task keeps no out-of-bag error curve
#'   (NULL when it keeps one; `oob_error_label` is then NULL);
#' - `held_out_importance(...)`: permutation or knockoff importance on
#'   held-out data (see held_out_importance());
#' - `held_out_output(values, m, response)`: one held-out output, checked,
#'   in the core's units;
#' - `row_losses(values, truth, response)`: each held-out row's loss.
#' @noRd
task_record <- function(task) {
  record <- .subset2(task_records, task)
  if (is.null(record)) {
    stop(sprintf("internal error: no task %s", describe_value(task, TRUE)), call. = FALSE)
  }
  record
}

#' The tasks that have a record
#' @noRd
task_names <- function() names(task_records)

#' The default of min_split or min_leaf (`what`) for a task of n rows (of
#' positive weight)
#' @noRd
default_node_size <- function(task, what, n) {
  task_record(task)$node_sizes(n)[[what]]
}

task_records <- list(
  classification = list(
    described = "a classifier",
    forests = "classification forests",
    task_label = function(response) classification_task_label(response),
    explained_as = "classification",
    node_sizes = function(n) c(min_split = 2L, min_leaf = 1L),
    check_split_rule = function(split_rule) check_mean_split_rule(split_rule, "classification"),
    split_rules = c("entropy", "gini"),
    outcome = "categorical",
    wrong_split_rule = paste0("split_rule = \"%s\" is for regression, but `y` is categorical; ",
                              "use \"entropy\" or \"gini\"."),
    check_min_events = function(min_events, task, response, variant, weights) {
      refuse_min_events(min_events, task)
    },
    check_min_statistic = function(min_statistic, response, variant) {
      refuse_min_statistic(min_statistic, response$task)
    },
    real_outputs = FALSE,
    class_outputs = TRUE,
    screens_features = TRUE,
    bagged_by_default = FALSE,
    standardise = function(response, stat_rows) response,
    level_targets = function(response) class_indicators(response),
    training_outputs = function(response, n_row) {
      list(y_class = response$codes, n_class = as.integer(response$n_class),
           y_real = matrix(0, n_row, 0L))
    },
    model_shape = function(n_column, response) {
      list(n_column = n_column, n_class = as.integer(.subset2(response, "n_class")),
           n_output = as.integer(.subset2(response, "n_output")))
    },
    task_options = function(options, response, opt) options,
    oob_bytes = function(n_row, n_tree, response) NULL,
    predict = function(object, new_data, args) predict_mean_forest(object, new_data, args),
    predict_types = c("class", "prob", "se", "terminal_nodes"),
    type_advice = "\"class\" or \"prob\"",
    default_type = "class",
    fitted_types = c("class", "prob"),
    fitted_what = "classes",
    prediction_width = function(response) sum(response$n_class),
    format_values = function(values, response, type) {
      format_classification(values, response, type)
    },
    format_spread = function(spread, response) format_classification(spread, response, "prob"),
    format_per_tree = function(values, response, type) class_per_tree(values, response, type),
    to_output_units = function(values, response) values,
    value_labels = function(response) class_value_labels(response),
    value_prefix = "^prob\\.",
    value_axis = "Probability",
    pd_spec = function(object, type, times) mean_pd_spec(object, type, times),
    pd_type = "prob",
    pd_advice = "\"prob\" (class probabilities)",
    leaf_table = function(out, table, response) mean_leaf_table(out, table, response,
                                                                "classification"),
    numeric_predictions = function(object, newdata, ...) {
      class_numeric_predictions(object, newdata, ...)
    },
    one_column = function(object, pred, package) one_class_probability(object, pred),
    multi_predict = function(object, new_data, type, trees, dots) {
      multi_predict_mean(object, new_data, type, trees)
    },
    curve_types = character(0),
    bagging_advice = "",
    response_problem = function(response) class_response_problem(response),
    error_scale = function(response) NULL,
    out_of_bag = function(...) values_out_of_bag(...),
    oob_summary = function(values, seen, response_bp, response) {
      class_oob_summary(values, seen, response_bp, response)
    },
    oob_label = "OOB error:",
    format_oob = function(x) sprintf("%.2f%% misclassified (out of bag)", 100 * x$oob_error),
    oob_error_label = function(x) "Misclassification rate",
    no_error_curve = function(x) NULL,
    held_out_importance = function(...) mean_held_out_importance(...),
    held_out_output = function(values, m, response) class_held_out_output(values, m, response),
    row_losses = function(values, truth, response) class_row_losses(values, truth, response)
  ),
  regression = list(
    described = "a regression forest",
    forests = "regression forests",
    task_label = function(response) {
      if (response$n_output == 1L) {
        "regression"
      } else {
        sprintf("multivariate regression, %d outputs", response$n_output)
      }
    },
    explained_as = "regression",
    node_sizes = function(n) c(min_split = 6L, min_leaf = 3L),
    check_split_rule = function(split_rule) check_mean_split_rule(split_rule, "regression"),
    split_rules = "variance",
    outcome = "numeric",
    wrong_split_rule = paste0("split_rule = \"%s\" is for classification, but `y` is numeric; ",
                              "use \"variance\", or convert `y` to a factor for classification."),
    check_min_events = function(min_events, task, response, variant, weights) {
      refuse_min_events(min_events, task)
    },
    check_min_statistic = function(min_statistic, response, variant) {
      refuse_min_statistic(min_statistic, response$task)
    },
    real_outputs = TRUE,
    class_outputs = FALSE,
    screens_features = TRUE,
    bagged_by_default = FALSE,
    standardise = function(response, stat_rows) standardise_values(response, stat_rows),
    level_targets = function(response) response$values,
    training_outputs = function(response, n_row) {
      list(y_class = matrix(0L, n_row, 0L), n_class = integer(0), y_real = response$values)
    },
    model_shape = function(n_column, response) {
      list(n_column = n_column, n_class = integer(0),
           n_output = as.integer(.subset2(response, "n_output")))
    },
    task_options = function(options, response, opt) options,
    oob_bytes = function(n_row, n_tree, response) NULL,
    predict = function(object, new_data, args) predict_mean_forest(object, new_data, args),
    predict_types = c("response", "quantiles", "interval", "se", "terminal_nodes"),
    type_advice = "\"response\"",
    default_type = "response",
    fitted_types = "response",
    fitted_what = "predictions",
    prediction_width = function(response) response$n_output,
    format_values = function(values, response, type) format_regression(values, response),
    format_spread = function(spread, response) output_shaped(spread, response),
    format_per_tree = function(values, response, type) values_per_tree(values, response),
    to_output_units = function(values, response) {
      sweep(sweep(values, 2L, response$scale, `*`), 2L, response$center, `+`)
    },
    value_labels = function(response) {
      if (response$n_output == 1L) "prediction" else paste0("prediction.", response$names)
    },
    value_prefix = "^prediction\\.",
    value_axis = "Prediction",
    pd_spec = function(object, type, times) mean_pd_spec(object, type, times),
    pd_type = "response",
    pd_advice = "\"response\"",
    leaf_table = function(out, table, response) mean_leaf_table(out, table, response,
                                                                "regression"),
    numeric_predictions = function(object, newdata, ...) {
      values <- stats::predict(object, newdata = newdata, type = "response", ...)
      if (object$response$n_output == 1L) unname(values) else as.matrix(values)
    },
    one_column = function(object, pred, package) pred,
    multi_predict = function(object, new_data, type, trees, dots) {
      multi_predict_mean(object, new_data, type, trees)
    },
    curve_types = character(0),
    bagging_advice = paste0(", or use type = \"interval\" with a calibration set (conformalised ",
                            "quantile regression, for a forest fitted with quantiles = TRUE)"),
    response_problem = function(response) values_response_problem(response),
    # The core's outputs are z-scores: squared errors scale by the
    # variance, values by the standard deviation and back to the mean.
    error_scale = function(response) response$scale^2,
    out_of_bag = function(...) values_out_of_bag(...),
    oob_summary = function(values, seen, response_bp, response) {
      values_oob_summary(values, seen, response_bp, response)
    },
    oob_label = "OOB error:",
    format_oob = function(x) sprintf("%.4g mean squared error (out of bag)", x$oob_error),
    oob_error_label = function(x) {
      if (x$response$n_output == 1L) {
        "Mean squared error"
      } else {
        "Mean squared error (averaged over outputs)"
      }
    },
    no_error_curve = function(x) NULL,
    held_out_importance = function(...) mean_held_out_importance(...),
    held_out_output = function(values, m, response) values_held_out_output(values, m, response),
    row_losses = function(values, truth, response) values_row_losses(values, truth, response)
  ),
  survival = list(
    described = "a survival forest",
    forests = "survival forests",
    task_label = function(response) survival_task_label(response$survival),
    explained_as = "regression",
    # Survival leaves estimate a whole curve, and small ones make noisy
    # curves: the default leaf is the square root of the rows (at least
    # 5), the node to split twice that. On the data of
    # bench/comparisons/survival.R this beat fixed sizes of 3 to 30 rows
    # and leaves counted in events (3, 5 or 8 events), in Brier score
    # above all (bench/results/survival-design.md).
    node_sizes = function(n) {
      leaf <- max(5L, as.integer(ceiling(sqrt(n))))
      c(min_split = 2L * leaf, min_leaf = leaf)
    },
    check_split_rule = function(split_rule) check_survival_split_rule(split_rule),
    split_rules = "logrank",
    outcome = "a survival outcome",
    wrong_split_rule = NULL,
    check_min_events = function(min_events, task, response, variant, weights) {
      check_count(min_events %||% default_min_events(response, variant, weights), "min_events",
                  min = 1L)
    },
    check_min_statistic = function(min_statistic, response, variant) {
      check_number(min_statistic %||% default_min_statistic(response$survival$n_cause, variant),
                   "min_statistic", min = 0)
    },
    real_outputs = FALSE,
    class_outputs = FALSE,
    # A survival outcome has no per-feature R^2 to screen by.
    screens_features = FALSE,
    # Bagging measured at least as accurate as projection bootstrapping and
    # gives out-of-bag estimates (bench/results/survival-design.md).
    bagged_by_default = TRUE,
    # Times are not z-scored: the core sees their ranks among the event times.
    standardise = function(response, stat_rows) {
      standardise_survival_response(response, stat_rows)
    },
    level_targets = function(response) response$values,
    training_outputs = function(response, n_row) {
      list(y_class = matrix(0L, n_row, 0L), n_class = integer(0), y_real = matrix(0, n_row, 0L),
           survival = survival_training(response))
    },
    model_shape = function(n_column, response) {
      c(list(n_column = n_column, n_class = integer(0),
             n_output = as.integer(.subset2(response, "n_output"))),
        survival_shape(.subset2(response, "survival")))
    },
    task_options = function(options, response, opt) {
      survival_options(options, response, opt$min_events, opt$min_statistic)
    },
    oob_bytes = function(n_row, n_tree, response) {
      survival_oob_bytes(n_row, n_tree, response$survival$n_cause)
    },
    predict = function(object, new_data, args) {
      predict_survival_forest(
        object, new_data, args$type, args$times, args$horizon, args$n_tree, args$n_thread,
        args$na_action, args$backend, args$chunk_size, args$predict_all,
        list(interval = args$interval, calibration = args$calibration,
             calibration_y = args$calibration_y))
    },
    predict_types = NULL,
    type_advice = NULL,
    default_type = "risk",
    fitted_types = "risk",
    fitted_what = "risk",
    prediction_width = function(response) response$n_output,
    format_values = NULL,
    format_spread = NULL,
    format_per_tree = NULL,
    to_output_units = function(values, response) values,
    value_labels = NULL,
    # Its columns (risk, survival.<time>, ...) are named by what they hold.
    value_prefix = NULL,
    value_axis = "Prediction",
    pd_spec = function(object, type, times) survival_pd_spec(object, type, times),
    pd_type = NULL,
    pd_advice = NULL,
    leaf_table = function(out, table, response) survival_tree_info(out, table, response$survival),
    numeric_predictions = function(object, newdata, ...) {
      # A survival forest is explained by its risk: what it ranks rows by.
      risk <- stats::predict(object, newdata = newdata, type = "risk", ...)
      if (is.null(dim(risk))) {
        return(unname(risk))
      }
      colnames(risk) <- paste0("risk.", colnames(risk))
      risk
    },
    one_column = function(object, pred, package) one_cause_risk(object, pred, package),
    multi_predict = function(object, new_data, type, trees, dots) {
      multi_predict_survival(object$fit, new_data, type, trees, dots$eval_time)
    },
    curve_types = c("survival", "chf", "cif"),
    bagging_advice = "",
    response_problem = function(response) survival_problem(response),
    error_scale = function(response) NULL,
    out_of_bag = function(...) survival_out_of_bag(...),
    oob_summary = NULL,
    oob_label = "Out of bag:",
    format_oob = function(x) format_survival_oob(x),
    oob_error_label = NULL,
    no_error_curve = function(x) survival_no_error_curve(x),
    held_out_importance = function(...) survival_held_out_importance(...),
    held_out_output = NULL,
    row_losses = NULL
  )
)
