#!/bin/sh
# SPDX-License-Identifier: MIT
# cli_smoke.sh MABUTRACE SHARED_DIR EXAMPLES_DIR: the stm / cptracer commands
# (SHARED_DIR "": no shared captures, their part is left out)
# end to end (exit codes and key output). Fails on the first mismatch.
set -eu
M=$1; SHARED=$2; EX=$3
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$M" cptracer metrics --clock-hz 200000000 --window-cycles 1000000 --throughput0 655360 \
      --granted 160 --wait-cycles 12800 --format json)
echo "$out" | grep -q '"bandwidth_bytes_per_s":131072000,' || fail "metrics bandwidth: $out"
echo "$out" | grep -q '"avg_access_bytes":4096,' || fail "metrics size: $out"
echo "$out" | grep -q '"transactions_per_s":32000,' || fail "metrics rate: $out"
echo "$out" | grep -q '"contention_percent":1.28,' || fail "metrics contention: $out"
echo "$out" | grep -q '"min_avg_latency_cycles":80,"min_avg_latency_ns":400' || fail "metrics latency: $out"

"$M" cptracer config --clock-hz 200e6 --window-ms 10 --format json | grep -q '"SLIDING_TIME_WINDOW":"0x001E8480"' \
  || fail "10 ms window"
"$M" cptracer config --clock-hz 200e6 --window-ms 250 --format json | grep -q '"SLIDING_TIME_WINDOW":"0x02FAF080"' \
  || fail "250 ms window"
"$M" cptracer config "$EX/dma_write_bandwidth.ini" --format json | grep -q '"MASTER_ID_SELECT_C":"0x00000001"' \
  || fail "config file"
# A description's number out of its key's range: exit 1 naming the file,
# line, key and value (stm_channel was cut to 0xFFFFFFFF, exit 0).
for bad in "stm_channel = 99999999999999999999|expected an integer 0..255" \
           "clock_hz = 1e400|expected a number in 1..1e+12"; do
  printf '[tracer]\nwindow_ms = 10\n%s\n' "${bad%%|*}" >"$T/bad.ini"
  rc=0; "$M" cptracer config "$T/bad.ini" >/dev/null 2>"$T/err" || rc=$?
  [ "$rc" -eq 1 ] || fail "config ${bad%%|*}: exit $rc"
  grep -qF "$T/bad.ini:3: [tracer] ${bad%%|*}: ${bad#*|}" "$T/err" || fail "config ${bad%%|*}: $(cat "$T/err")"
done
"$M" cptracer config --decode SLIDING_TIME_WINDOW=0x00C35000 --format json | grep -q '"WINDOW":12800000' \
  || fail "decode"
if "$M" cptracer config --clock-hz 200e6 --window-ms 100000 >/dev/null 2>&1; then fail "window overflow accepted"; fi
if "$M" cptracer metrics --clock-hz 200e6 --window-cycles 1000 --window-ms 0 >/dev/null 2>"$T/err"; then
  fail "metrics --window-ms 0 accepted"
fi
grep -q "is not a number above 0" "$T/err" || fail "metrics --window-ms 0: $(cat "$T/err")"
# Frequencies: whole Hz from 1 to 1e12 (a 0.5 Hz or 1e30 Hz clock put
# every time past 2^62 ns or at 0, with exit 0).
for bad in "--ts-hz 0" "--clock-hz 0" "--clock-hz -1" "--ts-hz nan" "--clock-hz 1.5" "--ts-hz 1e30"; do
  # shellcheck disable=SC2086
  if "$M" cptracer metrics --clock-hz 200e6 --window-cycles 1000 $bad >/dev/null 2>"$T/err"; then fail "metrics $bad accepted"; fi
  grep -q "is not a whole number of Hz from 1 to 1e12" "$T/err" || fail "metrics $bad: $(cat "$T/err")"
done

# A real capture, when the shared captures are there (else this part is
# the separate, skipped test cptracer_cli_smoke_capture).
if [ -n "$SHARED" ]; then
  n=$("$M" stm packets "$SHARED/data/stm-snapshots/stm_only-2" --format jsonl | wc -l)
  [ "$n" -eq 389 ] || fail "stm packets stm_only-2: $n lines"
  n=$("$M" stm decode "$SHARED/data/stm-snapshots/stm_only-2" --format jsonl | grep -c '"master":65')
  [ "$n" -eq 192 ] || fail "stm decode stm_only-2: $n"
  # A capture with damaged frames (reserved trace IDs): its packets are
  # listed on, each damaged frame named with its offset, and exit 1.
  if "$M" stm packets "$SHARED/data/stm-snapshots/stm_only-juno" --format jsonl >"$T/juno" 2>"$T/err"; then
    fail "stm packets stm_only-juno: damaged frames, exit 0"
  fi
  [ "$(wc -l <"$T/juno")" -gt 100 ] || fail "stm packets stm_only-juno: $(wc -l <"$T/juno") lines"
  grep -q "reserved trace ID 0x70 at input offset 508" "$T/err" || fail "stm_only-juno: $(head -2 "$T/err")"
