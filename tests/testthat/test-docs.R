# The help pages and vignettes must not send readers to files the built
# package does not contain (bench/, tests/ and tools/ are left out of it, or
# not installed): such a file is referred to by its address in the source
# repository instead. tools/check-doc-references.R checks, in a checkout,
# that those addresses and the README's paths exist.

# Source paths that are not links to the repository, in a text.
bare_source_paths <- function(text) {
  repository <- "https://github\\.com/ccforest/ccforest/(blob|tree)/main/[^ }\"')>]*"
  # Links whose target is the repository: Rd \href{url}{label}, markdown
  # [label](url); then any remaining address.
  text <- gsub(paste0("\\\\href\\{", repository, "\\}\\{[^}]*(\\{[^}]*\\})?[^}]*\\}"), " ", text)
  text <- gsub(paste0("\\[[^]]*\\]\\(", repository, "\\)"), " ", text)
  text <- gsub("https?://[^ }\"')>]+", " ", text)
  pattern <- "(^|[^A-Za-z0-9_./-])((bench|tests|tools|src|inst|vignettes|man|R)/[A-Za-z0-9_./-]*)"
  found <- regmatches(text, gregexpr(pattern, text, perl = TRUE))
  paths <- sub(pattern, "\\2", unlist(found), perl = TRUE)
  unique(sub("[.]$", "", paths))
}

test_that("the path finder sees bare paths and skips links to the repository", {
  expect_identical(bare_source_paths("see `bench/results/a.md` and tests/testthat/x.R."),
                   c("bench/results/a.md", "tests/testthat/x.R"))
  expect_identical(bare_source_paths(paste0(
    "\\href{https://github.com/ccforest/ccforest/blob/main/bench/results/a.md}",
    "{\\code{bench/results/a.md}}, [`bench`](https://github.com/ccforest/ccforest/tree/main/bench)",
    " and <https://github.com/ccforest/ccforest/blob/main/tools/demo.R>")), character(0))
  expect_identical(bare_source_paths("mlbench/x and vignette(\"a\") and R's foo/bar"), character(0))
})

test_that("help pages refer only to files the installed package has", {
  db <- tools::Rd_db("ccforest")
  expect_gt(length(db), 10L)
  for (name in names(db)) {
    text <- paste(as.character(db[[name]]), collapse = "")
    paths <- bare_source_paths(text)
    missing <- paths[!nzchar(vapply(paths, function(p) system.file(p, package = "ccforest"),
                                    character(1)))]
    expect_identical(missing, character(0), label = name)
  }
})

test_that("vignettes refer only to files the installed package has", {
  # Installed from a built tarball (R CMD check), the sources are in doc/;
  # installed from a checkout, they are in the checkout.
  doc <- system.file("doc", package = "ccforest")
  sources <- list.files(doc, pattern = "[.]Rmd$", full.names = TRUE)
  if (length(sources) == 0L) {
    sources <- list.files(test_path("..", "..", "vignettes"), pattern = "[.]Rmd$",
                          full.names = TRUE)
  }
  expect_gt(length(sources), 2L)
  for (file in sources) {
    paths <- bare_source_paths(paste(readLines(file, warn = FALSE), collapse = "\n"))
    missing <- paths[!nzchar(vapply(paths, function(p) system.file(p, package = "ccforest"),
                                    character(1)))]
    expect_identical(missing, character(0), label = basename(file))
  }
})
