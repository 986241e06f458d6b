# The integrity of a fitted object. A fit ends by sealing itself: a checksum
# (src/checksum.cpp: values, lengths, types, names and other attributes) of
# every element it has then, except the records of how it was made, is
# stored in `checksum`, and the names of the elements it covers in `sealed`
# (itself covered). Every reader checks it first (check_ccforest()), so a
# changed byte anywhere in the trees, the blueprint, the outputs, the
# options or the stored out-of-bag results gives one clear error instead of
# other predictions.
#
# Sealing by a rule rather than by a list is what keeps the seal from falling
# behind: 0.3.0 listed what it covered, and the out-of-bag results it added
# (`oob_prob`, `bagging`, `oob_c_index`, ...) were left out of the list. Now
# whatever a fit holds when it is sealed is covered; a test grows every kind
# of fit and edits each of its elements.
#
# Not covered: `call` and `train_time` (records of how the fit was made: two
# fits of the same forest have the same checksum), `cache` (the handle of
# what the fit prepared for prediction, see src/prepared.h), and anything added after
# sealing (caret stores its own elements in the objects it fits; `sealed`
# does not name them, so they may change). Deleting a sealed element, or
# `sealed` itself, is caught: the checksum of what remains differs.
#
# Objects fitted before 0.3.0 have no checksum: they get the structural
# checks of ccforest_problem() and the core's checks of every tree, as
# before. A fit of 0.3.0 or later without one has lost it, and is refused:
# otherwise deleting `checksum` would turn every check off.

#' Elements a seal never covers: records of how the fit was made, the seal
#' itself, and the handle of what the fit prepared for its predictions
#' @noRd
unsealed_elements <- c("call", "train_time", "checksum", "cache")

#' What 0.3.0 sealed: fits of 0.3.0 have a checksum of these and no `sealed`
#' @noRd
sealed_elements_0_3_0 <- c("forest", "task", "blueprint", "response", "options", "seed", "n_obs",
                           "formula", "version", "predictions", "oob_error", "residuals",
                           "variable.importance", "quantile")

#' Store the checksum of `fit`, covering every element it has but the
#' unsealed ones; the last step of everything that makes a fit.
#'
#' The fit gets `cache` as the handle of its prepared state (see
#' src/prepared.h; a new one unless finish_fit() decoded the fit's trees
#' with one already), verified: its first prediction neither checks its seal
#' again nor, once primed, decodes its trees. `limit`: the memory its decoded
#' trees may take, when the caller has just probed it.
#' @noRd
seal_ccforest <- function(fit, cache = ccf_new_cache_cpp(), limit = memory_limit()) {
  fit$checksum <- NULL
  fit$sealed <- NULL
  fit$sealed <- c(setdiff(names(fit), unsealed_elements), "sealed")
  fit$checksum <- ccf_checksum_cpp(unclass(fit), fit$sealed)
  fit$cache <- cache
  mark_verified(fit, limit)
  fit
}

#' The elements whose identity check_ccforest() compares before it trusts an
#' earlier verification: the sealed ones and the seal itself. NULL for an
#' object without a record of its seal (fitted before 0.4.0, or stripped of
#' it), which is checked in full on every call: the identities of a few
#' elements would not cover what its structural checks read.
#' @noRd
verified_names <- function(object) {
  sealed <- object[["sealed"]]
  if (is.character(sealed) && !is.object(sealed)) c(sealed, "checksum")
}

#' Record that `object` passed every check, so that the next calls with the
#' same object only compare its elements' identities (see is_verified() in
#' src/prepared.h)
#' @noRd
mark_verified <- function(object, limit = memory_limit()) {
  ccf_mark_verified_cpp(object[["cache"]], object, verified_names(object), limit)
}

#' The elements an object's checksum covers, or NULL if its record of them
#' is unreadable
#' @noRd
sealed_names <- function(object) {
  covered <- object[["sealed"]]
  if (is.null(covered)) {
    return(sealed_elements_0_3_0)
  }
  if (!is.character(covered) || is.object(covered) || anyNA(covered) ||
      !"sealed" %in% covered) {
    return(NULL)
  }
  covered
}

#' What is wrong with an object's checksum, or NULL (also for objects fitted
#' before 0.3.0, which have none)
#' @noRd
checksum_problem <- function(object) {
  stored <- object[["checksum"]]
  if (is.null(stored)) {
    return(missing_checksum_problem(object))
  }
  if (!is.character(stored) || length(stored) != 1L || is.na(stored) ||
      !grepl("^[0-9a-f]{16}$", stored)) {
    return("its checksum is unreadable")
  }
  covered <- sealed_names(object)
  if (is.null(covered)) {
    return("its record of what its checksum covers (`sealed`) is unreadable")
  }
  if (!identical(ccf_checksum_cpp(unclass(object), covered), stored)) {
    return(paste0("its contents do not match its checksum: it was changed after fitting, or in ",
                  "storage or transfer (ASCII serialization, saveRDS(ascii = TRUE), does not keep ",
                  "numbers exactly)"))
  }
  NULL
}

#' A fit without a checksum is one of 0.2.0 or earlier; from a later version
#' it has lost its seal. (An unreadable version is ccforest_problem()'s to
#' report.)
#' @noRd
missing_checksum_problem <- function(object) {
  version <- tryCatch(package_version(object[["version"]]), error = function(e) NULL)
  if (length(version) != 1L || version < "0.3.0") {
    return(NULL)
  }
  sprintf(paste0("it has no checksum, which every fit of ccforest 0.3.0 and later (this one ",
                 "says %s) is sealed with; without it no change to the fit can be detected"),
          object[["version"]])
}
