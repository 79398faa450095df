#!/usr/bin/env bash
# Builds and runs devplan's CUDA tests (label cuda), and runs them under compute-sanitizer
# where that tool exists and works on the device.
#
#   scripts/cuda-check.sh                       # configure build-cuda-check/ with
#                                               # -DDEVPLAN_WITH_CUDA=ON, build the CUDA test
#                                               # binaries, ctest -L cuda, then the sanitizer
#   scripts/cuda-check.sh --package OUTDIR      # build the CUDA test binaries here, linked
#                                               # statically (GoogleTest, cudart_static,
#                                               # libstdc++), into OUTDIR (at most 64 MiB),
#                                               # with the devplan tool and cuda_tool_test
#                                               # (OUTDIR/lib: ExecuTorch's libraries and the
#                                               # C++ runtime beside them) and the committed
#                                               # programs (OUTDIR/programs)
#   scripts/cuda-check.sh --prebuilt DIR [--results RDIR] [--require-gpu]
#                                               # run the binaries of a package directly, for a
#                                               # GPU machine without GoogleTest or network;
#                                               # gtest XML and logs go to RDIR (default
#                                               # DIR/results)
#
# --require-gpu makes "no usable CUDA device" a failure instead of a skip.
#
# --prebuilt, after the tests, runs `devplan report` over the package's programs with
# --device simulated and with --device cuda (and the same under --runtime executorch) and
# compares the two tables row by row: the same allocations, leaks, misuse, overlaps and runs.
# A difference fails the check; the reports are in RDIR/report-*.txt.
#
# compute-sanitizer: first the known-clean cuda_sanitizer_probe runs under
# `compute-sanitizer --leak-check full --error-exitcode 1`. If that fails, the tool cannot run
# on this device (reported, not a failure: on gVisor machines it answers "Device not
# supported"); if it passes, the GPU test binary runs under it and any error or leak it reports
# fails the check.
#
# Environment: JOBS (build parallelism, default nproc), BUILD_DIR (default build-cuda-check),
# PACKAGE_BUILD_DIR (default build-cuda-package), COMPUTE_SANITIZER (the tool's path),
# CUDA_CHECK_BUDGET_S (seconds for all test runs together, default 540: the whole check stays
# within 10 minutes), DEVPLAN_SOURCE_DIR (the CMake source tree, default the repository).
#
# Exit status: 0 when every test passed or skipped for want of a device (and the sanitizer
# found nothing or could not run), 1 otherwise, 2 for a usage error.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
script_path="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
source_dir=${DEVPLAN_SOURCE_DIR:-$repo}
jobs=${JOBS:-$(nproc)}
budget=${CUDA_CHECK_BUDGET_S:-540}
deadline=$((SECONDS + budget))

# The binaries a package holds, with their role: gpu (GoogleTest, label cuda), unit
# (GoogleTest, needs no GPU), probe (the sanitizer probe).
package_binaries=(cuda_gpu_test:gpu cuda_tool_test:gpu cuda_allocator_test:unit
                  cuda_runtime_test:unit cuda_sanitizer_probe:probe devplan:tool)
build_targets=(cuda_gpu_test cuda_tool_test cuda_sanitizer_probe cuda_allocator_test
               cuda_runtime_test devplan)

max_package_bytes=$((64 * 1024 * 1024))

say() { echo "cuda-check: $*"; }
die() { echo "cuda-check: $*" >&2; exit 1; }

