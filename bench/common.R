# Helpers shared by the benchmark scripts, sourced by each of them. Sourcing
# this file only defines functions (tests/testthat/test-bench-args.R sources
# it): a script's run starts with bench_start(), which parses its arguments,
# puts the private library first and takes the commit and the load.

use_private_library <- function() {
  lib <- Sys.getenv("CCFOREST_LIB")
  if (nzchar(lib)) .libPaths(c(strsplit(lib, .Platform$path.sep, fixed = TRUE)[[1L]], .libPaths()))
}

`%||%` <- function(a, b) if (is.null(a) || (length(a) == 1L && is.na(a))) b else a

mlb <- function(name) {
  e <- new.env()
  utils::data(list = name, package = "mlbench", envir = e)
  get(name, envir = e)
}

# The 3-class spirals of the paper's Figure 1, following the design of the
# authors' generator (Datasets/scripts/genSpiralsData.m in twgr/ccfs, not
# copied): class uniform over 3, theta ~ U(1, 4 pi), radius = theta +
# N(0, 1/3), class k rotated by 2 pi (k - 1) / 3.
gen_spirals <- function(n, seed = 20170101L) {
  set.seed(seed)
  cls <- 1L + findInterval(stats::runif(n), c(1 / 3, 2 / 3))
  theta <- 1 + (4 * pi - 1) * stats::runif(n)
  r <- theta + stats::rnorm(n) / 3
  theta <- theta + 2 * pi * (cls - 1L) / 3
  list(x = data.frame(x1 = r * cos(theta), x2 = r * sin(theta)),
       y = factor(paste0("arm", cls)))
}

# Wide data (comparisons/wide.R and decisions/wide-screen.R): one data set
# of a package, without attaching it.
package_data <- function(name, package) {
  e <- new.env()
  utils::data(list = name, package = package, envir = e)
  e[[name]]
}

# Public microarrays from CRAN packages: features x, classes y, and the
# package they come from.
WIDE_ARRAYS <- list(
  prostate = function() {
    d <- package_data("prostate", "spls")
    list(x = d$x, y = factor(d$y), source = "spls")
  },
  lymphoma = function() {
    d <- package_data("lymphoma", "spls")
    list(x = d$x, y = factor(d$y), source = "spls")
  },
  khan2001 = function() {
    d <- package_data("khan2001", "sda")
    list(x = unname(d$x), y = droplevels(d$y), source = "sda")
  },
  colon = function() {
    d <- package_data("AlonDS", "HiDimDA")
    list(x = as.matrix(d[, -1L]), y = droplevels(factor(d[[1L]])), source = "HiDimDA")
  }
)

# A binary class from a linear score of the first k of p Gaussian features.
gen_sparse <- function(p, k, seed, n = 1000L) {
  set.seed(seed)
  x <- matrix(stats::rnorm(n * p), n, p, dimnames = list(NULL, paste0("x", seq_len(p))))
  y <- factor(x[, seq_len(k), drop = FALSE] %*% stats::rnorm(k) + stats::rnorm(n) > 0)
  list(x = x, y = y)
}

# A binary class from n_block latent factors, each seen through `block`
# noisy correlated features.
gen_dense <- function(seed, n = 1000L, n_block = 20L, block = 100L) {
  set.seed(seed)
  factors <- matrix(stats::rnorm(n * n_block), n, n_block)
  x <- factors[, rep(seq_len(n_block), each = block)] + matrix(stats::rnorm(n * n_block * block), n)
  colnames(x) <- paste0("x", seq_len(ncol(x)))
  y <- factor(factors %*% stats::rnorm(n_block) + stats::rnorm(n) > 0)
  list(x = x, y = y)
}

WIDE_SIMULATIONS <- list(
  `sparse p=500 k=5` = function(seed) gen_sparse(500L, 5L, seed),
  `sparse p=2000 k=10` = function(seed) gen_sparse(2000L, 10L, seed),
  `sparse p=5000 k=5` = function(seed) gen_sparse(5000L, 5L, seed),
  `sparse p=5000 k=10` = function(seed) gen_sparse(5000L, 10L, seed),
  `sparse p=5000 k=20` = function(seed) gen_sparse(5000L, 20L, seed),
  `dense p=2000 20 blocks` = function(seed) gen_dense(seed)
)

# Folds of about equal size within each class, drawn from `seed`.
stratified_folds <- function(y, k, seed) {
  set.seed(seed)
  fold <- integer(length(y))
  for (level in levels(y)) {
    at <- which(y == level)
    fold[at] <- sample(rep_len(seq_len(k), length(at)))
  }
  fold
}

