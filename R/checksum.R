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

#' The elements whose identity check_ccforest() compares before it trusts an
#' earlier verification: the sealed ones and the seal itself
#' @noRd
verified_elements <- c(sealed_elements, "checksum")

#' Store the checksum of `fit`; the last step of everything that makes a fit.
#'
#' A new fit gets a new handle for its prepared state (`cache`, see
#' src/prepared.h), already verified: its first prediction neither checks
#' its seal again nor, once primed, decodes its trees. `fresh = FALSE` keeps
#' the handle of a fit that was sealed moments ago and only gained elements
#' (the formula method's), with what it has prepared.
#' @noRd
seal_ccforest <- function(fit, fresh = TRUE) {
  fit$checksum <- ccf_checksum_cpp(unclass(fit), sealed_elements)
  if (fresh || is.null(fit$cache)) fit$cache <- ccf_new_cache_cpp()
  mark_verified(fit)
  fit
}

#' Record that `object` passed every check, so that the next calls with the
#' same object only compare its elements' identities (see is_verified() in
#' src/prepared.h)
#' @noRd
mark_verified <- function(object) {
  ccf_mark_verified_cpp(object[["cache"]], object, verified_elements, memory_limit())
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
