#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a .pftrace with the real protoc and Perfetto's schema.

Runs FIXTURE to write a trace and its expectations, decodes the trace with
`protoc --decode=perfetto.protos.Trace perfetto_trace.proto`, then checks
what protoc cannot (../shared/reference/perfetto/README.md §2): unknown
fields, sequence flags, per-sequence interning (each name once per
sequence, every iid defined before use), incremental clocks and default
tracks resolved as trace processor does (trace-formats.md §2.6-2.8), track
descriptors, balanced slices, flows on both ends and exact counter values.
Exit 0 = pass.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

from pftrace import (Sequence, apply_clocks_and_defaults, clock_origin, one, parse_text,
                     resolve_time)
import pftrace

FAILURES = []


def fail(msg):
    FAILURES.append(msg)
    print("FAIL:", msg)


pftrace.fail = fail  # its clock checks report here


def intern(i, table, entries, key, what):
    for en in entries:
        iid, val = one(en, "iid"), one(en, key)
        if not iid:
            fail(f"packet {i}: {what} iid 0")
        if iid in table and table[iid] != val:
            fail(f"packet {i}: {what} iid {iid} redefined ({table[iid]!r} -> {val!r})")
        if iid not in table and val in table.values():
            fail(f"packet {i}: {what} {val!r} interned twice on its sequence")
        table[iid] = val