# What the machine was doing when a benchmark started, for its report.
machine_info <- function() {
  nproc <- tryCatch(system("nproc", intern = TRUE), error = function(e) NA_character_)
  cpu <- tryCatch({
    l <- grep("^model name", readLines("/proc/cpuinfo"), value = TRUE)[1L]
    trimws(sub("^[^:]*:", "", l))
  }, error = function(e) NA_character_)
  load <- tryCatch(readLines("/proc/loadavg"), error = function(e) NA_character_)
  list(nproc = nproc, cpu = cpu, load = load)
}

# ---------------------------------------------------------------------------
# Arguments, and the stamp every result carries.
#
# Every script starts its run with bench_start(), which parses its arguments
# with the one parser below, applies the options all scripts share and takes
# what the stamp needs at the start (commit, load, time). Results are written
# by bench_write(), which stamps them: the commit, the date, R's version,
# ccforest's version and build, the competitors' versions, the machine and its
# load at start and end. Scripts run directly (`Rscript bench/<kind>/<name>.R`)
# or through bench/run.R; the arguments are the same.

# Options every script takes. Flags take no value; the others one, written
# `--key value` or `--key=value`.
BENCH_COMMON_FLAGS <- c("quick", "update", "no-update")
BENCH_COMMON_VALUES <- c("lib", "threads")

# Environment variables that set an option when the command line does not
# (the commands documented before bench/run.R existed keep working).
BENCH_COMMON_ENV <- c(lib = "CCFOREST_LIB", update = "CCFOREST_BENCH_UPDATE")

# `args` (the words after the script's name) -> list(options, positional).
# options: a named list, TRUE for a flag, a string otherwise; positional:
# the words that are not options. `flags` and `values` name the script's own
# options (without "--"); any other option is an error, as is a positional
# word when `positional` is FALSE. `env` names environment variables read for
# options the command line leaves out (name -> variable); an empty variable
# counts as unset.
parse_bench_args <- function(args, flags = character(0), values = character(0),
                             positional = FALSE, env = character(0),
                             getenv = Sys.getenv) {
  flags <- c(BENCH_COMMON_FLAGS, flags)
  values <- c(BENCH_COMMON_VALUES, values)
  env <- c(BENCH_COMMON_ENV, env)
  options <- list()
  rest <- character(0)
  i <- 1L
  while (i <= length(args)) {
    a <- args[[i]]
    i <- i + 1L
    if (!startsWith(a, "--") || a == "--") {
      if (!positional) stop(sprintf("unexpected argument '%s' (options start with --)", a), call. = FALSE)
      rest <- c(rest, a)
      next
    }
    key <- sub("^--", "", sub("=.*$", "", a))
    inline <- grepl("=", a, fixed = TRUE)
    if (key %in% flags) {
      if (inline) stop(sprintf("--%s takes no value, not '%s'", key, a), call. = FALSE)
      options[[key]] <- TRUE
    } else if (key %in% values) {
      if (inline) {
        value <- sub("^[^=]*=", "", a)
      } else {
        if (i > length(args) || startsWith(args[[i]], "--")) {
          stop(sprintf("--%s needs a value", key), call. = FALSE)
        }
        value <- args[[i]]
        i <- i + 1L
      }
      options[[key]] <- value
    } else {
      own_flags <- sort(setdiff(flags, BENCH_COMMON_FLAGS))
      own_values <- sort(setdiff(values, BENCH_COMMON_VALUES))
      known <- c(if (length(own_flags)) paste0("--", own_flags),
                 if (length(own_values)) paste0("--", own_values, " VALUE"))
      stop(sprintf("unknown option --%s; this script takes %s, and %s", key,
                   if (length(known)) paste(known, collapse = ", ") else "no options of its own",
                   "the common --quick, --lib PATH, --threads N, --update, --no-update"),
           call. = FALSE)
    }
  }
  if (isTRUE(options$update) && isTRUE(options[["no-update"]])) {
    stop("--update and --no-update contradict each other", call. = FALSE)
  }
  if (isTRUE(options[["no-update"]])) options$update <- FALSE
  options[["no-update"]] <- NULL
  for (key in names(env)) {
    if (is.null(options[[key]])) {
      value <- getenv(env[[key]])
      if (nzchar(value)) options[[key]] <- value
    }
  }
  # CCFOREST_BENCH_UPDATE=0 meant "do not ask CRAN"; anything else asked.
  if (is.character(options$update)) options$update <- !identical(options$update, "0")
  if (!is.null(options$threads)) {
    options$threads <- as_count(options$threads, "--threads", min = 0L)
  }
  list(options = options, positional = rest)
}

