#!/usr/bin/env bash
# The static checks: formatting (scripts/format.sh --check), then clang-tidy 14 with the root
# .clang-tidy over every C++ translation unit of the default build (its compile_commands.json;
# configured here when missing) and the project's own headers. Exit 1 on any finding. Not part of
# CI: a full run takes about 20 minutes on 2 cores (CI checks the formatting only).
#
#   scripts/lint.sh                    # everything
#   scripts/lint.sh harness/main.cpp   # only these files (paths from the repository root)
#   JOBS=4 scripts/lint.sh             # parallelism (default: number of cores)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/format.sh --check

tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
if [ -z "$tidy" ]; then
  echo "lint.sh: clang-tidy 14 not found (scripts/bootstrap.sh installs clang-tidy-14)" >&2
  exit 2
fi
if [ ! -f build/compile_commands.json ]; then
  cmake --preset default >/dev/null
fi

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  # Every project .cpp the default build compiles (CUDA sources are nvcc's, not clang-tidy's).
  mapfile -t files < <(python3 - <<'PY'
import json, os
root = os.getcwd()
seen = set()
for entry in json.load(open("build/compile_commands.json")):
    path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    rel = os.path.relpath(path, root)
    if rel.startswith(("build", ".deps", "..")) or not rel.endswith(".cpp"):
        continue
    if rel not in seen:
        seen.add(rel)
        print(rel)
PY
  )
fi

jobs=${JOBS:-$(nproc)}
# The project's own headers; not build/ (flatc's generated code) nor .deps/ (ExecuTorch).
header_filter="^$PWD/(runtime_ext|mocks|harness|fixtures|fuzz|property_tests|cuda_tests)/"
echo "lint.sh: clang-tidy on ${#files[@]} files, $jobs at a time"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if printf '%s\n' "${files[@]}" |
    xargs -P "$jobs" -n 1 "$tidy" -p build --quiet --header-filter="$header_filter" >"$log" 2>&1; then
  echo "lint.sh: no findings"
else
  grep -E "(warning|error):" "$log" | sort -u >&2 || cat "$log" >&2
  echo "lint.sh: clang-tidy found problems (above)" >&2
  exit 1
fi
