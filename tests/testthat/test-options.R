# The option table (R/fit-options.R) is where an option is declared once:
# these tests hold it to the places that cannot be derived from it (the
# formals, the help page, the C++ reader) and check what is derived from it.

option_table <- ccforest:::option_table

test_that("the table lists ccforest.default()'s options in order, with their defaults", {
  formals <- formals(ccforest:::ccforest.default)
  formals <- formals[setdiff(names(formals), c("x", "y", "..."))]
  expect_identical(names(option_table), names(formals))
  for (name in names(formals)) {
    expect_identical(option_table[[name]]$default, formals[[name]], label = name)
  }
})

test_that("every option is documented in ?ccforest", {
  rd <- tools::Rd_db("ccforest")[["ccforest.Rd"]]
  arguments <- Filter(function(e) identical(attr(e, "Rd_tag"), "\\arguments"), rd)[[1L]]
  items <- Filter(function(e) identical(attr(e, "Rd_tag"), "\\item"), arguments)
  documented <- unlist(lapply(items, function(item) {
    trimws(strsplit(paste(unlist(item[[1L]]), collapse = ""), ",")[[1L]])
  }))
  expect_true(all(names(option_table) %in% documented),
              label = paste(setdiff(names(option_table), documented), collapse = ", "))
})

test_that("each row is well formed", {
  fields <- c("name", "default", "type", "stage", "check", "stored", "paper", "core", "beyond",
              "shown", "parsnip", "mlr3")
  for (o in option_table) {
    expect_identical(names(o), fields, label = o$name)
    expect_true(o$stage %in% c("call", "data", "pipeline"), label = o$name)
    expect_true(o$type$kind %in% c("count", "number", "choice", "flag", "any"), label = o$name)
    # A pipeline option is checked by the step that uses it, never twice.
    if (o$stage == "pipeline") expect_null(o$check, label = o$name)
    # The value the paper fixes must be one the option takes.
    if (!is.null(o$paper)) {
      expect_no_error(ccforest:::check_option_type(o$paper$value, o$name, o$type))
    }
  }
})

# A value other than the default for every option the core reads, as a fit
# stores it, and the core's field it must reach: an independent list.
core_cases <- list(
  mtry = list(2L, "mtry", 2L),
  min_split = list(7L, "min_split", 7L),
  min_leaf = list(4L, "min_leaf", 4L),
  min_events = list(2L, "min_events", 2L),
  min_statistic = list(2.5, "min_statistic", 2.5),
  max_depth = list(5L, "max_depth", 5L),
  split_rule = list("gini", "split_rule", "gini"),
  sampling = list("bagging", "projection_bootstrap", FALSE),
  projection = list("pca", "projection", "pca"),
  na_action = list("impute_mean", "impute_random", FALSE),
  max_directions = list(3L, "max_directions", 3L),
  direction_ratio = list(0.5, "direction_ratio", 0.5),
  bootstrap_max_rows = list(100L, "bootstrap_max_rows", 100L),
  exact_split_max_rows = list(50L, "exact_split_max_rows", 50L),
  output_bins = list(4L, "output_bins", 4L),
  axis_candidates = list("random", "axis_candidates", "random"),
  feature_weights = list(c(a = 1, b = 0.5), "feature_weights", c(1, 0.5)),
  variant = list("paper", "variant", "paper")
)

test_that("every option the core reads reaches core_options(), and only those", {
  with_core <- names(Filter(function(o) !is.null(o$core), option_table))
  # sample_fraction reaches the core in the rows each tree is grown on.
  expect_setequal(setdiff(with_core, "sample_fraction"), names(core_cases))
  fit <- ccforest(Species ~ ., iris, n_tree = 2, seed = 1)
  training <- list(x = matrix(0, nrow(iris), 4L), weights = numeric(0))
  base <- ccforest:::core_options(fit$options, fit$seed, training)
  for (name in names(core_cases)) {
    case <- core_cases[[name]]
    options <- fit$options
    options[name] <- list(case[[1L]])
    core <- ccforest:::core_options(options, fit$seed, training)
    expect_identical(core[[case[[2L]]]], case[[3L]], label = name)
    expect_false(identical(core[[case[[2L]]]], base[[case[[2L]]]]), label = name)
  }
})

test_that("the core's reader asks for nothing core_options() does not give", {
  header <- test_path("..", "..", "src", "r_convert.h")
  skip_if_not(file.exists(header), "src/r_convert.h is not beside the tests (installed tests)")
  text <- paste(readLines(header), collapse = "\n")
  reader <- regmatches(text, regexpr("inline TreeOptions tree_options\\(.*?\n}\n", text))
  read <- unique(gsub("\"", "", unlist(regmatches(reader, gregexpr("\"[a-z_]+\"", reader)))))
  expect_gt(length(read), 10L)
  # Every optional field set, so that every field the core can read is there.
  fit <- ccforest(Species ~ ., iris, n_tree = 2, seed = 1, feature_weights = c(1, 1, 1, 0.5))
  options <- fit$options
  options$min_events <- 1L
  options$min_statistic <- 0
  core <- ccforest:::core_options(options, fit$seed,
                                  list(x = matrix(0, nrow(iris), 4L), weights = numeric(0)))
  # The seed is read with the forest's options (ccf_grow_cpp()).
  expect_setequal(read, setdiff(names(core), "seed"))
})

