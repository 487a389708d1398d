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
source "$(dirname "$0")/rss_common.sh" stats_rss.sh "$build"
"$gen" "$dir/big.bin" "$mib"
bytes=$(stat -c %s "$dir/big.bin")
echo "input: $bytes bytes ($(nproc) CPUs, $(uname -m))"
rss_run "stats (json report)" "$bytes" "$cli" stats "$dir/big.bin" -o "$dir/stats.json"
rss_run "convert -> .pftrace" "$bytes" "$cli" convert "$dir/big.bin" -o "$dir/big.pftrace"
echo ".pftrace: $(stat -c %s "$dir/big.pftrace") bytes"
rss_run "stats of the .pftrace" "$bytes" "$cli" stats "$dir/big.pftrace" -o "$dir/stats2.json"
python3 - "$dir/stats.json" "$dir/stats2.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
same = all(a[k] == b[k] for k in ("slices", "flows", "counters", "instants"))
print("stream and .pftrace reports agree:", "yes" if same else "NO")
sys.exit(0 if same else 1)
PY
