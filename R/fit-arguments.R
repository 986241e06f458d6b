# The checks of ccforest()'s arguments beyond what an option's type says
# (the option table in fit-options.R names them): each takes the argument as
# given (and what its meaning depends on: the task, the number of features
# or rows) and returns the value the fit uses, or stops with a message
# naming the argument, the rule and the offending value. Options whose type
# says all (counts, numbers, choices, flags) are checked by
# check_option_type(); the generic checks (check_count(), check_choice(),
# ...) are in fit-validate.R.

#' ranger's importance modes get a pointer to ccforest's
#' @noRd
check_importance <- function(importance) {
  if (identical(importance, "impurity") || identical(importance, "impurity_corrected")) {
    stop(sprintf(paste0("importance = \"%s\" is ranger's; ccforest's split-gain importance is ",
                        "\"projection\" (each split's gain shared among the features of its ",
                        "hyperplane), and \"permutation\" and \"negation\" are available too."),
                 importance), call. = FALSE)
  }
  check_choice(importance, "importance", c("none", "projection", "permutation", "negation"))
}

#' Out-of-bag importance at fit time needs trees grown on samples
#' @noRd
check_importance_sampling <- function(importance, options) {
  if (importance %in% c("permutation", "negation") && !has_out_of_bag(options)) {
    stop(sprintf(paste0(
      "importance = \"%s\" at fit time needs out-of-bag rows, so trees grown on samples ",
      "(sampling = \"bagging\", or a `sample_fraction` below 1): with projection ",
      "bootstrapping every tree sees every row. Use importance(fit, new_data = <held-out ",
      "data>) instead."), importance), call. = FALSE)
  }
  importance
}

#' oob_error = FALSE skips the out-of-bag rows that importance
#' "permutation" and "negation" are measured on at fit time
#' @noRd
check_oob_error <- function(oob_error, importance) {
  oob_error <- check_flag(oob_error, "oob_error")
  if (!oob_error && importance %in% c("permutation", "negation")) {
    stop(sprintf(paste0(
      "importance = \"%s\" at fit time is measured on the out-of-bag rows, whose estimates ",
      "oob_error = FALSE skips: drop oob_error = FALSE, or measure it on held-out data with ",
      "importance(fit, type = \"%s\", new_data = <held-out data>)."), importance, importance),
      call. = FALSE)
  }
  oob_error
}

#' `y` is needed, and is not the formula
#' @noRd
check_y <- function(y, missing_y) {
  if (missing_y) {
    stop("`y` is missing: give the outputs, or use the formula interface.", call. = FALSE)
  }
  if (inherits(y, "formula")) {
    stop("`y` is a formula: the formula comes first, as in ccforest(y ~ ., data = df).",
         call. = FALSE)
  }
  invisible(y)
}

#' quantiles = TRUE keeps leaf samples of one numeric output
#' @noRd
check_quantiles <- function(quantiles, response) {
  quantiles <- check_flag(quantiles, "quantiles")
  if (quantiles && !one_real_output(response)) {
    stop("quantiles = TRUE is for regression with one numeric output.", call. = FALSE)
  }
  quantiles
}

#' The paper's default (2 for classification, 6 for regression; for
#' survival, see default_node_size()); a value above the training rows makes
#' every tree a leaf, which is said
#' @param n_counted Rows of positive weight (the survival default's n).
#' @noRd
check_min_split <- function(min_split, task, n_row, n_counted = n_row) {
  given <- !is.null(min_split)
  min_split <- check_count(min_split %||% default_node_size(task, "min_split", n_counted),
                           "min_split", min = 1L)
  if (given && min_split > n_row) {
    warning(sprintf(paste0("min_split = %d is larger than the %d training rows, so no node is ",
                           "split and every tree is a single leaf; use a smaller min_split."),
                    min_split, n_row), call. = FALSE)
  }
  min_split
}

#' The paper's default: 1 for classification, 3 for regression (for
#' survival, see default_node_size())
#' @noRd
check_min_leaf <- function(min_leaf, task, n_counted = NULL) {
  check_count(min_leaf %||% default_node_size(task, "min_leaf", n_counted), "min_leaf", min = 1L)
}

