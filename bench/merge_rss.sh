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
source "$(dirname "$0")/rss_common.sh" merge_rss.sh "$build"
"$gen" "$dir/a.bin" "$mib"
"$gen" "$dir/b.bin" "$mib"
one=$(stat -c %s "$dir/a.bin")
both=$((one + $(stat -c %s "$dir/b.bin")))
echo "input: 2 x $one bytes ($(nproc) CPUs, $(uname -m))"
rss_run "convert a -> .pftrace" "$one" "$cli" convert "$dir/a.bin" -o "$dir/a.pftrace"
rm -f "$dir/a.pftrace"
rss_run "merge a b -> .pftrace" "$both" "$cli" merge "$dir/a.bin" "$dir/b.bin" -o "$dir/m.pftrace"
echo "merged .pftrace: $(stat -c %s "$dir/m.pftrace") bytes"
