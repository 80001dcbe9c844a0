#!/usr/bin/env python3
"""Records what a real gdb-multiarch sends to the simulator's GDB server in a
typical firmware-debugging session, as a seed for fuzz_gdb
(fuzz/corpus/fuzz_gdb/recorded_session): the simulator runs the gdb_target
firmware with --gdb, GDB (batch mode) connects, sets breakpoints, reads
registers, memory and the stack, writes a variable, steps, finishes, asks
the monitor, deletes breakpoints and runs to the end, with its remote log on
(`set remotelogfile`). The log's "w" lines are what GDB wrote; they are
turned back into bytes.

  python3 fuzz/record_gdb_session.py [--build BUILD_DIR]     (default: build)
"""
import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
COMMANDS = ["break gdb_checkpoint", "continue", "info registers", "print gdb_value", "set var gdb_value = 77",
            "x/8xw $sp", "stepi", "bt", "finish", "next", "monitor help", "monitor time", "info breakpoints",
            "delete", "continue"]


def unescape(text):
    """Bytes of a remote log line: GDB writes \\xHH, \\\\ and C escapes."""
    out, i = bytearray(), 0
    simple = {"n": 10, "r": 13, "t": 9, "\\": 92}
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            if n == "x" and re.fullmatch(r"[0-9a-fA-F]{2}", text[i + 2:i + 4]):
                out.append(int(text[i + 2:i + 4], 16))
                i += 4
                continue
            if n in simple:
                out.append(simple[n])
                i += 2
                continue
        out += c.encode("latin-1")
        i += 1
    return bytes(out)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    a = p.parse_args()
    sim = os.path.join(a.build, "bin", "m2vp-sim")
    elf = os.path.join(a.build, "firmware", "gdb_target.elf")
    for f in (sim, elf):
        if not os.path.exists(f):
            sys.exit(f"record_gdb_session: {f} is missing (build first)")
    with tempfile.TemporaryDirectory(prefix="m2vp-gdb-record-") as tmp:
        cfg = os.path.join(tmp, "t.yaml")
        with open(cfg, "w") as f:
            f.write("platform: single-ni\nni0:\n  firmware: gdb_target\n")
        port = free_port()
        simp = subprocess.Popen([sim, "run", cfg, "--gdb", f"ni0.cpu={port}", "--out", os.path.join(tmp, "out"),
                                 "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        log = os.path.join(tmp, "remote.log")
        cmd = ["gdb-multiarch", "-batch", "-nx", "-ex", "set architecture powerpc:603", "-ex",
               f"set remotelogfile {log}", "-ex", f"target remote :{port}"]
        for c in COMMANDS:
            cmd += ["-ex", c]
        g = subprocess.run(cmd + [elf], capture_output=True, text=True, timeout=60)
        simp.wait(timeout=60)
        if g.returncode != 0 or "exited normally" not in g.stdout + g.stderr:
            sys.exit("record_gdb_session: the GDB session did not run to the end:\n" + g.stdout + g.stderr)
        sent = b"".join(unescape(line[2:].rstrip("\n")) for line in open(log, encoding="latin-1")
                        if line.startswith("w "))
    out = os.path.join(ROOT, "fuzz", "corpus", "fuzz_gdb", "recorded_session")
    with open(out, "wb") as f:
        f.write(sent)
    print(f"{out}: {len(sent)} bytes, {sent.count(b'$')} packets")


if __name__ == "__main__":
    main()
