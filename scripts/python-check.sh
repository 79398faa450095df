#!/usr/bin/env bash
# The Python package, as a user gets it: builds the wheel (pyproject.toml, scikit-build-core),
# installs it and the executorch 1.5.1 wheel (without ExecuTorch's own Python dependencies,
# which the tool does not need) into a fresh virtual environment, and runs the package's suite
# (python/tests) there, under pytest-xdist. Non-zero exit on any failure.
#
#   scripts/python-check.sh                     # builds the tool in build-python/ (Release)
#   scripts/python-check.sh --build-dir build   # reuses a configured tree: scripts/test.sh's
#                                               # build/ (CI), so only the tool relinks
#
# The environment is .venv-python-check (git ignores it); the wheel lands in out/wheel/.
# From PyPI it installs scikit-build-core, pytest and pytest-xdist, at the versions below.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

build_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir="${2:?--build-dir needs a folder}"; shift 2 ;;
    *) echo "usage: scripts/python-check.sh [--build-dir DIR]" >&2; exit 2 ;;
  esac
done

if [ -n "$build_dir" ]; then
  [ -f "$build_dir/CMakeCache.txt" ] || { echo "python-check: $build_dir is not a configured build tree" >&2; exit 2; }
  build_dir="$(cd "$build_dir" && pwd)"
fi
venv="$root/.venv-python-check"
wheel_dir="$root/out/wheel"
start=$(date +%s)
say() { echo "python-check: $*"; }

rm -rf "$venv" "$wheel_dir"
python3 -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check --quiet)
"${pip[@]}" install scikit-build-core==1.1.2 pytest==9.2.0 pytest-xdist==3.8.0

wheel_args=(--no-build-isolation --no-deps --wheel-dir "$wheel_dir")
if [ -n "$build_dir" ]; then
  # The tree's own build type, generator and tests stay as they are; the tool relinks with the
  # package's RPATH.
  build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build_dir/CMakeCache.txt")
  generator=$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$build_dir/CMakeCache.txt")
  tests=$(sed -n 's/^DEVPLAN_BUILD_TESTS:BOOL=//p' "$build_dir/CMakeCache.txt")
  wheel_args+=(-Cbuild-dir="$build_dir" -Ccmake.build-type="${build_type:-RelWithDebInfo}"
               -Ccmake.define.DEVPLAN_BUILD_TESTS="${tests:-ON}")
  export CMAKE_GENERATOR="${generator:-Unix Makefiles}"
  # Afterwards the tree is configured as it was (the package's settings are link settings of the
  # tool; the tests' binaries keep theirs).
  trap 'cmake -S "$root" -B "$build_dir" -DDEVPLAN_PYTHON_PACKAGE=OFF >/dev/null' EXIT
fi
say "building the wheel${build_dir:+ from $build_dir}"
"${pip[@]}" wheel "${wheel_args[@]}" .
wheel=$(ls "$wheel_dir"/devplan-*.whl)
say "built $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"

"${pip[@]}" install --no-deps "$wheel"
"${pip[@]}" install --no-deps "executorch==1.5.1"

# From outside the tree, so `import devplan` can only be the installed package.
cd "$(mktemp -d)"
DEVPLAN_EXPECT_INSTALLED=1 "$venv/bin/python" -m pytest "$root/python/tests" -n 2 -q \
  -p no:cacheprovider --junitxml="$root/out/python-tests.xml"
say "passed in $(( $(date +%s) - start )) s"
