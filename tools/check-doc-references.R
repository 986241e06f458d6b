# Checks, in a checkout, that the documentation's references to files are
# true (run from the repository root; `make check-docs`, part of `make test`):
#   - every address of this repository's files (github.com/ccforest/ccforest/
#     blob|tree/main/<path>) in R/ (the help pages' sources), vignettes/ and
#     README.Rmd names a path that exists here;
#   - every path README.Rmd mentions (bench/..., tools/..., tests/...) exists.
# That help pages and vignettes refer to no file the built package lacks
# (bench/ and tests/ are left out of it) is tests/testthat/test-docs.R's job.

files <- c(list.files("R", pattern = "[.]R$", full.names = TRUE),
           list.files("vignettes", pattern = "[.]Rmd$", full.names = TRUE),
           "README.Rmd")
problems <- character(0)
for (file in files) {
  text <- paste(readLines(file, warn = FALSE, encoding = "UTF-8"), collapse = "\n")
  addresses <- regmatches(text, gregexpr(
    "https://github\\.com/ccforest/ccforest/(blob|tree)/main/[A-Za-z0-9_./-]+", text))[[1L]]
  paths <- sub("[.]$", "", sub("^.*/main/", "", addresses))
  missing <- unique(paths[!file.exists(paths)])
  if (length(missing)) {
    problems <- c(problems, sprintf("%s: address of a missing file: %s", file, missing))
  }
  if (file == "README.Rmd") {
    # Paths as the README writes them, outside addresses.
    bare <- gsub("https?://[^ )>\"]+", " ", text)
    found <- regmatches(bare, gregexpr(
      "(^|[^A-Za-z0-9_./-])(bench|tools|tests|vignettes|src|R)/[A-Za-z0-9_./-]*[A-Za-z0-9_-]",
      bare, perl = TRUE))[[1L]]
    paths <- unique(sub("^[^A-Za-z]", "", found))
    missing <- paths[!file.exists(paths)]
    if (length(missing)) {
      problems <- c(problems, sprintf("%s: path of a missing file: %s", file, missing))
    }
  }
}
if (length(problems)) {
  cat(problems, sep = "\n")
  quit(status = 1)
}
cat("check-doc-references: every referenced file exists\n")
