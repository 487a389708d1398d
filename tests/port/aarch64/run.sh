#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh SRC WORK: builds tests/port/aarch64/project (the runtime suite for
# AArch64 Linux, cmake/aarch64-linux-gnu.cmake) and runs it under qemu-user,
# once with the clock init picks (the CPU counter CNTVCT_EL0: the suite's
# Clock.AutoPicksTheCounterWhereTheCpuHasOne insists on it) and once with
# MABUTRACE_CLOCK=monotonic (the fallback).
set -euo pipefail
src=$1 work=$2
cmake -S "$src/tests/port/aarch64/project" -B "$work" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/aarch64-linux-gnu.cmake" \
  -DMABUTRACE_SOURCE_DIR="$src" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$work.configure.log"
cmake --build "$work" -j"$(nproc)" --target runtime_tests_aarch64 >"$work.build.log"
readelf -h "$work/runtime_tests_aarch64" | grep -q "Machine: *AArch64" || { echo "run.sh: not an AArch64 program" >&2; exit 1; }
run() { qemu-aarch64 -L /usr/aarch64-linux-gnu "$work/runtime_tests_aarch64" --gtest_brief=1 "$@"; }
echo "== AArch64, clock chosen at init (CNTVCT_EL0)"
run
echo "== AArch64, MABUTRACE_CLOCK=monotonic"
MABUTRACE_CLOCK=monotonic run