def check(packets, expect):
    if not packets:
        fail("no packets")
        return
    seqs = {}
    seen_names = set()
    origin, mono = clock_origin(packets)
    inputs = pftrace.input_clocks(packets)
    if "input_clocks" in expect and len(inputs) != expect["input_clocks"]:
        fail(f"{len(inputs)} input clocks, expected {expect['input_clocks']}")
    if expect.get("clock_samples") and mono is None:
        fail("the trace's clock has samples but the .pftrace has no global ClockSnapshot")
    if expect.get("json"):
        with open(expect["json"]) as f:
            meta = json.load(f).get("metadata", {})
        for key, val, what in (("clock_monotonic_ns_at_origin", mono, "MONOTONIC"),
                               ("clock_boottime_ns_at_origin", origin, "BOOTTIME")):
            if expect.get("clock_samples") and meta.get(key) != val:
                fail(f"ClockSnapshot {what} {val} != the JSON's {key} {meta.get(key)}")
    if "monotonic_at_origin" in expect and mono != expect["monotonic_at_origin"]:
        fail(f"ClockSnapshot MONOTONIC {mono} != the runtime's {expect['monotonic_at_origin']}")
    if "boottime_at_origin" in expect and origin != expect["boottime_at_origin"]:
        fail(f"ClockSnapshot BOOTTIME {origin} != the runtime's {expect['boottime_at_origin']}")
    tracks = {}
    events = []
    for i, p in enumerate(packets):
        sid = one(p, "trusted_packet_sequence_id")
        if not sid:
            fail(f"packet {i} has no trusted_packet_sequence_id")
            continue
        flags = one(p, "sequence_flags", 0)
        if flags & 1:
            seqs[sid] = Sequence(origin)
        elif sid not in seqs:
            fail(f"packet {i}: first packet of sequence {sid} does not set SEQ_INCREMENTAL_STATE_CLEARED")
            seqs[sid] = Sequence(origin)
        seq = seqs[sid]
        apply_clocks_and_defaults(seq, p)
        for idata in p.get("interned_data", []):
            intern(i, seq.names, idata.get("event_names", []), "name", "event name")
            intern(i, seq.ann_names, idata.get("debug_annotation_names", []), "name", "annotation name")
            intern(i, seq.strings, idata.get("debug_annotation_string_values", []), "str", "string")
            for en in idata.get("event_names", []):
                seen_names.add(one(en, "name"))
        if len(p.get("interned_data", [])) > 1:
            fail(f"packet {i}: two interned_data fields (trace processor keeps one)")
        ts = resolve_time(i, p, seq)
        for td in p.get("track_descriptor", []):
            uuid = one(td, "uuid")
            if uuid in tracks:
                fail(f"packet {i}: track {uuid} described twice")
            tracks[uuid] = td
        for te in p.get("track_event", []):
            uses_state = seq.clock is not None or seq.track is not None
            iid = one(te, "name_iid")
            if iid is not None:
                uses_state = True
                if iid not in seq.names:
                    fail(f"packet {i}: name_iid {iid} used before it is interned on sequence {sid}")
            for da in te.get("debug_annotations", []):
                if one(da, "name_iid") is not None:
                    uses_state = True
                    if one(da, "name_iid") not in seq.ann_names:
                        fail(f"packet {i}: annotation name_iid {one(da, 'name_iid')} not interned")
                if one(da, "string_value_iid") is not None:
                    uses_state = True
                    if one(da, "string_value_iid") not in seq.strings:
                        fail(f"packet {i}: string_value_iid {one(da, 'string_value_iid')} not interned")
            if uses_state and flags & 2 != 2:
                fail(f"packet {i}: uses sequence state without SEQ_NEEDS_INCREMENTAL_STATE")
            if "name" in te:
                seen_names.add(one(te, "name"))
            uuid = one(te, "track_uuid", seq.track)
            events.append((ts if ts is not None else 0, i, te, uuid))

    for name in expect["names"]:
        if name not in seen_names:
            fail(f"event name {name!r} missing")

    # Tracks: one process (a merge: one per input), named threads, every used
    # uuid described.
    processes = [t for t in tracks.values() if "process" in t]
    if len(processes) != expect.get("processes", 1):
        fail(f"{len(processes)} process descriptors, expected {expect.get('processes', 1)}")
    thread_names = {one(one(t, "thread"), "thread_name") for t in tracks.values() if "thread" in t}
    for tn in expect["threads"]:
        if tn not in thread_names:
            fail(f"thread {tn!r} not described (have {sorted(thread_names)})")

    # Slices balanced per track (in time order, ties in file order); flows; counters.
    events.sort(key=lambda e: (e[0], e[1]))
    depth = {}
    starts, ends = set(), set()
    counters = {}
    for ts, i, te, uuid in events:
        if uuid not in tracks:
            fail(f"packet {i}: track_uuid {uuid} has no descriptor")
            continue
        kind = one(te, "type")
        is_counter_track = "counter" in tracks[uuid]
        if (kind == "TYPE_COUNTER") != is_counter_track:
            fail(f"packet {i}: {kind} on a {'counter' if is_counter_track else 'slice'} track")
        if kind == "TYPE_SLICE_BEGIN":
            depth[uuid] = depth.get(uuid, 0) + 1
        elif kind == "TYPE_SLICE_END":
            if depth.get(uuid, 0) == 0:
                fail(f"packet {i}: SLICE_END without an open slice")
            else:
                depth[uuid] -= 1
            if "name_iid" in te or "name" in te:
                fail(f"packet {i}: SLICE_END with a name")
        elif kind == "TYPE_COUNTER":
            counters.setdefault(one(tracks[uuid], "name"), []).append(one(te, "counter_value"))
        starts.update(te.get("flow_ids", []))
        ends.update(te.get("terminating_flow_ids", []))
    for uuid, d in depth.items():
        if d:
            fail(f"track {uuid}: {d} slices never end")
    if ends - starts:
        fail(f"flow ends without a start: {sorted(ends - starts)}")
    if len(starts & ends) != expect["flows"]:
        fail(f"{len(starts & ends)} complete flows, expected {expect['flows']}")
    for name, values in expect["counters"].items():
        want = [int(v) for v in values]
        if counters.get(name) != want:
            fail(f"counter {name!r}: {counters.get(name)} != {want}")
    if "json" in expect:
        compare_with_json(events, tracks, expect["json"])


def compare_with_json(events, tracks, path):
    """The same trace written as Chrome JSON: per thread, the slices (B/E
    with names and exact ns) and the counters (name, ns, value) must be the
    same, so every resolved timestamp is checked."""
    names_of = {}  # uuid -> name, for counters
    for uuid, td in tracks.items():
        names_of[uuid] = one(td, "name")
    tid_of = {uuid: one(one(td, "thread"), "tid") for uuid, td in tracks.items() if "thread" in td}
    got = {}
    for ts, i, te, uuid in events:
        kind = one(te, "type")
        if kind == "TYPE_COUNTER":
            got.setdefault("counters", []).append((names_of.get(uuid), ts, one(te, "counter_value")))
        elif kind in ("TYPE_SLICE_BEGIN", "TYPE_SLICE_END") and uuid in tid_of:
            got.setdefault(tid_of[uuid], []).append((kind[11], ts))
    with open(path) as f:
        doc = json.load(f)
    evs = doc["traceEvents"]
    carriers = json_carriers(evs)
    want = {}
    for k, e in enumerate(evs):
        ph = e["ph"]
        if ph not in ("B", "E", "C") or k in carriers:
            continue
        ns = round(e["ts"] * 1000)
        if ph == "C":
            (name, value), = e["args"].items() if len(e["args"]) == 1 else [(None, None)]
            want.setdefault("counters", []).append((e["name"], ns, value))
        else:
            want.setdefault(e["tid"], []).append((ph, ns))
    for key in set(want) | set(got):
        w = sorted(want.get(key, []), key=repr)
        g = sorted(got.get(key, []), key=repr)
        if w != g:
            diff = [x for x in w if x not in g][:3], [x for x in g if x not in w][:3]
            fail(f"{key}: the .pftrace differs from the JSON (only in JSON, only in pftrace): {diff}")
    print(f"compared with {path}: {sum(len(v) for v in want.values())} slice ends and counter samples")


