#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# demo_timeline.sh BUILD OUT [SECONDS]: what `make demo-timeline` runs. One
# Perfetto timeline of three sources the repository produces itself (no
# ../shared):
#   software  the instrumented pipeline demo (examples/pipeline), SECONDS
#             (default 2) of threads, queues, a timer "ISR" and counters;
#   core      a decoded ETE trace: the ETE packet generator (host/ete_gen)
#             tracing the small A64 program tests/host/ete_gen/call_graph.S
#             (assembled by the build with Debian's aarch64 binutils), its
#             timestamps slowed to 2 ms an instruction so the calls can be
#             seen next to the software, named by function with --elf;
#   bus       a CP_Tracer simulation (examples/cptracer/
#             workload_dma_contention.ini): bandwidth, contention, latency
#             counters per tracer, event messages per bus master.
# The three are unrelated simulations, so nothing relates their clocks:
# they are placed with --offset (merge's flag path; sync points are shown
# in docs/merge.md). Writes OUT/timeline.pftrace and OUT/timeline.json and
# prints the merge's placement lines and a stats summary.
set -euo pipefail
build=${1:?usage: demo_timeline.sh BUILD OUT [SECONDS]}
out=${2:?usage: demo_timeline.sh BUILD OUT [SECONDS]}
secs=${3:-2}
src=$(cd "$(dirname "$0")/.." && pwd)
cli=$build/tools/mabutrace/mabutrace
demo=$build/examples/pipeline/mabutrace-pipeline-demo
elf=$build/tests/host/ete_gen/call_graph.elf
for f in "$cli" "$demo" "$elf"; do
  [ -e "$f" ] || { echo "demo_timeline.sh: $f not built (make demo-timeline builds it; the ELF needs gcc-aarch64-linux-gnu)" >&2; exit 2; }
done
rm -rf "$out"
mkdir -p "$out"

echo "== software: the pipeline demo for $secs s"
"$demo" --seconds "$secs" --port 0 --bind 127.0.0.1 --out "$out/software" >"$out/software.log"
tail -n 3 "$out/software.log"

echo "== core: ETE trace of call_graph.S"
sed 's/^timestamp [^#]*/timestamp 3 0x10000000 200000 /' "$src/tests/host/ete_gen/call_graph.run" >"$out/call_graph.run"
"$cli" ete generate --elf "$elf" --script "$out/call_graph.run" -o "$out/core"

echo "== bus: CP_Tracer simulation"
"$cli" cptracer simulate "$src/examples/cptracer/workload_dma_contention.ini" -o "$out/bus"

echo "== merge"
merge=("$cli" merge software="$out/software/trace.pftrace" core="$out/core" bus="$out/bus" --elf core="$elf"
  --offset core=300ms --offset bus=800ms)
"${merge[@]}" -o "$out/timeline.pftrace" 2>&1 | grep '^mabutrace: merge: .*: \(the reference\|flags\|sync\)' || true
"${merge[@]}" -o "$out/timeline.json" 2>/dev/null
echo "== the ten slices with the most time (mabutrace stats)"
"$cli" stats "$out/timeline.pftrace" --top 1 -o "$out/stats.txt"
head -n 11 "$out/stats.txt" | cut -c1-100
echo "wrote $out/timeline.pftrace (open it in https://ui.perfetto.dev) and $out/timeline.json"