# `value` (a string) as an integer of at least `min`, or an error naming `name`.
as_count <- function(value, name, min = 1L) {
  n <- suppressWarnings(as.numeric(value))
  if (length(n) != 1L || is.na(n) || n != round(n) || n < min || n > .Machine$integer.max) {
    stop(sprintf("%s needs an integer of at least %d, not '%s'", name, min, value), call. = FALSE)
  }
  as.integer(n)
}

# Kept when a script that has started sources another one, which sources this file again.
BENCH_RUN <- if (exists("BENCH_RUN") && is.environment(BENCH_RUN)) BENCH_RUN else new.env()

# Parses the script's arguments (see parse_bench_args()), applies the common
# options (--lib puts a private library first, for this process and its
# children; --no-update keeps use_competitors() from asking CRAN) and records
# the start of the run for bench_write(). `threads`, `quick`: whether the
# script honours --threads (through bench_threads()) and has a --quick mode;
# the others refuse them. Returns the parsed options; read
# them with bench_flag(), bench_value(), bench_integer(), bench_list().
bench_start <- function(flags = character(0), values = character(0), positional = FALSE,
                        env = character(0), threads = FALSE, quick = FALSE,
                        args = commandArgs(trailingOnly = TRUE)) {
  parsed <- parse_bench_args(args, flags, values, positional, env)
  o <- parsed$options
  if (!quick && isTRUE(o$quick)) {
    stop("--quick: this script has no quick mode (its header gives smaller runs)", call. = FALSE)
  }
  if (!threads && !is.null(o$threads)) {
    stop("--threads: this script's design fixes the threads of its fits (see its header)", call. = FALSE)
  }
  if (!is.null(o$lib)) {
    # A library path that does not exist would be dropped by .libPaths() without
    # a word, and the run would measure the machine's build instead.
    libs <- strsplit(o$lib, .Platform$path.sep, fixed = TRUE)[[1L]]
    missing <- libs[!dir.exists(libs)]
    if (length(missing)) stop(sprintf("--lib: no directory '%s'", missing[1L]), call. = FALSE)
    if (!length(find.package("ccforest", lib.loc = libs, quiet = TRUE))) {
      stop(sprintf("--lib: no ccforest installed in '%s'", o$lib), call. = FALSE)
    }
    Sys.setenv(CCFOREST_LIB = o$lib)
  }
  if (!is.null(o$update)) Sys.setenv(CCFOREST_BENCH_UPDATE = if (o$update) "1" else "0")
  use_private_library()
  script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  script <- if (length(script)) normalizePath(script[1L], mustWork = FALSE) else NA_character_
  BENCH_RUN$options <- o
  BENCH_RUN$positional <- parsed$positional
  BENCH_RUN$args <- args
  BENCH_RUN$script <- script
  BENCH_RUN$started_at <- Sys.time()
  BENCH_RUN$load_start <- machine_info()$load
  BENCH_RUN$commit <- NULL
  BENCH_RUN$commit <- bench_commit()
  structure(c(o, list(positional = parsed$positional)), class = "bench_options")
}

bench_flag <- function(opt, name) isTRUE(opt[[name]])

bench_value <- function(opt, name, default = NULL) {
  v <- opt[[name]]
  if (is.null(v)) default else v
}

bench_integer <- function(opt, name, default = NULL, min = 1L) {
  v <- opt[[name]]
  if (is.null(v)) default else as_count(v, paste0("--", name), min)
}

# The libraries given as positional arguments, each holding a ccforest build
# (the instruments that compare builds).
bench_libs <- function(opt) {
  libs <- opt$positional
  if (length(libs) == 0L) stop("give one or more library paths holding a ccforest build", call. = FALSE)
  missing_lib <- libs[!file.exists(file.path(libs, "ccforest"))]
  if (length(missing_lib) > 0L) {
    stop("no ccforest installed in: ", paste(missing_lib, collapse = ", "), call. = FALSE)
  }
  libs
}

bench_list <- function(opt, name, default = NULL) {
  v <- opt[[name]]
  if (is.null(v)) default else strsplit(v, ",", fixed = TRUE)[[1L]]
}

# Threads for the script's fits: --threads, else the script's own default.
bench_threads <- function(default) {
  BENCH_RUN$options$threads %||% default
}

# Whether use_competitors() may ask CRAN for newer versions.
bench_update <- function() {
  u <- BENCH_RUN$options$update
  if (is.null(u)) !identical(Sys.getenv("CCFOREST_BENCH_UPDATE"), "0") else u
}

