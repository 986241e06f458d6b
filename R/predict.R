#' Predict with a canonical correlation forest
#'
#' @param object A `"ccforest"` fitted by [ccforest()].
#' @param new_data A data.frame with the features used to fit the forest
#'   (matched by name: order does not matter and extra columns are ignored),
#'   or, for a forest fitted on a matrix, a matrix. It may also be given as
#'   `newdata`, the name [stats::predict()] uses (and that packages such as
#'   pdp, iml and DALEX pass); giving both is an error. For data
#'   read in pieces, a function that returns the next piece of rows (a
#'   data.frame or matrix) on each call and `NULL` after the last: the pieces
#'   are predicted one after another and their predictions returned together.
#' @param type `"class"` (default for classification) for the most probable
#'   class, `"prob"` for class probabilities, `"response"` (default for
#'   regression) for the predicted mean, `"quantiles"` for quantiles of the
#'   conditional distribution (quantile regression forests, Meinshausen 2006;
#'   the forest must be fitted with `quantiles = TRUE`), `"interval"` for
#'   prediction intervals with a coverage guarantee, `"se"` for standard
#'   errors of the predictions (bagged forests), or `"terminal_nodes"` for
#'   the node each row reaches in each tree. Survival forests predict
#'   `"risk"` (default), `"survival"`, `"chf"`, `"cif"` or `"time"` (see the
#'   section on survival forests). See the sections below.
#' @param quantiles With `type = "quantiles"`, the probabilities of the
#'   quantiles, between 0 and 1.
#' @param n_tree Use only the first `n_tree` trees (default: all of them).
#' @param n_thread Number of threads, as in [ccforest()].
#' @param na_action How to treat missing feature values in `new_data`:
#'   `"impute_random"`, `"impute_mean"` or `"fail"` (see the section on
#'   missing values in [ccforest()]). The default is the forest's own
#'   `na_action` (random imputation for forests fitted with `"omit"`).
#' @param backend `"threads"` (default) predicts in this R session;
#'   `"future"` predicts chunks of rows as futures on the current
#'   [future::plan()] (needs the future package), each with `n_thread`
#'   threads. The predictions are the same.
#' @param chunk_size Predict this many rows at a time (default: all at once
#'   with `"threads"`, one chunk per worker with `"future"`). Only one chunk
#'   is encoded at a time in this session (with `"future"`: one per busy
#'   worker), which bounds the memory used for large `new_data`.
#' @param predict_all With `type = "class"`, `"prob"` or `"response"`, return
#'   every tree's own prediction instead of the forest's (ranger's
#'   `predict.all`); see the section on per-tree predictions.
#' @param level With `type = "interval"`, the coverage the intervals
#'   guarantee, between 0 and 1.
#' @param interval With `type = "interval"`, the conformal method: `"cqr"`
#'   (conformalised quantile regression, needs `calibration`) or
#'   `"jackknife+"` (jackknife+-after-bootstrap, for bagged forests). The
#'   default is `"cqr"` when `calibration` is given and `"jackknife+"`
#'   otherwise.
#' @param calibration,calibration_y With `interval = "cqr"`, the calibration
#'   set: rows the forest was not grown on, like `new_data`, with their
#'   outputs (in `calibration` itself for a forest fitted with a formula, in
#'   `calibration_y` otherwise).
#' @param times Survival forests, with `type = "survival"`, `"chf"` or
#'   `"cif"`: the times at which the curves are given, finite and >= 0, in
#'   any order (repeats allowed); default: the training data's distinct event
#'   times. See the section on survival forests.
#' @param horizon Survival forests, with `type = "time"`: the restricted mean
#'   survival time is the area under the survival curve from 0 to `horizon`
#'   (default: the training data's last event time).
#' @param ... `newdata`, another name for `new_data`; anything else is an
#'   error (a misspelled argument gets a suggestion). The arguments after it
#'   must be named.
#' @return One row (or element) per row of `new_data`, rows with missing
#'   values included. For one output: a factor with the training levels
#'   (`"class"`), a numeric matrix with one column per level (`"prob"`), or a
#'   numeric vector (`"response"`). For several outputs: a data.frame
#'   (`"class"`, `"response"`) or a named list of probability matrices
#'   (`"prob"`). For survival forests, see the section on them.
#' @section Prediction intervals:
#' `type = "interval"` gives, for a regression forest with one output, a
#' data.frame of class `"ccforest_interval"` with columns `prediction` (the
#' forest's mean), `lower` and `upper`, by one of two conformal methods:
#'
#' * `"cqr"`, conformalised quantile regression (Romano, Patterson and
#'   Candes, 2019), for forests fitted with `quantiles = TRUE` and any
#'   sampling. On a calibration set of n rows the forest was not grown on,
#'   each row's score is how far its output falls outside the forest's
#'   \eqn{(1 - level)/2} and \eqn{(1 + level)/2} quantiles (negative inside); a
#'   new row's interval is that quantile band widened by the
#'   \eqn{\lceil level (n + 1) \rceil}{ceiling(level (n + 1))}-th smallest score
#'   (infinite when that exceeds n). Whenever the calibration rows and the new
#'   row are exchangeable (drawn alike, the calibration rows unused for
#'   fitting), the interval contains the new row's output with probability at
#'   least `level`, whatever the forest: a finite-sample guarantee, on
#'   average over new rows (not for each x). The band's width follows the
#'   forest's conditional quantiles, so intervals widen where the noise is
#'   larger.
#' * `"jackknife+"`, jackknife+-after-bootstrap (Kim, Xu and Barber, 2020),
#'   for forests grown with `sampling = "bagging"`, without a calibration
#'   set. Each training row i's leave-one-out forest is the average of the
#'   trees that did not draw it, and \eqn{R_i} its absolute out-of-bag
#'   residual; a new row's interval runs from the
#'   \eqn{\lfloor (1 - level)(n + 1) \rfloor}{floor((1 - level)(n + 1))}-th
#'   smallest of \eqn{\mu_{-i}(x) - R_i} to the
#'   \eqn{\lceil level (n + 1) \rceil}{ceiling(level (n + 1))}-th smallest of
#'   \eqn{\mu_{-i}(x) + R_i}, over the n rows with a residual. Its
#'   guarantee is weaker, coverage at least \eqn{1 - 2(1 - level)} for a
#'   random number of trees, and in practice close to `level`; its width is
#'   about the same everywhere (it follows the residuals, not x).
#'
#' Both cost per-tree work: `"jackknife+"` a product of (training rows x
#' trees) by (trees x new rows).
#'
#' @section Standard errors:
#' `type = "se"` gives the standard error of each prediction (of each class
#' probability for a classifier), in the shape of `"response"` or `"prob"`,
#' by the bias-corrected infinitesimal jackknife for bagging (Wager, Hastie
#' and Efron, 2014): with \eqn{N_{bi}}{N_bi} the number of times tree b drew
#' training row i (redrawn from the seed, never stored) and \eqn{t_b(x)}
#' tree b's prediction, \eqn{V_{IJ} = \sum_i cov_b(N_{bi}, t_b(x))^2}{V_IJ =
#' sum_i cov_b(N_bi, t_b(x))^2}, less its Monte Carlo bias
#' \eqn{\sum_i var_b(N_{bi}) var_b(t_b(x)) / B}{sum_i var_b(N_bi)
#' var_b(t_b(x)) / B} over the B trees. It measures how much the forest's
#' prediction would vary over new training samples (its sampling variance,
#' not the noise of a new output: for an interval for a new output use
#' `type = "interval"`). It needs `sampling = "bagging"`: with projection
#' bootstrapping every tree is grown on every row, so there are no bootstrap
#' samples whose variation it could measure, and it is refused. The bias
#' correction removes the trees' Monte Carlo noise, about
#' \eqn{n var_b(t_b) / B} for n training rows, which needs B of the order of
#' n or more to be small: with fewer trees the corrected estimate can be
#' negative. Such a variance is given as 0 (a standard error of 0, marked in
#' the attribute `"clamped"`, with a warning): it only says that the
#' variance is below what these trees can resolve, not that there is none.
#' The uncorrected \eqn{V_{IJ}}{V_IJ} would instead be dominated by that
#' noise (on 300 rows and 100 trees, several times the corrected values
#' around it). Grow more trees to resolve it: on 306 rows of the Boston
#' housing data, 1000 trees left 22 of 100 predictions at 0, 4000 trees none
#' (`vignette("explaining")`). ranger, after Wager's randomForestCI, instead
#' calibrates the estimates by empirical Bayes across the rows predicted
#' together; ccforest does not, so that a row's standard error never depends
#' on which rows it is predicted with. Cost: the
#' in-bag counts (two bytes per training row and tree) and a product of
#' (training rows x trees) by (trees x predictions).
#'
#' @section Per-tree predictions and terminal nodes:
#' `predict_all = TRUE` returns every tree's prediction, in ranger's shapes:
#' for `"response"`, a matrix of rows x trees (an array rows x outputs x trees
#' for several outputs); for `"prob"`, an array rows x classes x trees; for
#' `"class"`, an integer matrix rows x trees of each tree's class as a level
#' number (attribute `"levels"`); several class outputs give a list of these,
#' one per output. The forest's prediction is their average over the trees.
#' `type = "terminal_nodes"` returns an integer matrix rows x trees of the
#' node each row reaches in each tree, numbered from 0 as in [tree_info()].
#' They take 8 bytes per row, tree and value (4 per row and tree for
#' terminal nodes): 100,000 rows and 500 trees of one output take 400 MB.
#' A result that would not fit in the memory available is refused with its
#' size; predict fewer rows at a time.
#'
#' @section Speed, memory and integrity of repeated predictions:
#' What prediction needs that depends only on the fit is prepared once per
#' fitted object and kept with it: its trees decoded into the layout the
#' predictor walks (done when the forest is fitted, or on the first
#' prediction after [readRDS()], [unserialize()] or on a future worker), and
#' the verification of its seal (for 500 trees grown on 15,000 rows, about
#' 0.15 s of the first call). Later calls only walk the trees for their
#' rows, so one row costs about a millisecond or less, with any number of
#' trees, and `n_tree` below the forest's uses the same prepared trees. The
#' prepared trees take a few times the stored trees' memory (2-4 times, in
#' two blocks each rounded up to whole 2 MB pages once it passes 2 MB, which
#' Linux may back with huge pages; the forest itself is what
#' [object.size()] counts, the prepared trees are not; a quantile forest's
#' also hold a copy of its leaf samples, about 4 bytes per training row and
#' tree, and its outputs' order, 8 bytes per training row),
#' survive garbage collections while the fit lives, are shared by copies of
#' the fit, never grow with the number of predictions, and are freed when
#' the last copy of the fit is collected. They are kept only if they fit in
#' the memory available when the fit is verified (the system's, or
#' `options(ccforest.memory_limit)`: `vignette("scaling-out")`); otherwise
#' each call decodes the trees it walks, a batch at a time, as a fit read
#' from an older version does too.
#'
#' Integrity: a fit is verified in full (its checksum, then its structure)
#' the first time it is used, and its checked elements are then marked so
#' that R copies them before any change. The next calls compare each checked
#' element with the one verified (the same object in memory): an element
#' replaced or edited in R is a new object, so the fit is verified in full
#' again, and an edited fit is refused as on its first use. Elements outside
#' the seal (`call`, `train_time`, what other packages add) may change
#' freely. The handle of the prepared state is the fit's element `cache`, an
#' external pointer that is saved empty.
#'
#' @references Romano, Y., Patterson, E. and Candes, E. (2019). Conformalized
#'   quantile regression. Advances in Neural Information Processing Systems
#'   32.
#'
#'   Kim, B., Xu, C. and Barber, R. F. (2020). Predictive inference is free
#'   with the jackknife+-after-bootstrap. Advances in Neural Information
#'   Processing Systems 33.
#'
#'   Wager, S., Hastie, T. and Efron, B. (2014). Confidence intervals for
#'   random forests: the jackknife and the infinitesimal jackknife. Journal
#'   of Machine Learning Research 15, 1625-1651.
#' @details Predictions are deterministic: a row gets the same prediction on
#'   every call, whatever other rows are predicted with it and however many
#'   threads are used, including rows with missing values (see the section on
#'   missing values in [ccforest()]). So predicting in chunks, in pieces or on
#'   workers gives exactly the predictions of one call on all rows.
#' @examples
#' fit <- ccforest(Species ~ ., data = iris, n_tree = 50, seed = 1)
#' predict(fit, iris[c(1, 51, 101), ])
#' predict(fit, iris[c(1, 51, 101), ], type = "prob")
#'
#' # In chunks of 50 rows, or from a reader returning pieces of rows
#' identical(predict(fit, iris, chunk_size = 50), predict(fit, iris))
#' pieces <- split(iris, rep(1:3, each = 50))
#' reader <- function() {
#'   if (length(pieces) == 0) return(NULL)
#'   piece <- pieces[[1]]
#'   pieces[[1]] <<- NULL
#'   piece
#' }
#' predict(fit, reader)[c(1, 51, 101)]
#'
#' # Survival curves, risk and restricted mean survival time; for competing
#' # risks (an event factor whose first level is censoring), incidences
#' surv <- ccforest(survival::Surv(time, status) ~ age + sex + ph.ecog,
#'                  data = survival::lung, n_tree = 50, seed = 1)
#' predict(surv, survival::lung[1:3, ], type = "survival", times = c(180, 365))
#' predict(surv, survival::lung[1:3, ], type = "risk")
#' predict(surv, survival::lung[1:3, ], type = "time")
#' mgus <- survival::mgus2
#' mgus$event <- factor(ifelse(mgus$pstat == 1, "pcm", ifelse(mgus$death == 1, "death", "censor")),
#'                      levels = c("censor", "pcm", "death"))
#' mgus$etime <- ifelse(mgus$pstat == 1, mgus$ptime, mgus$futime)
#' cr <- ccforest(survival::Surv(etime, event) ~ age + sex + hgb, data = mgus,
#'                n_tree = 50, seed = 1)
#' predict(cr, mgus[1:2, ], type = "cif", times = c(60, 120))
#' @export
predict.ccforest <- function(object, new_data, ..., type = NULL, n_tree = NULL,
                             n_thread = NULL, na_action = NULL,
                             quantiles = c(0.1, 0.5, 0.9), backend = "threads",
                             chunk_size = NULL, predict_all = FALSE, level = 0.95,
                             interval = NULL, calibration = NULL, calibration_y = NULL,
                             times = NULL, horizon = NULL) {
  dots <- list(...)
  if (length(dots) > 0L) {
    check_dots(dots, valid = c("object", "new_data", "newdata", "type", "n_tree", "n_thread",
                               "na_action", "quantiles", "backend", "chunk_size", "predict_all",
                               "level", "interval", "calibration", "calibration_y", "times",
                               "horizon"),
               fn = "predict")
  }
  check_ccforest(object)
  if (length(dots) > 0L && "newdata" %in% names(dots)) {
    if (!missing(new_data)) {
      stop("Both `new_data` and `newdata` were given; give the data to predict once, ",
           "as either.", call. = FALSE)
    }
    new_data <- dots$newdata
  } else if (missing(new_data)) {
    stop("`new_data` is missing: give the data to predict.", call. = FALSE)
  }
  args <- list(type = type, n_tree = n_tree, n_thread = n_thread, na_action = na_action,
               quantiles = quantiles, backend = backend, chunk_size = chunk_size,
               predict_all = predict_all, level = level, interval = interval,
               calibration = calibration, calibration_y = calibration_y, times = times,
               horizon = horizon)
  task_record(.subset2(object, "task"))$predict(object, new_data, args)
}

