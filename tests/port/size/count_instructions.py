#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Counts the instructions one TRACE_SCOPE (begin + end) executes on the
Cortex-M or RV32, with QEMU as the counter (Debian's QEMU has no TCG plugins).

Runs examples/cortex-m/fw_bench_*.elf as
  qemu-system-arm -M mps2-an386 -semihosting -icount shift=0 -singlestep
                  -d exec,nochain -D LOG -kernel ELF
or examples/riscv/fw_bench_*.elf (--machine virt) as
  qemu-system-riscv32 -M virt -bios none -icount shift=0 -singlestep
                      -d exec,nochain -D LOG -kernel ELF
-singlestep makes every translation block one guest instruction and
-d exec,nochain logs every block executed ("Trace N: host [cs/pc/flags/..]
symbol"), so each log line is one executed instruction (an I/O instruction
that QEMU re-executes shows twice in a row and is counted once). bench.c calls
bench_mark() between repetitions: region k is the instructions from one
bench_mark() call to the next. Four groups of BENCH_REPS regions: in
Thread mode an empty function (call + return + loop: the harness), then a
function holding one TRACE_SCOPE; then the same two from the PendSV
handler (Handler mode: the ISR context's path; on RISC-V the machine
software interrupt's trap handler). Per scope = region -
harness (median of each; min and max are printed too: max shows a slow
path, e.g. a chunk change).

  count_instructions.py --qemu Q --elf E [--machine M] [--max N] [--log L]
Exit 1 if the median exceeds --max (when given) or the run fails.
"""
import argparse
import re
import statistics
import subprocess
import sys
import tempfile

BENCH_REPS = 8  # bench.c


def count(qemu, machine, elf, log):
    cmd = [qemu, "-M", machine, "-nographic", "-monitor", "none", "-serial", "null",
           "-icount", "shift=0", "-singlestep", "-d", "exec,nochain", "-D", log, "-kernel", elf]
    # virt: no OpenSBI (machine mode from the ELF's entry), the run ends
    # through the SiFive test device; the MPS2 boards end by semihosting.
    cmd[1:1] = ["-bios", "none"] if machine == "virt" else ["-semihosting"]
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    if r.returncode != 0:
        raise SystemExit("FAIL: %s exited %d: %s" % (" ".join(cmd), r.returncode,
                                                    r.stderr.decode(errors="replace")))
    regions, n, started = [], 0, False
    pat = re.compile(r"^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/")
    mark_pc = None
    prev_pc = None
    with open(log) as f:
        for line in f:
            m = pat.match(line)
            if not m:
                continue
            # With -icount an instruction that touches a device (SysTick,
            # UART) ends its block and is executed again as the block's last
            # I/O instruction: the log shows it twice in a row. No
            # instruction of the measured code branches to itself, so a
            # repeated PC is that re-execution, not a second instruction.
            if m.group(1) == prev_pc:
                continue
            prev_pc = m.group(1)
            is_mark = line.rstrip().endswith(" bench_mark")
            if is_mark and mark_pc is None:
                mark_pc = m.group(1)
            # A region ends at the first instruction of bench_mark().
            if is_mark and m.group(1) == mark_pc:
                if started:
                    regions.append(n)
                started, n = True, 0
            n += 1
    if len(regions) != 4 * BENCH_REPS:
        raise SystemExit("FAIL: found %d regions in %s, expected %d (symbol names in the log?)"
                         % (len(regions), log, 4 * BENCH_REPS))
    r = BENCH_REPS
    return regions[:r], regions[r:2 * r], regions[2 * r:3 * r], regions[3 * r:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qemu", default="qemu-system-arm")
    ap.add_argument("--machine", default="mps2-an386")
    ap.add_argument("--elf", required=True)
    ap.add_argument("--max", type=int, default=0, help="fail if Thread mode's median is above")
    ap.add_argument("--max-isr", type=int, default=0, help="fail if Handler mode's median is above")
    ap.add_argument("--log", help="keep the exec log here")
    args = ap.parse_args()
    log = args.log or tempfile.NamedTemporaryFile(suffix=".log", delete=False).name
    thread_harness, thread_scope, isr_harness, isr_scope = count(args.qemu, args.machine, args.elf, log)
    status = 0
    for mode, harness, scope, limit in (("Thread mode", thread_harness, thread_scope, args.max),
                                        ("Handler mode", isr_harness, isr_scope, args.max_isr)):
        base = statistics.median(harness)
        per = [s - base for s in scope]
        med = statistics.median(per)
        print("%s: TRACE_SCOPE begin+end in %s = %d instructions (median of %d; min %d, max %d); "
              "harness %d" % (args.elf, mode, med, len(per), min(per), max(per), base))
        if limit and med > limit:
            print("FAIL: %s: %d > %d instructions" % (mode, med, limit))
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
