#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Proves tests/format/perfetto_schema/perfetto_trace.proto (ours) a true subset of Perfetto's
official perfetto_trace.proto: every message, field (name, number, type,
repeated or not) and enum value of the subset is defined the same way in
the official schema. A wrong number or type in the subset would let the
no-schema checks pass traces the real viewer reads differently.

  schema_subset_check.py SUBSET.proto OFFICIAL.proto     exit 0 = subset
"""
import re
import sys


def tokens(text):
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.findall(r'"(?:[^"\\]|\\.)*"|[A-Za-z_][\w.]*|\d+|[{}\[\]=;<>(),-]', text)


def parse(text):
    """{'Msg.Nested': {'fields': {name: (repeated, type, number)}, 'enum': None}
    'Msg.Enum': {'values': {name: number}}}"""
    toks, out, i = tokens(text), {}, 0

    def skip_statement(i):
        depth = 0
        while i < len(toks):
            t = toks[i]
            i += 1
            if t in "{[(":
                depth += 1
            elif t in "}])":
                depth -= 1
                if depth == 0 and t == "}":
                    return i
            elif t == ";" and depth == 0:
                return i
        return i

    def block(i, scope, kind):
        entry = out.setdefault(scope, {"fields": {}} if kind == "message" else {"values": {}})
        while toks[i] != "}":
            t = toks[i]
            if t == ";":  # a stray one, as after "enum X { ... };"
                i += 1
            elif t in ("message", "enum"):
                i = block(i + 3, f"{scope}.{toks[i + 1]}", t)
            elif t == "oneof":
                i += 3  # oneof NAME {
                while toks[i] != "}":
                    i = field(i, entry, repeated=False)
                i += 1
            elif t in ("option", "reserved", "extensions", "extend"):
                i = skip_statement(i)
            elif kind == "enum":
                neg = toks[i + 2] == "-"
                entry["values"][t] = -int(toks[i + 3]) if neg else int(toks[i + 2])
                i = skip_statement(i)
            else:
                i = field(i, entry, repeated=None)
        return i + 1

    def field(i, entry, repeated):
        label = toks[i] if toks[i] in ("optional", "repeated", "required") else None
        if label:
            i += 1
        if toks[i] == "map":  # map<K, V> name = N;
            close = toks.index(">", i)
            typ, name, num = "map<" + ",".join(toks[i + 2:close:2]) + ">", toks[close + 1], int(toks[close + 3])
        else:
            typ, name, num = toks[i], toks[i + 1], int(toks[i + 3])
        entry["fields"][name] = (label == "repeated", typ.split(".")[-1], num)
        return skip_statement(i)

    while i < len(toks):
        if toks[i] in ("message", "enum"):
            i = block(i + 3, toks[i + 1], toks[i])
        else:
            i = skip_statement(i)
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    sub, off = (parse(open(p).read()) for p in sys.argv[1:])
    problems = []
    for scope, entry in sub.items():
        theirs = off.get(scope)
        if theirs is None:
            problems.append(f"{scope}: not in the official schema")
            continue
        for name, spec in entry.get("fields", {}).items():
            if theirs.get("fields", {}).get(name) != spec:
                problems.append(f"{scope}.{name}: {spec} here, {theirs.get('fields', {}).get(name)} there")
        for name, num in entry.get("values", {}).items():
            if theirs.get("values", {}).get(name) != num:
                problems.append(f"{scope}.{name} = {num} here, {theirs.get('values', {}).get(name)} there")
    fields = sum(len(e.get("fields", {})) + len(e.get("values", {})) for e in sub.values())
    for p in problems:
        print("FAIL:", p)
    print(f"{len(sub)} messages/enums, {fields} fields/values of the subset checked: "
          f"{len(problems)} differ")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