#' predict() for a forest whose leaves hold averaged values (classes'
#' proportions or outputs): classification and regression
#' @param args predict()'s arguments, as a list.
#' @noRd
predict_mean_forest <- function(object, new_data, args) {
  type <- args$type
  n_tree <- args$n_tree
  n_thread <- args$n_thread
  na_action <- args$na_action
  quantiles <- args$quantiles
  backend <- args$backend
  chunk_size <- args$chunk_size
  predict_all <- args$predict_all
  task <- .subset2(object, "task")
  record <- task_record(task)
  if (!is.null(args$times) || !is.null(args$horizon)) {
    stop(sprintf("`%s` is for survival forests; this one is a %s forest.",
                 if (!is.null(args$times)) "times" else "horizon", task), call. = FALSE)
  }
  if (is.null(type)) {
    type <- record$predict_types[[1L]]
  }
  type <- check_choice(type, "type", c("class", "prob", "response", "quantiles", "interval",
                                       "se", "terminal_nodes"))
  if (!any(type == record$predict_types)) {
    owner <- Filter(function(r) type %in% r$predict_types, task_records)[[1L]]
    stop(sprintf("type = \"%s\" is for %s; this one is %s: use %s.", type, owner$forests,
                 record$described, record$type_advice), call. = FALSE)
  }
  if (type == "quantiles") {
    if (is.null(.subset2(object, "quantile"))) {
      stop("type = \"quantiles\" needs a forest fitted with quantiles = TRUE, which keeps ",
           "the training outputs of every leaf.", call. = FALSE)
    }
    # Checked in full only when not plainly right: each closure a served
    # call runs costs it a few cache misses right after gc().
    if (!(is.double(quantiles) && is.null(attributes(quantiles)) && length(quantiles) > 0L &&
          !anyNA(quantiles) && min(quantiles) >= 0 && max(quantiles) <= 1)) {
      quantiles <- check_quantile_probs(quantiles)
    }
  }
  n_total <- length(.subset2(.subset2(object, "forest"), "trees"))
  n_tree <- if (is.null(n_tree)) n_total else check_count(n_tree, "n_tree", min = 1L, max = n_total)
  n_thread <- resolve_n_thread(n_thread)

  if (!is.null(na_action)) {
    na_action <- check_choice(na_action, "na_action", c("impute_random", "impute_mean", "fail"))
  }
  # The defaults pass without a call (as above).
  if (!(is.character(backend) && length(backend) == 1L && !is.na(backend) &&
        backend == "threads")) {
    backend <- check_backend(backend)
  }
  if (!is.null(chunk_size)) {
    chunk_size <- check_count(chunk_size, "chunk_size", min = 1L, allow_null = TRUE)
  }
  impute_random <- !is.null(na_action) && na_action == "impute_random"
  whole <- backend == "threads" && is.null(chunk_size) && !is.function(new_data)
  if (!(is.logical(predict_all) && length(predict_all) == 1L && !is.na(predict_all) &&
        is.null(attributes(predict_all)))) {
    predict_all <- check_flag(predict_all, "predict_all")
  }
  if (predict_all || any(type == c("interval", "se", "terminal_nodes"))) {
    return(predict_beyond_mean(object, new_data, type, predict_all, whole, na_action,
                               n_tree, n_thread, impute_random, args$level, args$interval,
                               args$calibration, args$calibration_y))
  }
  if (type == "quantiles") {
    if (!whole) {
      stop("type = \"quantiles\" predicts `new_data` in one piece in this session: ",
           "give a data.frame or matrix, without `chunk_size` or backend = \"future\".",
           call. = FALSE)
    }
    return(predict_quantile_values(object, predictor_matrix(object, new_data, na_action),
                                   quantiles, n_tree, n_thread, impute_random))
  }
  if (whole && is_sparse_matrix(new_data)) {
    # Sparse rows are made dense to be predicted: a batch at a time, so that
    # memory follows the batch, not the whole of new_data.
    whole <- FALSE
    chunk_size <- sparse_chunk_rows(ncol(new_data))
  }
  values <- if (whole) {
    predict_values(object, predictor_matrix(object, new_data, na_action), n_tree, n_thread,
                   impute_random = impute_random)
  } else {
    predict_in_chunks(object, new_data, na_action, n_tree, n_thread, impute_random, backend,
                      chunk_size)
  }
  record$format_values(values, object$response, type)
}

