# The options of ccforest(): one table, from which the argument checks, the
# values variant = "paper" fixes, the fitted object's `options`, the core's
# options (core_options()), print()'s "Beyond paper:" line and the
# registrations with parsnip and mlr3 are derived (issue 37; architecture
# rule 23). Adding an option is a row here, its formal and its roxygen in
# ccforest.R, and its reader in src/r_convert.h and field in
# src/core/Options.h when the core uses it (src/README.md).
#
# Each row (a list made by option()) has:
#   name     the argument of ccforest.default(), in the formals' order
#   default  the formal's default, as written (a call for `verbose`)
#   type     the values it takes (count, number, choice, flag or any; see
#            count_type() and the others), which the generic check and
#            mlr3's parameter follow
#   stage    when it is checked: "call" (from the call alone, before the
#            data), "data" (needs the task, the features or the rows:
#            check(value, context)) or "pipeline" (checked by the step of
#            ccforest.default() that uses it; `check` is then NULL)
#   check    function(value, context) returning the value the fit uses, for
#            checks beyond `type` (NULL: the generic check of `type`)
#   stored   whether the checked value is kept in fit$options as is
#   paper    list(value, agrees): the value variant = "paper" fixes, and
#            whether a given value agrees with it (identical() by default);
#            NULL for options the paper leaves to the user
#   core     function(value, options, training) giving the core's fields
#            (a named list, read by name in src/r_convert.h), NULL if the
#            core does not read it
#   beyond   list(rank, label): print()'s words for a value beyond the
#            paper (NULL when it is the paper's), in the order of `rank`
#   shown    list(rank, label, value, summary_only): a row of its own in
#            print() and summary() (value(options, n_feature): the text, NA
#            for none; n_feature, the fit's number of features, is NULL in
#            summary(), which shows them in a row of their own), in the
#            order of `rank`; see option_rows()
#   parsnip  list(parsnip, pkg, fun, sub): the engine argument of
#            rand_forest() and its dials parameter, NULL if not tunable there
#   mlr3     list(tags, ...): the learners' parameter (tags, and `task`,
#            `values`, `default`, `special` where they differ from what the
#            row gives), NULL if it is not one

#' One row of the option table; see the top of R/fit-options.R
#' @noRd
option <- function(name, default, type, stage = "call", check = NULL, stored = TRUE,
                   paper = NULL, core = NULL, beyond = NULL, shown = NULL, parsnip = NULL,
                   mlr3 = NULL) {
  list(name = name, default = default, type = type, stage = stage, check = check,
       stored = stored, paper = paper, core = core, beyond = beyond, shown = shown,
       parsnip = parsnip, mlr3 = mlr3)
}

#' An option's row of its own in print() (and summary()), or in summary()
#' only
#' @noRd
shown_row <- function(rank, label, value, summary_only = FALSE) {
  list(rank = rank, label = label, value = value, summary_only = summary_only)
}

#' A whole number >= min (<= max); `null` says that NULL is taken (and what
#' it becomes), `inf` that Inf is taken (and what it becomes)
#' @noRd
count_type <- function(min = 1L, max = Inf, null = FALSE, null_as = NULL, inf = FALSE,
                       inf_as = NULL) {
  list(kind = "count", min = min, max = max, null = null, null_as = null_as, inf = inf,
       inf_as = inf_as)
}

#' @noRd
number_type <- function(min = -Inf, max = Inf, null = FALSE) {
  list(kind = "number", min = min, max = max, null = null)
}

#' @noRd
choice_type <- function(values) list(kind = "choice", values = values)

#' @noRd
flag_type <- function(null = FALSE) list(kind = "flag", null = null)

#' A value checked by the row's own check only (weights, seeds, functions)
#' @noRd
any_type <- function() list(kind = "any")

#' The core's field of the same name, with its value for fits that predate
#' the option; none when the option is unset and has no such value (the core
#' then keeps its own default: min_events outside survival)
#' @noRd
core_as_is <- function(name, absent = NULL) {
  force(name)
  force(absent)
  function(value, options, training) {
    value <- value %||% absent
    if (!is.null(value)) stats::setNames(list(value), name)
  }
}

