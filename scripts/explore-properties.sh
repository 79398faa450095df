#!/usr/bin/env bash
# Random exploration of the properties; never part of the gate (.ci/run, scripts/test.sh), which
# draws every property's cases from one fixed seed. Here each property of a preset's build runs
# from N fresh random seeds (DEVPLAN_EXPLORE_SEEDS, property_tests/property.h), every
# counterexample is printed with its reproduce command, and a summary line per property and one
# in all close the run. Pin what it finds in property_tests/regression_cases_test.cpp.
#
#   scripts/explore-properties.sh                                # default preset, 300 seeds
#   scripts/explore-properties.sh --preset asan --seeds 300 --cases 100
#   JOBS=2 scripts/explore-properties.sh                         # parallel properties
#
# --cases sets the cases per seed (RC_PARAMS max_success; 300 without it). The whole ctest log
# is kept in build/explore-properties.log (build-asan/ for --preset asan). Exit 0 when no seed
# found a counterexample, 1 when one did, 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: scripts/explore-properties.sh [--preset default|asan] [--seeds N] [--cases N]" >&2
  exit 2
}
whole() { [[ "$1" =~ ^[1-9][0-9]{0,5}$ ]]; }

preset=default
seeds=300
cases=""
while [ $# -gt 0 ]; do
  case "$1" in
    --preset) [ $# -ge 2 ] || usage; preset=$2; shift 2 ;;
    --seeds) [ $# -ge 2 ] && whole "$2" || usage; seeds=$2; shift 2 ;;
    --cases) [ $# -ge 2 ] && whole "$2" || usage; cases=$2; shift 2 ;;
    *) usage ;;
  esac
done
case "$preset" in
  default) dir=build ;;
  asan) dir=build-asan ;;
  *) usage ;;
esac
jobs=${JOBS:-$(nproc)}

scripts/bootstrap.sh
start=$(date +%s)
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs" \
  --target property_tests property_planner_tests property_cuda_allocator_tests

log="$PWD/$dir/explore-properties.log"
export DEVPLAN_EXPLORE_SEEDS=$seeds
if [ -n "$cases" ]; then export RC_PARAMS="max_success=$cases"; else unset RC_PARAMS; fi
status=0
ctest --preset "$preset" -L '^property$' -j "$jobs" -V >"$log" 2>&1 || status=$?

# ctest -V prefixes each line with the test's number: "12: explore Suite.Name: 300 seeds, ...".
summary=$(sed -n 's/^[0-9]*: \(explore [^ ]*: [0-9]* seeds, .*\)$/\1/p' "$log" | sort)
echo "$summary"
echo "$summary" | awk '
  { seeds += $3; cases += $5; found += $7; n += 1 }
  END { printf "explore-properties.sh: %d properties, %d seeds, %d cases, %d counterexamples\n",
               n, seeds, cases, found }'
echo "explore-properties.sh: $preset preset in $(( $(date +%s) - start )) s; log: $log"
if [ "$status" -ne 0 ]; then
  grep -E '^[0-9]+: (explore .*fails|  RC_PARAMS=)' "$log" | sed 's/^[0-9]*: //' || true
  exit 1
fi
