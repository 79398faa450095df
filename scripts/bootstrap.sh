#!/usr/bin/env bash
# Installs, from Debian's packages, whatever the build and the tests need and is not yet
# present, and ExecuTorch's C++ runtime (the `executorch` 1.5.1 wheel from PyPI, without its
# Python dependencies) into .deps/executorch, which git ignores. Idempotent and quiet when
# everything is already installed. DEVPLAN_SKIP_EXECUTORCH=1 leaves the wheel out (the build then
# skips the ExecuTorch engine's tests, saying why).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
executorch_version=1.5.1
executorch_dir="$root/.deps/executorch"

required=(cmake g++ clang libgtest-dev libgmock-dev librapidcheck-dev libflatbuffers-dev
          flatbuffers-compiler libbenchmark-dev nlohmann-json3-dev libcli11-dev
          libtinyxml2-dev clang-format-14 clang-tidy-14)
optional=(ccache valgrind)

is_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

missing=()
for pkg in "${required[@]}"; do
  is_installed "$pkg" || missing+=("$pkg")
done
missing_optional=()
for pkg in "${optional[@]}"; do
  is_installed "$pkg" || missing_optional+=("$pkg")
done

install_executorch() {
  [ "${DEVPLAN_SKIP_EXECUTORCH:-0}" = 1 ] && return 0
  local marker="$executorch_dir/executorch-$executorch_version.dist-info"
  [ -d "$marker" ] && [ -f "$executorch_dir/executorch/lib/libexecutorch.so" ] && return 0
  if ! python3 -m pip --version >/dev/null 2>&1; then
    echo "bootstrap: python3 -m pip is missing; installing python3-pip" >&2
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends python3-pip >/dev/null
  fi
  echo "bootstrap: installing executorch==$executorch_version (--no-deps) into $executorch_dir" >&2
  local staging="$executorch_dir.partial"
  rm -rf "$staging"
  local pip_args=(install --quiet --disable-pip-version-check --no-deps --no-compile
                  --target "$staging" "executorch==$executorch_version")
  # Debian's own pip refuses to run outside a virtual environment unless told; --target keeps
  # the system's packages untouched either way. Without the wheel everything still builds and
  # the ExecuTorch engine's tests skip, saying why, so a failed download is a warning.
  if ! python3 -m pip "${pip_args[@]}" 2>/dev/null &&
     ! python3 -m pip "${pip_args[@]}" --break-system-packages; then
    echo "bootstrap: WARNING: could not install executorch==$executorch_version; the ExecuTorch" \
         "engine is left out and its tests will skip" >&2
    rm -rf "$staging"
    return 0
  fi
  rm -rf "$executorch_dir"
  mv "$staging" "$executorch_dir"
}

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi

# scripts/python-check.sh (in scripts/test.sh) makes a virtual environment: Debian's own python3
# needs python3-venv for that.
ensure_venv() {
  python3 -c "import venv, ensurepip" >/dev/null 2>&1 && return 0
  echo "bootstrap: python3 cannot make virtual environments; installing python3-venv" >&2
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq >/dev/null
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
}

if [ ${#missing[@]} -eq 0 ] && [ ${#missing_optional[@]} -eq 0 ]; then
  ensure_venv
  install_executorch
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive

echo "bootstrap: installing ${missing[*]} ${missing_optional[*]}" >&2
"${sudo_cmd[@]}" apt-get update -qq >/dev/null
if [ ${#missing[@]} -gt 0 ]; then
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Optional packages: use them when the archive has them, carry on when it does not.
for pkg in "${missing_optional[@]}"; do
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null 2>&1 ||
    echo "bootstrap: optional package $pkg not available; continuing without it" >&2
done
ensure_venv
install_executorch
