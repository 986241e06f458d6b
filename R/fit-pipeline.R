# The steps of a fit, in order (ccforest.default() calls them):
#   resolve_specification()  the options from the call alone
#   prepare_training()       rows, outputs, weights and features, then the
#                            options that depend on them and the core's
#   grow_fit()               the memory set aside, the trees grown
#   finish_fit()             the fitted object: out-of-bag estimates,
#                            quantile data, importance, seal, prepared trees
# What differs between tasks comes from their records (task_record()).

#' The options of a fit that the call alone decides, checked, with the paper
#' variant's overrides applied
#'
#' @param call_options given_options() of ccforest.default()'s frame.
#' @noRd
resolve_specification <- function(call_options) {
  opt <- apply_paper_variant(call_options$values, call_options$given)
  list(opt = check_options(opt, "call"), given = call_options$given)
}

#' The training set the core grows trees on, with everything the later steps
#' need: the options checked against the data, the stored options and the
#' core's, the blueprint and the response
#' @noRd
prepare_training <- function(x, y, spec, x_arg, y_arg) {
  opt <- spec$opt
  # The rows, then the outputs and the weights, each prepared once. A
  # sparse matrix is read where it lies (R/data-sparse.R), except by
  # survival forests, which read dense features.
  sparse <- is_sparse_matrix(x) && !is_survival_outcome(y)
  x <- if (sparse) sparse_features(x, x_arg) else as_feature_frame(x, x_arg)
  if (opt$variant == "paper" && !sparse) {
    check_paper_factors(x, explicit = spec$given[["onehot_max_levels"]])
  }
  n_x <- if (sparse) nrow(x$x) else nrow(x)
  check_same_rows(if (sparse) x$x else x, y)
  case_weights <- check_case_weights(opt$case_weights, n_x)
  kept_rows <- NULL
  if (opt$na_action == "omit") {
    complete <- if (sparse) !seq_len(n_x) %in% sparse_missing_rows(x$x) else stats::complete.cases(x)
    keep <- complete & response_row_ok(y)
    if (!any(keep)) {
      stop("No complete rows remain after na_action = \"omit\".", call. = FALSE)
    }
    x <- if (sparse) sparse_subset_rows(x, keep) else x[keep, , drop = FALSE]
    y <- subset_rows(y, keep)
    case_weights <- case_weights[keep]
    if (!all(keep)) kept_rows <- keep
  }
  outputs <- parse_response(y, y_arg)
  class_weights <- check_class_weights(opt$class_weights, outputs)
  weights <- row_weights(case_weights, class_weights, outputs)
  # Rows of weight 0 take no part, not even in the z-score statistics.
  stat_rows <- if (!is.null(weights) && any(weights == 0)) weights > 0
  response <- standardise_response(outputs, stat_rows)
  task <- response$task

  # The features, once: a factor with many levels is valued by the outputs.
  x_impute <- if (opt$na_action == "omit") "fail" else opt$na_action
  if (sparse) {
    check_sparse_memory(x$x, x_arg)
    blueprint <- sparse_blueprint(x, x_arg, stat_rows = stat_rows)
    matrix_x <- sparse_training_matrix(blueprint, x, na_action = x_impute, arg = x_arg)
  } else {
    blueprint <- new_blueprint(x, x_arg, stat_rows = stat_rows, response = response,
                               weights = weights, onehot_max_levels = opt$onehot_max_levels,
                               seed = opt$seed)
    matrix_x <- training_matrix(blueprint, x, na_action = x_impute, arg = x_arg)
    blueprint <- attr(matrix_x, "blueprint")
    attr(matrix_x, "blueprint") <- NULL
  }
  rm(x)

  # The options whose meaning depends on the task, the features or the rows.
  n_feature <- length(blueprint$feature_names)
  opt <- check_options(opt, "data", context = list(
    task = task, response = response, n_feature = n_feature, variant = opt$variant,
    feature_names = blueprint$feature_names, n_row = nrow(matrix_x),
    n_counted = rows_counted(matrix_x, weights), weights = weights
  ))
  bagging <- resolve_bagging(opt$sampling, opt$mtry, n_feature, task)
  sample <- resolve_sample(opt$sample_fraction, opt$replace, bagging, response, weights,
                           class_weights)
  check_classes_drawn(response, weights, sample$sample_fraction, case_weights, class_weights)

  options <- stored_options(opt, resolved = list(
    sampling = if (bagging) "bagging" else "projection",
    sample_fraction = sample$sample_fraction, replace = sample$replace,
    case_weights = !is.null(case_weights), class_weights = class_weights
  ))
  options <- task_record(task)$task_options(options, response, opt)
  # Recorded only where it acts, for print() and what needs the estimates.
  if (!opt$oob_error && has_out_of_bag(options)) options$oob_error <- FALSE
  check_importance_sampling(opt$importance, options)
  training <- training_set(matrix_x, blueprint, response, weights)
  # Stored only when given: a fit without them samples uniformly, as before.
  feature_weights <- opt$feature_weights
  if (identical(feature_weights, "screen")) {
    options$feature_screen <- TRUE
    feature_weights <- screen_weights(training, blueprint$feature_names)
  } else if (identical(feature_weights, "auto")) {
    auto <- auto_screen_weights(training, blueprint$feature_names, opt$mtry)
    options$screen_rule <- auto$rule
    feature_weights <- auto$weights
    # Where the rule acts, random axis candidates with the sharper weights
    # measured better than the screen alone (bench/results/wide-screen-6.md);
    # an axis_candidates the user gave is kept.
    if (auto$rule$acts && !isTRUE(spec$given[["axis_candidates"]])) {
      options$axis_candidates <- "random"
    }
  }
  if (!is.null(feature_weights)) options$feature_weights <- feature_weights
  list(opt = opt, options = options, core = core_options(options, opt$seed, training),
       training = training, blueprint = blueprint, response = response, task = task,
       weights = weights, kept_rows = kept_rows, bagging = bagging, sparse = sparse,
       matrix_x = matrix_x, n_obs = nrow(matrix_x))
}

