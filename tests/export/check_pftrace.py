#!/usr/bin/env python3
"""Checks a .pftrace with the real protoc and Perfetto's schema.

Runs FIXTURE to write a trace and its expectations, decodes the trace with
`protoc --decode=perfetto.protos.Trace perfetto_trace.proto`, then checks
what protoc cannot (../shared/reference/perfetto/README.md §2): unknown
fields, sequence flags, interning, track descriptors, balanced slices,
flows on both ends and exact counter values. Exit 0 = pass.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

FAILURES = []


def fail(msg):
    FAILURES.append(msg)
    print("FAIL:", msg)


def unescape(s):
    """protoc text-format string escapes -> bytes -> str."""
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        n = s[i + 1]
        if n in "01234567":
            j = i + 1
            while j < len(s) and j < i + 4 and s[j] in "01234567":
                j += 1
            out.append(int(s[i + 1:j], 8))
            i = j
        elif n == "x":
            out.append(int(s[i + 2:i + 4], 16))
            i += 4
        else:
            out += {"n": b"\n", "t": b"\t", "r": b"\r", '"': b'"', "'": b"'", "\\": b"\\"}[n]
            i += 2
    return out.decode("utf-8")


def parse_text(text):
    """protoc's text format -> nested dict of lists."""
    root = {}
    stack = [root]
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
            continue
        m = re.match(r"^([A-Za-z_0-9]+) \{$", line)
        if m:
            child = {}
            stack[-1].setdefault(m.group(1), []).append(child)
            stack.append(child)
            continue
        m = re.match(r"^([A-Za-z_0-9]+): (.*)$", line)
        if not m:
            raise ValueError("cannot parse line: " + raw)
        key, val = m.groups()
        if val.startswith('"'):
            val = unescape(val[1:-1])
        elif re.match(r"^-?\d+$", val):
            val = int(val)
        stack[-1].setdefault(key, []).append(val)
    return root


def one(d, key, default=None):
    v = d.get(key)
    return v[0] if v else default


def check(packets, expect):
    if not packets:
        fail("no packets")
        return
    # Sequence: one id everywhere, first packet clears the incremental state.
    for i, p in enumerate(packets):
        if one(p, "trusted_packet_sequence_id") != 1:
            fail(f"packet {i} has no trusted_packet_sequence_id 1")
    if one(packets[0], "sequence_flags", 0) & 1 != 1:
        fail("first packet does not set SEQ_INCREMENTAL_STATE_CLEARED")

    # Interning: every iid defined once, every name once, used after definition.
    names = {}
    seen_names = set()
    tracks = {}
    events = []
    for i, p in enumerate(packets):
        for idata in p.get("interned_data", []):
            for en in idata.get("event_names", []):
                iid, name = one(en, "iid"), one(en, "name")
                if not iid:
                    fail(f"packet {i}: iid 0")
                if iid in names:
                    fail(f"packet {i}: iid {iid} interned twice")
                if name in seen_names:
                    fail(f"packet {i}: name {name!r} interned twice")
                names[iid] = name
                seen_names.add(name)
        for td in p.get("track_descriptor", []):
            uuid = one(td, "uuid")
            if uuid in tracks:
                fail(f"packet {i}: track {uuid} described twice")
            tracks[uuid] = td
        for te in p.get("track_event", []):
            iid = one(te, "name_iid")
            if iid is not None:
                if iid not in names:
                    fail(f"packet {i}: name_iid {iid} used before it is interned")
                if one(p, "sequence_flags", 0) & 2 != 2:
                    fail(f"packet {i}: uses interned data without SEQ_NEEDS_INCREMENTAL_STATE")
            events.append((one(p, "timestamp", 0), i, te))

    for name in expect["names"]:
        if name not in seen_names:
            fail(f"event name {name!r} missing")

    # Tracks: one process, named threads, every used uuid described.
    processes = [t for t in tracks.values() if "process" in t]
    if len(processes) != 1:
        fail(f"{len(processes)} process descriptors")
    thread_names = {one(one(t, "thread"), "thread_name") for t in tracks.values() if "thread" in t}
    for tn in expect["threads"]:
        if tn not in thread_names:
            fail(f"thread {tn!r} not described (have {sorted(thread_names)})")

    # Slices balanced per track (in time order, ties in file order); flows; counters.
    events.sort(key=lambda e: (e[0], e[1]))
    depth = {}
    starts, ends = set(), set()
    counters = {}
    for ts, i, te in events:
        uuid = one(te, "track_uuid")
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


def one_payload_per_packet(raw_text):
    """--decode_raw: a TracePacket (top-level 1 {...}) carries at most one of
    the data oneof members used here (11 track_event, 60 track_descriptor)."""
    depth = 0
    count = 0
    for line in raw_text.splitlines():
        s = line.strip()
        if s.endswith("{"):
            if depth == 1 and s.split()[0] in ("11", "60"):
                count += 1
            depth += 1
        elif s == "}":
            depth -= 1
            if depth == 0:
                if count > 1:
                    fail("a packet carries two data payloads")
                count = 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--fixture", required=True)
    ap.add_argument("--proto-dir", required=True, help="folder with perfetto_trace.proto")
    args = ap.parse_args()
    proto = os.path.join(args.proto_dir, "perfetto_trace.proto")
    if not os.path.exists(proto):
        print(f"FAIL: schema not found: {proto}")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.pftrace")
        exp = os.path.join(tmp, "expect.json")
        subprocess.run([args.fixture, trace, exp], check=True)
        with open(trace, "rb") as f:
            data = f.read()
        dec = subprocess.run(["protoc", "--decode=perfetto.protos.Trace", "-I", args.proto_dir,
                              proto], input=data, capture_output=True)
        if dec.returncode != 0:
            print("FAIL: protoc could not parse the trace:", dec.stderr.decode())
            return 1
        if "invalid UTF-8" in dec.stderr.decode():
            fail("a string field is not valid UTF-8: " + dec.stderr.decode().strip()[:300])
        text = dec.stdout.decode()
        bare = [l for l in text.splitlines() if re.match(r"^\s*[0-9]+( \{|:)", l)]
        if bare:
            fail(f"unknown fields (bare numbers): {bare[:5]}")
        raw = subprocess.run(["protoc", "--decode_raw"], input=data, capture_output=True, check=True)
        one_payload_per_packet(raw.stdout.decode())
        packets = parse_text(text).get("packet", [])
        with open(exp) as f:
            expect = json.load(f)
        check(packets, expect)
        print(f"{len(packets)} packets, {len(data)} bytes checked")
    print("0 failed" if not FAILURES else f"{len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