#' The forest's averaged leaf values for the rows of an encoded matrix
#' @noRd
predict_values <- function(object, matrix_x, n_tree, n_thread, impute_random = FALSE) {
  core_call(object, ccf_predict_cpp(predict_request(object, n_tree, n_thread, impute_random),
                                     matrix_x))
}

#' The z-scored feature matrix of new data, through the stored blueprint
#' @noRd
predictor_matrix <- function(object, new_data, na_action = NULL, arg = "new_data") {
  if (is.null(na_action)) {
    na_action <- .subset2(.subset2(object, "options"), "na_action")
    if (na_action == "omit") na_action <- "impute_random"
  }
  plain <- plain_rows_matrix(object, new_data, na_action)
  if (!is.null(plain)) {
    return(plain)
  }
  if (!is.null(object$formula)) {
    new_data <- formula_new_data(object$formula, new_data, arg = arg)
  }
  apply_blueprint(object$blueprint, new_data, na_action = na_action, arg = arg)
}

#' @noRd
prediction_width <- function(response) {
  task_record(response$task)$prediction_width(response)
}

#' Names of a classifier's value columns (tree_info(), partial_dependence()):
#' "prob." and the class, after the output's name when there are several
#' @noRd
class_value_labels <- function(response) {
  unlist(lapply(seq_len(response$n_output), function(m) {
    prefix <- if (response$n_output == 1L) "prob." else paste0("prob.", response$names[[m]], ".")
    paste0(prefix, response$levels[[m]])
  }), use.names = FALSE)
}

