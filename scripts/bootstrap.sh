#!/usr/bin/env bash
# Installs, from Debian's packages, whatever the build and the tests need and is not yet
# present. Idempotent and quiet when everything is already installed.
set -euo pipefail

required=(cmake g++ clang libgtest-dev libgmock-dev librapidcheck-dev libflatbuffers-dev
          flatbuffers-compiler libbenchmark-dev)
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

[ ${#missing[@]} -eq 0 ] && [ ${#missing_optional[@]} -eq 0 ] && exit 0

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
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
