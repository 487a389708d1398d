#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Builds the repository root as the Arduino IDE builds a 1.5-format library
for the Arduino Due (Cortex-M3), links examples/arduino/mabutrace_due with a
stub Due core, runs it under QEMU (mps2-an385) and checks its trace.

1. Every .c/.cpp/.S under <root>/src, recursively (what the IDE compiles of a
   library), is compiled with only -I<root>/src and the core's directory on
   the include path, with the flags of the Due core's platform.txt
   (ArduinoCore-sam 1.6.12: -mcpu=cortex-m3 -mthumb -Os, -fno-rtti
   -fno-exceptions -fno-threadsafe-statics, -DARDUINO=... -DARDUINO_ARCH_SAM
   -D__SAM3X8E__, -std=gnu11 for C) and -std=<--std> for C++. Every file
   must compile; the objects of the other ports (src/port/host,
   src/port/freertos, and the other ports' writers in src/runtime, each
   --other-writer) must define nothing (their guards), those of
   src/runtime (the Due's writer, --board-writer, among them), src/format,
   src/http (portable: the Due has no server, but the HTTP service must
   build for an MCU) and src/port/cortex-m must define something. (The
   writer lists come from cmake/mabutrace_sources.cmake.)
2. The sketch becomes a .cpp as the IDE makes it (#include <Arduino.h>, then
   the .ino) and is linked with the stub core (core/), startup.c and
   mps2.ld of examples/cortex-m, newlib-nano and --gc-sections. It must fit
   the Due (512 KiB flash, 96 KiB SRAM).
3. QEMU runs it (-semihosting): main() runs setup() and loop() LOOPS times,
   checks mabutrace_get_stats() (events written, none dropped or
   overwritten) and exits with status 0. UART0 (the sketch's Serial) holds
   the binary trace stream.
4. With --cli: `mabutrace convert` turns the stream into JSON, which must
   hold LOOPS "loop" slices each with a nested "read sensor", the counter
   "A0" with the stub's analogRead() values in order, LOOPS // 50 instants
   "50 loops", the process name "Arduino Due", nothing lost, and loop
   begins 20 ms apart (the sketch's delay(20)): the SysTick clock counted
   every period, which takes the sketch's sysTickHook().
Exit 0 = pass, 1 = a check failed (each failure is printed).
"""
import argparse
import collections
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys

LOOPS = 100
DELAY_MS = 20  # mabutrace_due.ino: delay(20) per loop()

FAILURES = []


def fail(msg):
    FAILURES.append(msg)
    print("FAIL:", msg)


def run(cmd, what, timeout=300):
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    out = (r.stdout + r.stderr).decode(errors="replace")
    if r.returncode != 0:
        fail("%s: exit %d\n  %s\n%s" % (what, r.returncode, " ".join(cmd), out))
        return None
    if out.strip():
        print(out.rstrip())
    return r


def defined_symbols(nm, obj):
    r = subprocess.run([nm, "--defined-only", obj], capture_output=True, text=True)
    return [line.split()[-1] for line in r.stdout.splitlines()
            if len(line.split()) == 3 and line.split()[1] in "TtDdBbRrWwVv"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True, help="the library (repository root)")
    ap.add_argument("--sketch", required=True, help="the .ino")
    ap.add_argument("--core", required=True, help="stub core directory (Arduino.h, due_stub.cpp)")
    ap.add_argument("--board", required=True, help="directory of startup.c, mps2.ld, firmware.h")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--std", default="gnu++17", help="C++ -std= (the SAM core's platform.txt: gnu++11)")
    ap.add_argument("--gcc", default="arm-none-eabi-gcc")
    ap.add_argument("--gxx", default="arm-none-eabi-g++")
    ap.add_argument("--size", default="arm-none-eabi-size")
    ap.add_argument("--nm", default="arm-none-eabi-nm")
    ap.add_argument("--qemu", default="qemu-system-arm")
    ap.add_argument("--cli", default="", help="mabutrace CLI: also convert and check the stream")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--board-writer", action="append", default=[],
                    help="a writer source of the Due's port, relative to --root (src/runtime/writer_*.cpp)")
    ap.add_argument("--other-writer", action="append", default=[],
                    help="a writer source of another port, relative to --root: must define nothing")
    args = ap.parse_args()

    src = os.path.join(os.path.abspath(args.root), "src")
    work = os.path.abspath(args.workdir)
    # Two runs of one test (two ctest runs in one build tree) would share the
    # workdir: the second's rmtree deleted the first's objects and stream.
    # The lock, held until exit, makes the second wait.
    os.makedirs(os.path.dirname(work), exist_ok=True)
    lock = open(work + ".lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(os.path.join(work, "lib"))

    # The Due core's platform.txt (recipe.c.o.pattern / recipe.cpp.o.pattern).
    board = ["-mcpu=cortex-m3", "-mthumb", "-DF_CPU=84000000L", "-DARDUINO=10819",
             "-DARDUINO_SAM_DUE", "-DARDUINO_ARCH_SAM", "-D__SAM3X8E__", "-DUSBCON"]
    common = ["-c", "-g", "-Os", "-Wall", "-Wextra", "-ffunction-sections", "-fdata-sections",
              "-nostdlib", "--param", "max-inline-insns-single=500"] + board
    cflags = [args.gcc] + common + ["-std=gnu11", "-Dprintf=iprintf"]
    cxxflags = [args.gxx] + common + ["-std=" + args.std, "-fno-threadsafe-statics",
                                      "-fno-rtti", "-fno-exceptions"]
    includes = ["-I" + src, "-I" + os.path.abspath(args.core)]  # library src/, the core

    # 1. Every source under src/, as the IDE finds them.
    sources = []
    for d, dirs, files in os.walk(src):
        dirs.sort()
        for f in sorted(files):
            if f.endswith((".c", ".cpp", ".S")):
                sources.append(os.path.join(d, f))
    print("library: %d sources under %s" % (len(sources), src))
    cxx17 = not re.search(r"\+\+(98|03|0x|11|1y|14)$", args.std)
    # Writer files, as paths under src/ (the lists name them from the root).
    board_writers = {os.path.relpath(w, "src") for w in args.board_writer}
    other_writers = {os.path.relpath(w, "src") for w in args.other_writer}
    for rel in sorted(board_writers | other_writers):
        if not os.path.isfile(os.path.join(src, rel)):
            fail("writer src/%s (from the source lists) does not exist" % rel)
    if not board_writers:
        fail("no --board-writer given: which writer records for the Due is not checked")
    objects = []
    for s in sources:
        rel = os.path.relpath(s, src)
        obj = os.path.join(work, "lib", rel.replace(os.sep, "_") + ".o")
        tool = (cxxflags if s.endswith(".cpp") else
                [args.gcc, "-c", "-g", "-x", "assembler-with-cpp"] + board if s.endswith(".S") else cflags)
        if run(tool + includes + [s, "-o", obj], "compile src/" + rel) is None:
            continue
        objects.append(obj)
        syms = defined_symbols(args.nm, obj)
        parts = rel.split(os.sep)
        belongs = (parts[0] in ("runtime", "format", "http") or parts[:2] == ["port", "cortex-m"]) \
            and rel not in other_writers
        # The writers and device exports need C++17 (src/format/trace_events.h):
        # in an older -std they are meant to compile to nothing.
        if belongs and not cxx17 and "MABUTRACE_FORMAT_WRITERS" in open(s).read():
            belongs = False
        print("  %-40s %3d symbols%s" % (rel, len(syms), "" if belongs else " (not for this board)"))
        if belongs and not syms:
            fail("src/%s compiled to nothing for the Due (its guard excludes Armv7-M?)" % rel)
        if not belongs and syms:
            fail("src/%s defines %s for the Due: it belongs to another port (missing guard?)"
                 % (rel, ", ".join(syms[:5])))
    if FAILURES:
        return 1

    # 2. The sketch as the IDE preprocesses it, the stub core, the board.
    sketch_cpp = os.path.join(work, os.path.basename(args.sketch) + ".cpp")
    with open(args.sketch) as f:
        ino = f.read()
    with open(sketch_cpp, "w") as f:
        f.write('#include <Arduino.h>\n#line 1 "%s"\n%s' % (os.path.abspath(args.sketch), ino))
    board_inc = ["-I" + os.path.abspath(args.board)]
    extra = [
        (cxxflags + includes, sketch_cpp, "sketch"),
        (cxxflags + includes + board_inc + ["-DMABUTRACE_TEST_LOOPS=%d" % LOOPS],
         os.path.join(args.core, "due_stub.cpp"), "stub core"),
        (cflags + board_inc, os.path.join(args.board, "startup.c"), "startup.c"),
    ]
    for flags, s, what in extra:
        obj = os.path.join(work, os.path.basename(s) + ".o")
        if run(flags + [s, "-o", obj], "compile " + what) is None:
            return 1
        objects.append(obj)
    elf = os.path.join(work, "mabutrace_due.elf")
    link = [args.gcc, "-mcpu=cortex-m3", "-mthumb", "-Os", "-Wl,--gc-sections",
            "-T" + os.path.join(args.board, "mps2.ld"), "-nostartfiles",
            "--specs=nano.specs", "--specs=nosys.specs",
            "-Wl,-Map," + os.path.join(work, "mabutrace_due.map"), "-Wl,--cref",
            "-Wl,--check-sections", "-Wl,--unresolved-symbols=report-all", "-Wl,--warn-common",
            "-o", elf, "-Wl,--start-group"] + objects + ["-Wl,--end-group", "-lm", "-lgcc"]
    if run(link, "link") is None:
        return 1
    r = subprocess.run([args.size, elf], capture_output=True, text=True)
    text, data, bss = (int(x) for x in r.stdout.splitlines()[1].split()[:3])
    print("mabutrace_due.elf: text %d, data %d, bss %d (%s)" % (text, data, bss, args.std))
    if text + data > 512 * 1024:
        fail("flash %d bytes > the Due's 512 KiB" % (text + data))
    if data + bss > 96 * 1024:
        fail("RAM %d bytes > the Due's 96 KiB" % (data + bss))

    # 3. Run it.
    stream = os.path.join(work, "serial.bin")
    cmd = [args.qemu, "-M", "mps2-an385", "-nographic", "-monitor", "none", "-semihosting",
           "-serial", "file:" + stream, "-kernel", elf]
    try:
        q = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        fail("qemu did not finish within %d s: %s" % (args.timeout, " ".join(cmd)))
        return 1
    print((q.stdout + q.stderr).decode(errors="replace").rstrip())
    if q.returncode != 0:
        fail("qemu exit status %d (the sketch's checks failed or it faulted): %s"
             % (q.returncode, " ".join(cmd)))
        return 1
    print("serial stream: %d bytes" % os.path.getsize(stream))

    # 4. The stream.
    if not args.cli:
        print("no mabutrace CLI: stream not converted")
        return 0
    out = os.path.join(work, "due.json")
    if run([args.cli, "convert", stream, "-o", out], "mabutrace convert") is None:
        return 1
    check_json(out)
    return 1 if FAILURES else 0


def check_json(path):
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    meta = doc.get("metadata", {})
    procs = [e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"]
    if "Arduino Due" not in procs:
        fail("process name 'Arduino Due' not in %s" % procs)
    stacks = collections.defaultdict(list)
    slices = collections.Counter()
    nested = 0
    for e in events:
        ph, tid = e.get("ph"), e.get("tid")
        if ph == "B":
            if e["name"] == "read sensor" and stacks[tid][-1:] == ["loop"]:
                nested += 1
            stacks[tid].append(e["name"])
            slices[e["name"]] += 1
        elif ph == "E":
            if not stacks[tid]:
                fail("E without B on tid %s" % tid)
                continue
            stacks[tid].pop()
    if any(stacks.values()):
        fail("scopes left open: %s" % dict(stacks))
    if slices["loop"] != LOOPS or nested != LOOPS:
        fail("%d 'loop' slices, %d 'read sensor' inside one; expected %d each"
             % (slices["loop"], nested, LOOPS))
    values = [e["args"]["value"] for e in events if e.get("ph") == "C" and e.get("name") == "A0"]
    want = [(k * 37 + 11) % 4096 for k in range(LOOPS)]  # due_stub.cpp analogRead()
    if values != want:
        fail("counter 'A0' = %s..., expected %s..." % (values[:5], want[:5]))
    # Timestamps: loop() sleeps delay(20) (millis() from the stub's 1 ms
    # SysTick). Under QEMU the port times with that SysTick, whose periods it
    # counts only if the sketch's sysTickHook() polls the clock every tick:
    # without it the loops would seem about 1 ms apart.
    begins = [e["ts"] for e in events if e.get("ph") == "B" and e.get("name") == "loop"]
    if len(begins) > 1:
        span_ms = (begins[-1] - begins[0]) / 1000.0
        want_ms = (len(begins) - 1) * DELAY_MS
        print("loop begins span %.1f ms (%d x delay(%d))" % (span_ms, len(begins) - 1, DELAY_MS))
        if not 0.95 * want_ms <= span_ms <= 2.0 * want_ms:
            fail("the loop begins span %.1f ms, expected about %d ms: the clock lost SysTick periods"
                 % (span_ms, want_ms))
    instants = sum(1 for e in events if e.get("ph") == "i" and e.get("name") == "50 loops")
    if instants != LOOPS // 50:
        fail("%d '50 loops' instants, expected %d" % (instants, LOOPS // 50))
    for key in ("lost_records", "dropped_records", "damaged_records", "orphan_scope_ends"):
        if meta.get(key, 0) != 0:
            fail("metadata %s = %s" % (key, meta.get(key)))
    print("json: %d events: %d loop slices, %d A0 samples, %d instants"
          % (len(events), slices["loop"], len(values), instants))


if __name__ == "__main__":
    rc = main()
    print("PASS" if rc == 0 and not FAILURES else "FAILED (%d)" % len(FAILURES))
    sys.exit(1 if FAILURES or rc else 0)