#' @noRd
format_classification <- function(values, response, type) {
  offsets <- c(0L, cumsum(response$n_class))
  per_output <- lapply(seq_len(response$n_output), function(m) {
    block <- values[, offsets[[m]] + seq_len(response$n_class[[m]]), drop = FALSE]
    colnames(block) <- response$levels[[m]]
    block
  })
  names(per_output) <- response$names
  if (type == "prob") {
    return(if (response$n_output == 1L) per_output[[1L]] else per_output)
  }
  classes <- lapply(seq_len(response$n_output), function(m) {
    levels <- response$levels[[m]]
    block <- per_output[[m]]
    # ties.method "first" keeps the choice deterministic (lowest level wins);
    # rows without a prediction (all NA) stay NA.
    best <- if (nrow(block) > 0L) max.col(block, ties.method = "first") else integer(0)
    best[!stats::complete.cases(block)] <- NA_integer_
    # Built from the codes, so that a level that is itself NA (a factor made
    # with addNA()) stays a level, distinct from a missing prediction.
    structure(as.integer(best), levels = levels, class = "factor")
  })
  if (response$n_output == 1L) {
    return(classes[[1L]])
  }
  names(classes) <- response$names
  as.data.frame(classes, optional = TRUE)
}

#' Standard errors, say, in the outputs' shape: a vector for one output, a
#' data.frame of the named outputs for several
#' @noRd
output_shaped <- function(values, response) {
  if (response$n_output == 1L) {
    return(values[, 1L])
  }
  colnames(values) <- response$names
  as.data.frame(values, optional = TRUE)
}

