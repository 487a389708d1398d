#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What an Arduino-ESP32 build of the library would include: preprocessor only.

No Xtensa toolchain nor ESP-IDF headers are available here, so the ESP32
build itself cannot be tested. This checks the part that is ours: with the
macros Arduino-ESP32 defines (ESP_PLATFORM, ARDUINO_ARCH_ESP32, ARDUINO) and
only <root>/src on the include path, `-M -MG` lists every header each
source under src/ would include (missing ones by name), using
arm-none-eabi-g++ -mcpu=cortex-m0 as a stand-in compiler that is neither
Armv7-M nor Linux (its newlib and libstdc++ headers resolve <stdint.h>,
<atomic>, ...). Checks:
  - src/port/host/* and src/port/cortex-m/* include nothing (their guards);
  - every other source that reaches a port header reaches
    src/port/freertos/mabutrace_port_inline.h (src/mabutrace_port_inline.h
    picked it) and no other port's;
  - the only headers not found are ESP-IDF's (esp_*.h, freertos/*.h,
    lwip/*.h, sdkconfig.h);
  - the ESP32's writer (--board-writer, src/runtime/writer_*.cpp) reaches
    the writer code (chunk_writer.h), the other ports' writers
    (--other-writer) reach no runtime header past port.h: each writer's
    guard, which follows the port selection, keeps only its port's. (The
    writer lists come from cmake/mabutrace_sources.cmake.)
Exit 0 = pass, 1 = a check failed.
"""
import argparse
import os
import re
import subprocess
import sys

ESP_HEADER = re.compile(r"^(esp_[A-Za-z0-9_]+\.h|freertos/[A-Za-z0-9_]+\.h|lwip/[A-Za-z0-9_]+\.h|sdkconfig\.h)$")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--gxx", default="arm-none-eabi-g++")
    ap.add_argument("--gcc", default="arm-none-eabi-gcc")
    ap.add_argument("--board-writer", action="append", default=[],
                    help="a writer source of the ESP32's port, relative to --root")
    ap.add_argument("--other-writer", action="append", default=[],
                    help="a writer source of another port, relative to --root")
    args = ap.parse_args()
    src = os.path.join(os.path.abspath(args.root), "src")
    board_writers = {os.path.relpath(w, "src") for w in args.board_writer}
    other_writers = {os.path.relpath(w, "src") for w in args.other_writer}
    flags = ["-mcpu=cortex-m0", "-mthumb", "-DESP_PLATFORM", "-DARDUINO_ARCH_ESP32",
             "-DARDUINO=10819", "-I" + src, "-M", "-MG"]
    failures = []
    for d, dirs, files in os.walk(src):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith((".c", ".cpp", ".S")):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, src)
            cc = [args.gxx, "-std=gnu++17"] if f.endswith(".cpp") else [args.gcc, "-std=gnu11"]
            r = subprocess.run(cc + flags + [path], capture_output=True, text=True)
            if r.returncode != 0:
                failures.append("%s: preprocessing failed:\n%s" % (rel, r.stderr))
                continue
            deps = r.stdout.split(":", 1)[1].replace("\\\n", " ").split()[1:]  # [0] is the source
            ours = [os.path.relpath(os.path.normpath(p), src) for p in deps if os.path.isabs(p)
                    and os.path.normpath(p).startswith(src + os.sep)]
            missing = [p for p in deps if not os.path.isabs(p) and not os.path.exists(p)]
            excluded = rel.startswith(("port/host/", "port/cortex-m/"))
            ports = sorted({p for p in ours if p.startswith("port/") and p.endswith("mabutrace_port_inline.h")})
            print("%-34s %s" % (rel, "nothing (guarded out)" if not deps else
                                "%d headers, port %s, missing %s" % (len(deps), ports or "-", missing)))
            if excluded and deps:
                failures.append("%s includes %s for ESP32 (its guard should exclude it)" % (rel, deps[:4]))
            if not excluded and ports and ports != ["port/freertos/mabutrace_port_inline.h"]:
                failures.append("%s reaches the port headers %s, expected only freertos's" % (rel, ports))
            runtime = sorted(p for p in ours if p.startswith("runtime/"))
            if rel in board_writers and "runtime/chunk_writer.h" not in runtime:
                failures.append("%s is the ESP32's writer but its guard leaves out the writer "
                                "code (runtime headers: %s)" % (rel, runtime))
            if rel in other_writers and runtime not in ([], ["runtime/port.h"]):
                failures.append("%s is another port's writer but includes %s for ESP32 "
                                "(its guard should stop after port.h)" % (rel, runtime))
            bad = [m for m in missing if not ESP_HEADER.match(m)]
            if bad:
                failures.append("%s: headers not found that are not ESP-IDF's: %s" % (rel, bad))
    for f in failures:
        print("FAIL:", f)
    print("PASS" if not failures else "FAILED (%d)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
