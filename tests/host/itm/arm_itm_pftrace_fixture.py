#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""arm_itm_pftrace_fixture.py MABUTRACE SNAPSHOT TRACE EXPECT: the fixture for
tests/format/check_pftrace.py (real protoc, then the replay check): `mabutrace
arm export SNAPSHOT` to TRACE (.pftrace) and TRACE.json, and what must be in
them. The snapshot's ITM sources must be on the timeline in a process of their
own, named for the source and its trace ID, with one stimulus instant per
software stimulus write and one "ITM overflow" per overflow flag that
`mabutrace itm decode --format jsonl` of the same snapshot lists (counted
here, not written down), beside the ETMv3/PTM process when there is one.
Exit 0: TRACE and EXPECT written and the counts equal."""
import collections
import json
import subprocess
import sys

mabutrace, snap, trace, expect = sys.argv[1:5]
for out in (trace, trace + ".json"):
    subprocess.run([mabutrace, "arm", "export", snap, "-o", out], check=True)
dec = subprocess.run([mabutrace, "itm", "decode", snap, "--format", "jsonl"], check=True, capture_output=True,
                     text=True).stdout
want = collections.Counter()
sources = set()
for line in dec.splitlines():
    e = json.loads(line)
    sources.add(e["source"])
    if e.get("overflow"):
        want["ITM overflow"] += 1
    if e.get("itm") == "swit":
        want[f"ITM port {e['channel']} 0x{int(e['value'], 16):0{2 * e['size']}x}"] += 1

with open(trace + ".json") as f:
    doc = json.load(f)
events = doc["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"}
itm_pids = [pid for pid, name in procs.items() if name.startswith("ITM ")]
problems = []
if len(itm_pids) != 1:
    problems.append(f"expected one ITM process, got {procs}")
else:
    pid = itm_pids[0]
    for s in sources:
        if f"{s} (trace ID 0x" not in procs[pid]:
            problems.append(f"ITM process {procs[pid]!r} does not name source {s} and its trace ID")
    tids = {e["tid"]: e["args"]["name"] for e in events
            if e.get("ph") == "M" and e["name"] == "thread_name" and e["pid"] == pid}
    stim = {t for t, n in tids.items() if n.endswith(" stimulus")}
    got = collections.Counter(e["name"] for e in events
                              if e.get("pid") == pid and e.get("tid") in stim and e.get("ph") in ("i", "I"))
    if got != want:
        problems.append(f"ITM stimulus instants {dict(got)} != itm decode's {dict(want)}")
if not str(doc.get("metadata", {}).get("itm.clock", "")).startswith(("own:", "shared:")):
    problems.append(f"no itm.clock in the metadata: {doc.get('metadata')}")
for p in problems:
    print("FAIL:", p)
if problems:
    sys.exit(1)
print(f"ITM process {procs[itm_pids[0]]!r}: {sum(want.values())} stimulus instants, as itm decode lists them")
threads = [f"{s} {t}" for s in sorted(sources) for t in ("stimulus", "ISR (cpu 0)", "DWT")]
other = [n for e in events if e.get("ph") == "M" and e["name"] == "thread_name" and e["pid"] != itm_pids[0]
         for n in [e["args"]["name"]]]
with open(expect, "w") as f:
    json.dump({"names": sorted(want), "json": trace + ".json", "threads": threads + other[:2], "flows": 0,
               "counters": {}, "processes": len(procs)}, f)
