#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs mabutrace_bench and prints each benchmark against BM_Floor.

    bench/compare.py [--bench PATH] [--repetitions N] [--min-time S]
                     [--filter REGEX] [--save FILE] [--json FILE] [--check]
                     [--lttng]

It runs the benchmark binary with --benchmark_format=json
--benchmark_repetitions=N --benchmark_report_aggregates_only=true and, from
the medians, prints per benchmark and thread count:

  cpu ns/it    CPU time per iteration: the per-thread cost of one iteration.
               Google Benchmark divides the CPU time of all threads by the
               iterations of all threads, so this figure means the same with
               1 and 2 threads. All ratios below use it.
  wall ns/it   real time per iteration times the thread count: the same
               per-thread cost seen on the wall clock (Google Benchmark
               divides wall time by the thread count). Larger than cpu ns/it
               when the threads were descheduled (a busy or small machine).
  vs floor     cpu ns/it / cpu ns/it of BM_Floor with the same thread count.
  2T/1T        cpu ns/it with 2 threads / with 1 thread (1.0 = no slowdown
               from a second writing thread).

and the exporter's throughput in MB/s (10^6 bytes) of buffer and of JSON.

With --lttng it runs mabutrace_lttng_bench (the same harness plus
BM_LttngScope, bench/lttng/) inside a live LTTng-UST session that it
creates and destroys (lttng-tools: `lttng create`, one user-space channel in
overwrite mode with 4 x 256 KiB sub-buffers per CPU, like mabutrace's 1 MiB
flight recorder, `enable-event mabutrace_bench:*`, `start`), prints the
channel's discarded-event and lost-packet counts, and each LTTng figure
against TRACE_SCOPE of the same run and thread count.

Targets (from the issue) are checked and marked ok / MISS; --check makes the
script exit 1 when one is missed. Uses the Python standard library only.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (benchmark, threads or None for any) -> max ratio to BM_Floor.
# BM_Floor is the hardware floor (two CPU-counter reads, two 16-byte
# stores); every ratio is to BM_Floor of the same run and thread count.
FLOOR_TARGETS = {
    ("BM_TraceScope", 1): 1.15,
    ("BM_TraceInstant", 1): 0.6,
    ("BM_TraceCounter", 1): 0.6,
    ("BM_TraceFlow", 1): 1.3,
}
# benchmark -> max cpu ns/it with 2 threads / with 1 thread.
SCALING_TARGETS = {"BM_TraceScope": 1.1, "BM_TraceFlow": 1.15}
# (peer benchmark, ours) -> min cpu ns/it of the peer / of ours.
PEER_TARGETS = {
    ("BM_LttngScope", "BM_TraceScope"): 4.0,
    # The device JSON export against the same events written with {fmt}'s
    # compiled format strings (bench/json_fmt_baseline.h; issue 20).
    ("BM_ExportJsonFmtBaseline", "BM_ExportJson"): 2.0,
}
EXPORT_TARGET_MBPS = 100.0
# Wall time per thread this much above CPU time: the run shared the CPUs.
BUSY_RATIO = 1.15

TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def find_bench(binary="mabutrace_bench"):
    for build in ("build", "build-bench"):
        p = os.path.join(ROOT, build, "bench", binary)
        if os.access(p, os.X_OK):
            return p
    return None


def run(args):
    cmd = [
        args.bench,
        "--benchmark_format=json",
        "--benchmark_repetitions=%d" % args.repetitions,
        "--benchmark_report_aggregates_only=true",
    ]
    if args.min_time is not None:
        cmd.append("--benchmark_min_time=%s" % args.min_time)
    if args.filter:
        cmd.append("--benchmark_filter=%s" % args.filter)
    print("running: " + " ".join(cmd), file=sys.stderr)
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout
    if args.save:
        with open(args.save, "wb") as f:
            f.write(out)
    return json.loads(out)


