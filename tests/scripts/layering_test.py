#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/check_layering.py must catch every way host code can reach a
device-private header, name the file, line and include, and pass what the
rule allows. Builds a small tree in a temporary folder and runs the check
on it. Exit 0 = the check behaves."""
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "check_layering.py")

TREE = {
    "include/mabutrace/mabutrace.h": "",
    "src/format/record_format.h": "",
    "src/runtime/ring_buffer.h": "",
    "src/port/host/port_inline.h": "",
    "host/model/trace_model.h": "",
    "host/good/good.cpp": '#include "mabutrace/mabutrace.h"\n#include "format/record_format.h"\n'
                          '#include "trace_model.h"\n#include <vector>\n#include "generated.h"\n',
    "host/bad/bare.cpp": '#include "ring_buffer.h"\n',            # needs -Isrc/runtime
    "host/bad/prefixed.cpp": '\n#include "runtime/ring_buffer.h"\n',  # through -Isrc
    "tools/cli/relative.cpp": '#include "../../src/port/host/port_inline.h"\n',
}
EXPECT = ['host/bad/bare.cpp:1: #include "ring_buffer.h"',
          'host/bad/prefixed.cpp:2: #include "runtime/ring_buffer.h"',
          'tools/cli/relative.cpp:1: #include "../../src/port/host/port_inline.h"']


def main():
    with tempfile.TemporaryDirectory() as root:
        for path, text in TREE.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        r = subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True)
    out = r.stdout
    print(out)
    ok = r.returncode == 1
    for e in EXPECT:
        if e not in out:
            print("FAIL: not reported:", e)
            ok = False
    if "good.cpp" in out:
        print("FAIL: an allowed include was reported")
        ok = False
    if "3 violation(s)" not in out:
        print("FAIL: expected exactly 3 violations")
        ok = False
    print("0 failed" if ok else "failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
