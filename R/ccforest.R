#' Fit a canonical correlation forest
#'
#' Grows an ensemble of canonical correlation trees (Rainforth and Wood,
#' 2017). At each node, `mtry` features are sampled, a canonical correlation
#' analysis between them and the outputs is fitted on a bootstrap sample of
#' the node's rows (projection bootstrapping), and the node is split on the
#' best hyperplane among the canonical directions, searched exhaustively over
#' all of the node's rows.
#'
#' @section Data handling:
#' Unordered factors are expanded to 1-of-K indicator columns that are sampled
#' together as one feature; ordered factors and integers are ordinal;
#' logicals become 0/1; character columns are treated as factors (with a
#' message). Every column is z-scored with statistics stored in the fitted
#' object and reused at prediction. A factor level not seen at fit time gives
#' an all-zero indicator group at prediction, with a warning.
#'
#' @section Missing values:
#' With `na_action = "impute_random"` (the paper's choice), each tree replaces
#' each missing z-score by its own standard normal draw, at fit and at
#' prediction time. The draw is keyed on the tree, the column and the row's
#' content, never its position, so a row always gets the same prediction.
#' `"impute_mean"` replaces missing values by the training mean, `"fail"`
#' stops with an error, and `"omit"` drops incomplete rows at fit time (and
#' imputes at random at prediction). Missing outputs are never imputed: they
#' are an error unless `na_action = "omit"`.
#'
#' @section Several outputs:
#' `y` may be a data.frame of several factors (multi-output classification)
#' or of several numeric columns (multivariate regression); in a formula,
#' write `cbind(y1, y2) ~ .`, which keeps factors intact. Each output
#' contributes its own 1-of-K block (or standardised column) to the CCA, and
#' the split criterion averages the impurities over outputs.
#'
#' @section Reproducibility:
#' Each tree draws from its own random stream derived from `seed` and the tree
#' index, so a forest is identical for any number of threads. With
#' `seed = NULL` one seed is drawn from R's generator, so `set.seed()` governs
#' the fit.
#'
#' @section Scaling out:
#' Because tree k depends only on the data, the options, `seed` and k, the
#' trees can be grown anywhere and put together. With `backend = "future"`
#' the trees are split into `n_batch` batches of consecutive trees, grown as
#' futures on the current [future::plan()] (multisession, a cluster of
#' machines, a batch scheduler through future.batchtools, ...), each with
#' `n_thread` threads, and merged in tree order: the forest is identical to
#' the one `backend = "threads"` grows with the same seed, whatever the plan
#' and the number of workers. The encoded training data go to each worker
#' once on plans whose workers persist (multisession, cluster) and with each
#' batch elsewhere. With the progressr package, progress is reported through
#' [progressr::with_progress()] or [progressr::handlers()]; an interrupt
#' cancels the batches still running.
#'
#' With `first_tree = k`, the fit grows trees k, ..., k + n_tree - 1 of the
#' forest with that `seed`, so independent jobs (a Slurm array, machines
#' without a shared session) can each grow a range, which
#' [combine_forests()] joins into the forest grown at once. Give every job
#' the same explicit `seed`. See `vignette("scaling-out", package =
#' "ccforest")`.
#'
#' @param x A data.frame or a numeric matrix of features, or a two-sided
#'   formula (the formula interface).
#' @param y The outputs: a factor (classification), a numeric vector
#'   (regression), or a data.frame of several outputs, all factors or all
#'   numeric.
#' @param formula A formula such as `y ~ .`; `.` and `-` are supported, and
#'   `cbind(y1, y2) ~ .` gives several outputs.
#' @param data A data.frame holding the variables of `formula`.
#' @param n_tree Number of trees.
#' @param mtry Number of features sampled at each node, or a function of the
#'   number of features D returning it. Default `ceiling(log2(D) + 1)`, and 2
#'   when D = 3 (a factor counts as one feature).
#' @param min_split Nodes with fewer rows are not split. Default 2 for
#'   classification, 6 for regression.
#' @param min_leaf Minimum number of rows in a leaf. Default 1 for
#'   classification, 3 for regression.
#' @param max_depth Maximum depth of a tree; `NULL` (default) for unlimited.
#' @param split_rule `"entropy"` (default) or `"gini"` for classification,
#'   `"variance"` for regression.
#' @param sampling `"auto"` (default) uses projection bootstrapping when
#'   `mtry` is less than the number of features and bagging of whole trees
#'   otherwise, as in the paper; `"projection"` or `"bagging"` force one.
#'   With bagging, out-of-bag predictions and their error are stored in the
#'   forest (`predictions`, `oob_error`) and shown by `print()`.
#' @param projection How each node turns its sampled features into candidate
#'   split directions: `"cca"` (default; canonical correlation forest),
#'   `"rotation"` (a uniformly random rotation: random rotation forest),
#'   `"pca"` (principal components of the node's sampled features) or
#'   `"axis"` (the features themselves: a random forest). The paper's variants
#'   CCF-Bag and RRF-Bag combine these with `sampling = "bagging"`. Projection
#'   bootstrapping has no effect on axis-aligned splits, so for a random
#'   forest proper use `projection = "axis", sampling = "bagging"`.
#' @param importance Variable importance to compute while fitting: `"none"`
#'   (default), `"projection"` (split gains shared among each split's
#'   features in proportion to their coefficients; cheap, see
#'   [importance()]) or `"permutation"` (out-of-bag permutation importance;
#'   needs `sampling = "bagging"`, since with projection bootstrapping every
#'   tree sees every row). The result is stored as `variable.importance`.
#' @param na_action How to treat missing values in the features:
#'   `"impute_random"` (default), `"impute_mean"`, `"fail"` or `"omit"`. See
#'   the section on missing values.
#' @param n_thread Number of threads; `NULL` takes
#'   `getOption("ccforest.n_thread")`, then the environment variable
#'   `CCFOREST_N_THREAD`, then 2. 0 means all cores.
#' @param seed Master seed, a whole number in \[0, 2^31 - 1\]; `NULL` draws one
#'   from R's random number generator.
#' @param verbose Show progress on long fits.
#' @param first_tree The number of the first tree to grow: the fit holds
#'   trees `first_tree`, ..., `first_tree + n_tree - 1` of the forest with
#'   this `seed` (see the section on scaling out). Default 1.
#' @param backend Where the trees are grown: `"threads"` (default; this R
#'   session, `n_thread` threads) or `"future"` (batches of trees as futures
#'   on the current [future::plan()]; needs the future package).
#' @param n_batch With `backend = "future"`, the number of batches (futures)
#'   the trees are split into; default one per worker of the plan (at most
#'   one per tree; plans without a fixed number of workers need it). More
#'   batches than workers balance the load when workers differ in speed.
#' @param ... Options of the formula method are passed on to the default
#'   method. Arguments after `...` must be named in full: a misspelled or
#'   abbreviated name is an error that suggests the right one.
#' @return An object of class `"ccforest"`: a plain list holding the trees as
#'   flat vectors, the blueprint of the data (names, levels, scaling), the
#'   resolved options and seed, the task, the call, the training time and the
#'   package version. It can be saved with [saveRDS()].
#' @references Rainforth, T. and Wood, F. (2017). Canonical correlation
#'   forests. arXiv:1507.05444.
#' @seealso [predict.ccforest()]
#' @examples
#' fit <- ccforest(Species ~ ., data = iris, n_tree = 50, seed = 1)
#' fit
#' predict(fit, iris[c(1, 51, 101), ])
#'
#' # x/y interface, regression
#' reg <- ccforest(mtcars[, -1], mtcars$mpg, n_tree = 50, seed = 1)
#' predict(reg, mtcars[1:3, ])
#' @export
ccforest <- function(x, ...) {
  if (missing(x)) {
    return(ccforest.formula(...))
  }
  # ccforest(x = y ~ ., data = d): the formula method's first argument is
  # `formula`, so a formula passed by the name `x` is renamed, and the call
  # the fit records reads as the user's.
  if (inherits(x, "formula")) {
    call <- match.call()
    names(call)[names(call) == "x"] <- "formula"
    call[[1L]] <- ccforest.formula
    return(eval(call, parent.frame()))
  }
  UseMethod("ccforest")
}