#' The trees of a fit, grown within the memory left once what the fit
#' allocates besides them is set aside
#' @noRd
grow_fit <- function(prepared) {
  opt <- prepared$opt
  response <- prepared$response
  matrix_x <- prepared$matrix_x
  weights <- prepared$weights
  n_sample <- if (is.null(weights)) nrow(matrix_x) else sum(weights > 0)
  # Out-of-bag estimates skipped (oob_error = FALSE) need no memory.
  with_oob <- prepared$bagging && opt$oob_error
  extra <- fit_extra_bytes(
    nrow(matrix_x), n_sample, prediction_width(response), opt$n_tree, opt$n_thread,
    with_oob, opt$quantiles, opt$min_leaf, opt$max_depth
  )
  if (prepared$sparse) extra[["sparse"]] <- sparse_rows_bytes(matrix_x, opt$n_thread)
  # A task whose out-of-bag estimates hold more than the common ones says so.
  oob <- if (with_oob) task_record(prepared$task)$oob_bytes(nrow(matrix_x), opt$n_tree, response)
  if (!is.null(oob)) extra[["oob"]] <- oob
  tree_limit <- memory_for_trees(extra)
  started <- proc.time()[["elapsed"]]
  grown <- if (opt$backend == "future") {
    grow_on_futures(prepared$training, prepared$core, first_tree = opt$first_tree - 1L,
                    n_tree = opt$n_tree, n_thread = opt$n_thread, n_batch = opt$n_batch,
                    verbose = opt$verbose, limit = tree_limit)
  } else {
    grow_trees(prepared$training, prepared$core, first_tree = opt$first_tree - 1L,
               n_tree = opt$n_tree, n_thread = opt$n_thread, verbose = opt$verbose,
               limit = tree_limit)
  }
  c(grown, list(started = started))
}

#' The fitted object from its trees: out-of-bag estimates, quantile data and
#' importance, sealed, with its trees decoded for the first prediction
#'
#' @param formula For the formula method: list(terms, call), the fit's
#'   `formula` and `call`, so that the fit is sealed once, with them.
#' @noRd
finish_fit <- function(grown, prepared, call, formula = NULL) {
  opt <- prepared$opt
  training <- prepared$training
  fit <- new_ccforest(
    forest = new_forest(grown, first_tree = opt$first_tree, training = training),
    task = prepared$task, blueprint = prepared$blueprint,
    response = response_blueprint(prepared$response), options = prepared$options,
    seed = opt$seed, n_obs = prepared$n_obs, train_time = NA_real_, call = call
  )
  # The memory the system can still give, probed once now the trees are
  # grown: it bounds the decoded trees kept with the fit (its seal's too).
  limit <- memory_limit()
  # A fit is usually followed by a prediction: its trees are decoded for it
  # now, with the fit's new handle, and its out-of-bag estimates walk the
  # same decoded trees.
  cache <- ccf_new_cache_cpp()
  ccf_prime_cpp(cache, fit$forest$trees, model_shape(fit), opt$n_thread, limit)
  fit <- add_out_of_bag(fit, training, prepared$core, opt$n_thread, opt$importance,
                        prepared$kept_rows, prepared$response, cache)
  if (opt$quantiles) {
    fit$quantile <- quantile_data(fit, training, prepared$response, prepared$core, opt$n_thread)
  }
  fit$train_time <- proc.time()[["elapsed"]] - grown$started
  if (opt$importance == "projection") {
    fit$variable.importance <- projection_importance(fit)
  }
  if (!is.null(formula)) {
    # As the formula method once added them to a sealed fit and sealed it
    # again (the elements in that order, the handle before the seal).
    fit$formula <- formula$terms
    fit$call <- formula$call
    fit$cache <- cache
  }
  seal_ccforest(fit, cache = cache, limit = limit)
}
