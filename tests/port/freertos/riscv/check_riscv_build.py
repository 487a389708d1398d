#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the rv32imc build of the FreeRTOS / ESP-IDF adapter and the
recording core (tests/port/freertos/riscv/CMakeLists.txt: the FAKE
ESP-IDF headers, a single-core ESP32-C3 with CONFIG_MABUTRACE_CLOCK_CPU_CYCLES).

The archive is linked into one relocatable object (ld -r, every member):
1. every symbol it still needs is one the fake ESP-IDF headers declare
   (FreeRTOS, esp_cpu, esp_clk, heap_caps: ESP-IDF defines them), or one of
   the C library, libgcc's 64-bit division, or GCC's out-of-line atomics
   (ESP-IDF's newlib supplies __atomic_* on cores without the A extension);
   anything else would be a link error in an ESP-IDF project;
2. the RISC-V branch is in: the clock calls esp_cpu_get_cycle_count() and
   xTaskGetTickCountFromISR(), not esp_timer_get_time(), and the ISR test
   is xPortInIsrContext();
3. the code is rv32imc: no instruction of the A extension (lr/sc/amo*),
   which the ESP32-C3 lacks, and compressed instructions are used;
4. the public API is defined (mabutrace_init, mabutrace_scope_begin, ...).

  check_riscv_build.py --archive LIB.a --ld LD --nm NM --objdump OBJDUMP --fake DIR
Exit 0 = pass, 1 = a check failed (each failure is printed).
"""
import argparse
import glob
import os
import re
import subprocess
import sys

RUNTIME = {"memcpy", "memset", "memmove", "memcmp", "strcmp", "strncpy", "strnlen", "strlen", "snprintf",
           "__divdi3", "__udivdi3", "__moddi3", "__umoddi3"}
API = ("mabutrace_init_with_config", "mabutrace_scope_begin", "mabutrace_scope_end", "mabutrace_counter",
       "mabutrace_instant", "mabutrace_flow_out", "mabutrace_flush_output")


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def main():
    ap = argparse.ArgumentParser()
    for a in ("--archive", "--ld", "--nm", "--objdump", "--fake", "--workdir"):
        ap.add_argument(a, required=True)
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    obj = os.path.join(args.workdir, "mabutrace_freertos_rv32imc.o")
    run(args.ld, "-r", "-m", "elf32lriscv", "--whole-archive", args.archive, "-o", obj)
    failures = []

    undefined = set(run(args.nm, "-u", obj).split()) - {"U"}
    declared = set()
    for h in glob.glob(os.path.join(args.fake, "**", "*.h"), recursive=True):
        with open(h) as f:
            declared |= set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", f.read()))
    unknown = sorted(s for s in undefined
                     if s not in declared and s not in RUNTIME and not s.startswith("__atomic_"))
    if unknown:
        failures.append("needs symbols no ESP-IDF header declares: %s" % unknown)
    for need in ("esp_cpu_get_cycle_count", "xTaskGetTickCountFromISR", "xPortInIsrContext"):
        if need not in undefined:
            failures.append("%s is not called: the RISC-V branch is not compiled in" % need)
    if "esp_timer_get_time" in undefined:
        failures.append("esp_timer_get_time is still the clock")

    text = run(args.objdump, "-d", "--no-show-raw-insn", obj)
    atomics = [l.strip() for l in text.splitlines() if re.search(r"\t(lr\.w|sc\.w|amo\w+\.w)", l)]
    if atomics:
        failures.append("%d A-extension instructions (not on rv32imc), e.g. %s" % (len(atomics), atomics[:3]))
    if not re.search(r"\tc\.", run(args.objdump, "-d", "-M", "no-aliases", "--no-show-raw-insn", obj)):
        failures.append("no compressed instruction: not built for the C extension")

    defined = set(re.findall(r" T (\w+)", run(args.nm, obj)))
    missing = [f for f in API if f not in defined]
    if missing:
        failures.append("API not defined: %s" % missing)

    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print("rv32imc: %d undefined symbols, all ESP-IDF/FreeRTOS API, libc, libgcc or __atomic_*: %s"
          % (len(undefined), " ".join(sorted(undefined))))
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