# The script as run, relative to bench/ ("comparisons/speed.R").
bench_script <- function() {
  s <- BENCH_RUN$script
  if (is.null(s) || is.na(s)) return("(unknown script)")
  root <- normalizePath(bench_dir())
  if (startsWith(s, paste0(root, "/"))) substring(s, nchar(root) + 2L) else s
}

# The command that reproduces the run.
bench_command <- function() {
  args <- BENCH_RUN$args %||% character(0)
  sprintf("Rscript bench/run.R %s%s", sub("[.]R$", "", bench_script()),
          if (length(args)) paste0(" ", paste(args, collapse = " ")) else "")
}

# The checkout's commit, with "+ changes" when its files differ from it:
# every report says which code it measured (of the scripts; the ccforest row
# of the stamp says which build of the package).
bench_commit <- function() {
  # Taken once, by bench_start(): the code the run started with, whatever
  # happens to the checkout while it runs.
  if (!is.null(BENCH_RUN$commit)) return(BENCH_RUN$commit)
  dir <- bench_dir()
  git <- function(...) {
    tryCatch(suppressWarnings(system2("git", c("-C", dir, ...), stdout = TRUE, stderr = FALSE)),
             error = function(e) character(0))
  }
  sha <- git("rev-parse", "--short", "HEAD")
  if (length(sha) != 1L) return("unknown (not a git checkout)")
  changed <- git("status", "--porcelain", "--untracked-files=no")
  paste0(sha, if (length(changed) > 0L) " + changes")
}

# ccforest's version and build as the scripts' fits load it.
ccforest_build <- function() {
  dir <- if (isNamespaceLoaded("ccforest")) getNamespaceInfo("ccforest", "path") else
    find.package("ccforest", lib.loc = learner_lib_paths("ccforest"), quiet = TRUE)[1L]
  if (is.na(dir)) return("not installed")
  d <- read.dcf(file.path(dir, "DESCRIPTION"), fields = c("Version", "Built"))
  sprintf("%s, built %s, in `%s`", d[1L, "Version"], d[1L, "Built"], dirname(dir))
}

# Packages a result may depend on: the competitors the script asked for and
# any of these it has loaded.
BENCH_KNOWN_PACKAGES <- c("ranger", "aorsf", "randomForestSRC", "grf", "randomForest", "pls",
                          "survival", "riskRegression", "mlbench", "future", "vetiver", "plumber",
                          "spls", "sda", "HiDimDA")

# The stamp: one row per fact, as a named character vector. Its "packages"
# row gives the competitors' (and data packages') versions and libraries;
# `packages` adds those the run used without loading them in this process.
bench_stamp <- function(packages = character(0)) {
  pkgs <- unique(c(ls(BENCH_COMPETITORS), packages,
                   intersect(BENCH_KNOWN_PACKAGES, loadedNamespaces())))
  pkgs <- setdiff(pkgs, "ccforest")
  started <- BENCH_RUN$started_at %||% Sys.time()
  machine <- machine_info()
  lib <- Sys.getenv("CCFOREST_LIB")
  c(command = bench_command(),
    commit = bench_commit(),
    date = sprintf("%s to %s", format(started, "%Y-%m-%d %H:%M", tz = "UTC"),
                   format(Sys.time(), "%H:%M UTC", tz = "UTC")),
    R = R.version.string,
    ccforest = ccforest_build(),
    CCFOREST_LIB = if (nzchar(lib)) lib else "(unset)",
    packages = if (length(pkgs)) paste(versions_text(sort(pkgs)), collapse = "; ") else "(none)",
    threads = if (is.null(BENCH_RUN$options$threads)) "the script's default" else
      as.character(BENCH_RUN$options$threads),
    machine = sprintf("%s cores (nproc), %s", machine$nproc, machine$cpu),
    load = sprintf("load average at start: %s; at end: %s", BENCH_RUN$load_start %||% "(not taken)",
                   machine$load))
}

BENCH_STAMP_MARK <- "<!-- bench stamp: bench/common.R -->"

stamp_table <- function(packages = character(0)) {
  s <- bench_stamp(packages)
  c(BENCH_STAMP_MARK, "| | |", "|---|---|",
    sprintf("| %s | %s |", names(s),
            ifelse(names(s) %in% c("command", "CCFOREST_LIB") & s != "(unset)",
                   paste0("`", s, "`"), s)))
}

# The opening lines of a Markdown report: its title, a line naming the raw
# results, and the stamp, a table to which the script may add rows of its own.
# (The arguments before `packages` are those of the reports written before the
# stamp; what they gave is now taken by bench_start().)
report_header <- function(title, script = NULL, raw_args = NULL, started_at = NULL,
                          csv_file = NULL, machine = NULL, packages = character(0)) {
  c(paste("#", title), "",
    if (!is.null(csv_file)) c(sprintf("Raw results: `%s`.", basename(csv_file)), ""),
    stamp_table(packages))
}

