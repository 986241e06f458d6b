# The integrity of a fitted object. A fit ends by sealing itself: a checksum
# of everything prediction, importance, combining and the methods read
# (src/checksum.cpp: values, lengths, types, names and other attributes) is
# stored in `checksum`. Every reader checks it first (check_ccforest()), so a
# changed byte anywhere in the trees, the blueprint, the outputs, the
# options or the stored out-of-bag results gives one clear error instead of
# other predictions. Not covered: `call` and `train_time` (records of how
# the fit was made: two fits of the same forest have the same checksum), and
# anything others add (caret stores its own elements in the objects it fits). Objects fitted before 0.3.0 have no
# checksum: they get the structural checks of ccforest_problem() and the
# core's checks of every tree, as before.

#' The elements a checksum covers, where the object has them
#' @noRd
sealed_elements <- c("forest", "task", "blueprint", "response", "options", "seed", "n_obs",
                     "formula", "version", "predictions", "oob_error", "residuals",
                     "variable.importance", "quantile")

#' Store the checksum of `fit`; the last step of everything that makes a fit
#' @noRd
seal_ccforest <- function(fit) {
  fit$checksum <- ccf_checksum_cpp(unclass(fit), sealed_elements)
  fit
}

#' What is wrong with an object's checksum, or NULL (also for objects that
#' have none)
#' @noRd
checksum_problem <- function(object) {
  stored <- object[["checksum"]]
  if (is.null(stored)) {
    return(NULL)
  }
  if (!is.character(stored) || length(stored) != 1L || is.na(stored) ||
      !grepl("^[0-9a-f]{16}$", stored)) {
    return("its checksum is unreadable")
  }
  if (!identical(ccf_checksum_cpp(unclass(object), sealed_elements), stored)) {
    return(paste0("its contents do not match its checksum: it was changed after fitting, or in ",
                  "storage or transfer (ASCII serialization, saveRDS(ascii = TRUE), does not keep ",
                  "numbers exactly)"))
  }
  NULL
}
