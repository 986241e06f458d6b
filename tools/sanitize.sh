#!/usr/bin/env bash
# Builds ccforest with AddressSanitizer and UndefinedBehaviorSanitizer into a
# private library and runs the test suite under them. R itself is not
# instrumented, so the ASan runtime is preloaded; leak detection is off
# because R keeps memory until exit by design (valgrind covers leaks, see
# tools/valgrind.sh). Any sanitizer report fails the run.
#
# Usage: bash tools/sanitize.sh   (after `make install` has built the tarball)
set -euo pipefail
cd "$(dirname "$0")/.."

tarball="$(ls -t ccforest_*.tar.gz | head -n 1)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lib" "$work/R"

# gcc ships the runtimes with libgcc-*-dev; install it if they are missing.
asan="$(gcc -print-file-name=libasan.so)"
if [[ ! -e "$asan" ]]; then
  apt-get update -qq && apt-get install -y -q --no-install-recommends "libgcc-$(gcc -dumpversion)-dev"
  asan="$(gcc -print-file-name=libasan.so)"
fi

flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
cat > "$work/R/Makevars" <<MAKEVARS
CXX17FLAGS = $flags
CXXFLAGS = $flags
LDFLAGS = -fsanitize=address,undefined
MAKEVARS
R_MAKEVARS_USER="$work/R/Makevars" MAKEFLAGS=-j2 R CMD INSTALL --no-test-load -l "$work/lib" "$tarball"

log="$work/sanitizer"
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:log_path=$log"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$log"
export R_LIBS="$work/lib"
# Tests that cannot run under the sanitizers skip themselves when this is set.
export CCFOREST_SANITIZE=1
status=0
LD_PRELOAD="$asan" Rscript tools/run-tests.R "$work/summary.txt" || status=$?

if compgen -G "$log*" > /dev/null; then
  echo "sanitize: sanitizer reports:" >&2
  cat "$log"* >&2
  exit 1
fi
if [[ $status -ne 0 ]]; then
  echo "sanitize: the test suite failed under the sanitizers" >&2
  exit "$status"
fi
echo "sanitize: clean (no AddressSanitizer or UndefinedBehaviorSanitizer reports)"