#' A count's label for print(), unless it is the core's "no limit"
#' @noRd
count_label <- function(name, none = 0L) {
  force(name)
  force(none)
  function(value) {
    if (is.null(value) || identical(value, none) || (is.numeric(value) && !is.finite(value))) {
      return(NULL)
    }
    sprintf("%s = %d", name, as.integer(value))
  }
}

#' mlr3's tags of an option worth tuning
#' @noRd
tune_tags <- c("train", "tune")

#' The table. Its order is the formals' order, which is also the order of
#' fit$options and of the checks within a stage.
#' @noRd
option_table <- list(
  option("n_tree", 500L, count_type(min = 1L),
         parsnip = list(parsnip = "trees", pkg = "dials", fun = "trees", sub = TRUE),
         mlr3 = list(tags = "train")),
  option("mtry", NULL, count_type(min = 1L, null = TRUE), stage = "data",
         check = function(value, context) check_mtry(value, context$n_feature),
         core = core_as_is("mtry"),
         # print() says it of the features; summary() has a row of them above.
         shown = shown_row(0, "mtry:", function(opts, n_feature) {
           if (is.null(n_feature)) format(opts$mtry) else {
             sprintf("%d of %d features", opts$mtry, n_feature)
           }
         }),
         parsnip = list(parsnip = "mtry", pkg = "dials", fun = "mtry", sub = FALSE),
         mlr3 = list(tags = tune_tags)),
  option("min_split", NULL, count_type(min = 1L, null = TRUE), stage = "data",
         check = function(value, context) {
           check_min_split(value, context$task, context$n_row, context$n_counted)
         },
         core = core_as_is("min_split"),
         shown = shown_row(6, "min_split, min_leaf:", function(opts, ...) {
           sprintf("%d, %d", opts$min_split, opts$min_leaf)
         }, summary_only = TRUE),
         parsnip = list(parsnip = "min_n", pkg = "dials", fun = "min_n", sub = FALSE),
         mlr3 = list(tags = tune_tags)),
  option("min_leaf", NULL, count_type(min = 1L, null = TRUE), stage = "data",
         check = function(value, context) check_min_leaf(value, context$task, context$n_counted),
         core = core_as_is("min_leaf"), mlr3 = list(tags = tune_tags)),
  # Survival only, so kept by survival_options() and read by the core when set.
  option("min_events", NULL, count_type(min = 1L, null = TRUE), stage = "data",
         check = function(value, context) {
           check_min_events(value, context$task, context$response, context$variant, context$weights)
         },
         stored = FALSE, core = core_as_is("min_events")),
  # Survival only, kept by survival_options() as min_events is.
  option("min_statistic", NULL, number_type(min = 0, null = TRUE), stage = "data",
         check = function(value, context) {
           check_min_statistic(value, context$task, context$response, context$variant)
         },
         stored = FALSE, core = core_as_is("min_statistic")),
  option("max_depth", NULL, count_type(min = 1L, null = TRUE, null_as = 0L),
         core = core_as_is("max_depth"),
         shown = shown_row(7, "max_depth:", function(opts, ...) {
           if (opts$max_depth == 0L) "unlimited" else format(opts$max_depth)
         }, summary_only = TRUE),
         mlr3 = list(tags = tune_tags)),
  option("split_rule", NULL, choice_type(c("entropy", "gini", "variance", "logrank")),
         stage = "data", check = function(value, context) check_split_rule(value, context$task),
         core = core_as_is("split_rule"),
         shown = shown_row(3, "Split rule:", function(opts, ...) opts$split_rule %||% NA_character_),
         parsnip = list(parsnip = "split_rule", pkg = "ccforest", fun = "ccf_split_rule",
                        sub = FALSE),
         mlr3 = list(tags = tune_tags, task = "classif", values = c("entropy", "gini"),
                     default = "entropy")),
  # Stored as resolved (bagging or projection) by the pipeline.
  option("sampling", "auto", choice_type(c("auto", "projection", "bagging")),
         core = function(value, options, training) list(projection_bootstrap = value != "bagging"),
         shown = shown_row(1, "Sampling:", function(opts, ...) sampling_label(opts)),
         parsnip = list(parsnip = "sampling", pkg = "ccforest", fun = "ccf_sampling",
                        sub = FALSE),
         mlr3 = list(tags = tune_tags)),
  # Checked with `replace` by resolve_sample(), which needs the weights.
  option("sample_fraction", NULL, number_type(min = 0, max = 1, null = TRUE),
         stage = "pipeline",
         core = function(value, options, training) list(sample = row_sample(options, training)),
         parsnip = list(parsnip = "sample_fraction", pkg = "dials", fun = "sample_prop",
                        sub = FALSE),
         mlr3 = list(tags = tune_tags)),
  option("replace", NULL, flag_type(null = TRUE), stage = "pipeline",
         mlr3 = list(tags = tune_tags)),
  option("projection", "cca", choice_type(c("cca", "rotation", "pca", "axis")),
         core = core_as_is("projection"),
         shown = shown_row(2, "Projection:", function(opts, ...) projection_label(opts$projection)),
         parsnip = list(parsnip = "projection", pkg = "ccforest", fun = "ccf_projection",
                        sub = FALSE),
         mlr3 = list(tags = tune_tags)),
  option("importance", "none", choice_type(c("none", "projection", "permutation", "negation")),
         check = function(value, context) check_importance(value),
         mlr3 = list(tags = "train")),
  # Stored by the pipeline only where it acts (FALSE, trees grown on
  # samples): a fit with out-of-bag estimates is the one it always was.
  option("oob_error", TRUE, flag_type(),
         check = function(value, context) check_oob_error(value, context$importance),
         stored = FALSE, mlr3 = list(tags = "train")),
  option("na_action", "impute_random",
         choice_type(c("impute_random", "impute_mean", "fail", "omit")),
         core = function(value, options, training) {
           list(impute_random = value %in% c("impute_random", "omit"))
         },
         shown = shown_row(8, "na_action:", function(opts, ...) opts$na_action, summary_only = TRUE),
         mlr3 = list(tags = "train")),
  # Checked against the rows by check_case_weights(); the fit stores whether
  # there were any.
  option("case_weights", NULL, any_type(), stage = "pipeline"),
  option("class_weights", NULL, any_type(), stage = "pipeline",
         mlr3 = list(tags = "train", task = "classif")),
  option("quantiles", FALSE, flag_type(), stage = "data",
         check = function(value, context) check_quantiles(value, context$response),
         stored = FALSE),
  option("onehot_max_levels", 32, count_type(min = 1L, inf = TRUE, inf_as = Inf),
         paper = list(value = Inf),
         beyond = list(rank = 3L, label = count_label("onehot_max_levels", none = Inf)),
         mlr3 = list(tags = "train")),
  option("max_directions", 2L, count_type(min = 1L, inf = TRUE, inf_as = 0L),
         paper = list(value = Inf), core = core_as_is("max_directions", 0L),
         beyond = list(rank = 1L, label = count_label("max_directions")),
         parsnip = list(parsnip = "max_directions", pkg = "ccforest",
                        fun = "ccf_max_directions", sub = FALSE),
         mlr3 = list(tags = tune_tags)),
  option("direction_ratio", 0.9, number_type(min = 0, max = 1),
         paper = list(value = 0, agrees = function(value) {
           isTRUE(is_plain_number(value) && length(value) == 1L && value == 0)
         }),
         core = core_as_is("direction_ratio", 0),
         beyond = list(rank = 2L, label = function(value) {
           if ((value %||% 0) > 0) sprintf("direction_ratio = %s", format(value))
         }),
         parsnip = list(parsnip = "direction_ratio", pkg = "ccforest",
                        fun = "ccf_direction_ratio", sub = FALSE),
         mlr3 = list(tags = tune_tags)),
  option("bootstrap_max_rows", 1024L, count_type(min = 2L, inf = TRUE, inf_as = 0L),
         paper = list(value = Inf), core = core_as_is("bootstrap_max_rows", 0L),
         beyond = list(rank = 6L, label = count_label("bootstrap_max_rows")),
         mlr3 = list(tags = "train")),
  option("exact_split_max_rows", 1024L, count_type(min = 1L, inf = TRUE, inf_as = 0L),
         paper = list(value = Inf), core = core_as_is("exact_split_max_rows", 0L),
         beyond = list(rank = 7L, label = count_label("exact_split_max_rows")),
         mlr3 = list(tags = "train")),
  option("output_bins", NULL, count_type(min = 2L, null = TRUE, null_as = 0L),
         stage = "data", check = function(value, context) {
           check_output_bins(value, context$response)
         },
         paper = list(value = NULL), core = core_as_is("output_bins", 0L),
         beyond = list(rank = 4L, label = count_label("output_bins")),
         parsnip = list(parsnip = "output_bins", pkg = "ccforest", fun = "ccf_output_bins",
                        sub = FALSE),
         mlr3 = list(tags = tune_tags, task = "regr")),
  # TRUE and FALSE, the flag it was, mean "search" and "none".
  option("axis_candidates", "none", choice_type(c("none", "random", "search")),
         check = function(value, context) check_axis_candidates(value),
         paper = list(value = "none", agrees = function(value) {
           identical(check_axis_candidates(value), "none")
         }),
         core = function(value, options, training) list(axis_candidates = axis_mode(value)),
         beyond = list(rank = 5L, label = function(value) {
           mode <- axis_mode(value)
           if (mode != "none") sprintf("axis_candidates = \"%s\"", mode)
         }),
         parsnip = list(parsnip = "axis_candidates", pkg = "ccforest",
                        fun = "ccf_axis_candidates", sub = FALSE),
         mlr3 = list(tags = tune_tags)),
  # Stored by the pipeline only when given or screened (after "screen" and
  # "auto" are resolved).
  option("feature_weights", "auto", any_type(), stage = "data",
         check = function(value, context) {
           check_feature_weights(value, context$feature_names, context$task)
         },
         stored = FALSE,
         # "auto", the default, departs from the paper only when it acts.
         paper = list(value = NULL, agrees = function(value) identical(value, "auto")),
         core = function(value, options, training) {
           if (!is.null(value)) list(feature_weights = unname(value))
         },
         shown = shown_row(5, "Feature weights:", function(opts, ...) feature_weights_label(opts)),
         mlr3 = list(tags = "train")),
  option("variant", "ccforest", choice_type(c("ccforest", "paper")),
         core = core_as_is("variant", "ccforest"), mlr3 = list(tags = "train")),
  # How the fit runs, not what it grows: not stored in fit$options.
  option("n_thread", NULL, count_type(min = 0L, null = TRUE), stored = FALSE,
         check = function(value, context) resolve_n_thread(value),
         # mlr3 parallelises over resamples: one thread unless set_threads() says.
         mlr3 = list(tags = c("train", "predict", "threads"), default = 2L, special = list())),
  option("seed", NULL, count_type(min = 0L, max = 2147483647L, null = TRUE), stored = FALSE,
         check = function(value, context) resolve_seed(value),
         mlr3 = list(tags = "train")),
  option("verbose", quote(interactive()), flag_type(), stored = FALSE,
         mlr3 = list(tags = "train", default = NULL)),
  option("first_tree", 1L, count_type(min = 1L), stored = FALSE,
         check = function(value, context) check_first_tree(value, context$n_tree)),
  option("backend", "threads", choice_type(c("threads", "future")), stored = FALSE,
         check = function(value, context) check_backend(value),
         mlr3 = list(tags = "train")),
  option("n_batch", NULL, count_type(min = 1L, null = TRUE), stored = FALSE,
         check = function(value, context) {
           resolve_n_batch(value, context$n_tree, context$backend)
         },
         mlr3 = list(tags = "train"))
)
names(option_table) <- vapply(option_table, `[[`, "", "name")

