# Checks, in a checkout, that bench/ is what bench/README.md says it is (run
# from the repository root; `make check-docs`, part of `make test`). It runs
# no benchmark:
#   - every R file under bench/ (but bench/lib/, the competitors' library)
#     parses;
#   - every one is listed, by its path below its kind's folder, in the table
#     of its kind's section of bench/README.md ("## Comparisons
#     (`comparisons/`)", ...), or, for bench/run.R and bench/common.R, in
#     the README at all;
#   - every script a README table lists exists;
#   - every script a user runs (those run.R finds: the files directly in a
#     kind's folder, and decisions/survival-defaults/report.R) starts its run
#     with bench_start(), the one argument parser, and writes no result but
#     through bench_write().

kinds <- c("comparisons", "decisions", "instruments")
readme <- readLines("bench/README.md", warn = FALSE, encoding = "UTF-8")
problems <- character(0)
problem <- function(...) problems <<- c(problems, sprintf(...))

files <- list.files("bench", pattern = "[.]R$", recursive = TRUE)
files <- files[!startsWith(files, "lib/")]
for (f in files) {
  path <- file.path("bench", f)
  ok <- tryCatch({
    parse(path, keep.source = FALSE)
    TRUE
  }, error = function(e) {
    problem("%s does not parse: %s", path, conditionMessage(e))
    FALSE
  })
}

# The README's lines from a kind's heading to the next heading.
section <- function(kind) {
  start <- grep(sprintf("^## .*\\(`%s/`\\)", kind), readme)
  if (length(start) != 1L) {
    problem("bench/README.md has no one section headed '## ... (`%s/`)'", kind)
    return(character(0))
  }
  rest <- readme[-seq_len(start)]
  end <- match(TRUE, startsWith(rest, "## "), nomatch = length(rest) + 1L)
  rest[seq_len(end - 1L)]
}
listed_in <- function(lines) {
  # Backquoted R file names in the first cell of each table row.
  rows <- lines[startsWith(lines, "| `")]
  first <- sub("^\\| ([^|]*)\\|.*$", "\\1", rows)
  unique(unlist(regmatches(first, gregexpr("(?<=`)[A-Za-z0-9_./-]+[.]R(?=`)", first, perl = TRUE))))
}

for (kind in kinds) {
  here <- sub(paste0("^", kind, "/"), "", files[startsWith(files, paste0(kind, "/"))])
  listed <- listed_in(section(kind))
  for (f in setdiff(here, listed)) {
    problem("bench/%s/%s is not listed in bench/README.md's %s table", kind, f, kind)
  }
  for (f in setdiff(listed, here)) {
    problem("bench/README.md's %s table lists %s, which is not in bench/%s/", kind, f, kind)
  }
}
outside <- files[!grepl(paste0("^(", paste(kinds, collapse = "|"), ")/"), files)]
for (f in outside) {
  if (!f %in% c("run.R", "common.R")) {
    problem("bench/%s is not in a kind's folder (%s)", f, paste0(kinds, "/", collapse = ", "))
  } else if (!any(grepl(sprintf("`%s`", f), readme, fixed = TRUE))) {
    problem("bench/%s is not named in bench/README.md", f)
  }
}

runnable <- c(files[grepl(paste0("^(", paste(kinds, collapse = "|"), ")/[^/]+[.]R$"), files)],
              "decisions/survival-defaults/report.R")
for (f in runnable) {
  code <- readLines(file.path("bench", f), warn = FALSE)
  code <- code[!grepl("^\\s*#", code)]
  if (!any(grepl("bench_start(", code, fixed = TRUE))) {
    problem("bench/%s does not parse its arguments with bench_start()", f)
  }
  writes <- grep("utils::write\\.csv\\(|\\bwrite\\.csv\\(|writeLines\\([^)]*(md_file|csv_file|out)\\b",
                 code, value = TRUE)
  if (length(writes)) {
    problem("bench/%s writes a result without bench_write(): %s", f, trimws(writes[1L]))
  }
}

if (length(problems)) {
  cat(problems, sep = "\n")
  quit(status = 1)
}
cat(sprintf("check-bench: %d R files under bench/ parse and are listed in bench/README.md\n",
            length(files)))