#' Survival only: the least rows with an event in each child of a split,
#' with the task's default (for one cause the square root of the training
#' events: default_min_events())
#' @noRd
check_min_events <- function(min_events, task, response = NULL, variant = NULL, weights = NULL) {
  task_record(task)$check_min_events(min_events, task, response, variant, weights)
}

#' The log-rank statistic a survival split must reach, checked, with the
#' task's default; NULL for other tasks (an error if given)
#' @noRd
check_min_statistic <- function(min_statistic, task, response, variant) {
  task_record(task)$check_min_statistic(min_statistic, response, variant)
}

#' min_statistic for a task without a log-rank test: NULL, or an error if
#' given
#' @noRd
refuse_min_statistic <- function(min_statistic, task) {
  if (!is.null(min_statistic)) {
    stop(sprintf("`min_statistic` is for survival forests, but `y` gives a %s forest; drop it.",
                 task), call. = FALSE)
  }
  NULL
}

#' min_events for a task without events: NULL, or an error if given
#' @noRd
refuse_min_events <- function(min_events, task) {
  if (!is.null(min_events)) {
    stop(sprintf("`min_events` is for survival forests, but `y` gives a %s forest; drop it.",
                 task), call. = FALSE)
  }
  NULL
}

#' Whether the outputs are one factor of classes (what class weights and
#' per-class sampling need)
#' @noRd
one_class_output <- function(response) {
  task_record(response$task)$class_outputs && response$n_output == 1L
}

#' Whether the outputs are one number the leaves average (what quantiles,
#' output bins, intervals and residuals need)
#' @noRd
one_real_output <- function(response) {
  task_record(response$task)$real_outputs && response$n_output == 1L
}

#' NULL for the paper's CCA (0 for the core); regression with one output only
#' @noRd
check_output_bins <- function(output_bins, response) {
  output_bins <- if (is.null(output_bins)) 0L else check_count(output_bins, "output_bins", min = 2L)
  if (output_bins > 0L && !one_real_output(response)) {
    stop("`output_bins` is for regression with one numeric output.", call. = FALSE)
  }
  output_bins
}

#' Bagging by choice, or the paper's rule: bagging when every feature is
#' sampled at every node (projection bootstrapping would change nothing then);
#' a task may bag by default (its record's `bagged_by_default`: survival)
#' @noRd
resolve_bagging <- function(sampling, mtry, n_feature, task = "classification") {
  sampling == "bagging" ||
    (sampling == "auto" && (mtry >= n_feature || task_record(task)$bagged_by_default))
}

#' The paper's default mtry, or the user's number or function of D
#' @noRd
check_mtry <- function(mtry, n_feature) {
  if (is.null(mtry)) {
    if (n_feature == 3L) {
      return(2L)
    }
    return(as.integer(min(n_feature, ceiling(log2(n_feature) + 1))))
  }
  if (is.function(mtry)) {
    value <- tryCatch(
      mtry(n_feature),
      error = function(e) {
        stop(sprintf("`mtry` function failed for D = %d: %s", n_feature,
                     conditionMessage(e)), call. = FALSE)
      }
    )
    return(check_count(value, sprintf("mtry(%d)", n_feature), min = 1L, max = n_feature))
  }
  check_count(mtry, "mtry", min = 1L, max = n_feature)
}

#' Split rules belong to tasks; say which when they do not match
#' @noRd
check_split_rule <- function(split_rule, task) {
  task_record(task)$check_split_rule(split_rule)
}