# Writes a result, stamped: `x` is the lines of a Markdown report (`.md`; the
# stamp goes after the title unless report_header() put it there), a data
# frame (`.csv`: the stamp as `#` lines above the header; read it back with
# bench_read_csv()) or any R object (`.rds`: the stamp as its "bench_stamp"
# attribute). A trailing ".tmp" (quick and partial runs) is allowed. The file
# is written whole or not at all. Returns the file's path.
bench_write <- function(x, file, packages = character(0)) {
  kind <- sub("^.*[.]([a-z]+)$", "\\1", sub("[.]tmp$", "", file))
  dir.create(dirname(file), recursive = TRUE, showWarnings = FALSE)
  part <- paste0(file, ".part.tmp")  # git ignores *.tmp, should a run die here
  on.exit(unlink(part), add = TRUE)
  if (kind == "md") {
    x <- as.character(x)
    if (!BENCH_STAMP_MARK %in% x) {
      at <- if (length(x) && startsWith(x[1L], "# ")) 1L else 0L
      blank_after <- length(x) > at && !nzchar(x[at + 1L])
      x <- append(x, c(if (at) "", stamp_table(packages), if (!blank_after) ""), after = at)
    }
    writeLines(x, part, useBytes = TRUE)
  } else if (kind == "csv") {
    s <- bench_stamp(packages)
    con <- file(part, "w")
    writeLines(sprintf("# %s: %s", names(s), gsub("\n", " ", s)), con, useBytes = TRUE)
    utils::write.csv(x, con, row.names = FALSE)
    close(con)
  } else if (kind == "rds") {
    attr(x, "bench_stamp") <- bench_stamp(packages)
    saveRDS(x, part)
  } else {
    stop(sprintf("bench_write() writes .md, .csv and .rds files, not '%s'", file), call. = FALSE)
  }
  if (!file.rename(part, file)) stop(sprintf("could not write %s", file), call. = FALSE)
  invisible(file)
}

# The lines of a report after its stamp table (and the rows a script added to
# it): what a script prints at its end.
after_stamp <- function(lines) {
  at <- match(BENCH_STAMP_MARK, lines)
  if (is.na(at)) return(lines)
  rest <- lines[-seq_len(at)]
  end <- match(FALSE, startsWith(rest, "|"), nomatch = length(rest) + 1L)
  rest[seq_len(length(rest) - end + 1L) + end - 1L]
}

# A CSV written by bench_write() (or before the stamp, without it).
bench_read_csv <- function(file, ...) {
  # The stamp block grows with every stamped run (survival-speed.csv's has
  # over 300 lines), so the whole file is read to find its end.
  head <- readLines(file, warn = FALSE)
  skip <- match(FALSE, startsWith(head, "#"), nomatch = length(head) + 1L) - 1L
  utils::read.csv(file, skip = skip, stringsAsFactors = FALSE, ...)
}

# For scripts whose result is what they print: bench_record() starts copying
# the output to a file, bench_finish() writes it as a stamped Markdown report,
# `results/<name>.md` (`.md.tmp` for a --quick run).
bench_record <- function(name, title) {
  BENCH_RUN$record <- list(file = tempfile(fileext = ".txt"), name = name, title = title)
  sink(BENCH_RUN$record$file, split = TRUE)
  invisible(NULL)
}

bench_finish <- function(quick = bench_flag(BENCH_RUN$options, "quick"), dir = results_dir()) {
  r <- BENCH_RUN$record
  if (is.null(r)) stop("bench_finish() without bench_record()", call. = FALSE)
  sink()
  BENCH_RUN$record <- NULL
  out <- file.path(dir, paste0(r$name, ".md", if (quick) ".tmp" else ""))
  printed <- readLines(r$file, warn = FALSE)
  bench_write(c(paste("#", r$title), "", stamp_table(), "",
                sprintf("What `bench/%s` printed:", bench_script()), "", "```", printed, "```"), out)
  message(sprintf("wrote %s", out))
  invisible(out)
}

# ---------------------------------------------------------------------------
# Competitors at their current CRAN versions.
#
# The machine's library holds Debian's builds of the competitors (ranger
# 0.14.1 on bookworm) while users install CRAN's, and the test suite must keep
# using the machine's library. So the benchmarks keep the competitors in a
# library of their own, bench/lib/ (git-ignored; CCFOREST_BENCH_LIB moves it),
# which use_competitors() creates and fills from CRAN on first use and brings
# up to CRAN's current version on later runs: a fresh machine reproduces it.
# Only what the competitors lack is installed there (the competitor itself, and
# any dependency that is missing or older than the competitor requires);
# nothing in the machine's library is replaced. ccforest and its imports are
# loaded from the machine's library (or CCFOREST_LIB) before bench/lib joins
# the library path, so they never come from it. CCFOREST_BENCH_UPDATE=0 skips
# the look-up on CRAN when every competitor is already in bench/lib (offline).

