#!/usr/bin/env bash
# Runs every unit-test binary under valgrind memcheck (--leak-check=full --error-exitcode=1);
# non-zero exit when any binary fails a test or valgrind reports an error or a definite leak.
#
#   scripts/valgrind.sh                    # builds the default preset (build/) if needed
#   BUILD_DIR=build-rel scripts/valgrind.sh
#   JOBS=2 scripts/valgrind.sh             # binaries run in parallel (default: number of cores)
#   NO_BUILD=1 scripts/valgrind.sh         # use the binaries as they are
#   LOG_DIR=/tmp/vg scripts/valgrind.sh    # where the logs go (default $BUILD_DIR/valgrind)
#
# The binaries are the ones ctest lists under the label `unit` (each binary runs once, whole,
# not once per test). Left out (EXCLUDE, a gtest negative filter): death tests (*DeathTest*),
# which provoke AddressSanitizer on purpose, and tests that assert a CPU-time budget, which
# valgrind's ~30x slowdown breaks (ScenarioGeneratorTest.GeneratesAndBuildsQuickly).
# fixtures_test starts leak_checked_test_probe as a child process; the child runs outside
# valgrind (no --trace-children), which is what that test needs.
# Logs: $LOG_DIR/<binary>.log.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build}
exclude=${EXCLUDE:-*DeathTest*:ScenarioGeneratorTest.GeneratesAndBuildsQuickly}
jobs=${JOBS:-$(nproc)}
start=$(date +%s)

if ! command -v valgrind >/dev/null; then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  echo "valgrind.sh: installing valgrind" >&2
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq valgrind >/dev/null
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  [ "$build" = build ] || { echo "valgrind.sh: $build is not configured" >&2; exit 2; }
  scripts/bootstrap.sh
  cmake --preset default >/dev/null
fi
[ -n "${NO_BUILD:-}" ] || cmake --build "$build" -j "$jobs"

# The unit binaries: the first word of each unit test's command when it is a program of
# $build/bin (not a cmake script test), without duplicates.
mapfile -t binaries < <(ctest --test-dir "$build" -L unit --show-only=json-v1 |
  python3 -c '
import json, os, sys
bindir = os.path.realpath(sys.argv[1])
seen = []
for test in json.load(sys.stdin).get("tests", []):
    cmd = test.get("command") or []
    if cmd and os.path.dirname(os.path.realpath(cmd[0])) == bindir and cmd[0] not in seen:
        seen.append(cmd[0])
print("\n".join(seen))' "$build/bin")
[ ${#binaries[@]} -gt 0 ] || { echo "valgrind.sh: no unit tests found in $build" >&2; exit 1; }

logs=${LOG_DIR:-$build/valgrind}
mkdir -p "$logs"
run_one() {
  local bin=$1 logs=$2 exclude=$3 name
  name=$(basename "$bin")
  if valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite,indirect \
       --error-exitcode=1 --track-origins=yes --num-callers=30 --quiet \
       "$bin" --gtest_filter="-$exclude" >"$logs/$name.log" 2>&1; then
    echo "valgrind.sh: ok     $name"
  else
    echo "valgrind.sh: FAILED $name (see $logs/$name.log)"
    return 1
  fi
}
export -f run_one
status=0
printf '%s\n' "${binaries[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {} "$logs" "$exclude" ||
  status=1

echo "valgrind.sh: ${#binaries[@]} binaries, $(( $(date +%s) - start )) s, $([ $status -eq 0 ] && echo clean || echo FAILED)"
exit $status
