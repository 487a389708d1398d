#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Timestamps across long quiet gaps and 32-bit counter wraps on the
Cortex-M (examples/cortex-m/clock_edges.c, one firmware per case).

Runs fw_clock_edges_N.elf under qemu-system-arm (-icount shift=0), converts
the UART0 stream with `mabutrace convert`, and compares every instant's
time with the one the firmware made it happen at:
  case 1  config clock at 1 GHz: main_t0 and isr_t0 at 1 us, main_t1 and
          isr_t1 after a quiet gap of 2^32 + 5000 ns (a 32-bit delta would
          wrap to 5 us);
  case 2  CMSDK timer 1 as the counter clock, no polls: k0..k9 2^29 counts
          (21.47 s at 25 MHz) apart, the counter wrapping on the way;
  case 3  the same with a poll after each skip (the fast path).
Exit 0 = pass, 1 = a check failed (each failure printed).

  check_clock_edges.py --qemu Q --cli MABUTRACE --fw-dir DIR --workdir W
"""
import argparse
import json
import os
import subprocess
import sys

SKIP_US = (1 << 29) / 25e6 * 1e6  # one skip of timer 1, in us
TOLERANCE_US = 5.0                # the instructions between two instants


def run(args, case):
    elf = os.path.join(args.fw_dir, "fw_clock_edges_%d.elf" % case)
    stream = os.path.join(args.workdir, "clock_edges_%d.bin" % case)
    out = os.path.join(args.workdir, "clock_edges_%d.json" % case)
    r = subprocess.run([args.qemu, "-M", "mps2-an386", "-nographic", "-monitor", "none",
                        "-semihosting", "-icount", "shift=0", "-serial", "file:" + stream,
                        "-kernel", elf], stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    if r.returncode != 0:
        return None, "qemu exit %d for %s" % (r.returncode, elf)
    r = subprocess.run([args.cli, "convert", stream, "-o", out], capture_output=True, timeout=60)
    if r.returncode != 0:
        return None, "convert %s: exit %d: %s" % (stream, r.returncode, r.stderr.decode(errors="replace"))
    with open(out) as f:
        events = json.load(f)["traceEvents"]
    return {e["name"]: e["ts"] for e in events if e.get("ph") == "i"}, None


def expected(case):
    if case == 1:
        gap_us = ((1 << 32) + 5000) / 1000.0
        return {"main_t0": 1.0, "isr_t0": 1.0, "main_t1": 1.0 + gap_us, "isr_t1": 1.0 + gap_us}
    want = {"k%d" % k: k * SKIP_US for k in range(10)}
    want["isr_k5"] = 5 * SKIP_US
    return want


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--qemu", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--fw-dir", required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    failures = 0
    for case in (1, 2, 3):
        got, err = run(args, case)
        if err:
            print("FAIL: case %d: %s" % (case, err))
            failures += 1
            continue
        want = expected(case)
        missing = sorted(set(want) - set(got))
        if missing:
            print("FAIL: case %d: instants %s not in the trace" % (case, missing))
            failures += 1
            continue
        # Each step from the instant before: the skipped time plus the few
        # instructions that run between two instants (case 1's clock is set
        # by hand, so there it is exact).
        order = sorted(want, key=lambda n: (want[n], n.startswith("isr")))
        for prev, name in zip(order, order[1:]):
            step, want_step = got[name] - got[prev], want[name] - want[prev]
            if abs(step - want_step) > TOLERANCE_US:
                print("FAIL: case %d: %s is %.3f us after %s, expected %.3f us"
                      % (case, name, step, prev, want_step))
                failures += 1
        if case == 1 and got["main_t0"] != want["main_t0"]:
            print("FAIL: case 1: main_t0 at %s us, expected %s" % (got["main_t0"], want["main_t0"]))
            failures += 1
        print("case %d: %d instants, %s %.3f us after %s" % (case, len(got), order[-1],
                                                              got[order[-1]] - got[order[0]], order[0]))
    if failures:
        print("%d check(s) failed" % failures)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