fi

"$M" cptracer simulate "$EX/workload_dma_contention.ini" -o "$T/sim" >/dev/null || fail simulate
"$M" cptracer decode "$T/sim" | grep -q '"overflow":true' || fail "no O bit in the simulated capture"
"$M" cptracer metrics "$T/sim/stm.bin" --clock-hz 200e6 --window-cycles 1000000 --format json | grep -q '"window":7,' \
  || fail "metrics from capture"
"$M" cptracer export "$T/sim" -o "$T/out.json" --window-cycles 1000000 2>/dev/null || fail export
grep -q '"bandwidth_bytes_per_s"' "$T/out.json" || fail "export counters"
"$M" cptracer export "$T/sim" -o "$T/out.pftrace" --window-cycles 1000000 2>/dev/null || fail "export pftrace"
[ -s "$T/out.pftrace" ] || fail "empty pftrace"
# A capture cut mid-frame: exported as far as it goes, exit 1, and the file
# itself says what the reader found.
cp -r "$T/sim" "$T/cut"; head -c 1000 "$T/sim/stm.bin" > "$T/cut/stm.bin"
if "$M" cptracer export "$T/cut" -o "$T/cut.json" --window-cycles 1000000 2>/dev/null; then fail "cut capture exit 0"; fi
grep -q '"cptracer.capture_problems":1' "$T/cut.json" || fail "cut capture: no cptracer.capture_problems"
grep -q '"cptracer.capture_error":"incomplete frame at end of input' "$T/cut.json" || fail "cut capture: no capture_error"
if "$M" stm packets "$T/nonexistent" >/dev/null 2>&1; then fail "missing capture accepted"; fi
# An unreadable --layout is bad input (exit 1) named with the reason.
"$M" cptracer simulate "$EX/workload_dma_contention.ini" -o "$T/sim2" >/dev/null || fail "simulate for --layout"
rc=0
"$M" cptracer decode "$T/sim2" --layout "$T/nonexistent.ini" >/dev/null 2>"$T/err" || rc=$?
[ "$rc" -eq 1 ] || fail "unreadable --layout: exit $rc"
grep -q "nonexistent.ini: cannot open: No such file or directory" "$T/err" || fail "--layout: $(cat "$T/err")"
# A TI .dcm whose .bin is missing: the .bin is named as every missing file
# is (tools/mabutrace/cli_io.h), exit 1; the .dcm's text is not raw STP.
mkdir "$T/nobin"; cp "$T/sim/stm.dcm" "$T/nobin/"
for cmd in "stm packets" "stm decode" "cptracer decode"; do
  # shellcheck disable=SC2086
  if "$M" $cmd "$T/nobin/stm.dcm" >/dev/null 2>"$T/err"; then fail "$cmd of a .dcm without its .bin exited 0"; fi
  grep -qxF "mabutrace: $T/nobin/stm.bin: cannot open: No such file or directory" "$T/err" \
    || fail "$cmd of a .dcm without its .bin: $(cat "$T/err")"
done
# Bytes that never synchronise (no ASYNC) decode to nothing: said, exit 1.
head -c 4096 /dev/urandom > "$T/random.stp"
# Trace ID 0 is no CoreSight source ID: a usage error naming the range.
for cmd in "stm decode" "cptracer decode"; do
  rc=0
  # shellcheck disable=SC2086
  "$M" $cmd "$T/random.stp" --trace-id 0 >/dev/null 2>"$T/err" || rc=$?
  [ "$rc" -eq 2 ] || fail "$cmd --trace-id 0: exit $rc"
  grep -q "not in range 1 to 111" "$T/err" || fail "$cmd --trace-id 0: $(cat "$T/err")"
done
for cmd in "stm packets" "stm decode" "cptracer decode"; do
  # shellcheck disable=SC2086
  if "$M" $cmd "$T/random.stp" >/dev/null 2>"$T/err"; then fail "$cmd of random bytes exited 0"; fi
  grep -q "never synchronised" "$T/err" || fail "$cmd of random bytes: $(cat "$T/err")"
done
echo ok

# An export that fails after its output was opened (a capture whose STM
# bytes are gone: no FREQ, so nothing to place the messages on) leaves no
# OUT, and an OUT from before stays (ExportTo writes OUT.tmp, renames at the end).
cp -r "$T/sim" "$T/nofreq"; : > "$T/nofreq/stm.bin"
echo before > "$T/keep.json"
if "$M" cptracer export "$T/nofreq" -o "$T/keep.json" 2>/dev/null; then fail "export of an empty capture succeeded"; fi
[ "$(cat "$T/keep.json")" = before ] || fail "a failed export changed the OUT from before"
[ ! -e "$T/keep.json.tmp" ] || fail "a failed export left OUT.tmp"
