#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What each part of a Cortex-M or RISC-V firmware costs in flash and RAM, from the
GNU ld map file (only input sections that were linked: --gc-sections has
already dropped unused functions).

Parts: the recording core (every member of the core library,
libmabutrace_mcu_*.a: the runtime's recorder sources, the Cortex-M writer
and the port), except the binary stream writer (stream_writer.cpp +
chunk_reader.cpp), the C library and libgcc pieces they pull in (memcpy,
64-bit division...), and the firmware itself. (By library, not by file
name: a source added to the core is counted without a change here.) .text counts code and read-only data (.rodata),
.data initialised RAM, .bss zeroed RAM (the firmware's trace memory array
is the firmware's .bss, not the core's).

  size_report.py [--budget NAME=N ...] NAME=FILE.map ...
Prints a table per map; exit 1 if the recording core's .text in map NAME
exceeds N bytes.
"""
import argparse
import re
import sys

CORE_LIBRARY = "libmabutrace_mcu_"
STREAM = ("stream_writer.cpp", "chunk_reader.cpp")


def part_of(obj):
    m = re.search(r"\(([^)]+)\)$", obj)  # archive(member)
    member = (m.group(1) if m else obj.rsplit("/", 1)[-1])
    lib = obj.rsplit("/", 1)[-1]
    if lib.startswith(CORE_LIBRARY):
        return "binary stream" if member.startswith(STREAM) else "recording core"
    if lib.startswith(("libc", "libg", "libgcc", "libnosys", "libstdc++", "libm")):
        return "libc/libgcc"
    return "firmware"


def kind_of(section):
    # (.srodata, .sdata, .sbss: RISC-V's small-data sections, gp-relative.)
    if section.startswith((".text", ".rodata", ".srodata", ".ARM.exidx", ".init_array", ".vectors")):
        return "text"
    if section.startswith((".data", ".sdata")):
        return "data"
    if section.startswith((".bss", ".sbss", "COMMON")):
        return "bss"
    return None


def parse(path):
    sizes = {}
    with open(path) as f:
        text = f.read()
    start = text.find("Linker script and memory map")
    lines = text[start:].splitlines()
    pending = None
    row = re.compile(r"^ (\S+)?\s+0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(\S.*)$")
    for line in lines:
        if pending is not None:
            line = " " + pending + line
            pending = None
        m = re.match(r"^ (\.\S+|COMMON)$", line)
        if m:  # long section name: the numbers follow on the next line
            pending = m.group(1)
            continue
        m = row.match(line)
        if not m or not m.group(1):
            continue
        kind = kind_of(m.group(1))
        if kind is None:
            continue
        size = int(m.group(3), 16)
        part = part_of(m.group(4).strip())
        sizes.setdefault(part, {"text": 0, "data": 0, "bss": 0})[kind] += size
    return sizes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("maps", nargs="+", help="NAME=FILE.map")
    ap.add_argument("--budget", action="append", default=[], help="NAME=BYTES")
    args = ap.parse_args()
    budgets = {k: int(v) for k, v in (b.split("=", 1) for b in args.budget)}
    status = 0
    for spec in args.maps:
        name, path = spec.split("=", 1)
        sizes = parse(path)
        print("%s (%s)" % (name, path))
        print("  %-16s %8s %8s %8s" % ("part", ".text", ".data", ".bss"))
        for part in ("recording core", "binary stream", "libc/libgcc", "firmware"):
            s = sizes.get(part, {"text": 0, "data": 0, "bss": 0})
            print("  %-16s %8d %8d %8d" % (part, s["text"], s["data"], s["bss"]))
        core = sizes.get("recording core", {"text": 0})["text"]
        if core == 0:
            print("FAIL: no recording-core section found in %s" % path)
            status = 1
        if name in budgets and core > budgets[name]:
            print("FAIL: %s: recording core .text %d > %d bytes" % (name, core, budgets[name]))
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
