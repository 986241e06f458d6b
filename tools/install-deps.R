# Make sure every R package named in DESCRIPTION (Depends, Imports,
# LinkingTo, Suggests) can be loaded, at the version DESCRIPTION asks for.
# Run from the repository root (tools/install-deps.sh does that).
#
# For each missing package: first Debian's prebuilt r-cran-<name> if apt has
# a candidate (fast, no compiling), else CRAN from source. Exits non-zero if
# a required package (Depends/Imports/LinkingTo) still cannot be loaded;
# a missing Suggests package is only reported.
#
# Options: --dry-run  report only;  --verify  check only (used internally,
# in a fresh R process, after installing);  --demo  only the required
# packages and the suggested ones tools/demo.R uses (`make demo`: a first
# command should not compile the tidymodels for a demonstration that needs
# none of them; `make test` installs the rest).

args <- commandArgs(trailingOnly = TRUE)
dry_run <- "--dry-run" %in% args
verify_only <- "--verify" %in% args
demo_only <- "--demo" %in% args
REPOS <- "https://cloud.r-project.org"
NCPUS <- 2
BASE <- c("R", "base", "compiler", "datasets", "graphics", "grDevices", "grid",
          "methods", "parallel", "splines", "stats", "stats4", "tcltk",
          "tools", "utils")

say <- function(...) cat("install-deps:", ..., "\n")

# "a, b (>= 1.0)" -> data.frame(name, op, version)
parse_deps <- function(x) {
  x <- x[!is.na(x)]
  items <- trimws(unlist(strsplit(gsub("\\s+", " ", x), ",")))
  items <- items[nzchar(items)]
  has_v <- grepl("(", items, fixed = TRUE)
  data.frame(
    name = sub("^([A-Za-z0-9.]+).*$", "\\1", items),
    op = ifelse(has_v, sub("^[^(]*\\( *([<>=!]+).*$", "\\1", items), NA),
    version = ifelse(has_v, sub("^[^(]*\\( *[<>=!]+ *([^ )]+).*$", "\\1", items), NA),
    stringsAsFactors = FALSE
  )
}

version_ok <- function(installed, op, version) {
  is.na(op) || isTRUE(do.call(op, list(package_version(installed),
                                       package_version(version))))
}

# Loadable, and at a version satisfying DESCRIPTION.
usable <- function(p, op, version) {
  suppressWarnings(suppressMessages(requireNamespace(p, quietly = TRUE))) &&
    version_ok(as.character(utils::packageVersion(p)), op, version)
}

desc <- read.dcf("DESCRIPTION",
                 fields = c("Depends", "Imports", "LinkingTo", "Suggests"))
required <- parse_deps(desc[1, c("Depends", "Imports", "LinkingTo")])
suggested <- parse_deps(desc[1, "Suggests"])
wanted <- rbind(cbind(required, required = TRUE),
                cbind(suggested, required = FALSE))
wanted <- wanted[!wanted$name %in% BASE, ]
# A package in both lists: keep one row, required if either says so.
wanted$required <- ave(wanted$required, wanted$name, FUN = any)
wanted <- wanted[!duplicated(wanted$name), ]

# The packages a script names as pkg::fun, requireNamespace("pkg") or
# library(pkg): read from the script, so the demo's list cannot go stale.
packages_used_by <- function(file) {
  code <- paste(readLines(file, warn = FALSE), collapse = "\n")
  code <- gsub("#[^\n]*", "", code)  # comments may name packages it does not use
  grab <- function(pattern) {
    hits <- regmatches(code, gregexpr(pattern, code, perl = TRUE))[[1L]]
    sub(pattern, "\\1", hits, perl = TRUE)
  }
  unique(c(grab("([A-Za-z][A-Za-z0-9.]*):::?"),
           grab("requireNamespace\\(\\s*[\"']([A-Za-z][A-Za-z0-9.]*)[\"']"),
           grab("(?:library|require)\\(\\s*[\"']?([A-Za-z][A-Za-z0-9.]*)")))
}
if (demo_only) {
  demo_uses <- packages_used_by("tools/demo.R")
  wanted <- wanted[wanted$required | wanted$name %in% demo_uses, ]
  wanted$required <- TRUE  # the demo is the point of this mode
}