# What every fit asks of the table, derived once here rather than on each
# call: a small fit spent about a twentieth of its time walking the table
# (issue 38).

#' The table's rows by stage, in the table's order (check_options())
#' @noRd
option_stages <- split(option_table, vapply(option_table, `[[`, "", "stage"))

#' The options fit$options keeps, in the table's order (stored_options())
#' @noRd
stored_option_names <- names(Filter(function(o) o$stored, option_table))

#' The rows the core reads (core_options())
#' @noRd
core_option_rows <- Filter(function(o) !is.null(o$core), option_table)

#' `missing(<option>)` for each option (given_options())
#' @noRd
option_missing_calls <- lapply(names(option_table), function(n) call("missing", as.name(n)))

#' The generic check of an option's type, with the messages of the checks
#' it builds on (fit-validate.R)
#' @noRd
check_option_type <- function(value, name, type) {
  if (isTRUE(type$null) && is.null(value)) {
    return(type$null_as)
  }
  if (isTRUE(type$inf) && identical(value, Inf)) {
    return(type$inf_as)
  }
  switch(type$kind,
    count = check_count(value, name, min = type$min, max = type$max),
    number = check_number(value, name, min = type$min, max = type$max),
    choice = check_choice(value, name, type$values),
    flag = check_flag(value, name),
    value
  )
}

