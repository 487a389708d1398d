#!/bin/sh
# SPDX-License-Identifier: MIT
# pftrace_fixture.sh UART_STREAM MABUTRACE TRACE EXPECT: the fixture for
# tests/format/check_pftrace.py: a runtime stream (examples/uart_stream into
# a file) converted by `mabutrace convert` to TRACE (.pftrace), and what
# check_pftrace.py must find in it, in EXPECT.
set -eu
uart_stream=$1 mabutrace=$2 trace=$3 expect=$4
items=50
bin="$trace.bin"
"$uart_stream" "$bin" --items $items
"$mabutrace" convert "$bin" -o "$trace" --format pftrace
"$mabutrace" convert "$bin" -o "$trace.json" --format json  # compared event by event
rm -f "$bin"
values=$(seq -s, 0 $((items - 1)))
cat > "$expect" <<JSON
{"names": ["produce", "consume", "send", "recv", "done"],
 "json": "$trace.json",
 "threads": ["main", "worker \u2713"],
 "flows": $items,
 "counters": {"produced": [$values]}}
JSON
