#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench_decoders.sh BUILD [--quick]: every decoder benchmark that runs us
# and OpenCSD (Debian libopencsd) on the same input in one process, one
# after the other, each printing both throughputs and the ratio
# (docs/performance.md says how to read them). `make bench-decoders`.
#
#   ETE packets     bench/ete/compare_ete.py (3 runs of ete_packet_bench)
#   ETMv4 packets   ete_packet_bench --snapshot juno_r1_1 (framing included)
#   ETE full decode ete_decode_bench
#   ETMv4 decode    ete_decode_bench --snapshot juno_r1_1
#   STM             stm_bench, the real capture and an StpEncoder stream
#   ITM             itm_bench (ours only: OpenCSD has no ITM decoder in 1.3.3)
#
# Inputs are the shared captures (../shared/data beside the checkout); a
# benchmark whose captures are missing is skipped with a line naming them.
# --quick: 1 MiB inputs, one repetition (a smoke run: the numbers mean
# nothing). Exit status: non-zero if a benchmark failed to run.
set -euo pipefail

usage() {
  echo "usage: $0 BUILD_DIR [--quick]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
build=$1
quick=0
[ "${2:-}" = "--quick" ] && quick=1
bench=$build/bench
[ -d "$bench" ] || {
  echo "bench_decoders: $bench is missing: build first (make build, benchmarks on)" >&2
  exit 2
}
shared=$(cd "$(dirname "$0")/.." && pwd)/../shared/data
mib=64 repeat=5 runs=3
[ $quick = 1 ] && mib=1 repeat=1 runs=1

have() { # NAME PATH...: the captures and binaries exist, else say what is missing
  local name=$1
  shift
  for p in "$@"; do
    if [ ! -e "$p" ]; then
      echo "== $name: skipped, missing $p"
      return 1
    fi
  done
}

echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
if have "ETE packets vs OpenCSD" "$shared/ete-snapshots" "$bench/ete/ete_packet_bench"; then
  echo "== ETE packets vs OpenCSD ($mib MiB)"
  python3 "$(dirname "$0")/../bench/ete/compare_ete.py" --bench "$bench/ete/ete_packet_bench" \
    --min-mib "$mib" --repeat "$repeat" --runs "$runs" --target 0
fi
if have "ETMv4 packets vs OpenCSD" "$shared/arm-trace-snapshots/juno_r1_1" "$bench/ete/ete_packet_bench"; then
  echo "== ETMv4 packets vs OpenCSD (juno_r1_1: six sources behind a CoreSight formatter, $mib MiB)"
  "$bench/ete/ete_packet_bench" --snapshot "$shared/arm-trace-snapshots/juno_r1_1" --min-mib "$mib" --repeat "$repeat"
fi
if have "ETE full decode vs OpenCSD" "$shared/ete-snapshots" "$bench/ete_decode/ete_decode_bench"; then
  echo "== ETE full decode vs OpenCSD ($mib MiB)"
  "$bench/ete_decode/ete_decode_bench" --min-mib "$mib" --repeat "$repeat"
fi
if have "ETMv4 full decode vs OpenCSD" "$shared/arm-trace-snapshots/juno_r1_1" "$bench/ete_decode/ete_decode_bench"; then
  echo "== ETMv4 full decode vs OpenCSD (juno_r1_1, framed, kernel image; $mib MiB)"
  "$bench/ete_decode/ete_decode_bench" --snapshot "$shared/arm-trace-snapshots/juno_r1_1" --min-mib "$mib" \
    --repeat "$repeat"
fi
if have "STM capture vs OpenCSD" "$shared/stm-snapshots" "$bench/stm/stm_bench"; then
  echo "== STM (real capture, CoreSight-framed) vs OpenCSD ($mib MiB)"
  "$bench/stm/stm_bench" --input capture --min-mib "$mib" --repeat "$repeat"
fi
if have "STM StpEncoder stream vs OpenCSD" "$bench/stm/stm_bench"; then
  echo "== STM (StpEncoder stream, CoreSight-framed) vs OpenCSD ($mib MiB)"
  "$bench/stm/stm_bench" --input synthetic --min-mib "$mib" --repeat "$repeat"
fi
if have "ITM" "$shared/arm-trace-snapshots/itm_only_raw" "$bench/itm/itm_bench"; then
  echo "== ITM packets and full decode ($mib MiB; no peer)"
  "$bench/itm/itm_bench" --min-mib "$mib" --repeat "$repeat"
fi
