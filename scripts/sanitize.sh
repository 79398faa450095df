#!/usr/bin/env bash
# Builds devplan under a sanitizer preset and runs its tests; non-zero exit on any report.
#
#   scripts/sanitize.sh asan     # ASan + UBSan (+ LSan): build-asan/, the unit and property labels
#   scripts/sanitize.sh tsan     # TSan: build-tsan/, the concurrency, thread and registry tests
#   JOBS=2 scripts/sanitize.sh asan
#
# Every report fails the run: the presets set halt_on_error=1 and -fno-sanitize-recover=all, and
# a sanitizer report makes the test binary exit non-zero. LeakSanitizer suppressions (the CUDA
# driver's own allocations, where CUDA is linked) are in scripts/lsan.supp.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: scripts/sanitize.sh asan|tsan" >&2; exit 2; }
[ $# -eq 1 ] || usage
preset=$1
jobs=${JOBS:-$(nproc)}

scripts/bootstrap.sh
start=$(date +%s)

case "$preset" in
  asan)
    cmake --preset asan >/dev/null
    cmake --build --preset asan -j "$jobs"
    # The test preset keeps the unit and property labels and sets ASAN/UBSAN/LSAN_OPTIONS.
    ctest --preset asan -j "$jobs" --output-junit "$PWD/build-asan/test-results.xml"
    ;;
  tsan)
    # Only the binaries that hold thread tests: a full ThreadSanitizer build is not needed.
    cmake --preset tsan >/dev/null
    cmake --build --preset tsan -j "$jobs" --target core_test mocks_test concurrency_test
    ctest --preset tsan -j "$jobs" -R "Concurrency|Thread|Registry" \
      --output-junit "$PWD/build-tsan/test-results.xml"
    ;;
  *) usage ;;
esac

echo "sanitize.sh: $preset passed in $(( $(date +%s) - start )) s"
