#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""R-A8 on the Cortex-M: a MABUTRACE_DISABLE build of the demo firmware
(examples/cortex-m/main.c, fw_disabled.elf) is exactly as big as the same
firmware with every tracing line deleted (fw_stripped.elf: no trace call,
no include, no trace memory), and names no mabutrace symbol. The traced
build (fw_trace.elf) must be bigger, or the comparison proves nothing.

  check_disable_size.py --size arm-none-eabi-size --nm arm-none-eabi-nm \
      --disabled fw_disabled.elf --stripped fw_stripped.elf --traced fw_trace.elf
Exit 0 = pass.
"""
import argparse
import subprocess
import sys


def sizes(tool, elf):
    out = subprocess.run([tool, elf], capture_output=True, text=True, check=True).stdout
    text, data, bss = (int(x) for x in out.splitlines()[1].split()[:3])
    return {"text": text, "data": data, "bss": bss}


def main():
    ap = argparse.ArgumentParser()
    for a in ("--size", "--nm", "--disabled", "--stripped", "--traced"):
        ap.add_argument(a, required=True)
    args = ap.parse_args()
    disabled, stripped, traced = (sizes(args.size, e) for e in (args.disabled, args.stripped, args.traced))
    ok = True
    print("%-10s %8s %8s %8s" % ("build", ".text", ".data", ".bss"))
    for name, s in (("DISABLE", disabled), ("no trace", stripped), ("traced", traced)):
        print("%-10s %8d %8d %8d" % (name, s["text"], s["data"], s["bss"]))
    if disabled != stripped:
        print("FAIL: the MABUTRACE_DISABLE build differs from the build without trace calls")
        ok = False
    symbols = subprocess.run([args.nm, args.disabled], capture_output=True, text=True, check=True).stdout
    named = [l for l in symbols.splitlines() if "mabutrace" in l.lower()]
    if named:
        print("FAIL: the MABUTRACE_DISABLE build references the library:\n  " + "\n  ".join(named[:10]))
        ok = False
    if traced["text"] <= disabled["text"]:
        print("FAIL: the traced build is not bigger than the DISABLE build (did tracing compile in?)")
        ok = False
    print("PASS" if ok else "")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
