#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# consumer_test.sh MODE SRC WORK PREFIX CXX: builds tests/install/MODE/ the way
# a user's project would use mabutrace (README "Use it in your project"),
# runs the program and checks the trace it wrote.
#   find_package      against the install prefix PREFIX (CMake package)
#   pkg_config        against PREFIX with a plain Makefile (mabutrace.pc)
#   add_subdirectory  with the source tree SRC as third_party/mabutrace
#   fetch_content     FetchContent, its download replaced by SRC
#                     (FETCHCONTENT_SOURCE_DIR_MABUTRACE, CMake's own switch)
#   shared            SRC built as the shared library alone, without the HTTP
#                     server (-DBUILD_SHARED_LIBS=ON -DMABUTRACE_HTTP_SERVER=OFF;
#                     PREFIX unused), installed into WORK/prefix, then the
#                     find_package project against it; the program must load
#                     libmabutrace.so and not cpp-httplib
# The embedded builds must build the library only: no tests, tools, benches.
set -euo pipefail
mode=$1 src=$2 work=$3 prefix=$4 cxx=$5
here=$src/tests/install
rm -rf "$work"
mkdir -p "$work"
[ "$mode" = shared ] || cp -r "$here/$mode/." "$work/"
cp "$here/consumer/main.cpp" "$work/"
configure=(cmake -S "$work" -B "$work/build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release)
jobs=$(nproc)
case $mode in
  find_package)
    "${configure[@]}" -DCMAKE_PREFIX_PATH="$prefix"
    cmake --build "$work/build" -j"$jobs"
    app=$work/build/traced_app ;;
  pkg_config)
    PKG_CONFIG_PATH="$prefix/lib/pkgconfig" make -C "$work" CXX="$cxx"
    app=$work/traced_app ;;
  add_subdirectory)
    mkdir -p "$work/third_party"
    ln -s "$src" "$work/third_party/mabutrace"
    "${configure[@]}"
    cmake --build "$work/build" -j"$jobs"
    embedded=$work/build/third_party/mabutrace
    app=$work/build/traced_app ;;
  fetch_content)
    "${configure[@]}" -DFETCHCONTENT_SOURCE_DIR_MABUTRACE="$src" -DFETCHCONTENT_FULLY_DISCONNECTED=ON
    cmake --build "$work/build" -j"$jobs"
    embedded=$work/build/_deps/mabutrace-build
    app=$work/build/traced_app ;;
  shared)
    cmake -S "$src" -B "$work/lib-build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
      -DMABUTRACE_HTTP_SERVER=OFF -DMABUTRACE_BUILD_TOOLS=OFF -DMABUTRACE_BUILD_EXAMPLES=OFF -DMABUTRACE_BUILD_TESTS=OFF -DMABUTRACE_BUILD_BENCH=OFF
    cmake --build "$work/lib-build" -j"$jobs"
    cmake --install "$work/lib-build" --prefix "$work/prefix"
    cp "$here/find_package/CMakeLists.txt" "$work/"
    "${configure[@]}" -DCMAKE_PREFIX_PATH="$work/prefix"
    cmake --build "$work/build" -j"$jobs"
    app=$work/build/traced_app
    # (ldd's output is read whole first: `ldd | grep -q` under pipefail
    # fails whenever grep's early exit cuts ldd off with SIGPIPE.)
    libs=$(ldd "$app")
    if ! grep -q "libmabutrace.so.0 => $work/prefix/" <<<"$libs"; then
      echo "consumer_test: $app does not load $work/prefix/lib/libmabutrace.so.0:" >&2
      echo "$libs" >&2
      exit 1
    fi
    if grep -q "libcpp-httplib" <<<"$libs"; then
      echo "consumer_test: built without the HTTP server, $app still loads cpp-httplib" >&2
      exit 1
    fi ;;
  *)
    echo "consumer_test: unknown mode $mode" >&2
    exit 2 ;;
esac
if [ -n "${embedded:-}" ]; then
  for part in tests tools bench host; do
    if [ -e "$embedded/$part" ]; then
      echo "consumer_test: $mode built mabutrace's $part ($embedded/$part): a parent project must get the library only" >&2
      exit 1
    fi
  done
fi
"$app" "$work/trace.json" "$work/trace.stream"
python3 "$here/check_trace.py" "$work/trace.json"
