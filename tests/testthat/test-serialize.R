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
  plain <- c("NULL", "logical", "integer", "double", "complex", "character", "raw", "list",
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
  # One pointer besides: the handle of what the fit has prepared for its
  # predictions (src/prepared.h), which serializes empty and is rebuilt on
  # first use.
  expect_identical(non_plain_nodes(fit), "object$cache <externalptr>")
  # The forest itself: its format, one raw vector per tree, the number of
  # its first tree, the per-variable importance (with the rest of its exact
  # sums), the counts of the limits that acted and the fingerprints of its
  # training data and of its weights.
  expect_identical(
    vapply(fit$forest, typeof, character(1)),
    c(format = "integer", trees = "list", first_tree = "integer", importance = "double",
      exact_remainder = "double", limits = "double", data_hash = "character",
      weights_hash = "character")
  )
  expect_named(fit$forest$limits, c("max_directions", "direction_ratio", "bootstrap_max_rows",
                                    "exact_split_max_rows"))
  expect_identical(nrow(fit$forest$exact_remainder), 4L)
  expect_match(fit$forest$data_hash, "^[0-9a-f]{16}$")
  expect_match(fit$forest$weights_hash, "^[0-9a-f]{16}$")
  expect_identical(fit$forest$format, 3L)
  expect_identical(fit$forest$first_tree, 1L)
  expect_length(fit$forest$trees, 8L)
  expect_true(all(vapply(fit$forest$trees, is.raw, logical(1))))
  expect_null(attributes(fit$forest$trees))
  expect_length(fit$forest$importance, 4L)
  xy <- ccforest(iris[, 1:4], iris$Species, n_tree = 3, seed = 1)
  expect_identical(non_plain_nodes(xy), "object$cache <externalptr>")
  # A formula with transformed terms may keep the environment it needs to
  # evaluate them, and nothing else.
  trans <- ccforest(Species ~ log(Sepal.Length) + Petal.Width, data = iris, n_tree = 3, seed = 1)
  bad <- non_plain_nodes(trans)
  expect_setequal(bad, c("object$formula$env <environment>", "object$cache <externalptr>"))
  expect_identical(predict(round_trip(trans), iris), predict(trans, iris))
  expect_identical(object.size(round_trip(fit)), object.size(fit))
})

test_that("a damaged forest gives an R error saying so, never a crash", {
  # Damage to the forest's structure, which R checks before any compiled code
  # reads a tree, so it is safe in this process. Damaged tree bytes, which
  # the compiled decoder checks, are tried in child processes
  # (test-hostile-predict.R and below).
  fit <- as_unsealed(serial_fit())  # so each damage reaches its check
  new <- iris[1:20, ]
  damage <- list(
    format_unknown = function(f) {
      f$forest$format <- 4L
      f
    },
    format_double = function(f) {
      f$forest$format <- 2
      f
    },
    format_missing = function(f) {
      f$forest$format <- NULL
      f
    },
    trees_missing = function(f) {
      f$forest$trees <- NULL
      f
    },
    trees_empty = function(f) {
      f$forest$trees <- list()
      f
    },
    trees_one_raw_vector = function(f) {
      f$forest$trees <- unlist(f$forest$trees)
      f
    },
    tree_integer = function(f) {
      f$forest$trees[[2]] <- as.integer(f$forest$trees[[2]])
      f
    },
    tree_character = function(f) {
      f$forest$trees[[1]] <- rawToChar(f$forest$trees[[1]][-1], multiple = TRUE)
      f
    },
    tree_null = function(f) {
      f$forest$trees[8] <- list(NULL)
      f
    },
    limits_unnamed = function(f) {
      f$forest$limits <- unname(f$forest$limits)
      f
    },
    limits_negative = function(f) {
      f$forest$limits[[2]] <- -1
      f
    },
    limits_fraction = function(f) {
      f$forest$limits[[1]] <- 0.5
      f
    },
    first_tree_missing = function(f) {
      f$forest$first_tree <- NA_integer_
      f
    },
    first_tree_zero = function(f) {
      f$forest$first_tree <- 0L
      f
    },
    first_tree_negative = function(f) {
      f$forest$first_tree <- -3L
      f
    },
    first_tree_double = function(f) {
      f$forest$first_tree <- 1
      f
    },
    first_tree_beyond_int = function(f) {
      f$forest$first_tree <- .Machine$integer.max
      f
    },
    importance_short = function(f) {
      f$forest$importance <- f$forest$importance[-1]
      f
    },
    importance_missing_value = function(f) {
      f$forest$importance[2] <- NA_real_
      f
    },
    importance_character = function(f) {
      f$forest$importance <- as.character(f$forest$importance)
      f
    },
    exact_remainder_rows = function(f) {
      f$forest$exact_remainder <- matrix(0, 3, 1)
      f
    },
    exact_remainder_infinite = function(f) {
      f$forest$exact_remainder <- matrix(Inf, 4, 1)
      f
    },
    exact_remainder_vector = function(f) {
      f$forest$exact_remainder <- numeric(4)
      f
    },
    data_hash_short = function(f) {
      f$forest$data_hash <- "abc"
      f
    },
    data_hash_number = function(f) {
      f$forest$data_hash <- 12
      f
    },
    weights_hash_na = function(f) {
      f$forest$weights_hash <- NA_character_
      f
    },
    too_few_classes = function(f) {
      f$response$n_class <- 2L
      f
    }
  )
  for (name in names(damage)) {
    broken <- damage[[name]](fit)
    expect_error(predict(broken, new), "^`object` is damaged: .*Refit the forest", label = name)
    expect_error(summary(broken), "^`object` is damaged", label = name)
    expect_error(tree_info(broken, 1), "^`object` is damaged", label = name)
  }
})