#' Check the options of one stage, in the table's order
#' @param values The options as given (a named list).
#' @param context What the checks of the stage need: the options checked
#'   before, and for the data stage the task, the response, the features and
#'   the rows.
#' @return `values` with the stage's options checked.
#' @noRd
check_options <- function(values, stage, context = values) {
  for (o in option_stages[[stage]]) {
    value <- values[[o$name]]
    checked <- if (is.null(o$check)) {
      check_option_type(value, o$name, o$type)
    } else {
      o$check(value, context)
    }
    # `[<-` keeps a NULL; `[[<-` would drop the option.
    values[o$name] <- list(checked)
    context[o$name] <- list(checked)
  }
  values
}

#' The options of ccforest.default()'s call, read from its frame: values
#' (defaults forced) and which were given
#' @noRd
given_options <- function(env) {
  names <- names(option_table)
  given <- vapply(option_missing_calls, function(missing_call) !eval(missing_call, env), logical(1))
  names(given) <- names
  list(values = mget(names, envir = env), given = given)
}

#' variant = "paper" fixes the options that depart from the paper; any of
#' them given with another value is an error rather than silently overridden
#' @param values,given As given_options() returns them.
#' @return `values` with the paper's values in place.
#' @noRd
apply_paper_variant <- function(values, given) {
  if (!identical(values$variant, "paper")) {
    return(values)
  }
  for (o in option_table) {
    value <- values[[o$name]]
    # NULL, as do.call() and wrappers pass "not given", is not a departure.
    if (is.null(o$paper) || !given[[o$name]] || is.null(value)) next
    agrees <- if (!is.null(o$paper$agrees)) {
      o$paper$agrees(value)
    } else {
      identical(value, o$paper$value)
    }
    if (!agrees) {
      stop(sprintf(paste0(
        "`variant = \"paper\"` grows the paper's forest, which `%s = %s` departs from: ",
        "drop `%s`, or use `variant = \"ccforest\"`."),
        o$name, describe_value(value, TRUE), o$name), call. = FALSE)
    }
  }
  for (o in option_table) {
    if (!is.null(o$paper)) values[o$name] <- list(o$paper$value)
  }
  values
}