usage() {
  sed -n '2,/^set -euo/p' "$script_path" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# Seconds left of the budget (at least 1, so `timeout` always gets a valid value).
time_left() {
  local left=$((deadline - SECONDS))
  ((left < 1)) && left=1
  echo "$left"
}

find_sanitizer() {
  if [[ -n ${COMPUTE_SANITIZER:-} ]]; then
    [[ -x $COMPUTE_SANITIZER ]] && echo "$COMPUTE_SANITIZER"
    return 0
  fi
  local candidate
  for candidate in "$(command -v compute-sanitizer 2>/dev/null || true)" \
                   /usr/local/cuda/bin/compute-sanitizer \
                   /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    if [[ -n $candidate && -x $candidate ]]; then
      echo "$candidate"
      return 0
    fi
  done
}

# Lines of compute-sanitizer's output that say the tool itself could not work here.
tool_failure_lines() {
  grep -E -i 'device not supported|not supported on this|unable to (find|load|initialize|start)|could not (find|load|initialize|start)|failed to (initialize|load|launch)|injection|target application terminated before first instrumented api call|internal sanitizer error|LibraryNotLoaded' \
    "$1" | head -5 || true
}

# run_sanitizer_stage RESULTS PROBE GPU_BINARY...
# Returns 0 when the sanitizer found nothing or cannot run here, 1 when it found a problem.
run_sanitizer_stage() {
  local results=$1 probe=$2
  shift 2
  local log="$results/sanitizer.log"
  local sanitizer
  sanitizer=$(find_sanitizer)
  if [[ -z $sanitizer ]]; then
    say "sanitizer: compute-sanitizer not found; skipped"
    echo "sanitizer: not found" >>"$results/summary.txt"
    return 0
  fi
  say "sanitizer: using $sanitizer"
  : >"$log"

  local rc=0
  timeout "$(time_left)" "$probe" >>"$log" 2>&1 || rc=$?
  if ((rc == 77)); then
    say "sanitizer: no usable CUDA device; skipped ($(tail -1 "$log"))"
    echo "sanitizer: skipped, no usable CUDA device" >>"$results/summary.txt"
    return 0
  elif ((rc != 0)); then
    say "sanitizer: the probe failed without the sanitizer (rc $rc):"
    tail -5 "$log"
    echo "sanitizer: probe failed plainly (rc $rc)" >>"$results/summary.txt"
    return 1
  fi

  local probe_log="$results/.probe-sanitized.log"
  rc=0
  timeout "$(time_left)" "$sanitizer" --leak-check full --error-exitcode 1 "$probe" \
    >"$probe_log" 2>&1 || rc=$?
  {
    echo "==== compute-sanitizer on cuda_sanitizer_probe (rc $rc)"
    cat "$probe_log"
  } >>"$log"
  if ((rc != 0)); then
    local why
    why=$(tool_failure_lines "$probe_log")
    if ((rc == 124)); then
      say "sanitizer: the probe timed out under compute-sanitizer"
      echo "sanitizer: timed out on the probe" >>"$results/summary.txt"
      rm -f "$probe_log"
      return 1
    elif [[ -n $why ]]; then
      say "sanitizer: compute-sanitizer cannot run on this device (reported, not a failure):"
      printf '    %s\n' "${why//$'\n'/$'\n    '}"
      echo "sanitizer: cannot run on this device: $(echo "$why" | head -1)" >>"$results/summary.txt"
      rm -f "$probe_log"
      return 0
    fi
    say "sanitizer: compute-sanitizer reports errors in the known-clean probe (rc $rc):"
    grep -E '^=========' "$probe_log" | head -20
    echo "sanitizer: errors in the probe" >>"$results/summary.txt"
    rm -f "$probe_log"
    return 1
  fi
  rm -f "$probe_log"
  say "sanitizer: works on this device (probe clean)"

  local failed=0 binary name
  for binary in "$@"; do
    name=$(basename "$binary")
    local out="$results/.$name-sanitized.log"
    rc=0
    DEVPLAN_UNDER_COMPUTE_SANITIZER=1 timeout "$(time_left)" \
      "$sanitizer" --leak-check full --error-exitcode 1 \
      "$binary" --gtest_output="xml:$results/$name.sanitizer.xml" >"$out" 2>&1 || rc=$?
    {
      echo "==== compute-sanitizer on $name (rc $rc)"
      cat "$out"
    } >>"$log"
    if ((rc == 0)); then
      say "sanitizer: $name clean"
      echo "sanitizer: $name clean" >>"$results/summary.txt"
    else
      failed=1
      say "sanitizer: $name FAILED (rc $rc$( ((rc == 124)) && echo ', timed out')):"
      grep -E '^=========|\[  FAILED  \]' "$out" | head -30
      echo "sanitizer: $name failed (rc $rc)" >>"$results/summary.txt"
    fi
    rm -f "$out"
  done
  return "$failed"
}

# device_status RESULTS PROBE: records whether a CUDA device is usable (the probe's last line).
device_status() {
  local line rc=0
  line=$(timeout "$(time_left)" "$2" 2>&1 | tail -1) || rc=$?
  say "device: $line"
  echo "device: $line" >>"$1/summary.txt"
}

# run_gtest BINARY RESULTS: runs one GoogleTest binary with XML output; returns its status.
run_gtest() {
  local binary=$1 results=$2
  local name rc=0
  name=$(basename "$binary")
  timeout "$(time_left)" "$binary" --gtest_output="xml:$results/$name.xml" || rc=$?
  if ((rc == 0)); then
    local skipped
    skipped=$(grep -c '<testcase .*result="skipped"' "$results/$name.xml" 2>/dev/null || true)
    echo "$name: passed (${skipped:-0} skipped)" >>"$results/summary.txt"
  else
    echo "$name: FAILED (rc $rc$( ((rc == 124)) && echo ', timed out'))" >>"$results/summary.txt"
  fi
  return "$rc"
}

mode_build() {
  local build_dir=${BUILD_DIR:-$repo/build-cuda-check}
  say "configuring $build_dir (CUDA ON)"
  cmake -S "$source_dir" -B "$build_dir" -DDEVPLAN_WITH_CUDA=ON -DDEVPLAN_BUILD_TESTS=ON \
    -DDEVPLAN_BUILD_BENCHMARKS=OFF >"$build_dir.configure.log" 2>&1 ||
    { tail -30 "$build_dir.configure.log"; die "configure failed (log: $build_dir.configure.log)"; }
  say "building ${build_targets[*]}"
  cmake --build "$build_dir" -j "$jobs" --target "${build_targets[@]}"

  local results="$build_dir/cuda-results"
  rm -rf "$results"
  mkdir -p "$results"
  : >"$results/summary.txt"
  local status=0 rc=0
  device_status "$results" "$build_dir/bin/cuda_sanitizer_probe"
  say "ctest -L cuda"
  (cd "$build_dir" && timeout "$(time_left)" ctest -L cuda --output-on-failure \
     --output-junit "$results/ctest-cuda.xml") || rc=$?
  if ((rc == 0)); then
    echo "ctest -L cuda: passed" >>"$results/summary.txt"
  else
    status=1
    echo "ctest -L cuda: FAILED (rc $rc)" >>"$results/summary.txt"
  fi
  run_sanitizer_stage "$results" "$build_dir/bin/cuda_sanitizer_probe" \
    "$build_dir/bin/cuda_gpu_test" || status=1
  finish "$status" "$results" "$build_dir/bin/cuda_sanitizer_probe"
}

mode_package() {
  local out=$1
  local build_dir=${PACKAGE_BUILD_DIR:-$repo/build-cuda-package}
  # Replace only an earlier package (or an empty folder), never anything else.
  if [[ -d $out && -n $(ls -A "$out") && ! -f $out/manifest.txt ]]; then
    die "$out exists and is not a package; choose another OUTDIR"
  fi
  say "configuring $build_dir (CUDA ON, DEVPLAN_CUDA_PREBUILT=ON)"
  cmake -S "$source_dir" -B "$build_dir" -DDEVPLAN_WITH_CUDA=ON -DDEVPLAN_CUDA_PREBUILT=ON \
    -DDEVPLAN_BUILD_TESTS=ON -DDEVPLAN_BUILD_BENCHMARKS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build_dir.configure.log" 2>&1 ||
    { tail -30 "$build_dir.configure.log"; die "configure failed (log: $build_dir.configure.log)"; }
  say "building ${build_targets[*]}"
  cmake --build "$build_dir" -j "$jobs" --target "${build_targets[@]}"

  rm -rf "$out"
  mkdir -p "$out"
  : >"$out/manifest.txt"
  local entry name role
  for entry in "${package_binaries[@]}"; do
    name=${entry%%:*}
    role=${entry##*:}
    [[ -x $build_dir/bin/$name ]] || die "missing $build_dir/bin/$name"
    cp "$build_dir/bin/$name" "$out/$name"
    # Debug sections are not needed to run; keep the symbol table for backtraces.
    strip --strip-debug "$out/$name"
    echo "$name $role" >>"$out/manifest.txt"
    # Everything but the C library is linked in; a binary that looks in $ORIGIN/lib (the tool
    # and cuda_tool_test) gets the rest there: ExecuTorch's libraries and the C++ runtime.
    local lib path with_lib=0
    readelf -d "$out/$name" | grep -q 'R.*PATH.*\$ORIGIN/lib' && with_lib=1
    while read -r lib path; do
      case $lib in
        linux-vdso.so* | libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | \
          /lib64/ld-linux* | ld-linux*) ;;
        *)
          ((with_lib)) || die "$name still needs the shared library $lib"
          [[ -f $path ]] || die "$name needs $lib, which is not found"
          mkdir -p "$out/lib"
          [[ -f $out/lib/$lib ]] || cp -L "$path" "$out/lib/$lib"
          ;;
      esac
    done < <(ldd "$build_dir/bin/$name" | awk '$2 == "=>" {print $1, $3} $2 != "=>" {print $1, ""}')
  done
  mkdir -p "$out/programs"
  cp "$repo"/fixtures/executorch/exporter/*.pte "$repo"/fixtures/executorch/exporter/*.bpte \
    "$repo"/fixtures/executorch/exporter/*.ptd "$out/programs/"
  cp "$script_path" "$out/cuda-check.sh"
  local bytes glibc
  bytes=$(du -sb "$out" | cut -f1)
  ((bytes <= max_package_bytes)) ||
    die "package $out is $bytes bytes, over the $max_package_bytes byte limit"
  glibc=$(for f in "${package_binaries[@]/#/$out/}" "$out"/lib/*; do
      objdump -T "${f%%:*}" 2>/dev/null || true
    done |
    grep -o 'GLIBC_[0-9.]*' | sort -t. -k1,1 -k2,2n -k3,3n -u | tail -1)
  {
    echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) from $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "needs: the CUDA driver (libcuda.so.1), glibc with $glibc, x86-64"
  } >"$out/README.txt"
  say "package $out: $bytes bytes, needs $glibc and the CUDA driver"
  say "run there: scripts/cuda-check.sh --prebuilt $out [--results DIR] [--require-gpu]"
  say "       or: $out/cuda-check.sh --prebuilt $out"
}

mode_prebuilt() {
  local dir=$1 results=$2
  [[ -f $dir/manifest.txt ]] || die "$dir/manifest.txt not found (make DIR with --package)"
  mkdir -p "$results"
  : >"$results/summary.txt"
  local status=0 name role probe="" gpu_binaries=()
  probe=$(awk '$2 == "probe" {print $1; exit}' "$dir/manifest.txt")
  [[ -n $probe ]] || die "no probe in $dir/manifest.txt"
  probe="$dir/$probe"
  device_status "$results" "$probe"
  export DEVPLAN_PROGRAMS_DIR="$dir/programs"
  local tool=""
  while read -r name role; do
    [[ -z $name ]] && continue
    [[ -x $dir/$name ]] || die "$dir/$name is missing or not executable"
    case $role in
      gpu | unit)
        say "running $name ($role)"
        run_gtest "$dir/$name" "$results" || status=1
        [[ $role == gpu ]] && gpu_binaries+=("$dir/$name")
        ;;
      probe) ;;
      tool) tool="$dir/$name" ;;
      *) die "unknown role '$role' for $name in $dir/manifest.txt" ;;
    esac
  done <"$dir/manifest.txt"
  [[ -n $tool ]] && { compare_reports "$tool" "$dir/programs" "$results" || status=1; }
  run_sanitizer_stage "$results" "$probe" "${gpu_binaries[@]}" || status=1
  finish "$status" "$results" "$probe"
}

# The report's table without what may differ between two runs: the devices line, times.
report_rows() {
  grep -v -E '^(devices:|pictures:)' "$1" | sed -E 's/ in [0-9.]+ s,/,/'
}

# compare_reports TOOL PROGRAMS RESULTS: `devplan report` with --device simulated and
# --device cuda, under each engine, must give the same rows. Skipped without a usable GPU.
compare_reports() {
  local tool=$1 programs=$2 results=$3 failed=0 runtime device rc
  if ! "$tool" run "$programs/devplan_one_delegate.pte" --device cuda >/dev/null 2>&1; then
    say "report: no usable GPU for the tool; skipped ($("$tool" run "$programs/devplan_one_delegate.pte" --device cuda 2>&1 | tail -1))"
    echo "report: skipped, no usable GPU" >>"$results/summary.txt"
    return 0
  fi
  local data=() f
  for f in "$programs"/*.ptd; do data+=(--data "$f"); done
  for runtime in devplan executorch; do
    for device in simulated cuda; do
      local devices=(--device "$device")
      [[ $device == cuda ]] && devices+=(--device-map cuda:1=cuda:0)
      rc=0
      timeout "$(time_left)" "$tool" report "$programs"/*.pte "$programs"/*.bpte \
        "${data[@]}" --runtime "$runtime" "${devices[@]}" \
        --fuzz-cases 200 --out "$results/report-$runtime-$device" \
        >"$results/report-$runtime-$device.txt" 2>&1 || rc=$?
      echo "$rc" >"$results/report-$runtime-$device.rc"
    done
    if diff <(report_rows "$results/report-$runtime-simulated.txt"; cat "$results/report-$runtime-simulated.rc") \
            <(report_rows "$results/report-$runtime-cuda.txt"; cat "$results/report-$runtime-cuda.rc") \
            >"$results/report-$runtime.diff"; then
      say "report --runtime $runtime: --device cuda matches --device simulated ($(tail -1 "$results/report-$runtime-cuda.txt"))"
      echo "report --runtime $runtime: cuda matches simulated" >>"$results/summary.txt"
    else
      failed=1
      say "report --runtime $runtime: --device cuda DIFFERS from --device simulated:"
      head -20 "$results/report-$runtime.diff"
      echo "report --runtime $runtime: cuda DIFFERS (report-$runtime.diff)" >>"$results/summary.txt"
    fi
  done
  return "$failed"
}

# finish STATUS RESULTS PROBE: applies --require-gpu, prints the summary, exits.
finish() {
  local status=$1 results=$2 probe=$3
  if ((require_gpu)); then
    local rc=0
    "$probe" >/dev/null 2>&1 || rc=$?
    if ((rc == 77)); then
      say "--require-gpu: no usable CUDA device: $("$probe" 2>&1 | tail -1)"
      echo "require-gpu: no usable CUDA device" >>"$results/summary.txt"
      status=1
    fi
  fi
  touch "$results/summary.txt"
  say "summary ($results/summary.txt):"
  sed 's/^/    /' "$results/summary.txt"
  if ((status == 0)); then
    say "passed in $SECONDS s"
  else
    say "FAILED after $SECONDS s"
  fi
  exit "$status"
}

require_gpu=0
mode=build
target_dir=""
results_dir=""
while (($#)); do
  case $1 in
    --package) mode=package; target_dir=${2:-}; shift 2 || usage ;;
    --prebuilt) mode=prebuilt; target_dir=${2:-}; shift 2 || usage ;;
    --results) results_dir=${2:-}; shift 2 || usage ;;
    --require-gpu) require_gpu=1; shift ;;
    -h | --help) usage ;;
    *) echo "cuda-check: unknown argument '$1'" >&2; usage ;;
  esac
done
if [[ $mode != build && -z $target_dir ]]; then usage; fi

case $mode in
  build)
    [[ -z $results_dir ]] || say "--results applies to --prebuilt only; ignored"
    mode_build
    ;;
  package) mode_package "$target_dir" ;;
  prebuilt)
    target_dir=$(cd "$target_dir" && pwd) || die "no directory $target_dir"
    mode_prebuilt "$target_dir" "${results_dir:-$target_dir/results}"
    ;;
esac
