#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run ete_packet_bench (mabutrace vs OpenCSD ETE packet processor on the same
>= 64 MiB input, one process) and report MB/s of both and the ratio.

  bench/ete/compare_ete.py --bench BUILD/bench/ete/ete_packet_bench \
      [--min-mib 64] [--repeat 5] [--runs 3] [--target 3.0] [--out result.json]

Each run prints both decoders' best-of-`repeat` throughput; the report takes
the median ratio over `runs` runs (timings on a shared machine are noisy).
Exit code 1 if the median ratio is below --target (default 3.0, the goal of
issue 5), 0 otherwise. The result JSON records the machine and both numbers.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", required=True, help="path of the ete_packet_bench binary")
    ap.add_argument("--min-mib", type=float, default=64)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--target", type=float, default=3.0)
    ap.add_argument("--out", help="write the result JSON here")
    a = ap.parse_args()

    results = []
    for i in range(a.runs):
        out = subprocess.run([a.bench, "--json", "--min-mib", str(a.min_mib), "--repeat", str(a.repeat)],
                             check=True, capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        results.append(r)
        print(f"run {i + 1}: mabutrace {r['mabutrace']['mb_per_s']:8.1f} MB/s   "
              f"OpenCSD {r['opencsd_version']} {r['opencsd']['mb_per_s']:8.1f} MB/s   ratio {r['ratio']:.2f}x")
    ratios = [r["ratio"] for r in results]
    med = statistics.median(ratios)
    best = max(results, key=lambda r: r["mabutrace"]["mb_per_s"])
    summary = {
        "machine": {"cpu": cpu_model(), "cpus": os.cpu_count(), "system": platform.platform(),
                    "load_average": os.getloadavg()},
        "input_bytes": results[0]["input_bytes"],
        "opencsd_version": results[0]["opencsd_version"],
        "mabutrace_mb_per_s": [r["mabutrace"]["mb_per_s"] for r in results],
        "opencsd_mb_per_s": [r["opencsd"]["mb_per_s"] for r in results],
        "ratios": ratios,
        "median_ratio": med,
        "target_ratio": a.target,
        "packets": {"mabutrace": best["mabutrace"]["packets"], "opencsd": best["opencsd"]["packets"]},
    }
    print(f"input {summary['input_bytes'] / 1048576:.1f} MiB on {summary['machine']['cpu']} "
          f"({summary['machine']['cpus']} CPUs, load {summary['machine']['load_average'][0]:.1f})")
    print(f"median ratio {med:.2f}x (target {a.target:.1f}x): {'OK' if med >= a.target else 'BELOW TARGET'}")
    if a.out:
        with open(a.out, "w") as f:
            json.dump(summary, f, indent=2)
    return 0 if med >= a.target else 1


if __name__ == "__main__":
    sys.exit(main())