missing_pkgs <- function() {
  ok <- vapply(seq_len(nrow(wanted)), function(i)
    usable(wanted$name[i], wanted$op[i], wanted$version[i]), logical(1))
  wanted[!ok, ]
}

miss <- missing_pkgs()
if (!nrow(miss)) {
  say("all", nrow(wanted), "R packages from DESCRIPTION present")
  quit(status = 0)
}
if (verify_only) {
  req <- miss$name[miss$required]
  opt <- miss$name[!miss$required]
  if (length(opt)) say("WARNING: Suggests not available:", paste(opt, collapse = ", "))
  if (length(req)) {
    say("ERROR: required packages cannot be loaded:", paste(req, collapse = ", "))
    quit(status = 1)
  }
  quit(status = 0)
}

say("missing or too old:", paste(miss$name, collapse = ", "))

## ---- apt (Debian's prebuilt r-cran-*) -------------------------------------
can_apt <- nzchar(Sys.which("apt-get")) &&
  identical(unname(Sys.info()["effective_user"]), "root")
apt_updated <- nzchar(Sys.getenv("CCF_APT_UPDATED"))

deb_name <- function(p) paste0("r-cran-", tolower(p))

debs_installed <- function(debs) {
  out <- suppressWarnings(system2("dpkg-query",
    c("-W", "-f='${Package} ${Status}\\n'", debs), stdout = TRUE, stderr = FALSE))
  sub(" .*", "", out[grepl(" install ok installed$", out)])
}

# Names among `debs` for which apt has an installable candidate (one call).
apt_candidates <- function(debs) {
  out <- suppressWarnings(system2("apt-cache", c("policy", debs),
                                  stdout = TRUE, stderr = FALSE))
  found <- character()
  pkg <- NA
  for (line in out) {
    if (grepl("^[^ ].*:$", line)) pkg <- sub(":$", "", line)
    else if (grepl("^ +Candidate:", line) && !grepl("(none)", line, fixed = TRUE))
      found <- c(found, pkg)
  }
  unique(found)
}

# Install r-cran-<p> for the given R packages where Debian has them and they
# are not installed already (an installed but too old deb would not help).
# Returns the deb names it installed (or, in a dry run, would install).
apt_install <- function(pkgs) {
  if (!length(pkgs)) return(character())
  if (!can_apt) {
    say("apt-get unavailable or not root: skipping Debian packages")
    return(character())
  }
  debs <- setdiff(deb_name(pkgs), debs_installed(deb_name(pkgs)))
  if (!length(debs)) return(character())
  if (!apt_updated && !dry_run) {
    say("apt-get update")
    system2("apt-get", c("update", "-qq"))
    apt_updated <<- TRUE
  }
  debs <- apt_candidates(debs)
  if (!length(debs)) return(character())
  if (dry_run) {
    say("[dry-run] would apt-get install:", paste(debs, collapse = " "))
    return(debs)
  }
  say("apt-get install", paste(debs, collapse = " "))
  st <- system2("apt-get", c("install", "-y", "-q", "--no-install-recommends", debs),
                env = "DEBIAN_FRONTEND=noninteractive")
  if (st != 0) say("WARNING: apt-get install failed; falling back to CRAN")
  debs
}

from_apt <- apt_install(miss$name)
miss <- if (dry_run) miss[!deb_name(miss$name) %in% from_apt, ] else missing_pkgs()

