#!/usr/bin/env bash
# Runs a small fit and predict (tools/valgrind.R) under valgrind memcheck
# with the installed package. Fails on any invalid read or write, use of
# uninitialised memory, or definitely lost block. TBB's worker threads live
# until R exits, so their stacks show as "possibly lost"; those are not ours.
#
# Usage: bash tools/valgrind.sh   (after `make install`)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind > /dev/null || {
  apt-get update -qq && apt-get install -y -q --no-install-recommends valgrind
}
log="${VALGRIND_LOG:-$(mktemp)}"
status=0
R -d "valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 --log-file=$log" \
  --vanilla --quiet -f tools/valgrind.R || status=$?
errors="$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" | tail -n 1)"
lost="$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tail -n 1 | tr -d ,)"
grep -E "ERROR SUMMARY|definitely lost|indirectly lost|Invalid (read|write)" "$log" || true
if [[ $status -ne 0 || "${errors:-1}" != "0" || "${lost:-0}" != "0" ]]; then
  echo "valgrind: memcheck found problems (errors: ${errors:-?}, definitely lost: ${lost:-0} bytes)" >&2
  cat "$log" >&2
  exit 1
fi
rm -f "$log"
echo "valgrind: clean (0 errors, no definite leaks)"
