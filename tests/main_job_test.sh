#!/usr/bin/env bash
# The ctest `main_job`: the README's main command, scripts/run.sh, as a new user runs it. It must
# exit 0, each of its reports (runtime_ext's, then ExecuTorch's unless
# DEVPLAN_SKIP_EXECUTORCH=1) must end with `result: ok`, and its budget check with
# `result: within the budget`.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
scripts/run.sh >"$log" 2>&1
code=$?
reports=2
[ "${DEVPLAN_SKIP_EXECUTORCH:-0}" = 1 ] && reports=1
ok=$(grep -c '^result: ok$' "$log")
budget=$(grep -c '^result: within the budget' "$log")
if [ "$code" -ne 0 ] || [ "$ok" -ne "$reports" ] || [ "$budget" -ne 1 ]; then
  cat "$log"
  echo "main_job: scripts/run.sh exited $code with $ok of $reports reports ending 'result: ok'" \
       "and $budget budget checks within the budget" >&2
  exit 1
fi
grep -E '^(runtime|result|fuzz|budget):|programs,' "$log"
echo "main_job: scripts/run.sh exited 0, $ok reports ended 'result: ok'"
