#!/bin/sh
# SPDX-License-Identifier: MIT
# itm_swo_capture_test.sh MABUTRACE: the SWO recipe of docs/itm.md end to
# end. `mabutrace capture --serial` records an SWO byte stream (here from a
# FIFO, which capture reads as is and which ends the capture when the writer
# closes it: no timing involved) that starts 2 bytes into a packet, then
# `mabutrace itm decode` lists its elements from the first plausible header.
set -eu
mabutrace=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkfifo "$tmp/swo"
"$mabutrace" capture --serial "$tmp/swo" -o "$tmp/swo.bin" &
capture=$!
# Leftover 0x34 0x04, SWIT port 1 'A', SWIT port 1 "BC", local TS +3.
printf '\064\004\011A\012BC\060' > "$tmp/swo"
wait $capture
"$mabutrace" itm decode "$tmp/swo.bin" > "$tmp/out.txt" 2> "$tmp/err.txt"
grep -v '^#' "$tmp/out.txt" > "$tmp/elements.txt"
cat > "$tmp/want.txt" <<'TXT'
Idx:2; ID:0; OCSD_GEN_TRC_ELEM_ITMTRACE(ITM_SWIT (ch: 0x1; Data: 0x41) )
Idx:4; ID:0; OCSD_GEN_TRC_ELEM_ITMTRACE(ITM_SWIT (ch: 0x1; Data: 0x4342) )
Idx:7; ID:0; OCSD_GEN_TRC_ELEM_ITMTRACE(ITM_TS_LOCAL ( TS delta: 0x00000003, { TS Sync}; TS cumulative: 0x0000000000000003) )
Idx:7; ID:0; OCSD_GEN_TRC_ELEM_EO_TRACE( [end-of-trace])
TXT
diff "$tmp/want.txt" "$tmp/elements.txt"
grep -q 'warning: SWO: byte 0: skipped 2 bytes before the first plausible ITM header' "$tmp/err.txt" || {
  echo "missing the skipped-bytes warning; stderr was:"; cat "$tmp/err.txt"; exit 1; }
echo "ok: capture --serial -> itm decode"