# bench/ itself: scripts live one or two levels below it (comparisons/,
# decisions/survival-defaults/, ...), next to nothing they share. Code that
# sources this file without running a script (the tests) sets BENCH_RUN$root.
bench_dir <- function() {
  if (!is.null(BENCH_RUN$root)) return(BENCH_RUN$root)
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  dir <- if (length(f)) dirname(normalizePath(f[1L])) else normalizePath("bench", mustWork = FALSE)
  for (i in 0:2) {
    if (file.exists(file.path(dir, "common.R")) && file.exists(file.path(dir, "run.R"))) return(dir)
    dir <- dirname(dir)
  }
  stop("bench/common.R not found above the script", call. = FALSE)
}

results_dir <- function() file.path(bench_dir(), "results")

competitor_library <- function() {
  lib <- Sys.getenv("CCFOREST_BENCH_LIB")
  if (!nzchar(lib)) lib <- file.path(bench_dir(), "lib")
  normalizePath(lib, mustWork = FALSE)
}

ccforest_libraries <- function() {
  lib <- Sys.getenv("CCFOREST_LIB")
  if (nzchar(lib)) normalizePath(strsplit(lib, .Platform$path.sep, fixed = TRUE)[[1L]],
                                 mustWork = FALSE) else character(0)
}

# The machine's libraries: the library path without CCFOREST_LIB and bench/lib.
machine_libraries <- function() {
  setdiff(normalizePath(.libPaths(), mustWork = FALSE),
          c(ccforest_libraries(), competitor_library()))
}

# Library paths for a child process that runs one learner: a competitor sees
# bench/lib first, ccforest never sees it.
learner_lib_paths <- function(learner) {
  if (identical(learner, "ccforest")) c(ccforest_libraries(), machine_libraries())
  else c(competitor_library(), machine_libraries())
}

cran_repos <- function() {
  repos <- getOption("repos")
  if (is.null(repos) || !nzchar(repos[["CRAN"]] %||% "") || repos[["CRAN"]] == "@CRAN@") {
    repos <- c(CRAN = "https://cloud.r-project.org")
  }
  repos
}

# "pkg (>= 1.2), other" -> data frame of name, op, version.
parse_requirements <- function(field) {
  none <- data.frame(name = character(0), op = character(0), version = character(0))
  if (is.null(field) || is.na(field) || !nzchar(trimws(field))) return(none)
  parts <- trimws(strsplit(gsub("\\s+", " ", field), ",", fixed = TRUE)[[1L]])
  parts <- parts[nzchar(parts)]
  if (!length(parts)) return(none)
  versioned <- grepl("(", parts, fixed = TRUE)
  data.frame(
    name = trimws(sub("\\(.*$", "", parts)),
    op = ifelse(versioned, sub("^[^(]*\\(\\s*([<>=]+).*$", "\\1", parts), NA_character_),
    version = ifelse(versioned, sub("^[^(]*\\(\\s*[<>=]+\\s*([^) ]+).*$", "\\1", parts), NA_character_),
    stringsAsFactors = FALSE
  )
}

meets <- function(have, op, want) {
  if (is.na(op)) return(TRUE)
  do.call(op, list(package_version(have), package_version(want)))
}

# Version of `pkg` that a process with library path `libs` would load, or NA.
version_on_path <- function(pkg, libs) {
  dir <- find.package(pkg, lib.loc = libs, quiet = TRUE)
  if (!length(dir)) return(NA_character_)
  unname(read.dcf(file.path(dir[1L], "DESCRIPTION"), fields = "Version")[1L, 1L])
}

