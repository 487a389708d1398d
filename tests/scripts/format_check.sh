#!/bin/sh
# SPDX-License-Identifier: MIT
# format_check.sh ROOT CLANG_FORMAT: every C/C++ file of the tree follows
# .clang-format (vendored fakes and stubs of other projects' APIs aside).
# Prints each file that does not, with the fix; exit 0 = all follow it.
set -u
root=$1 cf=$2
cd "$root" || exit 2
bad=0 n=0
for f in $(git ls-files '*.c' '*.cc' '*.cpp' '*.h' | grep -Ev '^tests/port/(freertos/fake|arduino/core)/'); do
  n=$((n + 1))
  if ! "$cf" --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f (clang-format -i $f)"
    bad=$((bad + 1))
  fi
done
echo "format: $n files, $bad not following .clang-format"
[ "$bad" -eq 0 ]
