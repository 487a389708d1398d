#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One recorded program, two ways, four files: the same trace.

Runs PROGRAM (equality_program.cpp), which records a program and writes its
binary stream and the device side's own exports (mabutrace_export_json,
mabutrace_export_perfetto); converts the stream with `mabutrace convert`
to JSON and .pftrace; decodes both .pftrace files with protoc (SCHEMA) and
replays their sequences as trace processor does (pftrace.py); then checks
that all four hold the same trace:

- the same processes and threads, with the same names;
- per thread, the same slices, instants and ends in the same order, with
  the same names, exact ns times and args (cpu, color, end flags);
- the same counters (name, ns, exact value) and the same flows (id, thread,
  ns, start or end);
- the same metadata: every key both ways know (format/trace_vocabulary.h)
  has the same value, and the keys only one reader can know are there.
The two JSON files must also be equal event for event, every field.
Exit 0 = all equal; every difference is printed.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter

import pftrace

FAILURES = []


def fail(msg):
    FAILURES.append(msg)
    print("FAIL:", msg)


pftrace.fail = fail

# Metadata keys that mean the same whichever reader made the trace.
SHARED_KEYS = ["clock_hz", "orphan_scope_ends", "open_scopes_closed", "flow_ends_without_start",
               "clock_went_backwards"]
# Keys only the device export's reader knows, and only the stream's.
DEVICE_KEYS = ["events_written", "events_overwritten", "events_dropped", "bytes_in_use",
               "buffer_size", "chunk_size", "threads", "exported_records", "scopes_too_deep",
               "flow_starts_lost_during_export", "flow_ends_unconfirmed",
               "chunks_lost_during_export", "corrupt_chunks", "http_responses_cut", "clock"]
STREAM_KEYS = ["stream_version", "stream_events", "lost_records", "dropped_records",
               "damaged_records"]
# The same quantity, counted by each reader in its own words.
SAME_MEANING = [("events_dropped", "dropped_records"), ("events_overwritten", "lost_records")]


FLOW_POINT_NAMES = ("flow_out", "flow_in")


def json_canonical(doc, semantic=False):
    """(names, per-thread events, counters, flows, metadata) of a Chrome
    JSON. semantic: JSON's own way of drawing things undone, for comparing
    with a .pftrace: a carrier slice (cat "mabutrace.flow") is the flow
    point it carries, an instant."""
    names, threads, counters, flows = {}, {}, [], Counter()
    for e in doc["traceEvents"]:
        ph, tid = e["ph"], e.get("tid")
        if ph == "M":
            names[(e["name"], tid)] = e["args"]["name"]
        elif ph in "BEi":
            ns = round(e["ts"] * 1000)
            if semantic and e.get("cat") == "mabutrace.flow":
                # A carrier slice, or a named point's instant inside a slice
                # (both in the flows' category); arrow_later is JSON's mark
                # of a point whose arrow end comes later (Perfetto: a bool
                # annotation flow_in/flow_out, dropped there).
                if ph in "Bi":
                    args = {k: v for k, v in e.get("args", {}).items() if k != "arrow_later"}
                    threads.setdefault(tid, []).append(("i", e["name"], ns, args))
                continue
            ev = (ph, e["name"], ns, e.get("args", {}))
            threads.setdefault(tid, []).append(ev if semantic else ev + (e.get("cat"),))
        elif ph == "C":
            counters.append((e["name"], round(e["ts"] * 1000), e["args"]["value"]))
        elif ph in "sf":
            flows[(ph, e["id"], tid, round(e["ts"] * 1000))] += 1
    return names, threads, sorted(counters), flows, doc["metadata"]


def pftrace_canonical(path, schema, semantic=False):
    """As json_canonical, of a .pftrace replayed as trace processor does.
    semantic: Perfetto's own way undone: an instant that only carries an
    arrow (an unnamed flow point inside a slice, or a late arrow end: no
    cpu) is the arrow alone."""
    with open(path, "rb") as f:
        packets, problems = pftrace.decode(f.read(), schema)
    for p in problems:
        fail(f"{os.path.basename(path)}: {p}")
    tracks, events = pftrace.replay(packets)
    names, threads, counters, flows, meta = {}, {}, [], Counter(), {}
    tid_of = {}
    for uuid, td in tracks.items():
        if "thread" in td:
            th = pftrace.one(td, "thread")
            tid_of[uuid] = pftrace.one(th, "tid")
            names[("thread_name", tid_of[uuid])] = pftrace.one(th, "thread_name")
        elif "process" in td:
            pr = pftrace.one(td, "process")
            if pftrace.one(pr, "process_name") is not None:
                pid = pftrace.one(pr, "pid")
                names[("process_name", pid)] = pftrace.one(pr, "process_name")
    stacks = {}
    for e in events:
        kind, tid = e["type"], tid_of.get(e["track"])
        if kind == "TYPE_COUNTER":
            name = pftrace.one(tracks[e["track"]], "name")
            counters.append((name, e["ts"], e["counter_value"]))
            continue
        if e["name"] == "mabutrace metadata":
            meta.update(e["args"])
            continue
        for fid in e["flow_ids"]:
            flows[("s", fid, tid, e["ts"])] += 1
        for fid in e["terminating_flow_ids"]:
            flows[("f", fid, tid, e["ts"])] += 1
        if kind == "TYPE_SLICE_BEGIN":
            stacks.setdefault(tid, []).append(e["name"])
            threads.setdefault(tid, []).append(("B", e["name"], e["ts"], e["args"]))
        elif kind == "TYPE_SLICE_END":
            name = stacks[tid].pop() if stacks.get(tid) else None
            threads.setdefault(tid, []).append(("E", name, e["ts"], e["args"]))
        elif kind == "TYPE_INSTANT":
            arrow_only = e["name"] in FLOW_POINT_NAMES and (stacks.get(tid) or "cpu" not in e["args"])
            if not (semantic and arrow_only):
                args = {k: v for k, v in e["args"].items() if not (semantic and k in FLOW_POINT_NAMES)}
                threads.setdefault(tid, []).append(("i", e["name"], e["ts"], args))
    return names, threads, sorted(counters), flows, meta