#' fit$options: the stored options as checked, with the pipeline's
#' resolutions (`resolved`) in their place
#' @noRd
stored_options <- function(values, resolved) {
  # `[` keeps NULL values (and gives an absent one as NULL), as `[[` did.
  out <- unname(values[stored_option_names])
  names(out) <- stored_option_names
  from_pipeline <- stored_option_names[stored_option_names %in% names(resolved)]
  out[from_pipeline] <- lapply(from_pipeline, function(name) resolved[[name]])
  out
}

#' The options as the core reads them, by name (enumerated ones by the names
#' src/core/Options.h lists), each option's fields from its row; src/r_convert.h
#' (tree_options()) reads them
#' @param options fit$options.
#' @param training The training_set(), which sample sizes count.
#' @noRd
core_options <- function(options, seed, training) {
  core <- list(seed = seed)
  for (o in core_option_rows) {
    fields <- o$core(options[[o$name]], options, training)
    if (length(fields)) core[names(fields)] <- fields
  }
  # The CCA's rank tolerance is the paper's, not an option.
  core$rank_tolerance <- 1e-4
  core
}

#' The options of a fit that depart from Rainforth and Wood (2017) and act
#' on it, as the user would write them; "none" for the paper's forest
#'
#' @param acting Which options change this fit (see acting_options()); an
#'   option not named is shown whenever it is set.
#' @noRd
beyond_paper_label <- function(opts, acting = logical(0)) {
  rows <- Filter(function(o) !is.null(o$beyond), option_table)
  rows <- rows[order(vapply(rows, function(o) o$beyond$rank, integer(1)))]
  shown <- unlist(lapply(rows, function(o) {
    if (o$name %in% names(acting) && !acting[[o$name]]) {
      return(NULL)
    }
    o$beyond$label(opts[[o$name]])
  }))
  if (length(shown) == 0L) {
    return(if (identical(opts$variant, "paper")) "none (variant = \"paper\")" else "none")
  }
  paste(shown, collapse = ", ")
}

