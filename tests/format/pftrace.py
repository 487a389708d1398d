# SPDX-License-Identifier: MIT
"""Reading a .pftrace as trace processor does, for the tests: protoc's text
format into dicts, and the per-sequence state (interning, incremental
clocks, default tracks) that resolves each packet (trace-formats.md
§2.6-2.8). Used by check_pftrace.py and trace_equality.py."""
import re


def fail(msg):
    """Replaced by the caller's failure collector."""
    raise AssertionError(msg)


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


BOOTTIME, MONOTONIC, INCREMENTAL = 6, 3, 64


def clock_origin(packets):
    """The trace's time 0 on BOOTTIME, and on MONOTONIC: the first ClockSnapshot
    relating builtin clocks only (the writer's global snapshot), else (0, None).
    Checks that such a snapshot gives both clocks and that BOOTTIME is not
    behind MONOTONIC."""
    for i, p in enumerate(packets):
        for cs in p.get("clock_snapshot", []):
            clocks = {one(c, "clock_id"): one(c, "timestamp", 0) for c in cs.get("clocks", [])}
            if INCREMENTAL in clocks or any(c >= 128 for c in clocks):
                continue  # a sequence's own clock, or a merged input's (input_clocks)
            if BOOTTIME not in clocks or MONOTONIC not in clocks:
                fail(f"packet {i}: global ClockSnapshot without BOOTTIME and MONOTONIC: {clocks}")
                return 0, None
            if clocks[BOOTTIME] < clocks[MONOTONIC]:
                fail(f"packet {i}: BOOTTIME {clocks[BOOTTIME]} behind MONOTONIC {clocks[MONOTONIC]}")
            if one(p, "timestamp") is not None:
                fail(f"packet {i}: a ClockSnapshot packet with a timestamp")
            return clocks[BOOTTIME], clocks[MONOTONIC]
    return 0, None


def input_clocks(packets):
    """The merged inputs' clocks (ids >= 128, `mabutrace merge`): {id: [(BOOTTIME,
    input ns), ...]} in packet order. Checks each snapshot relates BOOTTIME and
    one such clock, and that a clock's readings grow with BOOTTIME."""
    seen = {}
    for i, p in enumerate(packets):
        for cs in p.get("clock_snapshot", []):
            clocks = {one(c, "clock_id"): one(c, "timestamp", 0) for c in cs.get("clocks", [])}
            ids = [c for c in clocks if c >= 128]
            if not ids:
                continue
            if len(ids) != 1 or BOOTTIME not in clocks or len(clocks) != 2:
                fail(f"packet {i}: input ClockSnapshot must relate BOOTTIME and one input clock: {clocks}")
                continue
            readings = seen.setdefault(ids[0], [])
            if readings and (clocks[BOOTTIME] < readings[-1][0] or clocks[ids[0]] < readings[-1][1]):
                fail(f"packet {i}: input clock {ids[0]} goes back: {readings[-1]} then {clocks}")
            readings.append((clocks[BOOTTIME], clocks[ids[0]]))
    return seen


class Sequence:
    """What a packet sequence has set up since its last clear. `origin`: the
    trace's time 0 on BOOTTIME (clock_origin); times resolve relative to it."""

    def __init__(self, origin=0):
        self.origin = origin
        self.snap_boot = None  # BOOTTIME value of the sequence's clock-64 snapshot
        self.snap_inc = 0      # clock 64's value in it
        self.names = {}        # event-name iid -> name
        self.ann_names = {}    # debug-annotation-name iid -> name
        self.strings = {}      # debug-annotation string iid -> str
        self.track = None      # TrackEventDefaults.track_uuid
        self.clock = None      # TracePacketDefaults.timestamp_clock_id
        self.clocks = {}       # clock id -> last value (incremental clocks)
        self.incremental = set()


def resolve_time(i, p, seq):
    """The packet's timestamp on the default clock (trace-formats.md 2.8)."""
    ts = one(p, "timestamp")
    if ts is None:
        return None
    clock = one(p, "timestamp_clock_id", seq.clock if seq else None)
    origin = seq.origin if seq else 0
    if clock is None or clock == BOOTTIME:
        return ts - origin
    if seq is None or clock not in seq.clocks:
        fail(f"packet {i}: clock {clock} has no ClockSnapshot on its sequence")
        return ts
    if clock in seq.incremental:
        seq.clocks[clock] += ts
        if seq.snap_boot is None:
            fail(f"packet {i}: clock {clock} is not related to BOOTTIME on its sequence")
            return seq.clocks[clock]
        return seq.snap_boot + (seq.clocks[clock] - seq.snap_inc) - origin
    return ts