## ---- CRAN ---------------------------------------------------------------
# install.packages() installs missing dependencies but never upgrades an
# installed one that is too old for the new package (common with Debian's
# older r-cran-*), and the install then fails. So we walk the dependency
# tree ourselves: take what Debian has, then add every installed package
# whose version violates a requirement to the CRAN install list.
cran_install <- function(pkgs) {
  # It warns while probing for optional index formats: the warnings are kept
  # quiet, and said only if no index could be read.
  problems <- character()
  ap <- tryCatch(withCallingHandlers(utils::available.packages(repos = REPOS),
                                     warning = function(w) {
                                       problems <<- c(problems, conditionMessage(w))
                                       invokeRestart("muffleWarning")
                                     }),
                 error = function(e) {
                   problems <<- c(problems, conditionMessage(e))
                   NULL
                 })
  if (is.null(ap) || !nrow(ap)) {
    say("WARNING: cannot read the CRAN package index at", paste(REPOS, collapse = " "),
        paste0("(", paste(unique(gsub("\\s+", " ", problems)), collapse = "; "), ");"),
        "not installed from CRAN:", paste(pkgs, collapse = ", "))
    return(invisible())
  }
  gone <- setdiff(pkgs, rownames(ap))
  if (length(gone))
    say("WARNING: not on CRAN for this R version:", paste(gone, collapse = ", "))
  pkgs <- intersect(pkgs, rownames(ap))
  if (!length(pkgs)) return(invisible())
  fields <- c("Depends", "Imports", "LinkingTo")
  deps <- unlist(tools::package_dependencies(pkgs, db = ap, which = fields,
                                             recursive = TRUE))
  deps <- setdiff(intersect(unique(deps), rownames(ap)), BASE)

  ip <- utils::installed.packages()
  apt_install(setdiff(deps, ip[, "Package"]))  # dry run: CRAN list overstates
  ip <- utils::installed.packages()
  ip <- ip[!duplicated(ip[, "Package"]), , drop = FALSE]  # first in .libPaths() wins
  inst <- setNames(ip[, "Version"], ip[, "Package"])

  reqs <- parse_deps(ap[c(pkgs, deps), fields])
  reqs <- reqs[reqs$name %in% names(inst) & !reqs$name %in% BASE, ]
  ok <- vapply(seq_len(nrow(reqs)), function(i)
    version_ok(inst[[reqs$name[i]]], reqs$op[i], reqs$version[i]), logical(1))
  too_old <- reqs$name[!ok]
  todo <- unique(c(pkgs, setdiff(deps, names(inst)), too_old))
  if (dry_run) {
    say("[dry-run] would install from CRAN:", paste(todo, collapse = ", "))
    return(invisible())
  }
  say("installing from CRAN:", paste(todo, collapse = ", "))
  utils::install.packages(todo, repos = REPOS, Ncpus = NCPUS, dependencies = NA)

  # A package can need a newer dependency than it declares (mlr3measures
  # imports checkmate without a version, yet Debian 12's checkmate 2.1.0 lacks
  # what it uses): its install then fails at the test load. For each package
  # that did not end at CRAN's version, upgrade every dependency that is
  # older than CRAN's, and try once more.
  failed <- todo[!vapply(todo, function(p) identical(installed_version(p), ap[p, "Version"]),
                         logical(1))]
  if (!length(failed)) return(invisible())
  their_deps <- unlist(tools::package_dependencies(failed, db = ap, which = fields,
                                                   recursive = TRUE))
  their_deps <- setdiff(intersect(unique(their_deps), rownames(ap)), BASE)
  stale <- their_deps[vapply(their_deps, function(p) {
    have <- installed_version(p)
    !is.na(have) && package_version(have) < package_version(ap[p, "Version"])
  }, logical(1))]
  if (!length(stale)) return(invisible())
  say("did not install:", paste(failed, collapse = ", "), "- upgrading their older",
      "dependencies from CRAN and retrying:", paste(stale, collapse = ", "))
  utils::install.packages(unique(c(stale, failed)), repos = REPOS, Ncpus = NCPUS,
                          dependencies = NA)
}

# The version of `p` that a new R process would load (NA if none), read from
# disk so that a namespace loaded here does not hide an upgrade.
installed_version <- function(p) {
  dir <- find.package(p, lib.loc = .libPaths(), quiet = TRUE)
  if (!length(dir)) return(NA_character_)
  unname(read.dcf(file.path(dir[[1L]], "DESCRIPTION"), fields = "Version")[1L, 1L])
}

if (nrow(miss)) cran_install(miss$name)
if (dry_run) quit(status = 0)

# Re-check in a fresh R process: namespaces loaded above may be stale.
rscript <- file.path(R.home("bin"), "Rscript")
quit(status = system2(rscript, c("tools/install-deps.R", "--verify",
                                 if (demo_only) "--demo")))