#' @rdname ccforest
#' @export
ccforest.formula <- function(formula, data, ...) {
  if (missing(data)) {
    stop("`data` is missing: the formula interface needs a data.frame.", call. = FALSE)
  }
  parts <- formula_data(formula, data, env = parent.frame())
  y <- parts$y
  if (!is.data.frame(y)) {
    # One output: keep its name from the formula rather than "y".
    y <- stats::setNames(data.frame(y, stringsAsFactors = FALSE), parts$terms_info$response_names)
  }
  # The data came from `data`, so messages about it should say so.
  fit <- ccforest.default(parts$x, y, ..., .x_arg = "data", .y_arg = "data")
  fit$formula <- parts$terms_info
  fit$call <- generic_call(match.call())
  fit
}

#' @rdname ccforest
#' @export
ccforest.default <- function(x, y, ..., n_tree = 500L, mtry = NULL, min_split = NULL,
                             min_leaf = NULL, max_depth = NULL, split_rule = NULL,
                             sampling = "auto", projection = "cca", importance = "none",
                             na_action = "impute_random",
                             n_thread = NULL, seed = NULL, verbose = interactive(),
                             first_tree = 1L, backend = "threads", n_batch = NULL) {
  call <- generic_call(match.call())
  dots <- list(...)
  x_arg <- dots$.x_arg %||% "x"
  y_arg <- dots$.y_arg %||% "y"
  if (!is.null(names(dots))) {
    dots <- dots[!names(dots) %in% c(".x_arg", ".y_arg")]
  }
  check_dots(dots, valid = names(formals(ccforest.default)), fn = "ccforest")
  if (missing(y)) {
    stop("`y` is missing: give the outputs, or use the formula interface.", call. = FALSE)
  }
  if (inherits(y, "formula")) {
    stop("`y` is a formula: the formula comes first, as in ccforest(y ~ ., data = df).",
         call. = FALSE)
  }
  n_tree <- check_count(n_tree, "n_tree", min = 1L)
  na_action <- check_choice(na_action, "na_action",
                            c("impute_random", "impute_mean", "fail", "omit"))
  sampling <- check_choice(sampling, "sampling", c("auto", "projection", "bagging"))
  projection <- check_choice(projection, "projection", c("cca", "rotation", "pca", "axis"))
  importance <- check_choice(importance, "importance", c("none", "projection", "permutation"))
  verbose <- check_flag(verbose, "verbose")
  n_thread <- resolve_n_thread(n_thread)
  seed <- resolve_seed(seed)
  first_tree <- check_first_tree(first_tree, n_tree)
  backend <- check_backend(backend)
  n_batch <- resolve_n_batch(n_batch, n_tree, backend)

  x <- as_feature_frame(x, x_arg)
  check_same_rows(x, y)
  kept_rows <- NULL
  if (na_action == "omit") {
    keep <- stats::complete.cases(x) & response_row_ok(y)
    if (!any(keep)) {
      stop("No complete rows remain after na_action = \"omit\".", call. = FALSE)
    }
    x <- x[keep, , drop = FALSE]
    y <- subset_rows(y, keep)
    if (!all(keep)) kept_rows <- keep
  }
  response <- prepare_response(y, y_arg)
  blueprint <- new_blueprint(x, x_arg)
  x_impute <- if (na_action == "omit") "fail" else na_action
  matrix_x <- apply_blueprint(blueprint, x, na_action = x_impute, arg = x_arg)

  task <- response$task
  split_rule <- resolve_split_rule(split_rule, task)
  n_feature <- length(blueprint$feature_names)
  mtry <- resolve_mtry(mtry, n_feature)
  min_split <- check_count(min_split %||% if (task == "classification") 2L else 6L,
                           "min_split", min = 1L)
  min_leaf <- check_count(min_leaf %||% if (task == "classification") 1L else 3L,
                          "min_leaf", min = 1L)
  max_depth <- if (is.null(max_depth)) 0L else check_count(max_depth, "max_depth", min = 1L)
  bagging <- sampling == "bagging" || (sampling == "auto" && mtry >= n_feature)
  if (importance == "permutation" && !bagging) {
    stop("importance = \"permutation\" at fit time needs out-of-bag rows, so ",
         "sampling = \"bagging\": with projection bootstrapping every tree sees every ",
         "row. Use importance(fit, new_data = <held-out data>) instead.", call. = FALSE)
  }

  options <- list(
    n_tree = n_tree, mtry = mtry, min_split = min_split, min_leaf = min_leaf,
    max_depth = max_depth, split_rule = split_rule,
    sampling = if (bagging) "bagging" else "projection",
    projection = projection, importance = importance, na_action = na_action
  )
  training <- training_set(matrix_x, blueprint, response)
  core <- core_options(options, seed)

  started <- proc.time()[["elapsed"]]
  grown <- if (backend == "future") {
    grow_on_futures(training, core, first_tree = first_tree - 1L, n_tree = n_tree,
                    n_thread = n_thread, n_batch = n_batch, verbose = verbose)
  } else {
    grow_trees(training, core, first_tree = first_tree - 1L, n_tree = n_tree,
               n_thread = n_thread, verbose = verbose)
  }
  fit <- new_ccforest(
    forest = new_forest(grown, first_tree = first_tree, training = training), task = task,
    blueprint = blueprint,
    response = response_blueprint(response), options = options, seed = seed,
    n_obs = nrow(matrix_x), train_time = NA_real_, call = call
  )
  if (bagging) {
    oob <- with_memory_advice(
      ccf_oob_cpp(fit$forest$trees, model_shape(fit), training$x, training$feature_start,
                  training$y_class, training$n_class, training$y_real, seed, first_tree - 1,
                  core$impute_random, n_thread, importance == "permutation"),
      doing = "compute the out-of-bag predictions",
      advice = "Use sampling = \"projection\", which has none, or fit on fewer rows."
    )
    fit[c("predictions", "oob_error")] <- out_of_bag(oob, fit$response, response, kept_rows)
    if (importance == "permutation") {
      fit$variable.importance <- oob_importance(oob$importance, fit)
    }
  }
  fit$train_time <- proc.time()[["elapsed"]] - started
  if (importance == "projection") {
    fit$variable.importance <- projection_importance(fit)
  }
  fit
}

