# ranger and randomForest export generics named importance() too. Whichever
# package is attached last masks the others' generic, so each package's
# method is registered on the others' generics. The attach order is only
# real in a fresh R session: these tests run in child processes.

skip_if_not_installed("callr")

# Attach the packages in `order` in a fresh R session, fit a ccforest and the
# other package's forest, and call the unqualified importance() on both.
importance_in_child <- function(order, other_fit) {
  callr::r(
    function(order, other_fit) {
      for (pkg in order) {
        suppressPackageStartupMessages(library(pkg, character.only = TRUE))
      }
      ccf <- ccforest::ccforest(Species ~ ., data = iris, n_tree = 10, seed = 1,
                                importance = "projection", n_thread = 1)
      other <- eval(other_fit)
      list(
        found = environmentName(environment(get("importance"))),
        ccf = importance(ccf),
        ccf_reference = ccforest:::projection_importance(ccf),
        other = importance(other)
      )
    },
    args = list(order = order, other_fit = other_fit),
    libpath = .libPaths(),
    env = c(callr::rcmd_safe_env(), TZ = "UTC")
  )
}

ranger_fit <- quote(ranger::ranger(Species ~ ., data = iris, num.trees = 10, seed = 1,
                                   importance = "impurity", num.threads = 1))

test_that("importance() works on both forests with ranger attached after ccforest", {
  skip_if_not_installed("ranger")
  out <- importance_in_child(c("ccforest", "ranger"), ranger_fit)
  expect_identical(out$found, "ranger")
  expect_equal(out$ccf, out$ccf_reference)
  # ranger's own values, computed again in this session (same seed).
  reference <- ranger::importance(eval(ranger_fit))
  expect_equal(out$other, reference)
})

test_that("importance() works on both forests with ranger attached before ccforest", {
  skip_if_not_installed("ranger")
  out <- importance_in_child(c("ranger", "ccforest"), ranger_fit)
  expect_identical(out$found, "ccforest")
  expect_equal(out$ccf, out$ccf_reference)
  expect_equal(out$other, ranger::importance(eval(ranger_fit)))
})

random_forest_fit <- quote({
  set.seed(1)
  randomForest::randomForest(Species ~ ., data = iris, ntree = 10)
})

test_that("importance() works on both forests with randomForest, in either order", {
  skip_if_not_installed("randomForest")
  after <- importance_in_child(c("ccforest", "randomForest"), random_forest_fit)
  before <- importance_in_child(c("randomForest", "ccforest"), random_forest_fit)
  expect_identical(after$found, "randomForest")
  expect_identical(before$found, "ccforest")
  reference <- randomForest::importance(eval(random_forest_fit))
  for (out in list(after, before)) {
    expect_equal(out$ccf, out$ccf_reference)
    expect_equal(out$other, reference)
  }
})

test_that("loading the other package after ccforest registers the methods once", {
  skip_if_not_installed("ranger")
  registered <- callr::r(function() {
    loadNamespace("ccforest")
    before <- is.null(utils::getS3method("importance", "ranger", optional = TRUE,
                                         envir = asNamespace("ccforest")))
    loadNamespace("ranger")
    hooks <- getHook(packageEvent("ranger", "onLoad"))
    c(before = before,
      ours_on_theirs = !is.null(utils::getS3method("importance", "ccforest", optional = TRUE,
                                                   envir = asNamespace("ranger"))),
      theirs_on_ours = !is.null(utils::getS3method("importance", "ranger", optional = TRUE,
                                                   envir = asNamespace("ccforest"))),
      one_hook = sum(vapply(hooks, function(h) isTRUE(attr(h, "ccforest_hook")), TRUE)) == 1)
  }, libpath = .libPaths(), env = c(callr::rcmd_safe_env(), TZ = "UTC"))
  expect_identical(registered, c(before = TRUE, ours_on_theirs = TRUE, theirs_on_ours = TRUE,
                                 one_hook = TRUE))
})
