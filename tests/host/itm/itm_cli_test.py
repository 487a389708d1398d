#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""itm_cli_test.py MABUTRACE: `mabutrace itm packets|decode --format jsonl`
on a raw SWO stream with a reserved header and a truncated last packet:
every line is a JSON object with the common keys (source, trace_id, offset,
raw/elem, type), the errors go to stderr with their byte offset, decoding
resumes after them, and the exit code is 1; `itm export` counts them in
the metadata. Exit 0 = pass."""
import json
import os
import subprocess
import sys
import tempfile

mabutrace = sys.argv[1]
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


with tempfile.TemporaryDirectory() as tmp:
    swo = os.path.join(tmp, "swo.bin")
    # 8 good packets (so the start is plausible at byte 0: no byte skipped),
    # SWIT port 1 0x41, reserved header 0x04 at byte 18, SWIT port 2 0x4342,
    # DWT exception 15 entered, overflow, SWIT 4 bytes cut after 2 at byte 26.
    with open(swo, "wb") as f:
        f.write(bytes([b for i in range(8) for b in (0x09, i)]))
        f.write(bytes([0x09, 0x41, 0x04, 0x12, 0x42, 0x43, 0x0e, 0x0f, 0x10, 0x70, 0x0b, 0x01, 0x02]))
    p = subprocess.run([mabutrace, "itm", "packets", swo, "--format", "jsonl"], capture_output=True, text=True)
    check(p.returncode == 1, f"packets exit code {p.returncode}, expected 1 (errors)")
    pk = [json.loads(line) for line in p.stdout.splitlines()]
    for o in pk:
        for key in ("source", "trace_id", "offset", "raw", "type"):
            check(key in o, f"packet {o} lacks {key}")
    types = [(o["offset"], o["type"]) for o in pk[8:]]
    check(types == [(16, "ITM_SWIT"), (18, "ITM_RESERVED"), (19, "ITM_SWIT"), (22, "ITM_DWT"), (25, "ITM_OVERFLOW"),
                    (26, "ITM_INCOMPLETE_EOT")], f"packets {types}")
    check(len(pk) == 14 and pk[10].get("port") == 2 and pk[10].get("value") == "0x4342", f"SWIT fields {pk[10:11]}")
    check(len(pk) == 14 and pk[11].get("dwt") == "exception" and pk[11].get("exception") == 15 and
          pk[11].get("function") == 1, f"DWT fields {pk[11:12]}")
    check("byte 18: reserved ITM header 0x04" in p.stderr, f"stderr: {p.stderr!r}")
    check("byte 26: ITM_SWIT packet cut by the end of the trace after 3 bytes" in p.stderr, f"stderr: {p.stderr!r}")
    check("skipped" not in p.stderr, f"stderr: {p.stderr!r}")
    d = subprocess.run([mabutrace, "itm", "decode", swo, "--format", "jsonl"], capture_output=True, text=True)
    check(d.returncode == 1, f"decode exit code {d.returncode}")
    el = [json.loads(line) for line in d.stdout.splitlines()]
    got = [(o["offset"], o["elem"], o.get("itm"), o.get("value"), o.get("overflow")) for o in el[8:]]
    want = [(16, "ITMTRACE", "swit", "0x41", False), (19, "ITMTRACE", "swit", "0x4342", False),
            (22, "ITMTRACE", "dwt", "0x100f", False), (26, "EO_TRACE", None, None, None)]
    check(got == want, f"elements {got}")
    # The timeline says it holds less than the trace: the errors counted,
    # the first one named with its byte offset (stderr alone said it).
    out = os.path.join(tmp, "swo.json")
    x = subprocess.run([mabutrace, "itm", "export", swo, "-o", out], capture_output=True, text=True)
    check(x.returncode == 1, f"export exit code {x.returncode}, expected 1 (errors)")
    meta = json.load(open(out))["metadata"] if os.path.exists(out) else {}
    check(meta.get("itm.decode_errors") == 2, f"itm.decode_errors {meta.get('itm.decode_errors')}, expected 2")
    check("byte 18: reserved ITM header 0x04" in meta.get("itm.decode_error", ""), f"itm.decode_error {meta!r}")
    check("itm.decode_warnings" not in meta, f"itm.decode_warnings {meta.get('itm.decode_warnings')}")
    # No plausible header in the first 64 bytes: said, not decoded silently.
    junk = os.path.join(tmp, "junk.bin")
    with open(junk, "wb") as f:
        f.write(bytes([0x04] * 70 + [0x09, 0x41]))
    j = subprocess.run([mabutrace, "itm", "packets", junk], capture_output=True, text=True)
    check(j.returncode == 1 and "no plausible ITM header in the first 64 bytes" in j.stderr, f"junk: {j.stderr!r}")
    # A FIFO has no size and export reads its input twice: refused at once
    # (opening it would wait for a writer), the file named once.
    fifo = os.path.join(tmp, "swo.fifo")
    os.mkfifo(fifo)
    ff = subprocess.run([mabutrace, "itm", "packets", fifo], capture_output=True, text=True, timeout=30)
    check(ff.returncode == 1 and ff.stderr.count(fifo) == 1 and "not a regular file" in ff.stderr,
          f"FIFO: rc {ff.returncode}, {ff.stderr!r}")
    bad = subprocess.run([mabutrace, "itm", "decode", os.path.join(tmp, "missing.bin")], capture_output=True, text=True)
    check(bad.returncode == 1 and "missing.bin: no such file" in bad.stderr, f"missing file: {bad.stderr!r}")
    # An ITM_TCR wider than its 32 bits is an error naming the file, the
    # register and the value (it was cut to its low half without a word);
    # --tcr is refused above 0xffffffff.
    snap = os.path.join(tmp, "snap")
    os.mkdir(snap)
    for name, text in (("snapshot.ini", "[snapshot]\nversion=1.0\n[device_list]\ndevice0=itm.ini\n"
                                        "[trace]\nmetadata=trace.ini\n"),
                       ("itm.ini", "[device]\nname=ITM_0\nclass=trace_source\ntype=ITM\n"
                                   "[regs]\nITMTCR(0xE80)=0x100010005\n"),
                       ("trace.ini", "[trace_buffers]\nbuffers=buffer1\n[buffer1]\nname=ETB_1\nfile=swo.bin\n"
                                     "format=source_data\n[source_buffers]\nITM_0=ETB_1\n")):
        with open(os.path.join(snap, name), "w") as f:
            f.write(text)
    with open(os.path.join(snap, "swo.bin"), "wb") as f:
        f.write(bytes([0, 0, 0, 0, 0, 0x80, 0x09, 0x41]))
    want = "itm.ini: [regs] ITMTCR: 0x100010005 does not fit the 32-bit ITM_TCR"
    for cmd in (["itm", "decode"], ["arm", "decode"]):
        t = subprocess.run([mabutrace] + cmd + [snap], capture_output=True, text=True)
        check(t.returncode == 1 and want in t.stderr and t.stderr.count(want) == 1,
              f"{' '.join(cmd)} wide ITMTCR: rc {t.returncode}, {t.stderr!r}")
    t = subprocess.run([mabutrace, "itm", "decode", snap, "--tcr", "0x100000000"], capture_output=True, text=True)
    check(t.returncode == 2 and "--tcr" in t.stderr, f"--tcr 0x100000000: rc {t.returncode}, {t.stderr!r}")
    t = subprocess.run([mabutrace, "itm", "decode", snap, "--tcr", "0x10005"], capture_output=True, text=True)
    check(t.returncode == 0 and "ITMTRACE" in t.stdout, f"--tcr 0x10005: rc {t.returncode}, {t.stderr!r}")

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
