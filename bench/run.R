#!/usr/bin/env Rscript
# The one way in to the benchmarks: finds a script by name and runs it in a
# fresh R process with the arguments given, which the script parses with
# bench/common.R's parse_bench_args() (bench/README.md lists the options).
#
#   Rscript bench/run.R --list                       # every script, by kind
#   Rscript bench/run.R speed --quick                # bench/comparisons/speed.R
#   Rscript bench/run.R comparisons/accuracy --trees 100 --datasets iris,vehicle
#   Rscript bench/run.R train-ab /tmp/libA /tmp/libB --rounds 5
#   Rscript bench/run.R <script> --help              # the script's header comment
#
# Options every script takes: --lib PATH (a private library holding the
# ccforest build to measure, first on the library path of the script and its
# child processes; default CCFOREST_LIB), --update / --no-update (ask CRAN for
# the competitors' current versions, or not; default CCFOREST_BENCH_UPDATE,
# where 0 means --no-update), --threads N (threads of every fit, where the
# script's design allows another count than its default), --quick (a smoke
# run on small sizes, where the script has one; results go to *.tmp files).
# Every result file a script writes is stamped by bench_write() with this
# command, the commit, the date, R's, ccforest's and the competitors'
# versions, and the machine's load at start and end.

KINDS <- c("comparisons", "decisions", "instruments")

bench_root <- function() {
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  dirname(normalizePath(f[1L]))
}

# Scripts a user runs (not the configuration files of decisions/survival-defaults/).
runnable_scripts <- function(root) {
  files <- unlist(lapply(KINDS, function(k) file.path(k, list.files(file.path(root, k), "[.]R$"))))
  c(files, "decisions/survival-defaults/report.R")
}

# "speed", "speed.R", "comparisons/speed" or "bench/comparisons/speed.R" ->
# "comparisons/speed.R"; an error naming the candidates otherwise.
resolve_script <- function(name, root) {
  scripts <- runnable_scripts(root)
  key <- sub("[.]R$", "", sub("^bench/", "", name))
  hit <- scripts[sub("[.]R$", "", scripts) == key]
  if (!length(hit)) hit <- scripts[sub("[.]R$", "", basename(scripts)) == key]
  if (!length(hit)) hit <- scripts[sub("[.]R$", "", sub("^[^/]+/", "", scripts)) == key]
  if (length(hit) == 1L) return(hit)
  if (length(hit) > 1L) {
    stop(sprintf("'%s' names %s; give the kind too", name, paste(hit, collapse = " and ")), call. = FALSE)
  }
  stop(sprintf("no benchmark script '%s'; `Rscript bench/run.R --list` lists them", name), call. = FALSE)
}

header_comment <- function(path) {
  lines <- readLines(path, warn = FALSE)
  lines <- lines[!startsWith(lines, "#!")]
  end <- match(FALSE, startsWith(lines, "#"), nomatch = length(lines) + 1L) - 1L
  sub("^# ?", "", lines[seq_len(end)])
}

main <- function(args) {
  root <- bench_root()
  if (!length(args) || args[1L] %in% c("--help", "-h")) {
    cat(header_comment(file.path(root, "run.R")), sep = "\n")
    return(invisible(0L))
  }
  if (args[1L] == "--list") {
    for (s in runnable_scripts(root)) {
      first <- header_comment(file.path(root, s))
      cat(sprintf("%-40s %s\n", sub("[.]R$", "", s), if (length(first)) first[1L] else ""))
    }
    return(invisible(0L))
  }
  script <- resolve_script(args[1L], root)
  rest <- args[-1L]
  if (any(rest %in% c("--help", "-h"))) {
    cat(header_comment(file.path(root, script)), sep = "\n")
    return(invisible(0L))
  }
  rscript <- file.path(R.home("bin"), "Rscript")
  status <- system2(rscript, c(shQuote(file.path(root, script)), shQuote(rest)))
  invisible(status)
}

status <- tryCatch(main(commandArgs(trailingOnly = TRUE)), error = function(e) {
  message("bench/run.R: ", conditionMessage(e))
  2L
})
quit(status = as.integer(status), save = "no")
