# The benchmarks' argument parser and stamped writer (bench/common.R). bench/
# is left out of the built package, so these run in a checkout only; they run
# no benchmark (tools/check-bench.R checks that every script parses and is
# listed in bench/README.md).

bench_common <- function() {
  skip_on_cran()
  root <- test_path("..", "..", "bench")
  skip_if_not(file.exists(file.path(root, "common.R")),
              "bench/ is not in the built package (run from a checkout)")
  env <- new.env(parent = globalenv())
  sys.source(file.path(root, "common.R"), envir = env)
  env$BENCH_RUN$root <- normalizePath(root)
  env
}

no_env <- function(name) ""

test_that("sourcing bench/common.R changes nothing outside it", {
  paths <- .libPaths()
  lib <- Sys.getenv("CCFOREST_LIB", NA)
  b <- bench_common()
  expect_identical(.libPaths(), paths)
  expect_identical(Sys.getenv("CCFOREST_LIB", NA), lib)
  expect_null(b$BENCH_RUN$options)
})

test_that("options are read as --key value and --key=value, flags alone, words apart", {
  b <- bench_common()
  p <- b$parse_bench_args(c("--trees", "200", "--datasets=iris,vehicle", "--quick", "/tmp/a",
                            "--resume", "/tmp/b"),
                          flags = "resume", values = c("trees", "datasets"), positional = TRUE,
                          getenv = no_env)
  expect_identical(p$options$trees, "200")
  expect_identical(p$options$datasets, "iris,vehicle")
  expect_true(p$options$quick)
  expect_true(p$options$resume)
  expect_identical(p$positional, c("/tmp/a", "/tmp/b"))
  # A flag never takes the next word: it stays positional.
  p <- b$parse_bench_args(c("--quick", "/tmp/a"), positional = TRUE, getenv = no_env)
  expect_identical(p$positional, "/tmp/a")
  expect_identical(b$parse_bench_args(character(0), getenv = no_env),
                   list(options = list(), positional = character(0)))
})

test_that("the options every script takes are parsed, with the old variables as fallbacks", {
  b <- bench_common()
  env <- function(values) function(name) if (name %in% names(values)) values[[name]] else ""
  p <- b$parse_bench_args(c("--lib", "/tmp/lib", "--threads=3", "--no-update"), getenv = no_env)
  expect_identical(p$options$lib, "/tmp/lib")
  expect_identical(p$options$threads, 3L)
  expect_false(p$options$update)
  expect_true(b$parse_bench_args("--update", getenv = no_env)$options$update)
  p <- b$parse_bench_args(character(0), getenv = env(c(CCFOREST_LIB = "/old/lib",
                                                         CCFOREST_BENCH_UPDATE = "0")))
  expect_identical(p$options$lib, "/old/lib")
  expect_false(p$options$update)
  expect_true(b$parse_bench_args(character(0), getenv = env(c(CCFOREST_BENCH_UPDATE = "1")))
              $options$update)
  # The command line wins over the variable.
  p <- b$parse_bench_args(c("--lib=/new", "--update"),
                          getenv = env(c(CCFOREST_LIB = "/old", CCFOREST_BENCH_UPDATE = "0")))
  expect_identical(p$options$lib, "/new")
  expect_true(p$options$update)
  # A script's own variable.
  p <- b$parse_bench_args(character(0), values = "name", env = c(name = "CCFOREST_BENCH_NAME"),
                          getenv = env(c(CCFOREST_BENCH_NAME = "serving-0.3.0")))
  expect_identical(p$options$name, "serving-0.3.0")
  expect_null(b$parse_bench_args(character(0), values = "name",
                                 env = c(name = "CCFOREST_BENCH_NAME"), getenv = no_env)$options$name)
})

test_that("a wrong command line is an error naming the option", {
  b <- bench_common()
  parse <- function(args, ...) b$parse_bench_args(args, getenv = no_env, ...)
  expect_error(parse("--tres", values = "trees"), "unknown option --tres; this script takes --trees VALUE")
  expect_error(parse("--trees", values = "trees"), "--trees needs a value")
  expect_error(parse("--threads"), "--threads needs a value")
  expect_error(parse(c("--trees", "--quick"), values = "trees"), "--trees needs a value")
  expect_error(parse("--quick=yes"), "--quick takes no value, not '--quick=yes'")
  expect_error(parse("/tmp/a"), "unexpected argument '/tmp/a'")
  expect_error(parse(c("--update", "--no-update")), "--update and --no-update contradict")
  expect_error(parse("--threads=two"), "--threads needs an integer of at least 0, not 'two'")
  expect_error(parse("--threads=-1"), "--threads needs an integer of at least 0, not '-1'")
  expect_error(parse("--threads=1.5"), "--threads needs an integer of at least 0, not '1.5'")
  opt <- parse(c("--trees", "0", "--datasets", "a,b"), values = c("trees", "datasets"))$options
  expect_error(b$bench_integer(opt, "trees", 500L), "--trees needs an integer of at least 1, not '0'")
  expect_identical(b$bench_integer(opt, "repeats", 3L), 3L)
  expect_identical(b$bench_list(opt, "datasets"), c("a", "b"))
  expect_identical(b$bench_list(opt, "other", "x"), "x")
  expect_false(b$bench_flag(opt, "quick"))
})

