#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_snippets.py README.md: every fenced code block that follows a line
`<!-- snippet: PATH -->` is, word for word, the file PATH (relative to the
README) without its first line when that is the file's SPDX license line
(a user's project has its own license), so the snippets a user copies are the projects the install tests
build. Fails naming the snippet and the first line that differs; fails
when the README has no snippet at all."""
import pathlib
import re
import sys

MARK = re.compile(r"<!-- snippet: (\S+) -->\s*\n```[^\n]*\n(.*?)```", re.S)


def main():
    readme = pathlib.Path(sys.argv[1])
    text = readme.read_text(encoding="utf-8")
    snippets = MARK.findall(text)
    if not snippets:
        print(f"check_snippets: {readme}: no <!-- snippet: PATH --> blocks", file=sys.stderr)
        return 1
    bad = 0
    for rel, block in snippets:
        path = readme.parent / rel
        if not path.is_file():
            print(f"check_snippets: {readme}: snippet names {rel}, which does not exist", file=sys.stderr)
            bad += 1
            continue
        want = path.read_text(encoding="utf-8").splitlines()
        if want and "SPDX-License-Identifier:" in want[0]:
            want = want[1:]
        got = block.splitlines()
        for i in range(max(len(want), len(got))):
            w = want[i] if i < len(want) else None
            g = got[i] if i < len(got) else None
            if w != g:
                print(f"check_snippets: {readme}: snippet {rel} line {i + 1}: README has {g!r}, the file {w!r}",
                      file=sys.stderr)
                bad += 1
                break
    print(f"check_snippets: {len(snippets) - bad} of {len(snippets)} snippets equal their files")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
