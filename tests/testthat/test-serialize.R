# The fitted object is plain data: it survives saveRDS()/readRDS(), holds no
# pointers or environments, and a damaged copy is refused with an R error.

serial_fit <- function() {
  ccforest(Species ~ ., data = iris, n_tree = 8, seed = 1)
}

round_trip <- function(object) {
  path <- tempfile(fileext = ".rds")
  on.exit(unlink(path))
  saveRDS(object, path)
  readRDS(path)
}

# Every node of an object (list elements and attributes, recursively), with
# its path; returns the paths of nodes that are not plain data.
non_plain_nodes <- function(x, path = "object") {
  bad <- character(0)
  type <- typeof(x)
  plain <- c("NULL", "logical", "integer", "double", "complex", "character", "list",
             "symbol", "language")
  if (!type %in% plain) {
    bad <- c(bad, sprintf("%s <%s>", path, type))
  }
  attrs <- attributes(x)
  for (a in names(attrs)) {
    bad <- c(bad, non_plain_nodes(attrs[[a]], sprintf("%s@%s", path, a)))
  }
  if (type == "list") {
    nms <- names(x)
    for (i in seq_along(x)) {
      label <- if (!is.null(nms) && nzchar(nms[[i]])) nms[[i]] else paste0("[[", i, "]]")
      bad <- c(bad, non_plain_nodes(x[[i]], paste0(path, "$", label)))
    }
  }
  if (type == "language") {
    # Parts of a call: symbols, constants and nested calls (an empty
    # argument is a symbol too, and is skipped).
    parts <- as.list(x)
    types <- vapply(parts, typeof, character(1))
    for (i in which(types != "symbol")) {
      bad <- c(bad, non_plain_nodes(parts[[i]], sprintf("%s[[%d]]", path, i)))
    }
  }
  bad
}

test_that("saveRDS/readRDS round trip gives identical predictions", {
  fit <- serial_fit()
  back <- round_trip(fit)
  expect_identical(back$forest, fit$forest)
  expect_identical(predict(back, iris, type = "prob"), predict(fit, iris, type = "prob"))
  reg <- ccforest(mpg ~ ., data = mtcars, n_tree = 8, seed = 2)
  expect_identical(predict(round_trip(reg), mtcars), predict(reg, mtcars))
  xy <- ccforest(as.matrix(mtcars[, -1]), mtcars$mpg, n_tree = 8, seed = 2)
  expect_identical(predict(round_trip(xy), as.matrix(mtcars[, -1])),
                   predict(xy, as.matrix(mtcars[, -1])))
  # Through serialize() in memory too (as parallel workers do).
  expect_identical(predict(unserialize(serialize(fit, NULL)), iris), predict(fit, iris))
  # A copy saved in another R session predicts the same (a new R process
  # takes a few seconds to start).
  skip_on_cran()
  skip_if_not_installed("callr")
  path <- tempfile(fileext = ".rds")
  on.exit(unlink(path))
  saveRDS(fit, path)
  lib <- .libPaths()
  other <- callr::r(function(path, lib) {
    .libPaths(lib)
    loadNamespace("ccforest")
    predict(readRDS(path), datasets::iris, type = "prob")
  }, args = list(path = path, lib = lib))
  expect_identical(other, predict(fit, iris, type = "prob"))
})

test_that("the fitted object holds plain data only", {
  fit <- serial_fit()
  expect_identical(non_plain_nodes(fit), character(0))
  # The forest itself is flat atomic vectors.
  expect_true(all(vapply(fit$forest, is.atomic, logical(1))))
  expect_identical(
    vapply(fit$forest, typeof, character(1)),
    c(node_start = "integer", child_left = "integer", threshold = "double", gain = "double",
      payload_start = "integer", payload_index = "integer", payload_value = "double")
  )
  xy <- ccforest(iris[, 1:4], iris$Species, n_tree = 3, seed = 1)
  expect_identical(non_plain_nodes(xy), character(0))
  # A formula with transformed terms may keep the environment it needs to
  # evaluate them, and nothing else.
  trans <- ccforest(Species ~ log(Sepal.Length) + Petal.Width, data = iris, n_tree = 3, seed = 1)
  bad <- non_plain_nodes(trans)
  expect_true(all(grepl("^object\\$formula\\$env <environment>$", bad)))
  expect_identical(predict(round_trip(trans), iris), predict(trans, iris))
  expect_identical(object.size(round_trip(fit)), object.size(fit))
})