#' @noRd
format_regression <- function(values, response) {
  # In output units: the same two operations as sweep(), without its checks
  # (a served row pays for every call).
  n <- nrow(values)
  values <- values * rep(response$scale, each = n) + rep(response$center, each = n)
  if (response$n_output == 1L) {
    return(values[, 1L])
  }
  colnames(values) <- response$names
  as.data.frame(values, optional = TRUE)
}

#' A fitted object must be ours, consistent, and from a version we can read
#'
#' Everything prediction relies on is checked here, so that a damaged or
#' hand-edited object gives one clear error instead of an internal one. The
#' trees themselves are checked by the core before it walks them.
#' @noRd
check_ccforest <- function(object, arg = "object") {
  # Verified before and unchanged since: R copies an immutable element
  # before changing it, so the same elements are the same contents.
  if (inherits(object, "ccforest") &&
      ccf_is_verified_cpp(object[["cache"]], object, verified_names(object))) {
    return(invisible(object))
  }
  if (!inherits(object, "ccforest")) {
    stop(sprintf("`%s` must be a ccforest fitted by ccforest(), not %s.", arg,
                 class_label(object)), call. = FALSE)
  }
  needed <- c("forest", "task", "blueprint", "response", "options", "seed", "version")
  absent <- setdiff(needed, names(object))
  if (length(absent) > 0L) {
    stop(sprintf("`%s` is damaged: it lacks %s. Refit the forest.", arg,
                 format_names(absent)), call. = FALSE)
  }
  if (!is.list(object$forest)) {
    stop(sprintf("`%s` is damaged: its `forest` is %s, not a list. Refit the forest.", arg,
                 class_label(object$forest)), call. = FALSE)
  }
  if (is.null(object$forest$format) && !is.null(object$forest$node_start)) {
    stop(sprintf(paste0(
      "`%s` was fitted with ccforest %s, whose model format this version cannot read. ",
      "Refit it with ccforest() (the same call and seed grow a forest of the same design); ",
      "models are now several times smaller."), arg, format(object$version)), call. = FALSE)
  }
  # A newer version may seal other contents: say so before the checksum.
  # (Comparing numeric versions is a tenth of verifying a small fit: only
  # when the version is not this one.)
  newer <- !identical(object$version, ccforest_version()) &&
    isTRUE(tryCatch(package_version(object$version) > package_version(ccforest_version()),
                    error = function(e) FALSE))
  if (isTRUE(newer)) {
    stop(sprintf("`%s` was fitted with ccforest %s, newer than the installed %s; ", arg,
                 object$version, ccforest_version()),
         "update ccforest to use it.", call. = FALSE)
  }
  # The checksum first: on a damaged object the other checks could find
  # something that looks right.
  problem <- checksum_problem(object) %||% ccforest_problem(object)
  if (!is.null(problem)) {
    stop(sprintf("`%s` is damaged: %s. Refit the forest.", arg, problem), call. = FALSE)
  }
  mark_verified(object)
  invisible(object)
}

