#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# merge_rss.sh: `mabutrace merge` of two large binary streams (and, beside
# it in the same run, `mabutrace convert` of one of them, the floor a merge
# cannot beat per pass): MB/s of total input and peak RSS (GNU time), to
# show memory is bounded by the tables (names, threads, open slices), not
# the input (issue 21). A merge reads every input twice (docs/merge.md).
#
#   bench/merge_rss.sh BUILD_DIR [MIB_EACH]   (default 512 MiB each; needs /usr/bin/time)
set -euo pipefail
build=${1:?usage: merge_rss.sh BUILD_DIR [MIB_EACH]}
mib=${2:-512}
cli=$build/tools/mabutrace/mabutrace
gen=$build/bench/mabutrace_stream_gen
for f in "$cli" "$gen" /usr/bin/time; do [ -x "$f" ] || { echo "merge_rss.sh: $f not found" >&2; exit 2; }; done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$gen" "$dir/a.bin" "$mib"
"$gen" "$dir/b.bin" "$mib"
one=$(stat -c %s "$dir/a.bin")
both=$((one + $(stat -c %s "$dir/b.bin")))
run() {  # label, input bytes, command...
  local label=$1 bytes=$2; shift 2
  /usr/bin/time -f '%e %M' -o "$dir/time" "$@" >/dev/null 2>"$dir/err" || { cat "$dir/err" >&2; exit 1; }
  read -r secs kib <"$dir/time"
  awk -v l="$label" -v b="$bytes" -v s="$secs" -v k="$kib" \
    'BEGIN { printf "%-30s %8.1f MB/s of input  peak RSS %7.1f MiB  (%.2f s)\n", l, b / 1e6 / s, k / 1024, s }'
}
echo "input: 2 x $one bytes ($(nproc) CPUs, $(uname -m))"
run "convert a -> .pftrace" "$one" "$cli" convert "$dir/a.bin" -o "$dir/a.pftrace"
rm -f "$dir/a.pftrace"
run "merge a b -> .pftrace" "$both" "$cli" merge "$dir/a.bin" "$dir/b.bin" -o "$dir/m.pftrace"
echo "merged .pftrace: $(stat -c %s "$dir/m.pftrace") bytes"
