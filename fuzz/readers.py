#!/usr/bin/env python3
"""Mutation fuzzing of the Python readers of run outputs (traces/plots/readers.py,
traces/plots/runs.py, and traces/compare.py's for results.tsv), the Python equivalent of the libFuzzer targets: the
NetPIPE and plot readers take files from outside (a NetPIPE np.out from any
machine, edited tables) and must answer every input with data that keeps
their promises or an InputError naming the file, never another exception.

  readers.py [--iterations N] [--seed S] [--findings DIR]

Seeds: fuzz/corpus/readers/ (real np.out, messages.csv, latencies.tsv and
results.tsv from runs of the platform, cut short). Each iteration takes a
seed, applies 1-4 random mutations (bytes flipped, inserted, deleted; lines
duplicated, dropped, swapped, truncated; numbers replaced by tokens that
break parsers: nan, inf, -0, 1e999, '', huge integers, non-UTF-8 bytes, NUL,
CR) and reads the result through the reader its file name selects
(read_run, as ./m2vp plot does). The same seed gives the same inputs, so a
CTest run is reproducible; a failing input is written to --findings and the
exit code is 1.
"""
import argparse
import math
import os
import random
import shutil
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "traces"))

import compare as compare_tool  # noqa: E402  (traces/compare.py, ./m2vp compare)
from plots.readers import LARGEST, InputError  # noqa: E402
from plots.runs import read_run  # noqa: E402

CORPUS = os.path.join(HERE, "corpus", "readers")
TOKENS = [b"nan", b"NaN", b"inf", b"-inf", b"-0", b"0", b"-1", b"1e999", b"-1e999", b"",
          b"99999999999999999999999999999", b"0x10", b"1_000", b"\xff\xfe", b"\x00", b"\r",
          b"\xc3\x28", b"#", b",", b"\t", b" ", b"\"", b"\"a,b\"", b"1,5", b"\xe2\x80\x8b1"]


def mutate(data, rnd):
    """One random change of the file's bytes."""
    kind = rnd.randrange(10)
    lines = data.split(b"\n")
    if kind == 0 and data:                        # flip a byte
        i = rnd.randrange(len(data))
        return data[:i] + bytes([data[i] ^ (1 << rnd.randrange(8))]) + data[i + 1:]
    if kind == 1:                                 # insert a token
        i = rnd.randrange(len(data) + 1)
        return data[:i] + rnd.choice(TOKENS) + data[i:]
    if kind == 2 and data:                        # delete a span
        i = rnd.randrange(len(data))
        return data[:i] + data[i + rnd.randrange(1, 16):]
    if kind == 3:                                 # truncate
        return data[:rnd.randrange(len(data) + 1)]
    if kind == 4 and lines:                       # duplicate a line
        i = rnd.randrange(len(lines))
        lines.insert(i, lines[i])
    elif kind == 5 and len(lines) > 1:            # drop a line (the header too)
        del lines[rnd.randrange(len(lines))]
    elif kind == 6 and len(lines) > 1:            # swap two lines
        i, j = rnd.randrange(len(lines)), rnd.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 7 and lines:                     # replace one field by a token
        i = rnd.randrange(len(lines))
        sep = b"," if b"," in lines[i] else (b"\t" if b"\t" in lines[i] else b" ")
        fields = lines[i].split(sep)
        fields[rnd.randrange(len(fields))] = rnd.choice(TOKENS)
        lines[i] = sep.join(fields)
    elif kind == 8 and lines:                     # add or remove a field
        i = rnd.randrange(len(lines))
        sep = b"," if b"," in lines[i] else (b"\t" if b"\t" in lines[i] else b" ")
        fields = lines[i].split(sep)
        if rnd.random() < 0.5 and len(fields) > 1:
            del fields[rnd.randrange(len(fields))]
        else:
            fields.insert(rnd.randrange(len(fields) + 1), rnd.choice(TOKENS))
        lines[i] = sep.join(fields)
    else:                                         # line endings: CRLF or none
        return data.replace(b"\n", b"\r\n") if rnd.random() < 0.5 else data.replace(b"\n", b"")
    return b"\n".join(lines)


