# Memory. A forest's size is only known once its trees are grown, so the
# core measures the trees of each batch as it hands them over, extrapolates
# to the whole forest and stops with a clear error as soon as that would not
# fit (see ccf_grow_cpp()). Here: how much memory there is to fit into.

#' Memory the fit may use, in bytes: `options(ccforest.memory_limit)` if set,
#' else what the system can still give; Inf where that is unknown
#' @noRd
memory_limit <- function() {
  limit <- getOption("ccforest.memory_limit")
  if (!is.null(limit)) {
    type_ok <- is_plain_number(limit)
    if (!type_ok || length(limit) != 1L || is.na(limit) || limit <= 0) {
      stop_rule("options(ccforest.memory_limit)", "a single number of bytes > 0 (Inf: no limit)",
                limit, type_ok)
    }
    return(as.double(limit))
  }
  available <- available_memory()
  if (is.na(available)) Inf else available
}

#' Memory the system can still give, in bytes, or NA where unknown: the
#' smaller of the machine's available memory (MemAvailable in
#' /proc/meminfo) and what the process's control group (a container's limit,
#' say) has left: cgroup v2's memory.max minus memory.current, else v1's
#' memory.limit_in_bytes minus memory.usage_in_bytes (v1's "no limit", a
#' number near 2^63, is none). Read in C++ (src/memory_probe.cpp): every fit
#' probes it, and R's connections made that several per cent of a small fit.
#' @noRd
available_memory <- function(root = "/") {
  ccf_available_memory_cpp(root)
}

#' Memory a fit allocates besides its trees, known before any is grown, in
#' bytes: the out-of-bag sums of a bagged forest (in the core, then in R, then
#' as predictions) with the leaf values of a batch of trees, and the quantile
#' data (each tree's sample rows and leaf sizes; at most n_sample / min_leaf
#' leaves a tree, and 2^max_depth with a max_depth > 0)
#' @return A named vector: `oob` and `quantiles`.
#' @noRd
fit_extra_bytes <- function(n_row, n_sample, n_value, n_tree, n_thread, bagging, quantiles,
                            min_leaf, max_depth = 0L) {
  batch <- min(n_tree, 4 * n_thread)
  oob <- if (bagging) {
    3 * (8 * n_row * n_value + 4 * n_row) + batch * 0.4 * n_row * (n_value + 1) * 16
  } else {
    0
  }
  leaves <- ceiling(n_sample / min_leaf)
  if (max_depth > 0L) leaves <- min(leaves, 2^max_depth)
  quantile_bytes <- if (quantiles) n_tree * (4 * (n_sample + leaves) + 56) + 16 * n_row else 0
  c(oob = oob, quantiles = quantile_bytes)
}

#' The memory left for a fit's trees once what it needs besides them is set
#' aside (fit_extra_bytes()); an error if that alone does not fit
#' @noRd
memory_for_trees <- function(extra, limit = memory_limit()) {
  total <- sum(extra)
  if (total > limit) {
    parts <- c(oob = "out-of-bag estimates", quantiles = "quantile data",
               sparse = "sparse features read by row")
    needed <- extra[extra > 0]
    stop(sprintf(paste0(
      "This fit would need about %s of memory besides its trees (%s), but only %s is ",
      "available. %s"),
      format_bytes(total),
      paste(sprintf("%s for its %s", vapply(needed, format_bytes, ""), parts[names(needed)]),
            collapse = " and "),
      format_bytes(limit),
      paste(c(if (extra[["quantiles"]] > 0) "Grow fewer trees, or fit without quantiles = TRUE.",
              if (extra[["oob"]] > 0) "Fit on fewer rows, or use sampling = \"projection\", which has no out-of-bag estimates."),
            collapse = " ")), call. = FALSE)
  }
  limit - total
}

#' Evaluate `expr`; R's own allocation failures inside it (a heap limit,
#' say) arrive with R's terse message, so say what was being done and what
#' to change
#' @noRd
with_memory_advice <- function(expr, doing, advice) {
  tryCatch(expr, error = function(e) {
    message <- conditionMessage(e)
    if (grepl("cannot allocate|vector memory (exhausted|limit)", message)) {
      stop(sprintf("Not enough memory to %s (%s). %s", doing, trimws(message), advice),
           call. = FALSE)
    }
    stop(e)
  })
}

#' @noRd
format_bytes <- function(bytes) {
  units <- c("bytes", "KB", "MB", "GB", "TB", "PB")
  power <- min(length(units) - 1L, max(0L, floor(log(max(bytes, 1), 1024))))
  sprintf("%.1f %s", bytes / 1024^power, units[[power + 1L]])
}