#' The first inconsistency found in a fitted object, or NULL
#' @noRd
ccforest_problem <- function(object) {
  is_string <- function(x) is.character(x) && length(x) == 1L && !is.na(x)
  is_count <- function(x, min = 0) {
    is.numeric(x) && length(x) == 1L && !is.na(x) && x >= min && x == trunc(x)
  }
  finite <- function(x, n) is.numeric(x) && length(x) == n && all(is.finite(x))
  version <- if (is_string(object$version)) {
    tryCatch(package_version(object$version), error = function(e) NULL)
  }
  if (is.null(version)) return("its version is unreadable")
  if (!is_string(object$task) || !object$task %in% task_names()) {
    return("its task is unknown")
  }
  if (!is.numeric(object$seed) || !is_count(object$seed) || object$seed > 2^31 - 1) {
    return("its seed is not a whole number in [0, 2^31 - 1]")
  }
  opts <- object$options
  if (!is.list(opts) || !is_string(opts$na_action) ||
      !opts$na_action %in% c("impute_random", "impute_mean", "fail", "omit")) {
    return("its options are incomplete")
  }

  bp <- object$blueprint
  if (!is.list(bp) || !is.character(bp$feature_names) || length(bp$feature_names) < 1L) {
    return("its blueprint has no features")
  }
  n_feature <- length(bp$feature_names)
  n_column <- length(bp$column_names)
  start <- bp$feature_start
  if (!is.character(bp$column_names) || n_column < n_feature ||
      !is.character(bp$feature_type) || length(bp$feature_type) != n_feature ||
      !is.list(bp$levels) || length(bp$levels) != n_feature ||
      !is.numeric(start) || length(start) != n_feature + 1L || anyNA(start) ||
      start[[1L]] != 0 || start[[n_feature + 1L]] != n_column || any(diff(start) < 1) ||
      !finite(bp$center, n_column) || !finite(bp$scale, n_column) || any(bp$scale <= 0)) {
    return("its blueprint is inconsistent")
  }
  types <- c("numeric", "integer", "logical", "ordered", "factor", "scored", "date",
             "datetime", "difftime")
  if (!all(bp$feature_type %in% types)) {
    return("its blueprint has an unknown feature type")
  }
  scored <- bp$feature_type == "scored"
  if (!is.list(bp$scores) || length(bp$scores) != n_feature ||
      !all(vapply(bp$scores[scored], is.numeric, logical(1))) ||
      !all(vapply(bp$scores[scored], NROW, 1L) == lengths(bp$levels[scored])) ||
      !all(vapply(bp$scores[scored], NCOL, 1L) == diff(start)[scored])) {
    return("its blueprint's factor scores do not match its levels")
  }
  factor_width <- diff(start)[bp$feature_type == "factor"]
  if (!all(factor_width == lengths(bp$levels[bp$feature_type == "factor"]))) {
    return("its blueprint's factor levels do not match its columns")
  }

  form <- object$formula
  if (!is.null(form) && (!is.list(form) || !is.character(form$feature_names) ||
                         !is.list(form$feature_exprs) ||
                         length(form$feature_exprs) != length(form$feature_names) ||
                         !identical(form$feature_names, bp$feature_names))) {
    return("its formula does not match its features")
  }

  problem <- forest_problem(object$forest, n_feature) %||% bagging_problem(object$bagging)
  if (!is.null(problem)) return(problem)

  resp <- object$response
  if (!is.list(resp) || !is_count(resp$n_output, 1) || !is.character(resp$names) ||
      length(resp$names) != resp$n_output) {
    return("its outputs are inconsistent")
  }
  task_record(object$task)$response_problem(resp)
}

