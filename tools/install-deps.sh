#!/usr/bin/env bash
# Install everything ccforest needs to be documented, built, tested and
# checked. Idempotent: when everything is already present it only checks
# (no apt-get update, no network) and returns in a few seconds.
#
#   1. system/Debian packages (prebuilt r-cran-* are much faster than
#      compiling from CRAN sources), installed only if missing;
#   2. tools/install-deps.R: every R package named in DESCRIPTION
#      (Imports, LinkingTo, Suggests), via apt r-cran-* if Debian has it,
#      else from CRAN; fails if a required package cannot be loaded.
#
# Usage: bash tools/install-deps.sh [--dry-run] [--demo]
#   --dry-run  only report what is missing, install nothing.
#   --demo     only what installing ccforest and running tools/demo.R need
#              (`make demo`): the required packages and those the demo
#              uses, no documentation or check tools, no other Suggests.
set -euo pipefail

cd "$(dirname "$0")/.."

DRY_RUN=0
DEMO=0
for arg in "$@"; do
  case "$arg" in
    --dry-run) DRY_RUN=1 ;;
    --demo) DEMO=1 ;;
    *) echo "install-deps: unknown option $arg" >&2; exit 2 ;;
  esac
done

export DEBIAN_FRONTEND=noninteractive

if ((DEMO)); then
  # Prebuilt, so the demo compiles nothing but ccforest itself.
  APT_PKGS=(r-cran-rcpp r-cran-rcppeigen r-cran-rcppparallel r-cran-ranger)
else
  # r-cran-pkgbuild: pkgload (used by roxygen2) needs it to compile src/.
  # libcurl4-openssl-dev: CRAN's curl, which pins (for vetiver) needs newer
  # than Debian's r-cran-curl, compiles against it.
  APT_PKGS=(
    r-cran-rcpp r-cran-rcppeigen r-cran-rcppparallel
    r-cran-roxygen2 r-cran-pkgbuild r-cran-testthat
    r-cran-knitr r-cran-rmarkdown r-cran-ranger r-cran-mlbench
    pandoc qpdf tidy
    libcurl4-openssl-dev
  )
fi

is_installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

missing=()
for p in "${APT_PKGS[@]}"; do
  is_installed "$p" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: system packages present"
elif ((DRY_RUN)); then
  echo "install-deps: [dry-run] would apt-get install: ${missing[*]}"
elif ! command -v apt-get >/dev/null 2>&1 || [[ "$(id -u)" != 0 ]]; then
  echo "install-deps: WARNING: missing ${missing[*]} but apt-get is unavailable" \
       "or not root; the R step will try CRAN for the R packages" >&2
else
  echo "install-deps: apt-get update (missing: ${missing[*]})"
  apt-get update -qq
  export CCF_APT_UPDATED=1  # tells install-deps.R not to update again
  # Only ask for packages apt actually knows (a candidate other than none).
  installable=()
  for p in "${missing[@]}"; do
    cand="$(apt-cache policy "$p" 2>/dev/null | awk '/Candidate:/ {print $2}')"
    if [[ -n "$cand" && "$cand" != "(none)" ]]; then
      installable+=("$p")
    else
      echo "install-deps: WARNING: no apt candidate for $p" >&2
    fi
  done
  if ((${#installable[@]})); then
    apt-get install -y -q --no-install-recommends "${installable[@]}"
  fi
fi

R_ARGS=()
((DRY_RUN)) && R_ARGS+=(--dry-run)
((DEMO)) && R_ARGS+=(--demo)
exec Rscript tools/install-deps.R "${R_ARGS[@]}"
