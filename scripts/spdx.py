#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""spdx.py: every source file of the tree starts with its license's SPDX
identifier (https://spdx.dev/learn/handling-license-info/), so a file
copied out of the tree still says under which license it came.

  spdx.py [--root DIR]          check: list the files without it, exit 1 if any
  spdx.py --fix [--root DIR]    add "SPDX-License-Identifier: MIT" where missing

Sources are the files with the suffixes below (C, C++, CMake, Python, shell,
protobuf, Arduino sketches, JavaScript), outside build trees, node_modules
and fuzz corpora. The line goes first, in the file's own comment syntax
("// " for C and C++, "# " for CMake, Python and shell), after a "#!" line.
"""
import argparse
import os
import pathlib
import sys

TAG = "SPDX-License-Identifier: MIT"
SLASH = {".c", ".h", ".cpp", ".hpp", ".cc", ".ino", ".proto", ".js", ".mjs"}
HASH = {".cmake", ".py", ".sh"}
HASH_NAMES = {"CMakeLists.txt", "Makefile", "Kconfig", "run"}
SKIP_DIRS = {".git", "node_modules", "corpus", "__pycache__"}


def comment_for(path):
    if path.suffix in SLASH:
        return "// "
    if path.suffix in HASH or path.name in HASH_NAMES:
        return "# "
    return None


def sources(root):
    for dirpath, dirnames, filenames in os.walk(root):
        rel = pathlib.Path(dirpath).relative_to(root)
        dirnames[:] = sorted(d for d in dirnames
                             if d not in SKIP_DIRS and not (rel == pathlib.Path(".") and d.startswith("build")))
        for name in sorted(filenames):
            path = pathlib.Path(dirpath) / name
            if comment_for(path):
                yield path


def has_tag(text):
    return TAG in "\n".join(text.splitlines()[:3])


def add_tag(path, text):
    line = comment_for(path) + TAG + "\n"
    if text.startswith("#!"):
        first, _, rest = text.partition("\n")
        return first + "\n" + line + rest
    return line + text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent)
    ap.add_argument("--fix", action="store_true", help="add the identifier where it is missing")
    args = ap.parse_args()
    root = args.root.resolve()
    missing = []
    for path in sources(root):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        if has_tag(text):
            continue
        if args.fix:
            path.write_text(add_tag(path, text), encoding="utf-8", errors="surrogateescape")
        missing.append(path.relative_to(root))
    if args.fix:
        print(f"spdx: added the identifier to {len(missing)} files")
        return 0
    for p in missing:
        print(f"spdx: {p}: no '{TAG}' in its first 3 lines (scripts/spdx.py --fix adds it)", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
