#!/bin/sh
# SPDX-License-Identifier: MIT
# itm_pftrace_fixture.sh MABUTRACE TRACE EXPECT: the fixture for
# tests/format/check_pftrace.py: a raw SWO byte stream (as a USB-UART adapter
# records it, starting 2 bytes into a packet) exported by `mabutrace itm
# export` to TRACE (.pftrace) and TRACE.json, and what must be in them.
set -eu
mabutrace=$1 trace=$2 expect=$3
swo="$trace.swo"
# Leftover 0x34 0x04, SysTick entered, IRQ0 entered, TS +3, IRQ0 exited,
# returned to SysTick, SysTick exited, returned to thread, TS +4, channel 1 =
# 10 and 20, "hi\n" on channel 0, PC sample 0x08000100, DWT CPI wrap, TS +2.
printf '\064\004\016\017\020\016\020\020\060\016\020\040\016\017\060\016\017\040\016\000\060\100' > "$swo"
printf '\012\012\000\011\024\001h\001i\001\n\027\000\001\000\010\005\001\040' >> "$swo"
"$mabutrace" itm export "$swo" -o "$trace" --clock-hz 1000000 --port 1=counter:level --port 0=text:stdout
"$mabutrace" itm export "$swo" -o "$trace.json" --clock-hz 1000000 --port 1=counter:level --port 0=text:stdout
rm -f "$swo"
cat > "$expect" <<JSON
{"names": ["SysTick", "IRQ0", "stdout: hi"],
 "json": "$trace.json",
 "threads": ["SWO stimulus", "SWO ISR (cpu 0)", "SWO DWT"],
 "flows": 0,
 "counters": {"level": [10, 20], "DWT CPI wraps": [1]}}
JSON
