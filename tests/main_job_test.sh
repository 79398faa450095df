#!/usr/bin/env bash
# The ctest `main_job`: the README's main command, scripts/run.sh, as a new user runs it. It must
# exit 0, and each of its reports (runtime_ext's, then ExecuTorch's unless
# DEVPLAN_SKIP_EXECUTORCH=1) must end with `result: ok`.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
scripts/run.sh >"$log" 2>&1
code=$?
reports=2
[ "${DEVPLAN_SKIP_EXECUTORCH:-0}" = 1 ] && reports=1
ok=$(grep -c '^result: ok$' "$log")
if [ "$code" -ne 0 ] || [ "$ok" -ne "$reports" ]; then
  cat "$log"
  echo "main_job: scripts/run.sh exited $code with $ok of $reports reports ending 'result: ok'" >&2
  exit 1
fi
grep -E '^(runtime|result|fuzz):|programs,' "$log"
echo "main_job: scripts/run.sh exited 0, $ok reports ended 'result: ok'"
