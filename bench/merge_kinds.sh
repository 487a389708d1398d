#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# merge_kinds.sh: `mabutrace merge` throughput per input kind (issue 21),
# each beside the command that reads the same kind alone, in the same run:
# MB/s of input and peak RSS (GNU time). Inputs made here:
#   stream    mabutrace_stream_gen (MIB MiB), and its .pftrace (convert)
#   arm       the ETE generator tracing tests/host/ete_gen/call_graph.S
#             through ~ITER loop iterations (function slices, --elf)
#   cptracer  the simulator on examples/cptracer/workload_dma_contention.ini
#             with its windows multiplied
#   itm       a raw SWO stream: ITM exception trace, stimulus writes and
#             timestamps, repeated (--kind itm)
# A merge reads each input twice (docs/merge.md); an arm input is decoded
# twice per read.
#
#   bench/merge_kinds.sh BUILD_DIR [MIB] [ITER]   (defaults 256, 1000000)
set -euo pipefail
build=${1:?usage: merge_kinds.sh BUILD_DIR [MIB] [ITER]}
mib=${2:-256}
iter=${3:-1000000}
src=$(cd "$(dirname "$0")/.." && pwd)
source "$src/bench/rss_common.sh" merge_kinds.sh "$build"
elf=$build/tests/host/ete_gen/call_graph.elf
echo "($(nproc) CPUs, $(uname -m))"

"$gen" "$dir/a.bin" "$mib" >/dev/null
bytes=$(stat -c %s "$dir/a.bin")
rss_run "stream: convert -> .pftrace" "$bytes" "$cli" convert "$dir/a.bin" -o "$dir/a.pftrace"
rss_run "stream: merge" "$bytes" "$cli" merge "$dir/a.bin" -o "$dir/m.pftrace"
pbytes=$(stat -c %s "$dir/a.pftrace")
rss_run ".pftrace: convert -> .pftrace" "$pbytes" "$cli" convert "$dir/a.pftrace" -o "$dir/b.pftrace"
rss_run ".pftrace: merge" "$pbytes" "$cli" merge "$dir/a.pftrace" -o "$dir/m.pftrace"
rm -f "$dir"/*.pftrace "$dir/a.bin"

if [ -e "$elf" ]; then
  python3 - "$iter" >"$dir/big.run" <<'PY'
import sys
n = int(sys.argv[1])
print("start _start\nstop start_done")
print("cond main_loop_br " + "T" * (n - 1) + "N")
print("cond g_loop_br " + "TTN N " * n)
print("indirect main_call_h h\nexception h_svc_return call el1_sync")
print("timestamp 64 0x10000000 5\ntimestamp_hz 100000000\natoms_per_packet 3\nmax_instructions 1000000000")
PY
  "$cli" ete generate --elf "$elf" --script "$dir/big.run" -o "$dir/snap" >/dev/null
  rm -f "$dir/snap/generated_path.txt"
  abytes=$(stat -c %s "$dir/snap/session1.bin")
  rss_run "arm: ete export --elf" "$abytes" "$cli" ete export "$dir/snap" --elf "$elf" -o "$dir/e.pftrace"
  rss_run "arm: merge --elf" "$abytes" "$cli" merge "$dir/snap" --elf "snap=$elf" -o "$dir/m.pftrace"
  rm -rf "$dir/snap" "$dir"/*.pftrace
else
  echo "arm: skipped ($elf not built: needs gcc-aarch64-linux-gnu)"
fi

sed 's/^windows = .*/windows = 400/' "$src/examples/cptracer/workload_dma_contention.ini" >"$dir/w.ini"
"$cli" cptracer simulate "$dir/w.ini" -o "$dir/sim" >/dev/null
cbytes=$(stat -c %s "$dir/sim/stm.bin")
rss_run "cptracer: cptracer export" "$cbytes" "$cli" cptracer export "$dir/sim" -o "$dir/c.pftrace"
rss_run "cptracer: merge" "$cbytes" "$cli" merge "$dir/sim" -o "$dir/m.pftrace"
rm -rf "$dir/sim" "$dir"/*.pftrace

# SysTick entered, TS, SysTick exited, returned to thread, 2 on port 1, TS.
python3 -c "import sys; sys.stdout.buffer.write(b'\x0e\x0f\x10\x30\x0e\x0f\x20\x0e\x00\x30\x09\x02\x40' * (4 << 20))" >"$dir/cm.swo"
ibytes=$(stat -c %s "$dir/cm.swo")
rss_run "itm: itm export" "$ibytes" "$cli" itm export "$dir/cm.swo" -o "$dir/i.pftrace"
rss_run "itm: merge --kind itm" "$ibytes" "$cli" merge "$dir/cm.swo" --kind cm=itm -o "$dir/m.pftrace"
