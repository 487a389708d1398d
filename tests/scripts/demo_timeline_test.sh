#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# demo_timeline_test.sh BUILD CHECK_PFTRACE PROTO_DIR SCRATCH: `make
# demo-timeline`'s script end to end (1 s of the pipeline demo), then its
# .pftrace through the official schema (protoc) and the replay check,
# against its .json: the three sources as processes, each with its clock
# declared, the software's and the core's slices both there.
set -euo pipefail
build=$1 check=$2 proto=$3 scratch=$4
here=$(cd "$(dirname "$0")/../.." && pwd)
bash "$here/scripts/demo_timeline.sh" "$build" "$scratch" 1
counts=$(python3 - "$scratch/timeline.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
names = {e["pid"]: e["args"]["name"] for e in doc["traceEvents"] if e.get("ph") == "M" and e.get("name") == "process_name"}
for want in ("software", "core: ETE", "bus: CP_Tracer", "bus: Bus masters"):
    if not any(n.startswith(want) for n in names.values()):
        sys.exit(f"no process '{want}...' in {sorted(names.values())}")
starts = {e["id"] for e in doc["traceEvents"] if e.get("ph") == "s"}
ends = {e["id"] for e in doc["traceEvents"] if e.get("ph") == "f"}
print(len(names), len(starts & ends))
PY
)
read -r processes flows <<<"$counts"
cat >"$scratch/expect.json" <<JSON
{"names": ["timer_isr", "f", "g"], "threads": [], "flows": $flows, "counters": {},
 "processes": $processes, "input_clocks": 3, "json": "$scratch/timeline.json"}
JSON
python3 "$check" --trace "$scratch/timeline.pftrace" --expect "$scratch/expect.json" --proto-dir "$proto"
