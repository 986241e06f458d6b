# Memory: a forest that cannot fit should stop with a clear error before it
# starts, instead of the operating system killing the R session mid-fit.

#' Upper-end estimate of the bytes a forest will occupy, counted twice
#' because the trees are held once by the core and once as R vectors while
#' they are handed over
#' @noRd
estimate_forest_bytes <- function(n_obs, n_tree, min_leaf, bagging, max_depth,
                                  split_width, leaf_width) {
  leaves <- n_obs / min_leaf
  if (bagging) {
    leaves <- min(leaves, 0.632 * n_obs)
  }
  if (max_depth > 0L) {
    leaves <- min(leaves, 2^max_depth)
  }
  leaves <- max(1, leaves)
  # Per node: child (4), threshold (8), gain (8), payload offset (4) bytes;
  # per payload entry: an index (4) and a value (8).
  per_tree <- (2 * leaves - 1) * 24 + (leaves - 1) * split_width * 12 + leaves * leaf_width * 12
  2 * n_tree * per_tree
}

#' Memory the system can still give, in bytes, or NA where unknown
#' @noRd
available_memory <- function() {
  meminfo <- "/proc/meminfo"
  if (!file.exists(meminfo)) {
    return(NA_real_)
  }
  lines <- tryCatch(readLines(meminfo, n = 10L), error = function(e) character(0))
  line <- grep("^MemAvailable:", lines, value = TRUE)
  if (length(line) != 1L) {
    return(NA_real_)
  }
  as.numeric(gsub("[^0-9]", "", line)) * 1024
}

#' Stop before growing a forest that clearly cannot fit in memory
#' @noRd
check_forest_memory <- function(needed, available = available_memory()) {
  if (is.na(available) || needed <= available) {
    return(invisible(needed))
  }
  stop(sprintf(
    paste0(
      "This forest would need about %s of memory, but only %s is available. ",
      "Reduce `n_tree`, or grow smaller trees with a larger `min_leaf` or a `max_depth`."
    ),
    format_bytes(needed), format_bytes(available)
  ), call. = FALSE)
}

#' @noRd
format_bytes <- function(bytes) {
  units <- c("bytes", "KB", "MB", "GB", "TB", "PB")
  power <- min(length(units) - 1L, max(0L, floor(log(max(bytes, 1), 1024))))
  sprintf("%.1f %s", bytes / 1024^power, units[[power + 1L]])
}
