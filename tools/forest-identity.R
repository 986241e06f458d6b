# Fits a fixed set of forests covering every task, option and variant the core
# branches on, and saves their trees and predictions, so that a refactor of
# the core can be checked to grow the identical forests (issue 37's
# constraint: no behaviour change).
#
#   R_LIBS=<build A> Rscript tools/forest-identity.R save before.rds
#   R_LIBS=<build B> Rscript tools/forest-identity.R compare before.rds
#
# `compare` exits with status 1 and names every fit whose trees or
# predictions differ (identical(), not all.equal()).
suppressPackageStartupMessages(library(ccforest))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 2L || !args[[1L]] %in% c("save", "compare")) {
  stop("usage: Rscript tools/forest-identity.R save|compare <file.rds>", call. = FALSE)
}

make_data <- function() {
  set.seed(11)
  n <- 300
  x <- data.frame(a = rnorm(n), b = rnorm(n), c = runif(n),
                  f = factor(sample(letters[1:4], n, TRUE)),
                  d = round(rnorm(n), 1))
  x$a[sample(n, 20)] <- NA
  x$f[sample(n, 10)] <- NA
  lin <- x$b + 2 * x$c - as.integer(x$f %in% c("a", "b"))
  lin[is.na(lin)] <- 0
  y_class <- factor(cut(lin + rnorm(n, sd = 0.3), 3, labels = c("lo", "mid", "hi")))
  y_two <- factor(lin > median(lin))
  y_real <- lin + rnorm(n, sd = 0.2)
  y_multi <- data.frame(u = y_real, v = sin(x$c * 3) + rnorm(n, sd = 0.1))
  time <- rexp(n, exp(0.5 * x$b))
  status <- rbinom(n, 1, 0.7)
  cause <- ifelse(status == 1, sample(1:2, n, TRUE), 0L)
  list(x = x, y_class = y_class, y_two = y_two, y_real = y_real, y_multi = y_multi,
       time = time, status = status, cause = cause, w = rexp(n))
}

d <- make_data()
complete <- stats::complete.cases(d$x)
xc <- d$x[complete, c("a", "b", "c", "d")]
surv <- survival::Surv(d$time, d$status)
surv_cr <- survival::Surv(d$time, factor(d$cause, 0:2))

fit <- function(x, y, ...) ccforest(x, y, n_tree = 12, seed = 7, n_thread = 1, verbose = FALSE, ...)

cases <- list(
  class = function() fit(d$x, d$y_class),
  class_paper = function() fit(xc, d$y_class[complete], variant = "paper"),
  binary_weights = function() fit(d$x, d$y_two, case_weights = d$w),
  class_weights = function() fit(d$x, d$y_class, class_weights = c(hi = 3)),
  class_bagging = function() fit(d$x, d$y_class, sampling = "bagging"),
  class_pca = function() fit(d$x, d$y_class, projection = "pca"),
  class_rotation = function() fit(d$x, d$y_class, projection = "rotation"),
  class_axes = function() fit(d$x, d$y_class, axis_candidates = "search"),
  class_random_axes = function() fit(d$x, d$y_class, axis_candidates = "random"),
  class_screen = function() fit(d$x, d$y_class, feature_weights = "screen"),
  class_no_limits = function() fit(d$x, d$y_class, max_directions = Inf, direction_ratio = 0,
                                  exact_split_max_rows = 50, bootstrap_max_rows = 40),
  class_gini = function() fit(d$x, d$y_class, split_rule = "gini"),
  class_omit = function() fit(d$x, d$y_class, na_action = "omit"),
  class_depth = function() fit(d$x, d$y_class, max_depth = 3, min_leaf = 5),
  multi_class = function() fit(xc, data.frame(p = d$y_class[complete], q = d$y_two[complete])),
  regression = function() fit(d$x, d$y_real),
  regression_paper = function() fit(xc, d$y_real[complete], variant = "paper"),
  regression_weights = function() fit(d$x, d$y_real, case_weights = d$w),
  regression_bins = function() fit(d$x, d$y_real, output_bins = 4),
  regression_bagging = function() fit(d$x, d$y_real, sampling = "bagging", quantiles = TRUE),
  regression_binned = function() fit(d$x, d$y_real, exact_split_max_rows = 60),
  multi_output = function() fit(d$x, d$y_multi),
  multi_output_paper = function() fit(xc, d$y_multi[complete, ], variant = "paper"),
  survival = function() fit(d$x, surv),
  survival_weights = function() fit(d$x, surv, case_weights = d$w),
  survival_bagging = function() fit(d$x, surv, sampling = "bagging"),
  competing = function() fit(d$x, surv_cr)
)

newx <- d$x[1:40, ]
result <- lapply(cases, function(make) {
  f <- make()
  type <- if (f$task == "classification") "prob" else if (f$task == "survival") "risk" else "response"
  list(trees = f$forest$trees, prediction = predict(f, newx, type = type, n_thread = 1))
})

if (args[[1L]] == "save") {
  saveRDS(result, args[[2L]])
  cat(sprintf("saved %d fits to %s\n", length(result), args[[2L]]))
} else {
  before <- readRDS(args[[2L]])
  differ <- character()
  for (name in union(names(before), names(result))) {
    same_trees <- identical(before[[name]]$trees, result[[name]]$trees)
    same_pred <- identical(before[[name]]$prediction, result[[name]]$prediction)
    if (!same_trees || !same_pred) {
      differ <- c(differ, sprintf("%s (trees %s, predictions %s)", name,
                                  if (same_trees) "same" else "DIFFER",
                                  if (same_pred) "same" else "DIFFER"))
    }
  }
  if (length(differ) > 0L) {
    cat("Not identical:\n", paste0("  ", differ, collapse = "\n"), "\n", sep = "")
    quit(status = 1L)
  }
  cat(sprintf("all %d fits identical (trees and predictions)\n", length(result)))
}