#' Rank of the "Beyond paper:" line among the options' rows (see `shown`)
#' @noRd
beyond_paper_rank <- 4

#' The rows print() and summary() show for the options: each option's own
#' (`shown`) and the "Beyond paper:" line (`beyond`, see
#' beyond_paper_label()), in the order of their ranks; NA for a row left out
#' @param summary Whether the rows are summary()'s (more of them).
#' @param n_feature The fit's number of features, for print() (NULL in
#'   summary()).
#' @noRd
option_rows <- function(opts, beyond, summary = FALSE, n_feature = NULL) {
  rows <- Filter(function(o) !is.null(o$shown) && (summary || !o$shown$summary_only),
                 option_table)
  values <- vapply(rows, function(o) o$shown$value(opts, n_feature), character(1))
  names(values) <- vapply(rows, function(o) o$shown$label, character(1))
  ranks <- c(vapply(rows, function(o) o$shown$rank, numeric(1)), beyond_paper_rank)
  c(values, "Beyond paper:" = beyond)[order(ranks)]
}

#' The engine arguments of rand_forest()'s "ccforest" engine, for
#' parsnip::set_model_arg()
#' @noRd
parsnip_arguments <- function() {
  rows <- Filter(function(o) !is.null(o$parsnip), option_table)
  lapply(rows, function(o) c(list(original = o$name), o$parsnip))
}

#' The mlr3 learners' parameters from the table (paradox's p_*()), in the
#' table's order; options without a row for mlr3 are left out
#' @param task_type `"classif"` or `"regr"`.
#' @noRd
mlr3_option_params <- function(task_type) {
  rows <- Filter(function(o) {
    !is.null(o$mlr3) && (is.null(o$mlr3$task) || o$mlr3$task == task_type)
  }, option_table)
  lapply(rows, mlr3_param)
}

#' One option's paradox parameter, from its type and default
#' @noRd
mlr3_param <- function(o) {
  type <- o$type
  spec <- o$mlr3
  args <- list(tags = spec$tags)
  # The formal's default unless the row says otherwise; none for a call.
  default <- if ("default" %in% names(spec)) spec$default else o$default
  if (!is.call(default) && !("default" %in% names(spec) && is.null(spec$default))) {
    args["default"] <- list(if (type$kind == "count" && is.numeric(default) &&
                                  is.finite(default)) as.integer(default) else default)
  }
  special <- if ("special" %in% names(spec)) spec$special else {
    c(if (isTRUE(type$null)) list(NULL), if (isTRUE(type$inf)) list(Inf))
  }
  if (length(special)) args$special_vals <- special
  switch(type$kind,
    count = do.call(paradox::p_int, c(list(lower = type$min,
                                           upper = if (is.finite(type$max)) type$max else Inf),
                                      args)),
    number = do.call(paradox::p_dbl, c(list(lower = type$min, upper = type$max), args)),
    choice = do.call(paradox::p_fct, c(list(levels = spec$values %||% type$values), args)),
    flag = do.call(paradox::p_lgl, args),
    do.call(paradox::p_uty, args)
  )
}