test_that("bench_start() applies --lib and --no-update, and refuses --threads and --quick where fixed", {
  b <- bench_common()
  old <- Sys.getenv(c("CCFOREST_LIB", "CCFOREST_BENCH_UPDATE"), NA)
  paths <- .libPaths()
  on.exit({
    for (n in names(old)) if (is.na(old[[n]])) Sys.unsetenv(n) else do.call(Sys.setenv, as.list(old[n]))
    .libPaths(paths)
  }, add = TRUE)
  lib <- withr::local_tempdir()
  expect_error(b$bench_start(args = c("--lib", file.path(lib, "none"))), "--lib: no directory '.*none'")
  expect_error(b$bench_start(args = c("--lib", lib)), "--lib: no ccforest installed in")
  # A library holding ccforest (a DESCRIPTION is what find.package() looks for).
  dir.create(file.path(lib, "ccforest"))
  writeLines(c("Package: ccforest", "Version: 0.0.0"), file.path(lib, "ccforest", "DESCRIPTION"))
  opt <- b$bench_start(values = "trees", args = c("--lib", lib, "--no-update", "--trees", "5"))
  expect_identical(Sys.getenv("CCFOREST_LIB"), lib)
  expect_identical(Sys.getenv("CCFOREST_BENCH_UPDATE"), "0")
  expect_identical(normalizePath(.libPaths()[1L]), normalizePath(lib))
  expect_false(b$bench_update())
  expect_identical(b$bench_integer(opt, "trees"), 5L)
  expect_identical(b$bench_threads(2L), 2L)
  expect_error(b$bench_start(args = c("--threads", "1")), "--threads: this script's design fixes")
  b$bench_start(threads = TRUE, args = c("--threads", "1"))
  expect_identical(b$bench_threads(2L), 1L)
  expect_error(b$bench_start(args = "--quick"), "--quick: this script has no quick mode")
  expect_true(b$bench_flag(b$bench_start(quick = TRUE, args = "--quick"), "quick"))
})

test_that("every result bench_write() writes carries the stamp, and reads back", {
  b <- bench_common()
  withr::local_libpaths(.libPaths())  # bench_start() puts CCFOREST_LIB first, if set
  b$bench_start(args = character(0))
  dir <- withr::local_tempdir()
  stamp <- b$bench_stamp()
  expect_true(all(c("command", "commit", "date", "R", "ccforest", "packages", "machine", "load")
                  %in% names(stamp)))
  expect_match(stamp[["load"]], "^load average at start: .+; at end: .+")
  expect_identical(stamp[["R"]], R.version.string)

  frame <- data.frame(dataset = c("iris", "a # b"), error = c(1.5, 2), stringsAsFactors = FALSE)
  csv <- b$bench_write(frame, file.path(dir, "x.csv"))
  head <- readLines(csv)
  expect_true(any(startsWith(head, "# commit: ")))
  expect_true(any(startsWith(head, "# ccforest: ")))
  expect_identical(b$bench_read_csv(csv), frame)
  # A CSV written before the stamp reads the same.
  utils::write.csv(frame, file.path(dir, "old.csv"), row.names = FALSE)
  expect_identical(b$bench_read_csv(file.path(dir, "old.csv")), frame)

  md <- readLines(b$bench_write(c("# Title", "", "body"), file.path(dir, "x.md.tmp")))
  expect_identical(md[1L], "# Title")
  expect_true(b$BENCH_STAMP_MARK %in% md)
  expect_true(any(startsWith(md, "| commit | ")))
  expect_identical(b$after_stamp(md), c("", "body"))
  # report_header() puts the stamp there already: not twice.
  md <- readLines(b$bench_write(c(b$report_header("T", csv_file = "x.csv"), "| own | row |", "", "b"),
                                file.path(dir, "y.md")))
  expect_identical(sum(md == b$BENCH_STAMP_MARK), 1L)
  expect_identical(b$after_stamp(md), c("", "b"))

  rds <- b$bench_write(frame, file.path(dir, "x.rds"))
  back <- readRDS(rds)
  expect_identical(names(attr(back, "bench_stamp")), names(stamp))
  attr(back, "bench_stamp") <- NULL
  expect_identical(back, frame)

  expect_error(b$bench_write(frame, file.path(dir, "x.txt")), "writes .md, .csv and .rds files")
  expect_identical(sort(list.files(dir)), c("old.csv", "x.csv", "x.md.tmp", "x.rds", "y.md"))
})

test_that("bench_record() and bench_finish() write what a script prints", {
  b <- bench_common()
  withr::local_libpaths(.libPaths())
  b$bench_start(quick = TRUE, args = "--quick")
  dir <- withr::local_tempdir()
  b$bench_record("printed", "What was printed")
  cat("a result line\n")
  expect_message(path <- b$bench_finish(dir = dir), "wrote .*printed[.]md[.]tmp")
  expect_identical(basename(path), "printed.md.tmp")
  md <- readLines(path)
  expect_identical(md[1L], "# What was printed")
  expect_true("a result line" %in% md)
  expect_true(b$BENCH_STAMP_MARK %in% md)
})