def json_carriers(evs):
    """Indices of the B/E events of JSON's flow carrier slices (category
    "mabutrace.flow"): a flow point outside every slice is a 1 ns slice
    there, an INSTANT in Perfetto."""
    return {k for k, e in enumerate(evs) if e["ph"] in "BE" and e.get("cat") == "mabutrace.flow"}


def one_payload_per_packet(raw_text):
    """--decode_raw: a TracePacket (top-level 1 {...}) carries at most one of
    the data oneof members used here (6 clock_snapshot, 11 track_event, 60
    track_descriptor)."""
    depth = 0
    count = 0
    for line in raw_text.splitlines():
        s = line.strip()
        if s.endswith("{"):
            if depth == 1 and s.split()[0] in ("6", "11", "60"):
                count += 1
            depth += 1
        elif s == "}":
            depth -= 1
            if depth == 0:
                if count > 1:
                    fail("a packet carries two data payloads")
                count = 0


def check_file(trace, expect, proto_dir):
    """Decodes the .pftrace at `trace` with protoc and checks it against
    `expect` (the fixture's expectations: names, threads, flows, counters,
    optionally json). Failures go to FAILURES (and are printed); returns
    False when the file could not be decoded at all. Also used by
    tests/port/qemu/check_qemu_trace.py for the firmware traces."""
    proto = os.path.join(proto_dir, "perfetto_trace.proto")
    if not os.path.exists(proto):
        fail(f"schema not found: {proto}")
        return False
    with open(trace, "rb") as f:
        data = f.read()
    dec = subprocess.run(["protoc", "--decode=perfetto.protos.Trace", "-I", proto_dir,
                          proto], input=data, capture_output=True)
    if dec.returncode != 0:
        fail("protoc could not parse the trace: " + dec.stderr.decode())
        return False
    if "invalid UTF-8" in dec.stderr.decode():
        fail("a string field is not valid UTF-8: " + dec.stderr.decode().strip()[:300])
    text = dec.stdout.decode()
    bare = [l for l in text.splitlines() if re.match(r"^\s*[0-9]+( \{|:)", l)]
    if bare:
        fail(f"unknown fields (bare numbers): {bare[:5]}")
    raw = subprocess.run(["protoc", "--decode_raw"], input=data, capture_output=True, check=True)
    one_payload_per_packet(raw.stdout.decode())
    packets = parse_text(text).get("packet", [])
    check(packets, expect)
    print(f"{len(packets)} packets, {len(data)} bytes checked")
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--fixture", help="writes TRACE and EXPECT (its two arguments)")
    ap.add_argument("--trace", help="a .pftrace to check (with --expect), instead of --fixture")
    ap.add_argument("--expect", help="the expectations for --trace (JSON)")
    ap.add_argument("--proto-dir", required=True, help="folder with perfetto_trace.proto")
    args = ap.parse_args()
    if args.trace:
        with open(args.expect) as f:
            expect = json.load(f)
        if not check_file(args.trace, expect, args.proto_dir):
            print("FAIL: the trace could not be decoded")
            return 1
        print("0 failed" if not FAILURES else f"{len(FAILURES)} failed")
        return 1 if FAILURES else 0
    if not args.fixture:
        ap.error("--fixture or --trace is required")
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.pftrace")
        exp = os.path.join(tmp, "expect.json")
        subprocess.run([args.fixture, trace, exp], check=True)
        with open(exp) as f:
            expect = json.load(f)
        if not check_file(trace, expect, args.proto_dir):
            print("FAIL: the trace could not be decoded")
            return 1
    print("0 failed" if not FAILURES else f"{len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