test_that("variant = \"paper\" refuses every option it fixes, given otherwise", {
  d <- data.frame(a = c(1, 2, 3, 4, 5, 6), b = c(2, 1, 4, 3, 6, 5), y = factor(rep(1:2, 3)))
  departing <- list(onehot_max_levels = 10, max_directions = 3L, direction_ratio = 0.1,
                    bootstrap_max_rows = 500L, exact_split_max_rows = 500L, output_bins = 3L,
                    axis_candidates = "search", feature_weights = c(1, 1))
  with_paper <- names(Filter(function(o) !is.null(o$paper), option_table))
  expect_setequal(names(departing), with_paper)
  for (name in names(departing)) {
    args <- c(list(y ~ ., d, variant = "paper"), departing[name])
    expect_error(do.call(ccforest, args), sprintf("which `%s = ", name), fixed = TRUE,
                 label = name)
  }
  fit <- ccforest(y ~ ., d, n_tree = 1, seed = 1, variant = "paper")
  expect_identical(fit$options[c("onehot_max_levels", "max_directions", "direction_ratio",
                                 "bootstrap_max_rows", "exact_split_max_rows", "output_bins",
                                 "axis_candidates")],
                   list(onehot_max_levels = Inf, max_directions = 0L, direction_ratio = 0,
                        bootstrap_max_rows = 0L, exact_split_max_rows = 0L, output_bins = 0L,
                        axis_candidates = "none"))
  # NULL, as wrappers pass "not given", is not a departure.
  expect_identical(ccforest(y ~ ., d, n_tree = 1, seed = 1, variant = "paper",
                            max_directions = NULL, direction_ratio = NULL)$forest$trees,
                   fit$forest$trees)
})

test_that("print() shows each option beyond the paper from its row, in a fixed order", {
  opts <- list(max_directions = 3L, direction_ratio = 0.5, onehot_max_levels = 8,
               output_bins = 4L, axis_candidates = "random", bootstrap_max_rows = 100L,
               exact_split_max_rows = 50L, variant = "ccforest")
  expect_identical(ccforest:::beyond_paper_label(opts), paste(
    "max_directions = 3, direction_ratio = 0.5, onehot_max_levels = 8, output_bins = 4,",
    "axis_candidates = \"random\", bootstrap_max_rows = 100, exact_split_max_rows = 50"))
  # An option that does not act on the fit is left out.
  expect_identical(ccforest:::beyond_paper_label(opts, acting = c(max_directions = FALSE,
                                                                  output_bins = FALSE)),
                   paste("direction_ratio = 0.5, onehot_max_levels = 8,",
                         "axis_candidates = \"random\", bootstrap_max_rows = 100,",
                         "exact_split_max_rows = 50"))
  paper <- list(max_directions = 0L, direction_ratio = 0, onehot_max_levels = Inf,
                output_bins = 0L, axis_candidates = "none", bootstrap_max_rows = 0L,
                exact_split_max_rows = 0L, variant = "paper")
  expect_identical(ccforest:::beyond_paper_label(paper), "none (variant = \"paper\")")
  with_label <- names(Filter(function(o) !is.null(o$beyond), option_table))
  expect_setequal(with_label, setdiff(names(opts), "variant"))
})

test_that("parsnip's engine arguments are the table's, each with a dials parameter", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("dials")
  loadNamespace("parsnip")
  args <- parsnip::get_from_env("rand_forest_args")
  args <- args[args$engine == "ccforest", ]
  rows <- Filter(function(o) !is.null(o$parsnip), option_table)
  expect_setequal(args$original, names(rows))
  for (o in rows) {
    expect_identical(args$parsnip[args$original == o$name], o$parsnip$parsnip)
    fun <- getExportedValue(o$parsnip$pkg, o$parsnip$fun)
    expect_s3_class(fun(), "param")
    # The values a qualitative parameter tries are values the option takes.
    param <- fun()
    if (inherits(param, "qual_param")) {
      expect_true(all(param$values %in% o$type$values), label = o$name)
    }
  }
})

test_that("print() and summary() show the options' own rows from the table, in rank order", {
  fit <- ccforest(Species ~ ., iris, n_tree = 3, seed = 1, feature_weights = c(1, 1, 1, 0.5),
                  max_depth = 4)
  printed <- utils::capture.output(print(fit))
  summarised <- utils::capture.output(print(summary(fit)))
  rows <- Filter(function(o) !is.null(o$shown), option_table)
  rows <- rows[order(vapply(rows, function(o) o$shown$rank, numeric(1)))]
  line_of <- function(lines, label) which(startsWith(lines, label))
  expect_identical(line_of(printed, "Feature weights:"), line_of(printed, "Beyond paper:") + 1L)
  at <- 0L
  for (o in rows) {
    if (!o$shown$summary_only) {
      expect_length(line_of(printed, o$shown$label), 1L)
    } else {
      expect_length(line_of(printed, o$shown$label), 0L)
    }
    line <- line_of(summarised, o$shown$label)
    expect_length(line, 1L)
    expect_gt(line, at)
    at <- line
  }
  expect_match(summarised, "^max_depth: +4$", all = FALSE)
  expect_match(summarised, "^Feature weights: +given, 4 of 4 positive$", all = FALSE)
})