def compare(what, a, b, label_a, label_b, keys=None):
    """Per-part comparison of two canonical traces (keys: metadata keys to compare)."""
    na, ta, ca, fa, ma = a
    nb, tb, cb, fb, mb = b
    if na != nb:
        fail(f"{what}: names differ: {label_a} {na} vs {label_b} {nb}")
    for tid in sorted(set(ta) | set(tb), key=str):
        x, y = ta.get(tid, []), tb.get(tid, [])
        if x != y:
            k = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]), min(len(x), len(y)))
            fail(f"{what}: thread {tid} differs at event {k} of {len(x)}/{len(y)}: "
                 f"{label_a} {x[k] if k < len(x) else None} vs {label_b} {y[k] if k < len(y) else None}")
    if ca != cb:
        fail(f"{what}: counters differ: {[c for c in ca if c not in cb][:3]} vs {[c for c in cb if c not in ca][:3]}")
    if fa != fb:
        fail(f"{what}: flows differ: only in {label_a} {list((fa - fb).items())[:3]}, "
             f"only in {label_b} {list((fb - fa).items())[:3]}")
    for key in keys if keys is not None else sorted(set(ma) | set(mb)):
        if ma.get(key) != mb.get(key):
            fail(f"{what}: metadata {key}: {label_a} {ma.get(key)!r} vs {label_b} {mb.get(key)!r}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--program", required=True)
    ap.add_argument("--cli", required=True, help="the mabutrace CLI")
    ap.add_argument("--schema", required=True, help="perfetto_trace.proto (or our subset of it)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        p = lambda n: os.path.join(tmp, n)
        subprocess.run([args.program, p("s.bin"), p("device.json"), p("device.pftrace")], check=True)
        for fmt in ("json", "pftrace"):
            subprocess.run([args.cli, "convert", p("s.bin"), "-o", p("host." + fmt)], check=True)
        with open(p("device.json")) as f:
            dj_doc = json.load(f)
        with open(p("host.json")) as f:
            hj_doc = json.load(f)
        dj, hj = json_canonical(dj_doc), json_canonical(hj_doc)
        dp = pftrace_canonical(p("device.pftrace"), args.schema)
        hp = pftrace_canonical(p("host.pftrace"), args.schema)
        sem = {"dj": json_canonical(dj_doc, True), "hj": json_canonical(hj_doc, True),
               "dp": pftrace_canonical(p("device.pftrace"), args.schema, True),
               "hp": pftrace_canonical(p("host.pftrace"), args.schema, True)}

    # The program's events are all there (or the comparisons prove little).
    events = sum(len(v) for v in dj[1].values())
    if events < 20 or len(dj[2]) != 4 or sum(dj[3].values()) < 6:
        fail(f"the device JSON holds too little: {events} events, {len(dj[2])} counters, {dj[3]}")

    # Device vs host, each format.
    compare("json", dj, hj, "device", "host", SHARED_KEYS)
    compare("pftrace", dp, hp, "device", "host", SHARED_KEYS)
    # JSON vs pftrace, each side: one writer each, the same events and metadata.
    meta_keys = lambda m: sorted(set(m) - {"producer", "format_version", "packets_dropped"})
    compare("device json/pftrace", sem["dj"], sem["dp"], "json", "pftrace", meta_keys(dj[4]))
    compare("host json/pftrace", sem["hj"], sem["hp"], "json", "pftrace", meta_keys(hj[4]))
    # The JSON files event for event, every field (cat, cname, bp, s, ...).
    devs = [e for e in dj_doc["traceEvents"] if e["ph"] not in "sf"]
    hevs = [e for e in hj_doc["traceEvents"] if e["ph"] not in "sf"]
    by_tid = lambda evs: {t: [e for e in evs if e.get("tid") == t] for t in {e.get("tid") for e in evs}}
    if by_tid(devs) != by_tid(hevs):
        fail("the two JSON files differ in fields the canonical form leaves out")
    # Metadata: each reader's own keys are there; the same quantities agree.
    for key in DEVICE_KEYS:
        if key not in dj[4]:
            fail(f"device metadata lacks {key}")
    for key in STREAM_KEYS:
        if key not in hj[4]:
            fail(f"host metadata lacks {key}")
    for dk, hk in SAME_MEANING:
        if dj[4].get(dk) != hj[4].get(hk):
            fail(f"{dk} {dj[4].get(dk)} (device) != {hk} {hj[4].get(hk)} (stream)")
    # What the program was made to show.
    m = dj[4]
    if m.get("open_scopes_closed") != 1 or m.get("flow_ends_without_start") != 1:
        fail(f"expected one scope closed at the end and one flow end without start: {m}")
    print(f"{events} slice/instant events, {len(dj[2])} counter samples, {sum(dj[3].values())} "
          f"flow events, {len(m)} metadata keys: compared four ways")
    print("0 failed" if not FAILURES else f"{len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
