# Registrations with suggested packages, made when they are available.

.onLoad <- function(libname, pkgname) {
  # The parsnip engine: now if parsnip is already loaded, otherwise as soon
  # as it is (loading parsnip here would slow down every library(ccforest)).
  register_parsnip_engine()
  on_parsnip_load(register_parsnip_engine)
  invisible()
}

#' Run `fn` whenever parsnip is loaded
#'
#' Replaces the hook a previous load of ccforest left behind (hooks outlive
#' an unloaded namespace), so reloading ccforest does not pile them up.
#' @noRd
on_parsnip_load <- function(fn) {
  event <- packageEvent("parsnip", "onLoad")
  hooks <- getHook(event)
  ours <- vapply(hooks, function(h) isTRUE(attr(h, "ccforest_hook")), logical(1))
  hook <- structure(function(...) fn(), ccforest_hook = TRUE)
  setHook(event, c(hooks[!ours], list(hook)), action = "replace")
}