test_that("a damaged forest gives an R error saying so, never a crash", {
  fit <- serial_fit()
  new <- iris[1:20, ]
  damage <- list(
    child_left_out_of_range = function(f) {
      f$forest$child_left[1] <- 10000L
      f
    },
    child_left_backwards = function(f) {
      f$forest$child_left[f$forest$node_start[2] + 1L] <- -3L
      f
    },
    child_left_missing = function(f) {
      f$forest$child_left[1] <- NA_integer_
      f
    },
    truncated_payload_value = function(f) {
      f$forest$payload_value <- f$forest$payload_value[-1]
      f
    },
    truncated_payload_index = function(f) {
      f$forest$payload_index <- utils::head(f$forest$payload_index, -3)
      f
    },
    truncated_threshold = function(f) {
      f$forest$threshold <- f$forest$threshold[-1]
      f
    },
    truncated_node_start = function(f) {
      f$forest$node_start <- f$forest$node_start[-2]
      f
    },
    node_start_beyond_nodes = function(f) {
      f$forest$node_start[3] <- 100000L
      f
    },
    payload_index_out_of_range = function(f) {
      f$forest$payload_index[1] <- 99L
      f
    },
    payload_start_decreasing = function(f) {
      f$forest$payload_start[3] <- -5L
      f
    },
    split_threshold_missing = function(f) {
      f$forest$threshold[1] <- NA_real_
      f
    },
    missing_threshold = function(f) {
      f$forest$threshold <- NULL
      f
    },
    missing_payload_value = function(f) {
      f$forest["payload_value"] <- NULL
      f
    },
    child_left_wrong_type = function(f) {
      f$forest$child_left <- as.double(f$forest$child_left)
      f
    },
    payload_index_wrong_type = function(f) {
      f$forest$payload_index <- as.character(f$forest$payload_index)
      f
    },
    too_few_classes = function(f) {
      f$response$n_class <- 2L
      f
    }
  )
  for (name in names(damage)) {
    broken <- damage[[name]](fit)
    expect_error(predict(broken, new), "damaged", label = name)
  }
})

test_that("a fitted object missing whole elements, or of the wrong class, is refused", {
  fit <- serial_fit()
  new <- iris[1:5, ]
  for (element in c("forest", "blueprint", "response", "options", "seed", "version")) {
    broken <- fit
    broken[[element]] <- NULL
    expect_error(predict(broken, new), sprintf("damaged.*`%s`", element), label = element)
  }
  broken <- fit
  broken$forest <- 1:3
  # The message should name the element that is unusable.
  expect_error(predict(broken, new), "damaged.*`forest`")
  broken <- fit
  broken$version <- "not a version"
  expect_error(predict(broken, new), "damaged.*version")
  newer <- fit
  newer$version <- "99.0.0"
  expect_error(predict(newer, new), "99\\.0\\.0.*update ccforest")
  # An object that is not a ccforest at all.
  expect_error(ccforest:::predict.ccforest(unclass(fit), new), "must be a ccforest")
  expect_error(ccforest:::predict.ccforest(structure(unclass(fit), class = "lm"), new),
               "must be a ccforest.*<lm>")
  expect_error(summary(structure(list(), class = "ccforest")), "damaged")
})

test_that("a child index near the integer limit is refused, not followed", {
  # child_left = .Machine$integer.max overflows `left + 1` in the range check
  # of src/serialize.cpp, so the node passes validation and the walk reads
  # far outside the arrays. Run in a separate process so a crash is reported
  # as a failure instead of killing the test run.
  skip_on_cran()
  skip_if_not_installed("callr")
  fit <- serial_fit()
  path <- tempfile(fileext = ".rds")
  on.exit(unlink(path))
  saveRDS(fit, path)
  outcome <- tryCatch(
    callr::r(function(path, lib) {
      .libPaths(lib)
      loadNamespace("ccforest")
      fit <- readRDS(path)
      f <- fit
      leaf <- which(f$forest$child_left[seq_len(f$forest$node_start[2])] == 0L)[1]
      f$forest$child_left[leaf] <- .Machine$integer.max
      g <- fit
      g$forest$child_left[1] <- .Machine$integer.max
      vapply(list(f, g), function(broken) {
        tryCatch({
          stats::predict(broken, datasets::iris)
          "no error"
        }, error = function(e) conditionMessage(e))
      }, character(1))
    }, args = list(path = path, lib = .libPaths())),
    error = function(e) paste("the R process failed:", conditionMessage(e))
  )
  expect_length(outcome, 2L)
  expect_match(outcome, "damaged", all = TRUE)
})
