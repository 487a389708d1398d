#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stats_rss.sh: `mabutrace stats` (and, beside it in the same run,
# `mabutrace convert` to .pftrace) on one large binary stream: MB/s of input
# and peak RSS (GNU time), to show memory is bounded by the names, not the
# input (issue 19).
#
#   bench/stats_rss.sh BUILD_DIR [MIB]     (default 1024 MiB; needs /usr/bin/time)
set -euo pipefail
build=${1:?usage: stats_rss.sh BUILD_DIR [MIB]}
mib=${2:-1024}
cli=$build/tools/mabutrace/mabutrace
gen=$build/bench/mabutrace_stream_gen
for f in "$cli" "$gen" /usr/bin/time; do [ -x "$f" ] || { echo "stats_rss.sh: $f not found" >&2; exit 2; }; done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$gen" "$dir/big.bin" "$mib"
bytes=$(stat -c %s "$dir/big.bin")
run() {  # label, command...
  local label=$1; shift
  /usr/bin/time -f '%e %M' -o "$dir/time" "$@" >/dev/null
  read -r secs kib <"$dir/time"
  awk -v l="$label" -v b="$bytes" -v s="$secs" -v k="$kib" \
    'BEGIN { printf "%-28s %8.1f MB/s of input  peak RSS %7.1f MiB  (%.2f s)\n", l, b / 1e6 / s, k / 1024, s }'
}
echo "input: $bytes bytes ($(nproc) CPUs, $(uname -m))"
run "stats (json report)" "$cli" stats "$dir/big.bin" -o "$dir/stats.json"
run "convert -> .pftrace" "$cli" convert "$dir/big.bin" -o "$dir/big.pftrace"
echo ".pftrace: $(stat -c %s "$dir/big.pftrace") bytes"
run "stats of the .pftrace" "$cli" stats "$dir/big.pftrace" -o "$dir/stats2.json"
python3 - "$dir/stats.json" "$dir/stats2.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
same = all(a[k] == b[k] for k in ("slices", "flows", "counters", "instants"))
print("stream and .pftrace reports agree:", "yes" if same else "NO")
sys.exit(0 if same else 1)
PY
