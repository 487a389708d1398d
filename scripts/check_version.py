#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_version.py: the version is set once, in CMakeLists.txt's
project(mabutrace VERSION X.Y.Z); every other place that must repeat it
(the public header, the three package manifests, the newest CHANGELOG entry)
says the same, or this fails naming the file and what it says.

  check_version.py [--root DIR]     exit 0: all equal; 1: a mismatch; 2: unreadable
"""
import argparse
import json
import pathlib
import re
import sys


def project_version(root):
    text = (root / "CMakeLists.txt").read_text()
    m = re.search(r"project\(\s*mabutrace\s+VERSION\s+(\d+\.\d+\.\d+)", text)
    if not m:
        raise ValueError("CMakeLists.txt: no project(mabutrace VERSION X.Y.Z)")
    return m.group(1)


def header_version(root):
    text = (root / "include/mabutrace/version.h").read_text()
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(rf"#define MABUTRACE_VERSION_{part} (\d+)", text)
        if not m:
            return f"(no MABUTRACE_VERSION_{part})"
        parts.append(m.group(1))
    numbers = ".".join(parts)
    m = re.search(r'#define MABUTRACE_VERSION_STRING "([^"]*)"', text)
    string = m.group(1) if m else "(no MABUTRACE_VERSION_STRING)"
    return numbers if string == numbers else f"{numbers} but STRING {string}"


def manifest_versions(root):
    yield "library.json", json.loads((root / "library.json").read_text()).get("version")
    props = (root / "library.properties").read_text()
    m = re.search(r"^version=(\S+)", props, re.M)
    yield "library.properties", m.group(1) if m else None
    idf = (root / "idf_component.yml").read_text()
    m = re.search(r'^version:\s*"?([^"\s]+)"?', idf, re.M)
    yield "idf_component.yml", m.group(1) if m else None
    log = (root / "CHANGELOG.md").read_text()
    m = re.search(r"^## \[(\d+\.\d+\.\d+)\]", log, re.M)
    yield "CHANGELOG.md (newest entry)", m.group(1) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent)
    args = ap.parse_args()
    try:
        want = project_version(args.root)
        found = [("include/mabutrace/version.h", header_version(args.root))]
        found += list(manifest_versions(args.root))
    except (OSError, ValueError) as e:
        print(f"check_version: {e}", file=sys.stderr)
        return 2
    bad = [(f, v) for f, v in found if v != want]
    for f, v in bad:
        print(f"check_version: {f} says {v}, CMakeLists.txt project() says {want}", file=sys.stderr)
    if not bad:
        print(f"check_version: {want} everywhere ({len(found) + 1} places)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