#' Out-of-bag permutation importance from the core, per original variable,
#' in the units of the error (squared error back in the output's units for one
#' numeric output)
#' @noRd
oob_importance <- function(values, object) {
  if (object$task == "regression" && object$response$n_output == 1L) {
    values <- values * object$response$scale^2
  }
  values <- stats::setNames(values, object$blueprint$feature_names)
  structure(sort(values, decreasing = TRUE), type = "permutation",
            class = c("ccforest_importance", "numeric"))
}

#' Out-of-bag predictions and their error: misclassification rate for
#' classes, mean squared error for values, averaged over outputs
#'
#' @param oob The core's sums and counts over the rows the forest was grown on.
#' @param kept_rows With na_action = "omit", which of the data's rows were
#'   kept (NULL when all were): predictions line up with the data's rows, NA
#'   for dropped ones and for rows every tree drew.
#' @noRd
out_of_bag <- function(oob, response_bp, response, kept_rows = NULL) {
  seen <- oob$count > 0L
  values <- oob$sum / pmax(oob$count, 1L)
  values[!seen, ] <- NA_real_
  if (response_bp$task == "classification") {
    predicted <- format_classification(values, response_bp, "class")
    truth <- lapply(seq_len(response$n_output), function(m) response$codes[, m] + 1L)
    predicted_codes <- if (response$n_output == 1L) {
      list(as.integer(predicted))
    } else {
      lapply(predicted, as.integer)
    }
    errors <- vapply(seq_along(truth), function(m) {
      mean(predicted_codes[[m]][seen] != truth[[m]][seen])
    }, numeric(1))
  } else {
    predicted <- format_regression(values, response_bp)
    truth <- sweep(sweep(response$values, 2L, response$scale, `*`), 2L, response$center, `+`)
    fitted <- as.matrix(as.data.frame(predicted))
    errors <- colMeans((fitted[seen, , drop = FALSE] - truth[seen, , drop = FALSE])^2)
  }
  if (!is.null(kept_rows)) {
    predicted <- expand_rows(predicted, kept_rows)
  }
  list(predicted, if (any(seen)) mean(errors) else NA_real_)
}

