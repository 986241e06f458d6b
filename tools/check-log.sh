#!/usr/bin/env bash
# Judge an R CMD check run: print every section of 00check.log that ended in
# NOTE, WARNING or ERROR, and exit 1 if there was any WARNING or ERROR, if
# R CMD check itself exited non-zero, or if the log is missing/incomplete.
# Usage: bash tools/check-log.sh path/to/00check.log [R CMD check exit code]
set -uo pipefail

log="$1"
rc="${2:-0}"

if [[ ! -f "$log" ]]; then
  echo "check-log: $log not found (R CMD check exit code $rc)" >&2
  exit 1
fi

# Sections start at "* checking ..."; the verdict is at the end of that line
# (maybe after a timing "[21s/18s]") or on a later line of the section
# (e.g. after "Running 'testthat.R'").
problems="$(awk '
  function flush() { if (bad) printf "%s", buf; buf = ""; bad = 0 }
  /^\* / || /^Status:/ { flush() }
  /^Status:/ { next }
  { buf = buf $0 "\n" }
  /(^|\.\.\.|\]) *(NOTE|WARNING|ERROR)$/ { bad = 1 }
  END { flush() }
' "$log")"

status="$(grep -E '^Status:' "$log" | tail -n 1)"

echo "==== R CMD check: $log"
if [[ -n "$problems" ]]; then
  echo "$problems"
fi
echo "==== ${status:-Status: missing (check did not finish)}"

if [[ -z "$status" ]] || grep -Eq 'ERROR|WARNING' <<<"$status" || [[ "$rc" != 0 ]]; then
  echo "check-log: R CMD check failed (exit code $rc)" >&2
  exit 1
fi
exit 0
