#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The release checks catch what they are for: scripts/check_version.py on
a copy of the tree's version files with one number changed in each file in
turn, and scripts/spdx.py on a scratch tree with files with and without the
identifier (and its --fix on that tree)."""
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
VERSION_FILES = ["CMakeLists.txt", "include/mabutrace/version.h", "library.json", "library.properties",
                 "idf_component.yml", "CHANGELOG.md"]


def run(script, *args):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args],
                          capture_output=True, text=True)


def check_version_catches_each_file(tmp):
    failures = 0
    for target in VERSION_FILES[1:]:
        tree = tmp / target.replace("/", "_")
        for f in VERSION_FILES:
            (tree / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / f, tree / f)
        if run("check_version.py", "--root", str(tree)).returncode != 0:
            print(f"FAIL: check_version.py rejects an unchanged copy ({target})")
            failures += 1
            continue
        text = (tree / target).read_text()
        # MINOR of the header, or the first X.Y.Z elsewhere: bump the last digit.
        if target.endswith("version.h"):
            mutated = re.sub(r"(#define MABUTRACE_VERSION_PATCH )(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 1), text)
        elif target == "CHANGELOG.md":
            mutated = re.sub(r"(## \[\d+\.\d+\.)(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 1), text, count=1)
        else:
            mutated = re.sub(r"(\d+\.\d+\.)(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 1), text, count=1)
        assert mutated != text, target
        (tree / target).write_text(mutated)
        r = run("check_version.py", "--root", str(tree))
        if r.returncode != 1 or target.split("/")[-1] not in r.stderr:
            print(f"FAIL: check_version.py missed a changed version in {target}: rc={r.returncode} {r.stderr!r}")
            failures += 1
    return failures


def spdx_catches_and_fixes(tmp):
    tree = tmp / "spdx"
    (tree / "src").mkdir(parents=True)
    (tree / "build-x").mkdir()
    (tree / "src" / "tagged.cpp").write_text("// SPDX-License-Identifier: MIT\nint a;\n")
    (tree / "src" / "untagged.h").write_text("/* a header */\n")
    (tree / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (tree / "build-x" / "generated.cpp").write_text("int b;\n")  # build trees are not sources
    (tree / "notes.txt").write_text("not a source\n")
    failures = 0
    r = run("spdx.py", "--root", str(tree))
    named = {line.split(":")[1].strip() for line in r.stderr.splitlines()}
    if r.returncode != 1 or named != {"src/untagged.h", "run.sh"}:
        print(f"FAIL: spdx.py check: rc={r.returncode}, named {sorted(named)}")
        failures += 1
    run("spdx.py", "--fix", "--root", str(tree))
    if run("spdx.py", "--root", str(tree)).returncode != 0:
        print("FAIL: spdx.py --fix left files without the identifier")
        failures += 1
    script = (tree / "run.sh").read_text()
    if not script.startswith("#!/bin/sh\n# SPDX-License-Identifier: MIT\n"):
        print(f"FAIL: spdx.py --fix put the identifier before the #! line: {script!r}")
        failures += 1
    return failures


def main():
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        failures = check_version_catches_each_file(tmp) + spdx_catches_and_fixes(tmp)
    print("release checks: ok" if not failures else f"release checks: {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