#' The split rule of a task whose leaves hold averaged values (see the
#' records' `split_rules`, `outcome` and `wrong_split_rule`)
#' @noRd
check_mean_split_rule <- function(split_rule, task) {
  record <- task_record(task)
  if (identical(split_rule, "logrank")) {
    stop(sprintf(paste0("split_rule = \"logrank\" is for survival outcomes (a Surv response), ",
                        "but `y` is %s; use %s."), record$outcome,
                 paste0("\"", record$split_rules, "\"", collapse = " or ")), call. = FALSE)
  }
  if (is.null(split_rule)) {
    return(record$split_rules[[1L]])
  }
  if (identical(split_rule, "extratrees")) {
    stop("split_rule = \"extratrees\" is ranger's; in ccforest, axis_candidates = \"random\" ",
         "cuts each sampled feature once at random, as extremely randomised trees do, beside ",
         "the canonical directions (projection = \"axis\" keeps only the features).",
         call. = FALSE)
  }
  split_rule <- check_choice(split_rule, "split_rule", c("entropy", "gini", "variance"))
  if (!split_rule %in% record$split_rules) {
    stop(sprintf(record$wrong_split_rule, split_rule), call. = FALSE)
  }
  split_rule
}

#' axis_candidates as a mode; TRUE and FALSE, the flag it was, mean "search"
#' and "none"
#' @noRd
check_axis_candidates <- function(axis_candidates) {
  if (isTRUE(axis_candidates)) {
    return("search")
  }
  if (isFALSE(axis_candidates)) {
    return("none")
  }
  check_choice(axis_candidates, "axis_candidates", c("none", "random", "search"))
}

#' x and y must describe the same rows
#' @noRd
check_same_rows <- function(x, y) {
  n_y <- if (is.data.frame(y) || is.matrix(y)) nrow(y) else length(y)
  if (nrow(x) != n_y) {
    stop(sprintf("`x` has %d rows but `y` has %d; they must match.", nrow(x), n_y),
         call. = FALSE)
  }
}

#' Levels beyond which variant = "paper" refuses a factor (see `variant`)
#' @noRd
paper_max_levels <- 1000L

#' variant = "paper" expands every unordered factor (characters included) to
#' indicator columns: refuse one wide enough to take minutes a tree before
#' growing anything, unless onehot_max_levels = Inf was given explicitly
#' @noRd
check_paper_factors <- function(x, explicit) {
  if (explicit) {
    return(invisible())
  }
  n_levels <- vapply(x, function(col) {
    if (is.factor(col) && !is.ordered(col)) {
      nlevels(col)
    } else if (is.character(col)) {
      length(unique(col[!is.na(col)]))
    } else {
      0L
    }
  }, integer(1))
  wide <- which(n_levels > paper_max_levels)
  if (length(wide) == 0L) {
    return(invisible())
  }
  d <- wide[[which.max(n_levels[wide])]]
  stop(sprintf(paste0(
    "`variant = \"paper\"` expands every factor to indicator columns, and `%s` has %s levels: ",
    "every canonical correlation analysis that samples it would work on %s columns, which ",
    "takes minutes a tree. Use variant = \"ccforest\" (which values such factors by the ",
    "outputs) or group the levels; to grow the paper's forest anyway, give ",
    "onehot_max_levels = Inf too."), names(x)[[d]], format(n_levels[[d]], big.mark = ","),
    format(n_levels[[d]], big.mark = ",")), call. = FALSE)
}


