#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Draws a Chrome JSON trace the toolkit wrote as an SVG timeline, for the
docs' pictures (docs/merge.md): one row per thread, grouped by process,
slices as boxes (nested slices below their parent), instants as ticks,
flows as arrows, TRACE_CLOCK_SYNC points as ticks. Not a viewer: small
traces only.

  scripts/timeline_svg.py TRACE.json -o OUT.svg [--from-us A --to-us B] [--width PX]
"""
import argparse
import html
import json
import sys

ROW, DEPTH_H, LEFT, TOP = 44, 12, 190, 28
COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"]


def load(path):
    with open(path) as f:
        doc = json.load(f)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--from-us", type=float)
    ap.add_argument("--to-us", type=float)
    ap.add_argument("--width", type=int, default=900)
    a = ap.parse_args()
    evs = load(a.trace)
    pnames, tnames, rows = {}, {}, []
    for e in evs:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            pnames[e["pid"]] = e["args"]["name"]
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            tnames[(e["pid"], e["tid"])] = e["args"]["name"]
    slices, instants, flows, stack = [], [], {}, {}
    for e in evs:
        ph, key = e.get("ph"), (e.get("pid"), e.get("tid"))
        if ph in ("B", "E", "X", "i", "I", "s", "f", "C") and key not in rows:
            rows.append(key)
        if ph == "B":
            stack.setdefault(key, []).append(e)
        elif ph == "E" and stack.get(key):
            b = stack[key].pop()
            slices.append((key, b["ts"], e["ts"], b["name"], len(stack[key])))
        elif ph == "X":
            slices.append((key, e["ts"], e["ts"] + e.get("dur", 0), e["name"], 0))
        elif ph in ("i", "I") or (ph == "C" and e.get("name", "").startswith("clock_sync:")):
            instants.append((key, e["ts"], e["name"]))  # sync points drawn as ticks too
        elif ph in ("s", "f"):
            flows.setdefault(e["id"], {})[ph] = (key, e["ts"])
    times = [s[1] for s in slices] + [s[2] for s in slices] + [i[1] for i in instants]
    if not times:
        sys.exit("timeline_svg.py: no slices or instants")
    t0 = a.from_us if a.from_us is not None else min(times)
    t1 = a.to_us if a.to_us is not None else max(times)
    span = max(t1 - t0, 1e-9)
    rows.sort()
    y_of = {k: TOP + i * ROW for i, k in enumerate(rows)}
    x = lambda t: LEFT + (t - t0) / span * (a.width - LEFT - 10)
    height = TOP + len(rows) * ROW + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{a.width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{a.width}" height="{height}" fill="white"/>',
           '<defs><marker id="a" markerWidth="8" markerHeight="6" refX="8" refY="3" orient="auto">'
           '<path d="M0,0 L8,3 L0,6 z" fill="#333"/></marker></defs>']
    for i in range(6):  # time axis
        t = t0 + span * i / 5
        out.append(f'<line x1="{x(t):.1f}" y1="{TOP - 6}" x2="{x(t):.1f}" y2="{height - 8}" stroke="#ddd"/>')
        out.append(f'<text x="{x(t):.1f}" y="{TOP - 10}" text-anchor="middle" fill="#555">{t - t0:.1f} us</text>')
    last_pid = None
    for k in rows:
        y = y_of[k]
        if k[0] != last_pid:
            out.append(f'<line x1="0" y1="{y - 2}" x2="{a.width}" y2="{y - 2}" stroke="#999"/>')
            out.append(f'<text x="4" y="{y + 10}" font-weight="bold">{html.escape(pnames.get(k[0], str(k[0])))}</text>')
            last_pid = k[0]
        out.append(f'<text x="14" y="{y + 24}" fill="#333">{html.escape(tnames.get(k, "thread %s" % k[1]))}</text>')
    names = sorted({s[3] for s in slices})
    for key, b, e, name, depth in slices:
        if e < t0 or b > t1:
            continue
        y = y_of[key] + 14 + depth * DEPTH_H
        w = max(x(min(e, t1)) - x(max(b, t0)), 1.0)
        c = COLORS[names.index(name) % len(COLORS)]
        out.append(f'<rect x="{x(max(b, t0)):.1f}" y="{y}" width="{w:.1f}" height="{DEPTH_H - 1}" fill="{c}">'
                   f'<title>{html.escape(name)}</title></rect>')
        if w > 7 * len(name):
            out.append(f'<text x="{x(max(b, t0)) + 2:.1f}" y="{y + 9}" fill="white">{html.escape(name)}</text>')
    for key, t, name in instants:
        if t0 <= t <= t1:
            y = y_of[key] + 12
            out.append(f'<line x1="{x(t):.1f}" y1="{y}" x2="{x(t):.1f}" y2="{y + 26}" stroke="#222">'
                       f'<title>{html.escape(name)}</title></line>')
    for f in flows.values():
        if "s" in f and "f" in f and t0 <= f["s"][1] <= t1 and t0 <= f["f"][1] <= t1:
            (ks, ts), (kf, tf) = f["s"], f["f"]
            out.append(f'<line x1="{x(ts):.1f}" y1="{y_of[ks] + 20}" x2="{x(tf):.1f}" y2="{y_of[kf] + 20}" '
                       f'stroke="#333" stroke-width="1" marker-end="url(#a)"/>')
    out.append("</svg>")
    with open(a.output, "w") as o:
        o.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
