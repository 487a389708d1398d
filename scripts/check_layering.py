#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layering rule of the tree (docs/architecture.md): code on the host
side (host/, tools/) includes only the public API (include/), the format
layer (src/format/) and other host code -- never the runtime's or a port's
private headers (src/runtime/, src/port/), which are the device's
implementation.

Every `#include "..."` of every C/C++ file under host/ and tools/ is
resolved as a compiler with the tree's include paths would: beside the
file, then include/, src/ (for "format/..."), then every folder of host/
and tools/. An include that lands in src/ outside src/format/, or that
names a header only src/runtime/ or src/port/ has, is a violation.

  check_layering.py [--root DIR]     exit 0: clean; 1: violations, each
                                     printed as FILE:LINE: #include "X" ...
"""
import argparse
import os
import re
import sys

CHECKED = ("host", "tools")
SOURCE = (".c", ".cc", ".cpp", ".h", ".hpp")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folders(root, top):
    for d, dirs, _ in os.walk(os.path.join(root, top)):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        yield d


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    root = os.path.realpath(ap.parse_args().root)
    allowed = [os.path.join(root, p) for p in ("include", "src/format")] + \
              [os.path.join(root, t) for t in CHECKED]
    private = [os.path.join(root, "src/runtime")] + \
              [d for d in folders(root, "src/port") if d != os.path.join(root, "src/port")]
    search = [os.path.join(root, "include"), os.path.join(root, "src")] + \
             [d for t in CHECKED for d in folders(root, t)]
    inside = lambda path, dirs: any(os.path.commonpath([path, d]) == d for d in dirs)
    violations, files = [], 0
    for top in CHECKED:
        for d in folders(root, top):
            for name in sorted(os.listdir(d)):
                if not name.endswith(SOURCE):
                    continue
                path = os.path.join(d, name)
                files += 1
                with open(path, errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        inc = m.group(1)
                        where = os.path.relpath(path, root) + ":" + str(n)
                        found = next((os.path.realpath(os.path.join(s, inc)) for s in [d] + search
                                      if os.path.isfile(os.path.join(s, inc))), None)
                        if found and not inside(found, allowed):
                            violations.append(f'{where}: #include "{inc}" is {os.path.relpath(found, root)}, '
                                              "private to the device side (use include/ or src/format/)")
                        elif not found and any(os.path.isfile(os.path.join(p, inc)) for p in private):
                            violations.append(f'{where}: #include "{inc}" names a header of src/runtime '
                                              "or src/port, private to the device side")
    for v in violations:
        print(v)
    print(f"layering: {files} files of host/ and tools/, {len(violations)} violation(s)")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
