#!/bin/sh
# SPDX-License-Identifier: MIT
# ete_gen_cli_test.sh MABUTRACE ELF OTHER_ELF RUN CHECK_PFTRACE PROTO_DIR WORK:
# `mabutrace ete generate` then `ete export --elf` to a .pftrace checked by
# check_pftrace.py (protoc, balance, names, threads); then the bad inputs: a
# missing ELF (error naming it) and an ELF linked elsewhere (error, nothing
# written). Exit 77 (skipped) without the aarch64 toolchain.
set -u
mabutrace=$1 elf=$2 other=$3 run=$4 check=$5 proto=$6 work=$7
if [ -z "$elf" ]; then
  echo "SKIP: aarch64-linux-gnu-gcc not found at configure time (scripts/install-deps.sh): no program to trace"
  exit 77
fi
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
rm -rf "$work" && mkdir -p "$work"
snap="$work/snap"
"$mabutrace" ete generate --elf "$elf" --script "$run" -o "$snap" || fail "ete generate"
"$mabutrace" ete decode "$snap" > "$work/decode.txt" || fail "ete decode"
grep -q "OCSD_GEN_TRC_ELEM_EXCEPTION" "$work/decode.txt" || fail "decode: no exception element"
# OpenCSD's own lister (Debian libopencsd-bin), when installed, must decode
# the generated snapshot to the same elements, line for line.
if command -v trc_pkt_lister > /dev/null 2>&1; then
  trc_pkt_lister -ss_dir "$snap" -decode -logstdout 2>&1 | grep "OCSD_GEN_TRC_ELEM" > "$work/lister.txt"
  grep "OCSD_GEN_TRC_ELEM" "$work/decode.txt" > "$work/ours.txt"
  [ -s "$work/lister.txt" ] || fail "trc_pkt_lister: no element"
  diff "$work/lister.txt" "$work/ours.txt" > "$work/lister.diff" || fail "trc_pkt_lister differs: $(head -5 "$work/lister.diff")"
  echo "trc_pkt_lister: $(wc -l < "$work/lister.txt") elements, the same"
else
  echo "note: trc_pkt_lister (libopencsd-bin) not installed: no OpenCSD cross-check"
fi

"$mabutrace" ete export "$snap" --elf "$elf" -o "$work/out.pftrace" || fail "ete export --elf"
cat > "$work/expect.json" <<JSON
{"names": ["_start", "main", "f", "g", "h", "exception Call", "el1_sync"],
 "threads": ["cpu_0 (ETE_0_s1)"], "flows": 0, "counters": {}}
JSON
python3 "$check" --trace "$work/out.pftrace" --expect "$work/expect.json" --proto-dir "$proto" || fail "check_pftrace"

# `mabutrace stats` of the snapshot: per-function instruction counts equal
# the decode's executed ranges attributed by the ELF's symbol sizes (nm).
"$mabutrace" stats "$snap" --elf "$elf" --format json -o "$work/stats.json" || fail "stats of the snapshot"
"$mabutrace" ete decode "$snap" --format jsonl > "$work/decode.jsonl" || fail "ete decode --format jsonl"
if command -v aarch64-linux-gnu-nm > /dev/null 2>&1; then
  aarch64-linux-gnu-nm -S "$elf" > "$work/nm.txt"
  python3 - "$work/stats.json" "$work/decode.jsonl" "$work/nm.txt" <<'PY' || fail "stats: function instructions"
import json, sys
stats = json.load(open(sys.argv[1]))
funcs = []
for line in open(sys.argv[3]):
    parts = line.split()
    if len(parts) == 4 and parts[2] in "tT":
        funcs.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
want = {}
for line in open(sys.argv[2]):
    e = json.loads(line)
    if e.get("elem") != "instr_range":
        continue
    start = int(e["start"], 16) if isinstance(e["start"], str) else e["start"]
    name = next((n for a, size, n in funcs if a <= start < a + size), "(no symbol)")
    want[name] = want.get(name, 0) + e["num_instr"]
got = {f["key"]: f["instructions"] for f in stats["functions"]}
if got != want:
    sys.exit(f"stats {got} != decode by symbol {want}")
total = {f["key"]: f["instructions_total"] for f in stats["functions"]}
if total["_start"] != sum(want.values()):
    sys.exit(f"_start's total {total['_start']} != every instruction {sum(want.values())}")
print(f"stats: {sum(want.values())} instructions in {len(want)} functions, as the decode and nm say")
PY
fi

# A missing ELF: the message names it, nothing is written.
if "$mabutrace" ete export "$snap" --elf "$work/missing.elf" -o "$work/missing.pftrace" 2> "$work/err1.txt"; then
  fail "missing ELF accepted"
fi
grep -q "missing.elf" "$work/err1.txt" || fail "missing ELF: message does not name it: $(cat "$work/err1.txt")"
[ ! -e "$work/missing.pftrace" ] || fail "missing ELF: output written"

# The program linked at 0x800000: no symbol covers the trace.
if "$mabutrace" ete export "$snap" --elf "$other" -o "$work/other.pftrace" 2> "$work/err2.txt"; then
  fail "mismatching ELF accepted"
fi
grep -q "does not match" "$work/err2.txt" || fail "mismatching ELF: $(cat "$work/err2.txt")"
grep -q "call_graph_at_8m.elf" "$work/err2.txt" || fail "mismatching ELF: not named"
[ ! -e "$work/other.pftrace" ] || fail "mismatching ELF: output written"
# ...but at its load address (FILE@ADDR: the first segment at 0x3f0000) it matches.
"$mabutrace" ete export "$snap" --elf "$other@0x3f0000" -o "$work/at.json" || fail "FILE@ADDR"
grep -q '"name":"el1_sync"' "$work/at.json" || fail "FILE@ADDR: no el1_sync slice"

[ $fails -eq 0 ] && echo "ete_gen_cli: all checks passed"
exit $fails
