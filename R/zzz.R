# Registrations with suggested packages, made when they are available.

.onLoad <- function(libname, pkgname) {
  # Each registration runs now if its package is already loaded, otherwise as
  # soon as it is (loading those packages here would slow down every
  # library(ccforest)).
  for (pkg in names(package_registrations)) {
    package_registrations[[pkg]]()
    on_package_load(pkg, package_registrations[[pkg]])
  }
  invisible()
}

#' What to register with each suggested package once it is loaded
#'
#' * parsnip: the "ccforest" engine of rand_forest() and multi_predict();
#' * tune: min_grid() for rand_forest(), so tuning `trees` costs one fit;
#' * DALEX, pdp, iml, kernelshap, hstats: the methods of
#'   explain-explainers.R, so that they explain a forest without a prediction
#'   function of the user's;
#' * ggplot2: autoplot() methods for forests, importance, partial
#'   dependence and intervals;
#' * vetiver: the methods that make a forest a deployable vetiver_model()
#'   served by vetiver_api() (with-vetiver.R);
#' * mlr3: the learners "classif.ccforest" and "regr.ccforest" (with-mlr3.R);
#' * ranger, randomForest: both export a generic importance() of their own,
#'   which masks ours (or ours masks theirs) depending on the order the
#'   packages are attached. Our method is registered on their generic and
#'   their method on ours, so importance() works on either kind of forest
#'   whichever generic is found first.
#' @noRd
package_registrations <- list(
  parsnip = function() {
    register_parsnip_engine()
    register_parsnip_methods()
    register_parsnip_quantile()
    register_parsnip_censored()
  },
  tune = function() register_tune_methods(),
  ranger = function() register_importance_methods("ranger", "ranger"),
  randomForest = function() register_importance_methods("randomForest", "randomForest"),
  # Explanation packages (see explain-explainers.R).
  DALEX = function() register_explainer("DALEX"),
  pdp = function() register_explainer("pdp"),
  iml = function() register_explainer("iml"),
  kernelshap = function() register_explainer("kernelshap"),
  hstats = function() register_explainer("hstats"),
  # autoplot() methods (see explain-plots.R).
  ggplot2 = function() register_ggplot2_methods(),
  # Deployment (see with-vetiver.R).
  vetiver = function() register_vetiver_methods(),
  mlr3 = function() register_mlr3_learners()
)

.onUnload <- function(libpath) {
  unregister_mlr3_learners()
  invisible()
}

#' Run `fn` whenever package `pkg` is loaded
#'
#' Replaces the hook a previous load of ccforest left behind (hooks outlive
#' an unloaded namespace), so reloading ccforest does not pile them up.
#' @noRd
on_package_load <- function(pkg, fn) {
  force(fn)
  event <- packageEvent(pkg, "onLoad")
  hooks <- getHook(event)
  ours <- vapply(hooks, function(h) isTRUE(attr(h, "ccforest_hook")), logical(1))
  hook <- structure(function(...) fn(), ccforest_hook = TRUE)
  setHook(event, c(hooks[!ours], list(hook)), action = "replace")
}

#' Share importance() with another package's generic of the same name
#'
#' @param pkg The package exporting an `importance()` generic.
#' @param classes The classes of its fitted objects whose importance()
#'   methods are registered on our generic.
#' @return `TRUE` if `pkg` was loaded and the methods registered, invisibly.
#' @noRd
register_importance_methods <- function(pkg, classes) {
  if (!isNamespaceLoaded(pkg)) {
    return(invisible(FALSE))
  }
  theirs <- asNamespace(pkg)
  if (!is.function(get0("importance", envir = theirs, inherits = FALSE))) {
    return(invisible(FALSE))
  }
  registerS3method("importance", "ccforest", importance.ccforest, envir = theirs)
  ours <- asNamespace("ccforest")
  for (class in classes) {
    method <- utils::getS3method("importance", class, optional = TRUE, envir = theirs)
    if (!is.null(method)) {
      registerS3method("importance", class, method, envir = ours)
    }
  }
  invisible(TRUE)
}

#' The version of the loaded ccforest, as a string
#'
#' From the namespace: `utils::packageVersion()` reads the installed
#' package's metadata from disk on every call (about 2 ms), which every fit
#' and every first prediction of a fit read back from a file paid for. On a
#' future worker, too, the loaded namespace is the code that will run.
#' @noRd
ccforest_version <- function() {
  unname(getNamespaceVersion("ccforest"))
}