# What must be installed into `lib` so that `pkgs` at CRAN's current versions
# load with library path c(lib, machine libraries): the packages themselves
# where bench/lib has another version, and every dependency (Depends,
# Imports, LinkingTo, recursively) that is missing or older than required.
install_plan <- function(pkgs, avail, lib) {
  libs <- c(lib, machine_libraries())
  base <- c("R", rownames(utils::installed.packages(priority = "base")))
  plan <- character(0)
  queue <- pkgs[vapply(pkgs, function(p) !identical(version_on_path(p, lib), avail[p, "Version"]),
                       logical(1))]
  while (length(queue)) {
    p <- queue[1L]
    queue <- queue[-1L]
    if (p %in% plan) next
    plan <- c(plan, p)
    reqs <- do.call(rbind, lapply(c("Depends", "Imports", "LinkingTo"),
                                  function(f) parse_requirements(avail[p, f])))
    for (i in seq_len(nrow(reqs))) {
      d <- reqs$name[i]
      if (d %in% base || d %in% plan) next
      have <- version_on_path(d, libs)
      if (is.na(have) || !meets(have, reqs$op[i], reqs$version[i])) {
        if (!d %in% rownames(avail)) stop(sprintf("%s needs %s, which CRAN does not offer", p, d))
        queue <- c(queue, d)
      }
    }
  }
  rev(plan)  # dependencies last in discovery order; install.packages orders them anyway
}

# Makes sure the current CRAN version of each of `pkgs` is installed in
# bench/lib, and returns one row per package: the version installed there,
# CRAN's current version, and a note where it could not be had (a package
# whose current version needs a newer R than this one is left out, as is one
# that fails to install: the scripts skip it and say so).
ensure_competitors <- function(pkgs, lib = competitor_library()) {
  dir.create(lib, recursive = TRUE, showWarnings = FALSE)
  lib <- normalizePath(lib)
  in_lib <- function() vapply(pkgs, version_on_path, character(1), libs = lib)
  skip_lookup <- !bench_update() && !anyNA(in_lib())
  avail <- if (skip_lookup) NULL else tryCatch(
    suppressWarnings(utils::available.packages(repos = cran_repos(),
                                               filters = c("OS_type", "subarch", "duplicates"))),
    error = function(e) NULL)
  status <- data.frame(package = pkgs, installed = in_lib(), cran = NA_character_,
                       note = "", stringsAsFactors = FALSE)
  if (is.null(avail) || !nrow(avail)) {
    status$note <- if (skip_lookup) "CRAN not asked (--no-update)" else "CRAN not reached"
    status$note[is.na(status$installed)] <- "not installed, CRAN not reached"
    return(status)
  }
  status$cran <- unname(avail[match(pkgs, rownames(avail)), "Version"])
  usable <- !is.na(status$cran)
  status$note[!usable] <- "not on CRAN"
  for (i in which(usable)) {
    r <- parse_requirements(avail[pkgs[i], "Depends"])
    r <- r[r$name == "R", , drop = FALSE]
    if (nrow(r) && !meets(as.character(getRversion()), r$op[1L], r$version[1L])) {
      usable[i] <- FALSE
      status$note[i] <- sprintf("CRAN's %s needs R %s %s (this is R %s)", status$cran[i], r$op[1L],
                                r$version[1L], getRversion())
    }
  }
  plan <- install_plan(pkgs[usable], avail, lib)
  if (length(plan)) {
    cat(sprintf("bench: installing %s from CRAN into %s (first run or new CRAN version) ...\n",
                paste(plan, collapse = ", "), lib))
    old_paths <- .libPaths()
    old_make <- Sys.getenv("MAKEFLAGS", NA)
    on.exit({
      .libPaths(old_paths)
      if (is.na(old_make)) Sys.unsetenv("MAKEFLAGS") else Sys.setenv(MAKEFLAGS = old_make)
    }, add = TRUE)
    .libPaths(c(lib, machine_libraries()))
    if (is.na(old_make)) Sys.setenv(MAKEFLAGS = "-j2")
    # dependencies = FALSE: the plan already holds exactly what is missing or too old
    # A package that fails to build must not stop the others: report and go on.
    withCallingHandlers(
      utils::install.packages(plan, lib = lib, repos = cran_repos(), dependencies = FALSE,
                              quiet = TRUE),
      warning = function(w) {
        cat("bench: install warning:", conditionMessage(w), "\n")
        invokeRestart("muffleWarning")
      })
  }
  status$installed <- in_lib()
  status$note[usable & is.na(status$installed)] <- "did not install (see the messages above)"
  stale <- usable & !is.na(status$installed) & status$installed != status$cran
  status$note[stale] <- sprintf("bench/lib has %s, CRAN's %s did not install", status$installed[stale],
                                status$cran[stale])
  status
}

BENCH_COMPETITORS <- if (exists("BENCH_COMPETITORS") && is.environment(BENCH_COMPETITORS)) {
  BENCH_COMPETITORS
} else new.env()

# ranger learns where missing feature values go since 0.16.0 (its default
# na.action = "na.learn"); before, it refused them and the scripts imputed.
ranger_learns_na <- function() {
  version <- if (isNamespaceLoaded("ranger")) getNamespaceVersion("ranger") else
    version_on_path("ranger", .libPaths())
  !is.na(version) && package_version(version) >= "0.16.0"
}