def apply_clocks_and_defaults(seq, p):
    """What packet p sets up on its sequence: clock snapshots (incremental
    clocks) and TracePacketDefaults (default clock and track)."""
    for cs in p.get("clock_snapshot", []):
        values = {}
        for c in cs.get("clocks", []):
            cid = one(c, "clock_id")
            values[cid] = one(c, "timestamp", 0)
            seq.clocks[cid] = one(c, "timestamp", 0)
            if one(c, "is_incremental") == "true":
                seq.incremental.add(cid)
        if INCREMENTAL in values and BOOTTIME in values:
            seq.snap_boot, seq.snap_inc = values[BOOTTIME], values[INCREMENTAL]
            if seq.snap_boot != seq.origin:
                fail(f"clock 64 starts at BOOTTIME {seq.snap_boot}, not at the trace's "
                     f"time 0 {seq.origin}")
    for d in p.get("trace_packet_defaults", []):
        seq.clock = one(d, "timestamp_clock_id", seq.clock)
        for ted in d.get("track_event_defaults", []):
            seq.track = one(ted, "track_uuid", seq.track)


def decode(data, proto):
    """protoc --decode=perfetto.protos.Trace with the schema file `proto`:
    (packets, problems). Problems: protoc's own errors, invalid UTF-8,
    fields the schema does not know (protoc prints them as bare numbers)."""
    import os
    import subprocess
    dec = subprocess.run(["protoc", "--decode=perfetto.protos.Trace", "-I", os.path.dirname(proto),
                          proto], input=data, capture_output=True)
    if dec.returncode != 0:
        return [], ["protoc could not parse the trace: " + dec.stderr.decode()]
    problems = []
    if "invalid UTF-8" in dec.stderr.decode():
        problems.append("a string field is not valid UTF-8: " + dec.stderr.decode().strip()[:300])
    text = dec.stdout.decode()
    bare = [l for l in text.splitlines() if re.match(r"^\s*[0-9]+( \{|:)", l)]
    if bare:
        problems.append(f"unknown fields (bare numbers): {bare[:5]}")
    return parse_text(text).get("packet", []), problems


def replay(packets):
    """The trace as trace processor reads it: (tracks, events). tracks:
    uuid -> TrackDescriptor dict. events: one dict per TrackEvent in file
    order, with ts resolved on the default clock, its track uuid, type,
    name (interned names resolved) and annotations {name: value} (interned
    names and strings resolved)."""
    seqs, tracks, events = {}, {}, []
    origin, _ = clock_origin(packets)
    for i, p in enumerate(packets):
        sid = one(p, "trusted_packet_sequence_id")
        if one(p, "sequence_flags", 0) & 1 or sid not in seqs:
            seqs[sid] = Sequence(origin)
        seq = seqs[sid]
        apply_clocks_and_defaults(seq, p)
        for idata in p.get("interned_data", []):
            for key, table, field in (("event_names", seq.names, "name"),
                                      ("debug_annotation_names", seq.ann_names, "name"),
                                      ("debug_annotation_string_values", seq.strings, "str")):
                for en in idata.get(key, []):
                    table[one(en, "iid")] = one(en, field)
        ts = resolve_time(i, p, seq)
        for td in p.get("track_descriptor", []):
            tracks[one(td, "uuid")] = td
        for te in p.get("track_event", []):
            name = one(te, "name")
            if one(te, "name_iid") is not None:
                name = seq.names.get(one(te, "name_iid"))
            ann = {}
            for da in te.get("debug_annotations", []):
                key = one(da, "name")
                if one(da, "name_iid") is not None:
                    key = seq.ann_names.get(one(da, "name_iid"))
                for vk in ("uint_value", "int_value", "string_value"):
                    if vk in da:
                        ann[key] = one(da, vk)
                if "bool_value" in da:
                    ann[key] = one(da, "bool_value") == "true"
                if "string_value_iid" in da:
                    ann[key] = seq.strings.get(one(da, "string_value_iid"))
            events.append({"ts": ts, "i": i, "type": one(te, "type"), "name": name,
                           "track": one(te, "track_uuid", seq.track), "args": ann,
                           "flow_ids": te.get("flow_ids", []),
                           "terminating_flow_ids": te.get("terminating_flow_ids", []),
                           "counter_value": one(te, "counter_value")})
    return tracks, events