#' What is wrong with a classifier's record of its classes, or NULL
#' @noRd
class_response_problem <- function(resp) {
  if (!is.list(resp$levels) || length(resp$levels) != resp$n_output ||
      !all(vapply(resp$levels, is.character, logical(1))) ||
      !is.numeric(resp$n_class) || !identical(as.integer(resp$n_class), lengths(resp$levels)) ||
      any(resp$n_class < 1L)) {
    return("its class levels are inconsistent")
  }
  NULL
}

#' What is wrong with a regression forest's record of its outputs' scaling,
#' or NULL
#' @noRd
values_response_problem <- function(resp) {
  finite <- function(x, n) is.numeric(x) && length(x) == n && all(is.finite(x))
  if (!finite(resp$center, resp$n_output) || !finite(resp$scale, resp$n_output) ||
      any(resp$scale <= 0)) {
    return("its output scaling is inconsistent")
  }
  NULL
}

#' What is wrong with a bagged fit's record of its samples (bagging_record()),
#' or NULL: what redrawing the samples reads, checked before the core reads
#' it (fits of 0.3.0 did not seal it)
#' @noRd
bagging_problem <- function(record) {
  if (is.null(record)) {
    return(NULL)
  }
  if (!is.list(record)) {
    return("its record of the trees' samples (`bagging`) is inconsistent")
  }
  n <- record$n_row
  ok <- is.numeric(n) && length(n) == 1L && !is.na(n) && n >= 1 &&
    n == trunc(n) &&
    (is.null(record$weights) || (is.numeric(record$weights) && length(record$weights) == n &&
                                   all(is.finite(record$weights) & record$weights >= 0))) &&
    is.logical(record$uniform_weights) && length(record$uniform_weights) == 1L &&
    !is.na(record$uniform_weights) &&
    (is.null(record$kept_rows) || (is.logical(record$kept_rows) && !anyNA(record$kept_rows) &&
                                     sum(record$kept_rows) == n)) &&
    (is.null(record$classes) || (is.numeric(record$classes) && length(record$classes) == n))
  if (!ok) "its record of the trees' samples (`bagging`) is inconsistent" else NULL
}