#' One sampling weight per feature (ranger's split.select.weights), by name or
#' in the features' order; "screen" for weights from the training data
#' (screen_weights()); "auto" for the screen when the data call for it
#' (auto_screen_weights()); NULL samples features uniformly
#' @param feature_names The features of `x`, in the order the core numbers them.
#' @return The weights in the features' order, scaled to a largest of 1,
#'   "screen", "auto", or NULL.
#' @noRd
check_feature_weights <- function(feature_weights, feature_names, task) {
  if (is.null(feature_weights)) {
    return(NULL)
  }
  if (is.character(feature_weights)) {
    feature_weights <- check_choice(feature_weights, "feature_weights", c("auto", "screen"))
    # The default: a survival forest, which has nothing to screen by, samples
    # uniformly as it always did.
    if (feature_weights == "auto") {
      return(if (task_record(task)$screens_features) "auto")
    }
    if (!task_record(task)$screens_features) {
      stop(paste0("feature_weights = \"screen\" is for classification and regression: ",
                  "a survival outcome has no per-feature R^2 to screen by; give numeric ",
                  "weights instead."), call. = FALSE)
    }
    return(feature_weights)
  }
  n_feature <- length(feature_names)
  if (!is_plain_number(feature_weights) || !is.null(dim(feature_weights))) {
    stop(sprintf(paste0("`feature_weights` must be \"auto\", \"screen\" or a numeric vector with one ",
                        "weight per feature, not %s."),
                 describe_value(feature_weights, FALSE)), call. = FALSE)
  }
  if (length(feature_weights) != n_feature) {
    stop(sprintf("`feature_weights` has %d weight(s) but `x` has %d feature(s); give one per feature.",
                 length(feature_weights), n_feature), call. = FALSE)
  }
  bad <- which(is.na(feature_weights) | !is.finite(feature_weights) | feature_weights < 0)
  if (length(bad)) {
    stop(sprintf(paste0("`feature_weights` must be finite and >= 0, but weight %d%s is %s."),
                 bad[[1L]],
                 if (!is.null(names(feature_weights))) sprintf(" (`%s`)", names(feature_weights)[[bad[[1L]]]]) else "",
                 format(feature_weights[[bad[[1L]]]])), call. = FALSE)
  }
  if (!any(feature_weights > 0)) {
    stop("`feature_weights` are all 0: at least one feature must be possible to sample.",
         call. = FALSE)
  }
  given_names <- names(feature_weights)
  if (!is.null(given_names)) {
    position <- match(feature_names, given_names)
    unknown <- setdiff(given_names, feature_names)
    if (anyNA(position) || length(unknown) || anyDuplicated(given_names)) {
      stop(sprintf(paste0("The names of `feature_weights` must be the features' names (%s), ",
                          "each once; %s."),
                   format_names(feature_names),
                   if (length(unknown)) sprintf("%s are not features", format_names(unknown))
                   else if (anyDuplicated(given_names)) {
                     sprintf("`%s` is named twice", given_names[anyDuplicated(given_names)])
                   } else sprintf("%s have no weight", format_names(feature_names[is.na(position)]))),
           call. = FALSE)
    }
    feature_weights <- feature_weights[position]
  }
  weights <- as.numeric(feature_weights) / max(feature_weights)
  names(weights) <- feature_names
  weights
}

#' feature_weights = "screen": each feature's share of variance explained by
#' the outputs in the training rows (core/Screening.h), squared, so that on
#' wide data the few features that carry a signal are sampled far more often
#' than the thousands that do not (squaring measured better than R^2 itself
#' and than higher powers, bench/results/wide.md); NULL (uniform sampling)
#' when the outputs explain nothing of any feature
#' @noRd
screen_weights <- function(training, feature_names) {
  r2 <- ccf_screen_cpp(training)
  if (!any(r2 > 0)) {
    return(NULL)
  }
  weights <- r2^2
  stats::setNames(weights / max(weights), feature_names)
}

#' feature_weights = "auto" (the default): when the core's rule
#' (core/ScreenRule.h) finds a sparse signal or gene-expression-wide data,
#' each feature's screening R^2 to the 4th power (sharper than the screen's
#' square: with random axis candidates, which the pipeline adds, 0.767 of
#' ranger's error on the microarrays against the screen's 0.820 over 6 x
#' 5-fold CV, p = 0.017, and no worse on wide.R's sparse designs,
#' bench/results/wide-screen-6.md; the square is kept for "screen" because
#' the 4th power loses the dense design, where "auto" does not act); else
#' NULL, so that the forest is the one uniform sampling grows
#' @return list(weights = the screen's weights or NULL, rule = what the rule
#'   saw: whether it acts, the features that stand out from noise, the R^2
#'   they exceed).
#' @noRd
auto_screen_weights <- function(training, feature_names, mtry) {
  screened <- ccf_screen_auto_cpp(training, as.integer(mtry))
  rule <- list(acts = screened$acts, standing_out = as.integer(screened$standing_out),
               threshold = screened$threshold, n_feature = length(feature_names))
  weights <- if (screened$acts) {
    w <- screened$r2^4
    stats::setNames(w / max(w), feature_names)
  }
  list(weights = weights, rule = rule)
}
