#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_trace.py TRACE.json: the Chrome JSON trace that tests/install/
consumer/main.cpp records is strict JSON and holds its events: the two
scopes, the instant, the counter and both ends of the flow."""
import json
import sys


def main():
    path = sys.argv[1]
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    names = {e.get("name") for e in events}
    missing = {"consumer_main", "consumer_work", "consumer_start", "consumer_items"} - names
    if missing:
        print(f"check_trace: {path}: no event named {sorted(missing)}", file=sys.stderr)
        return 1
    flow_phases = {e["ph"] for e in events if e.get("ph") in ("s", "t", "f")}
    if not {"s", "f"} <= flow_phases:
        print(f"check_trace: {path}: the flow has phases {sorted(flow_phases)}, not both s and f", file=sys.stderr)
        return 1
    print(f"check_trace: {path}: {len(events)} events, scopes, instant, counter and flow present")
    return 0


if __name__ == "__main__":
    sys.exit(main())