#' Spread predictions for the kept rows over all rows, NA elsewhere
#' @noRd
expand_rows <- function(predicted, kept_rows) {
  position <- cumsum(kept_rows)
  position[!kept_rows] <- NA_integer_
  if (is.data.frame(predicted)) {
    out <- predicted[position, , drop = FALSE]
    rownames(out) <- NULL
    return(out)
  }
  predicted[position]
}

#' Build the fitted object: plain data only, so it saves and reloads as is
#' @noRd
new_ccforest <- function(forest, task, blueprint, response, options, seed, n_obs,
                         train_time, call) {
  structure(
    list(
      forest = forest,
      task = task,
      blueprint = blueprint,
      response = response,
      options = options,
      seed = seed,
      n_obs = n_obs,
      train_time = train_time,
      call = call,
      formula = NULL,
      version = as.character(utils::packageVersion("ccforest"))
    ),
    class = "ccforest"
  )
}

#' What prediction needs to know about the outputs, without the data
#' @noRd
response_blueprint <- function(response) {
  keep <- c("task", "names", "n_output", "levels", "n_class", "center", "scale")
  response[intersect(keep, names(response))]
}

#' Show calls as the user wrote them, through the generic
#' @noRd
generic_call <- function(call) {
  call[[1L]] <- as.name("ccforest")
  call
}

`%||%` <- function(a, b) if (is.null(a)) b else a

#' The paper's default mtry, or the user's number or function of D
#' @noRd
resolve_mtry <- function(mtry, n_feature) {
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
resolve_split_rule <- function(split_rule, task) {
  if (is.null(split_rule)) {
    return(if (task == "classification") "entropy" else "variance")
  }
  split_rule <- check_choice(split_rule, "split_rule", c("entropy", "gini", "variance"))
  if (task == "classification" && split_rule == "variance") {
    stop("split_rule = \"variance\" is for regression, but `y` is categorical; ",
         "use \"entropy\" or \"gini\".", call. = FALSE)
  }
  if (task == "regression" && split_rule != "variance") {
    stop(sprintf("split_rule = \"%s\" is for classification, but `y` is numeric; ", split_rule),
         "use \"variance\", or convert `y` to a factor for classification.", call. = FALSE)
  }
  split_rule
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

#' @noRd
subset_rows <- function(y, keep) {
  if (is.data.frame(y) || is.matrix(y)) y[keep, , drop = FALSE] else y[keep]
}