# Installs what is needed (ensure_competitors()), loads ccforest from its own
# library, then puts bench/lib on the library path, after CCFOREST_LIB and
# before the machine's libraries. Prints one line per competitor and returns
# the names of those available (at any version; see competitor_note()).
use_competitors <- function(pkgs, install = TRUE) {
  status <- if (install) ensure_competitors(pkgs) else
    data.frame(package = pkgs, installed = vapply(pkgs, version_on_path, character(1),
                                                  libs = competitor_library()),
               cran = NA_character_, note = "", stringsAsFactors = FALSE)
  for (i in seq_len(nrow(status))) assign(status$package[i], status[i, ], envir = BENCH_COMPETITORS)
  if (requireNamespace("ccforest", quietly = TRUE)) invisible(loadNamespace("ccforest"))
  .libPaths(c(ccforest_libraries(), competitor_library(), machine_libraries()))
  for (p in pkgs) cat("bench:", versions_text(p), "\n")
  invisible(pkgs[!is.na(status$installed)])
}

# "ranger 0.18.0 (bench/lib = current CRAN; the machine's library has 0.14.1,
# not used)": the version and library a process with this library path
# loads, for every package in `pkgs`.
versions_text <- function(pkgs) {
  vapply(pkgs, function(p) {
    paths <- if (identical(p, "ccforest")) learner_lib_paths("ccforest") else .libPaths()
    if (isNamespaceLoaded(p)) {
      dir <- getNamespaceInfo(p, "path")
    } else {
      dir <- find.package(p, lib.loc = paths, quiet = TRUE)[1L]
    }
    if (is.na(dir)) {
      st <- if (exists(p, envir = BENCH_COMPETITORS, inherits = FALSE)) get(p, envir = BENCH_COMPETITORS)
      return(sprintf("%s not available%s", p, if (!is.null(st) && nzchar(st$note)) paste0(" (", st$note, ")") else ""))
    }
    version <- read.dcf(file.path(dir, "DESCRIPTION"), fields = "Version")[1L, 1L]
    lib <- normalizePath(dirname(dir))
    where <- if (lib == competitor_library()) "bench/lib" else lib
    extra <- character(0)
    if (exists(p, envir = BENCH_COMPETITORS, inherits = FALSE)) {
      st <- get(p, envir = BENCH_COMPETITORS)
      if (isTRUE(st$cran == version)) where <- paste(where, "= current CRAN")
      else if (!is.na(st$cran)) extra <- c(extra, sprintf("CRAN has %s", st$cran))
      if (nzchar(st$note)) extra <- c(extra, st$note)
    }
    machine <- version_on_path(p, machine_libraries())
    if (lib != dirname(find.package(p, lib.loc = machine_libraries(), quiet = TRUE)[1L] %||% "") &&
        !is.na(machine)) {
      extra <- c(extra, sprintf("the machine's library has %s, not used", machine))
    }
    sprintf("%s %s (%s%s)", p, version, where,
            if (length(extra)) paste0("; ", paste(extra, collapse = "; ")) else "")
  }, character(1), USE.NAMES = FALSE)
}

# Per data set and learner of `results` (columns dataset, learner, error,
# train_time; one row per fold and learner, the folds in the same order for
# every learner), the learner against the `reference` learner over the same
# folds: mean errors, the paired two-sided Wilcoxon signed-rank p-value, a
# verdict (a win or loss needs p < 0.05) and the ratio of total training times.
# Ranks are taken on 7 significant digits: equal differences of two errors
# then tie, where their last bits, which depend on how each error was
# rounded, would otherwise order them.
paired_verdicts <- function(results, reference) {
  do.call(rbind, lapply(unique(results$dataset), function(name) {
    d <- results[results$dataset == name, ]
    base <- d$error[d$learner == reference]
    do.call(rbind, lapply(setdiff(unique(d$learner), reference), function(learner) {
      e <- d$error[d$learner == learner]
      p <- if (any(e != base)) {
        suppressWarnings(stats::wilcox.test(e, base, paired = TRUE, exact = FALSE,
                                            digits.rank = 7)$p.value)
      } else 1
      data.frame(dataset = name, folds = length(e), learner = learner, reference = mean(base),
                 error = mean(e), p = p,
                 verdict = if (p >= 0.05) "tie" else if (mean(e) < mean(base)) "win" else "loss",
                 time_ratio = sum(d$train_time[d$learner == learner]) /
                   sum(d$train_time[d$learner == reference]))
    }))
  }))
}