test_that("the documented byte layout of a tree is what tree_info() reads", {
  # hostile_tree_layout() (helper-hostile.R) reads a tree from the layout
  # documented in src/core/TreeCodec.h; the damage tests rely on it to hit
  # one chosen field. Check it against the package on every tree of three
  # kinds of forest.
  df <- iris
  df$size <- factor(ifelse(df$Petal.Length > 4, "big", "small"))
  fits <- list(
    class = ccforest(Species ~ ., data = iris, n_tree = 4, max_depth = 3, seed = 1),
    multi = ccforest(cbind(Species, size) ~ ., data = df, n_tree = 3, max_depth = 3, seed = 2),
    reg = ccforest(cbind(mpg, qsec) ~ ., data = mtcars, n_tree = 3, seed = 3)
  )
  for (name in names(fits)) {
    fit <- fits[[name]]
    response <- fit$response
    n_class <- if (fit$task == "classification") response$n_class else integer(0)
    mixed_seen <- FALSE
    for (t in seq_len(n_trees_of(fit))) {
      bytes <- fit$forest$trees[[t]]
      layout <- hostile_tree_layout(bytes, n_class, response$n_output)
      info <- tree_info(fit, t)
      label <- paste(name, "tree", t)
      expect_identical(layout$format, 3L, label = label)
      expect_identical(layout$end, length(bytes) + 1, label = label)
      expect_identical(as.integer(layout$n_nodes), nrow(info), label = label)
      expect_identical(layout$is_split, !info$terminal, label = label)
      splits <- which(!info$terminal)
      expect_identical(layout$thresholds, info$threshold[splits], label = label)
      expect_identical(split(layout$columns, layout$split_of_entry),
                       lapply(info$columns[splits], function(cols) {
                         match(cols, fit$blueprint$column_names) - 1
                       }), label = label, ignore_attr = TRUE)
      expect_identical(split(layout$coefficients, layout$split_of_entry),
                       info$coefficients[splits], label = label, ignore_attr = TRUE)
      leaves <- info[info$terminal, , drop = FALSE]
      if (fit$task == "regression") {
        means <- matrix(layout$means, ncol = response$n_output, byrow = TRUE)
        means <- sweep(sweep(means, 2L, response$scale, `*`), 2L, response$center, `+`)
        expect_equal(unname(as.matrix(leaves[paste0("prediction.", response$names)])), means,
                     tolerance = 1e-14, label = label)
        next
      }
      # Per leaf and output: class + 1 for a pure leaf, 0 for a mixed one
      # whose classes and float32 proportions follow.
      codes <- matrix(layout$codes, ncol = response$n_output, byrow = TRUE)
      mixed <- 0L
      for (l in seq_len(nrow(leaves))) {
        for (m in seq_len(response$n_output)) {
          prefix <- if (response$n_output == 1L) "prob." else paste0("prob.", response$names[[m]], ".")
          prob <- unlist(leaves[l, paste0(prefix, response$levels[[m]])])
          expected <- numeric(response$n_class[[m]])
          if (codes[l, m] > 0) {
            expected[[codes[l, m]]] <- 1
          } else {
            mixed <- mixed + 1L
            classes <- layout$mixed_classes[[mixed]] + 1
            first <- sum(lengths(layout$mixed_classes[seq_len(mixed - 1L)]))
            expected[classes] <- layout$proportions[first + seq_along(classes)]
            mixed_seen <- TRUE
          }
          expect_equal(unname(prob), expected, tolerance = 1e-7, label = label)
          expect_identical(unname(prob) == 0, expected == 0, label = label)
        }
      }
      expect_identical(mixed, length(layout$mixed_classes), label = label)
    }
    if (fit$task == "classification") expect_true(mixed_seen, label = name)
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
  broken <- as_unsealed(fit)
  broken$version <- "not a version"
  expect_error(predict(broken, new), "damaged.*version")
  broken$checksum <- fit$checksum
  expect_error(predict(broken, new), "damaged: its contents do not match its checksum")
  newer <- fit
  newer$version <- "99.0.0"
  expect_error(predict(newer, new), "99\\.0\\.0.*update ccforest")
  # An object that is not a ccforest at all.
  expect_error(ccforest:::predict.ccforest(unclass(fit), new), "must be a ccforest")
  expect_error(ccforest:::predict.ccforest(structure(unclass(fit), class = "lm"), new),
               "must be a ccforest.*<lm>")
  expect_error(summary(structure(list(), class = "ccforest")), "damaged")
})

# Trees whose node count, or another count or index, is near or beyond the
# limits of its varint: each must be refused as damage, without allocating
# memory for what it claims. The counts are the first thing decoded.
serial_huge_counts <- function() {
  fit <- serial_fit()
  bytes <- fit$forest$trees[[1]]
  layout <- hostile_tree_layout(bytes, fit$response$n_class)
  body <- bytes[-(1:(layout$flags_at - 1L))]  # all after the node count
  with_tree <- function(tree) {
    f <- fit
    f$forest$trees[[1]] <- tree
    list(fit = f, new = iris[c(1:3, 51:53, 101:103), ], type = "prob")
  }
  ff <- as.raw(rep(0xff, 9))
  list(
    node_count_2_64_alone = with_tree(c(as.raw(3), ff, as.raw(0x01))),
    node_count_2_64 = with_tree(c(as.raw(3), ff, as.raw(0x01), body)),
    node_count_overlong = with_tree(c(as.raw(3), ff, as.raw(0xff), as.raw(0x01), body)),
    node_count_2_62 = with_tree(c(as.raw(3), hostile_varint_bytes(2^62), body)),
    node_count_2_40 = with_tree(c(as.raw(3), hostile_varint_bytes(2^40), body)),
    node_count_int_max = with_tree(c(as.raw(3), hostile_varint_bytes(2^31 - 1), body)),
    node_count_eight_per_byte = with_tree(c(as.raw(3), hostile_varint_bytes(8 * length(body)),
                                            body)),
    node_count_zero = with_tree(c(as.raw(3), as.raw(0), body)),
    split_count_2_63 = with_tree(hostile_replace_varint(bytes, layout$count_at[[1]], 2^63)),
    column_step_2_63 = with_tree(hostile_replace_varint(bytes, layout$column_at[[1]], 2^63)),
    leaf_code_2_63 = with_tree(hostile_replace_varint(bytes, layout$code_at[[1]], 2^63))
  )
}

test_that("counts and indices at the limits of their varints are refused, not followed", {
  skip_on_cran()
  skip_if_not_installed("callr")
  cases <- serial_huge_counts()
  outcome <- hostile_predict_cases(cases)
  hostile_expect_all_damaged(outcome, names(cases))
})

test_that("a huge node count allocates nothing: refused under a 4 GB address-space limit", {
  # Linux-only (address-space limit through the shell) and in a child, on
  # one thread (each thread's stack and malloc arena take address space). An
  # allocation for a claimed count beyond the tree's bytes would fail there
  # with "out of memory" instead of reporting damage.
  skip_on_cran()
  skip_on_os(c("windows", "mac", "solaris"))
  skip_if(nzchar(Sys.getenv("CCFOREST_SANITIZE")),
          "an address-space limit leaves no room for AddressSanitizer's shadow memory")
  cases <- serial_huge_counts()
  cases_file <- tempfile(fileext = ".rds")
  script <- tempfile(fileext = ".R")
  on.exit(unlink(c(cases_file, script)))
  saveRDS(cases, cases_file)
  writeLines(c(
    sprintf(".libPaths(%s)", paste(deparse(.libPaths()), collapse = "")),
    "suppressMessages(library(ccforest))",
    sprintf("cases <- readRDS('%s')", cases_file),
    "for (name in names(cases)) {",
    "  msg <- tryCatch({predict(cases[[name]]$fit, cases[[name]]$new, type = 'prob',",
    "                           n_thread = 1); 'no error'},",
    "                  error = function(e) conditionMessage(e))",
    "  cat('CASE', name, ':', gsub('\n', ' ', msg), '\n')",
    "}"
  ), script)
  out <- suppressWarnings(system2(
    "bash", c("-c", shQuote(sprintf("ulimit -v 4000000; timeout 120 '%s' '%s'",
                                    file.path(R.home("bin"), "Rscript"), script))),
    stdout = TRUE, stderr = TRUE
  ))
  lines <- grep("^CASE ", out, value = TRUE)
  expect_length(lines, length(cases))
  for (name in names(cases)) {
    line <- grep(sprintf("^CASE %s :", name), lines, value = TRUE)
    expect_length(line, 1L)
    expect_match(line, ": `object` is damaged: ", label = name)
  }
})

test_that("objects saved by ccforest 0.1.0 (old model format) are refused with what to do", {
  for (file in c("iris-0.1.0.rds", "mtcars-xy-0.1.0.rds")) {
    old <- readRDS(test_path("fixtures", file))
    expect_s3_class(old, "ccforest")
    expect_identical(old$version, "0.1.0")
    expect_true(is.null(old$forest$format) && !is.null(old$forest$node_start))
    new <- if (old$task == "classification") iris[1:5, ] else mtcars[1:5, -1]
    message <- "was fitted with ccforest 0\\.1\\.0, whose model format this version cannot read.*Refit"
    expect_error(predict(old, new), paste0("^`object` ", message), label = file)
    expect_error(print(old), message, label = file)
    expect_error(summary(old), paste0("^`object` ", message), label = file)
    expect_error(importance(old), paste0("^`x` ", message), label = file)
    expect_error(tree_info(old, 1), paste0("^`object` ", message), label = file)
    if (old$task == "classification") {
      expect_error(importance(old, new_data = iris), message, label = file)
    }
  }
})

test_that("objects saved by ccforest 0.2.0 (tree format 2) still predict as they did", {
  old <- readRDS(test_path("fixtures", "iris-0.2.0.rds"))
  expect_identical(old$fit$version, "0.2.0")
  expect_identical(old$fit$forest$format, 2L)
  expect_identical(predict(old$fit, old$new_data, type = "prob"), old$prob)
  expect_s3_class(tree_info(old$fit, 3), "data.frame")
  expect_output(print(old$fit), "ccforest")
  bagged <- readRDS(test_path("fixtures", "mtcars-bagged-0.2.0.rds"))
  expect_identical(predict(bagged$fit, bagged$new_data), bagged$pred)
  expect_true(all(is.finite(importance(bagged$fit, new_data = mtcars, type = "permutation"))))
})
