#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what building, testing and the demo need, if it is missing.
# Idempotent; Debian 12 packages only (run as root, or with sudo available).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

# --demo: only what `make demo` builds and links (the library, the HTTP
# server's cpp-httplib, the demo's CLI11): seconds, not minutes, on a fresh
# machine. Without it: everything the test suite needs.
demo_packages=(build-essential cmake pkg-config libcpp-httplib-dev libcli11-dev)
packages=(
  build-essential cmake pkg-config git clang-format
  googletest libgtest-dev libbenchmark-dev
  libcpp-httplib-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  protobuf-compiler socat
  clang libclang-rt-14-dev
  curl python3 chromium
  libelf-dev gdb help2man dpkg-dev
  libinih-dev libtomlplusplus-dev libopencsd-dev libopencsd-bin
  gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-dev qemu-system-arm
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc
  g++-aarch64-linux-gnu qemu-user
  gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
)
demo=0
case "${1:-}" in
  --demo) demo=1; packages=("${demo_packages[@]}") ;;
  "") ;;
  *) echo "usage: install-deps.sh [--demo]" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js may come from Debian (nodejs + npm) or be preinstalled with npm.
[ $demo -eq 1 ] || command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The browser test drives Debian's Chromium with playwright-core (npm; it
# downloads no browser of its own).
if [ $demo -eq 0 ] && [ ! -d "$here/tests/browser/node_modules/playwright-core" ]; then
  echo "install-deps: npm install (tests/browser)" >&2
  (cd "$here/tests/browser" && npm install --no-audit --no-fund --silent >/dev/null)
fi