def finite(x, positive=False, nonnegative=False):
    # Beyond LARGEST matplotlib's axis ranges overflow.
    ok = isinstance(x, float) and math.isfinite(x) and abs(x) <= LARGEST
    if positive:
        ok = ok and x > 0
    if nonnegative:
        ok = ok and x >= 0
    return ok


def check_run(run):
    """What readers promise of what they return (plot code relies on it)."""
    if run.netpipe is not None:
        assert run.netpipe, "netpipe: empty list"
        for b, mbps, sec in run.netpipe:
            # A run's table may hold a 0-byte row (the NetPIPE plots leave it out).
            assert finite(b, nonnegative=True) and finite(mbps, nonnegative=True) and finite(sec, positive=True), \
                f"netpipe row {(b, mbps, sec)}"
            assert math.copysign(1, b) > 0, f"netpipe row with -0 bytes {(b, mbps, sec)}"
    if run.messages is not None:
        assert run.stages, "messages without stages"
        for b, total, parts in run.messages:
            assert finite(b, nonnegative=True) and finite(total, nonnegative=True), f"message row {(b, total)}"
            assert len(parts) == len(run.stages) and all(finite(p, nonnegative=True) for p in parts), \
                f"message stages {parts}"
    if run.latencies is not None:
        for pattern, b, lat in run.latencies:
            assert isinstance(pattern, str) and pattern, f"latency pattern {pattern!r}"
            assert finite(b, nonnegative=True) and finite(lat, nonnegative=True), f"latency row {(b, lat)}"


def check_compare(path, original):
    """./m2vp compare of the seed against its mutant: an InputError naming
    the mutant, or a comparison (never another exception)."""
    try:
        _, mutant = compare_tool.load_results(path)
    except compare_tool.InputError as e:
        assert str(e).startswith(path), f"compare's InputError does not name the file: {e}"
        return "InputError"
    _, seed = compare_tool.load_results(original)
    metrics = [m for m in compare_tool.DEFAULT_METRICS if m in seed[0]] or seed[0][-1:]
    rows = compare_tool.compare([seed, mutant], metrics, 1.0)[0]
    assert all(len(r) == 3 for r in rows), "compare: a row without a cell per run"
    return "read"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--iterations", type=int, default=4000, help="inputs to try (default 4000)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--findings", help="folder for failing inputs (default: a temporary one, printed)")
    a = p.parse_args(argv)
    seeds = sorted(os.listdir(CORPUS))
    if not seeds:
        print(f"readers fuzz: no seeds in {CORPUS}", file=sys.stderr)
        return 1
    corpus = {n: open(os.path.join(CORPUS, n), "rb").read() for n in seeds}
    rnd = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="m2vp-readers-fuzz-")
    failures = 0
    outcomes = {"read": 0, "InputError": 0}
    compared = {"read": 0, "InputError": 0}  # results.tsv inputs through ./m2vp compare
    try:
        for it in range(a.iterations):
            name = rnd.choice(seeds)
            data = corpus[name]
            for _ in range(rnd.randint(1, 4)):
                data = mutate(data, rnd)
            path = os.path.join(work, name)
            with open(path, "wb") as f:
                f.write(data)
            try:
                if name.endswith("results.tsv"):
                    compared[check_compare(path, os.path.join(CORPUS, name))] += 1
                check_run(read_run(path))
                outcomes["read"] += 1
            except InputError as e:
                if not str(e).startswith(path):
                    failures += 1
                    print(f"readers fuzz: iteration {it}: InputError does not name the file: {e}", file=sys.stderr)
                else:
                    outcomes["InputError"] += 1
                    continue
            except Exception:  # noqa: BLE001  (anything else is the finding)
                failures += 1
                print(f"readers fuzz: iteration {it} ({name}): {traceback.format_exc(limit=3)}", file=sys.stderr)
            else:
                continue
            if a.findings:
                os.makedirs(a.findings, exist_ok=True)
                keep = os.path.join(a.findings, f"{it}-{name}")
                shutil.copyfile(path, keep)
                print(f"readers fuzz: input kept as {keep}", file=sys.stderr)
            if failures >= 10:
                break
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"readers fuzz: {a.iterations} inputs from {len(seeds)} seeds: {outcomes['read']} read, "
          f"{outcomes['InputError']} rejected with the file named; compare: {compared['read']} compared, "
          f"{compared['InputError']} rejected with the file named; {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