def lttng(*argv):
    """Runs one lttng command; its stdout."""
    r = subprocess.run(["lttng"] + list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.exit("lttng %s failed (%d):\n%s" % (" ".join(argv), r.returncode, r.stdout))
    return r.stdout


def run_in_lttng_session(args):
    """run(args) inside a fresh LTTng-UST session; (result, channel stats)."""
    if not shutil.which("lttng"):
        sys.exit("--lttng: lttng not found (apt-get install lttng-tools liblttng-ust-dev)")
    name = "mabutrace-bench-%d" % os.getpid()
    out = tempfile.mkdtemp(prefix="mabutrace-lttng-")
    lttng("create", name, "--output=" + out)
    try:
        lttng("enable-channel", "--userspace", "--session=" + name, "--overwrite", "--subbuf-size=256K",
              "--num-subbuf=4", "bench")
        lttng("enable-event", "--userspace", "--session=" + name, "--channel=bench", "mabutrace_bench:*")
        lttng("start", name)
        doc = run(args)
        lttng("stop", name)
        listing = lttng("list", name)
    finally:
        subprocess.run(["lttng", "destroy", name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(out, ignore_errors=True)
    stats = {}
    for key in ("Discarded events", "Lost packets"):
        m = re.search(key + r":\s*(\d+)", listing)
        stats[key] = int(m.group(1)) if m else None
    return doc, stats


def medians(doc):
    """{(name, threads): entry} of the median aggregates."""
    res = {}
    for b in doc.get("benchmarks", []):
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        if b.get("error_occurred"):
            continue
        m = re.match(r"^([^/]+)", b.get("run_name", b["name"]))
        key = (m.group(1), int(b.get("threads", 1)))
        # Without repetitions there are only iteration entries: take them.
        if b.get("run_type") == "aggregate" or key not in res:
            res[key] = b
    return res


def ns(entry, field):
    return entry[field] * TO_NS[entry.get("time_unit", "ns")]


def mark(ok):
    return "ok" if ok else "MISS"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default=find_bench(), help="mabutrace_bench binary")
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--min-time", default=None, help="--benchmark_min_time (s)")
    ap.add_argument("--filter", default=None, help="--benchmark_filter regex")
    ap.add_argument("--save", help="also write the raw JSON here")
    ap.add_argument("--json", help="read this result file instead of running")
    ap.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    ap.add_argument("--lttng", action="store_true",
                    help="run mabutrace_lttng_bench inside a live LTTng-UST session (the peer side by side)")
    args = ap.parse_args()

    channel = None
    if args.json:
        with open(args.json) as f:
            doc = json.load(f)
    elif args.lttng:
        if args.bench is None or os.path.basename(args.bench) == "mabutrace_bench":
            args.bench = find_bench("mabutrace_lttng_bench")
        if not args.bench:
            sys.exit("mabutrace_lttng_bench not found: install liblttng-ust-dev, rebuild (make build), "
                     "or pass --bench")
        if args.filter is None:
            args.filter = "^(BM_Floor|BM_TraceScope|BM_LttngScope)/"
        doc, channel = run_in_lttng_session(args)
    else:
        if not args.bench:
            sys.exit("mabutrace_bench not found: build it (make build) or pass --bench")
        doc = run(args)

    ctx = doc.get("context", {})
    load = ctx.get("load_avg") or []
    print("host: %s, %s CPUs @ %s MHz, load %s at start; build: %s, %s" % (
        ctx.get("host_name", "?"), ctx.get("num_cpus", "?"), ctx.get("mhz_per_cpu", "?"),
        "/".join("%.2f" % x for x in load) or "?",
        ctx.get("mabutrace_build_type", "?"), ctx.get("mabutrace_compiler", "?")))
    reps = sorted({b.get("repetitions", 1) for b in doc.get("benchmarks", [])})
    print("statistic: median of %s repetitions; ratios use cpu ns/it\n" % "/".join(map(str, reps)))

    med = medians(doc)
    missed = []
    busy = []
    names = []
    for (name, _t) in med:
        if name not in names and not name.startswith("BM_Export"):
            names.append(name)

    hdr = "%-22s %3s %10s %10s %9s %7s %9s %7s" % (
        "benchmark", "thr", "cpu ns/it", "wall ns/it", "vs floor", "target", "2T/1T", "target")
    print(hdr)
    print("-" * len(hdr))
    for name in names:
        for t in sorted(t for (n, t) in med if n == name):
            e = med[(name, t)]
            cpu = ns(e, "cpu_time")
            wall = ns(e, "real_time") * t
            floor = med.get(("BM_Floor", t))
            ratio = cpu / ns(floor, "cpu_time") if floor else None
            one = med.get((name, 1))
            scale = cpu / ns(one, "cpu_time") if (one and t != 1) else None
            ftarget = FLOOR_TARGETS.get((name, t))
            starget = SCALING_TARGETS.get(name) if t != 1 else None
            fcol = ""
            if ftarget is not None and ratio is not None:
                ok = ratio <= ftarget
                fcol = "<=%.2f %s" % (ftarget, mark(ok))
                if not ok:
                    missed.append("%s/threads:%d %.2fx floor > %.2f" % (name, t, ratio, ftarget))
            scol = ""
            if starget is not None and scale is not None:
                ok = scale <= starget
                scol = "<=%.2f %s" % (starget, mark(ok))
                if not ok:
                    missed.append("%s 2T/1T %.2f > %.2f" % (name, scale, starget))
            if wall > cpu * BUSY_RATIO:
                busy.append("%s/threads:%d" % (name, t))
            print("%-22s %3d %10.1f %10.1f %9s %-9s %7s %-9s" % (
                name, t, cpu, wall,
                "%.2fx" % ratio if ratio is not None else "-", fcol,
                "%.2f" % scale if scale is not None else "-", scol))

    exp = med.get(("BM_ExportJson", 1))
    if exp:
        buf_mbps = exp.get("bytes_per_second", 0) / 1e6
        json_mbps = exp.get("json_bytes_per_second", 0) / 1e6
        ok = buf_mbps >= EXPORT_TARGET_MBPS
        if not ok:
            missed.append("BM_ExportJson %.0f MB/s < %.0f" % (buf_mbps, EXPORT_TARGET_MBPS))
        print("\nBM_ExportJson: %.1f ms per export of %.1f MB of buffer (%d records) "
              "-> %.1f MB of JSON" % (
                  ns(exp, "cpu_time") / 1e6, exp.get("buffer_bytes", 0) / 1e6,
                  exp.get("records", 0), exp.get("json_bytes", 0) / 1e6))
        wall_mbps = exp.get("buffer_bytes", 0) / (ns(exp, "real_time") / 1e9) / 1e6
        print("  buffer: %.0f MB/s of CPU time (target >= %.0f %s), %.0f MB/s of wall time; "
              "JSON out: %.0f MB/s" % (buf_mbps, EXPORT_TARGET_MBPS, mark(ok), wall_mbps,
                                       json_mbps))
    pf = med.get(("BM_ExportPerfetto", 1))
    if pf:
        print("BM_ExportPerfetto: %.1f ms per export -> %.1f MB of .pftrace; buffer: %.0f MB/s "
              "of CPU time" % (ns(pf, "cpu_time") / 1e6, pf.get("json_bytes", 0) / 1e6,
                               pf.get("bytes_per_second", 0) / 1e6))

    peers = [(p, o, t) for (p, o) in PEER_TARGETS for (n, t) in sorted(med) if n == p]
    if peers:
        print("\npeer side by side (same harness, same run; x = peer cpu ns/it / ours)")
        if channel is not None:
            counts = ", ".join("%s %d" % (k.lower(), v) for k, v in channel.items() if v is not None)
            print("  LTTng channel (overwrite mode: new events replace the oldest, as in mabutrace's "
                  "ring): %s" % (counts or "no statistics printed by lttng list"))
        for (peer, ours, t) in peers:
            o = med.get((ours, t))
            if not o:
                continue
            x = ns(med[(peer, t)], "cpu_time") / ns(o, "cpu_time")
            target = PEER_TARGETS[(peer, ours)]
            print("  %-24s vs %-14s threads %d: %10.1f vs %10.1f ns  %.2fx  (target >= %.1fx %s)" % (
                peer, ours, t, ns(med[(peer, t)], "cpu_time"), ns(o, "cpu_time"), x, target, mark(x >= target)))
            if x < target:
                missed.append("%s/threads:%d only %.2fx %s" % (peer, t, x, ours))
    elif args.lttng:
        missed.append("BM_LttngScope did not run (see its error above)")

    if busy:
        print("\nwarning: wall > %.2f x cpu for %s: those threads were descheduled (other load "
              "on the machine), so 2-thread rows did not run concurrently; rerun on an idle "
              "machine." % (BUSY_RATIO, ", ".join(busy)))
    if missed:
        print("\ntargets missed: " + "; ".join(missed))
    else:
        print("\nall targets met")
    return 1 if (missed and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
