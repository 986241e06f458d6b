# What differs between the tasks on the R side, in one record per task,
# looked up where a fit, an explanation or an out-of-bag estimate needs it
# instead of a test of `object$task` in each file. A new task is one more
# record here (and one more strategy in the core, src/core/Task.h); what a
# record does not hold yet is listed in src/README.md.

#' The record of a task: "classification", "regression" or "survival"
#'
#' Fields:
#' - `fitted_types`: the types fitted() accepts, the first its default;
#' - `default_type`: the prediction a served model answers with;
#' - `explained_as`: what explainer packages (DALEX, pdp, iml) are told the
#'   model is (a survival forest is explained by its risk, a number per row);
#' - `described`, `fitted_what`: the task in messages ("a classifier"), and
#'   what fitted() gives;
#' - `node_sizes(n)`: the default min_split and min_leaf for n rows of
#'   positive weight;
#' - `error_scale(response)`: what an error in the core's standardised
#'   units is multiplied by to be in the outputs' units (per output), or NULL
#'   when the core's units are the outputs';
#' - `to_output_units(values, response)`: leaf values (a row per
#'   prediction, a column per output) in the outputs' units;
#' - `out_of_bag(...)`: the fit with its out-of-bag estimates (see
#'   add_out_of_bag());
#' - `oob_bytes(n_row, n_tree, response)`: what a bagged fit's out-of-bag
#'   estimates hold beyond what fit_extra_bytes() counts (NULL: nothing);
#' - `task_options(options, response, opt)`: the stored options with the
#'   task's own added.
#' @noRd
task_record <- function(task) {
  switch(task,
    classification = list(
      fitted_types = c("class", "prob"),
      default_type = "class",
      explained_as = "classification",
      described = "a classifier",
      fitted_what = "classes",
      node_sizes = function(n) c(min_split = 2L, min_leaf = 1L),
      error_scale = function(response) NULL,
      to_output_units = function(values, response) values,
      out_of_bag = values_out_of_bag,
      oob_bytes = function(n_row, n_tree, response) NULL,
      task_options = function(options, response, opt) options
    ),
    regression = list(
      fitted_types = "response",
      default_type = "response",
      explained_as = "regression",
      described = "a regression forest",
      fitted_what = "predictions",
      node_sizes = function(n) c(min_split = 6L, min_leaf = 3L),
      # The core's outputs are z-scores: squared errors scale by the
      # variance, values by the standard deviation and back to the mean.
      error_scale = function(response) response$scale^2,
      to_output_units = function(values, response) {
        sweep(sweep(values, 2L, response$scale, `*`), 2L, response$center, `+`)
      },
      out_of_bag = values_out_of_bag,
      oob_bytes = function(n_row, n_tree, response) NULL,
      task_options = function(options, response, opt) options
    ),
    survival = list(
      fitted_types = "risk",
      default_type = "risk",
      explained_as = "regression",
      described = "a survival forest",
      fitted_what = "risk",
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
      error_scale = function(response) NULL,
      to_output_units = function(values, response) values,
      out_of_bag = survival_out_of_bag,
      oob_bytes = function(n_row, n_tree, response) {
        survival_oob_bytes(n_row, n_tree, response$survival$n_cause)
      },
      task_options = function(options, response, opt) {
        survival_options(options, response, opt$min_events)
      }
    ),
    stop(sprintf("internal error: no task %s", describe_value(task, TRUE)), call. = FALSE)
  )
}

#' The default of min_split or min_leaf (`what`) for a task of n rows (of
#' positive weight)
#' @noRd
default_node_size <- function(task, what, n) {
  task_record(task)$node_sizes(n)[[what]]
}
