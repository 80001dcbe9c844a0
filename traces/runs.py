"""Running m2vp-sim several times in parallel and comparing the tables the
runs wrote; shared by sweep.py (--vary on the command line) and cases.py
(the cases a config declares)."""
import argparse
import concurrent.futures
import csv
import fcntl
import io
import itertools
import math
import os
import subprocess
import sys

from output_files import OutputError, replacing

# The simulator's exit code for a configuration or command-line error
# (README.md): the wrappers' own usage errors give it too.
EXIT_USAGE = 64


class UsageParser(argparse.ArgumentParser):
    """argparse with the simulator's exit code for a usage error (64, not
    argparse's 2)."""

    def error(self, message):
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        sys.exit(EXIT_USAGE)


def declared_cases(sim, config):
    """The `m2vp-sim cases` listing of a config: its lines, [] for a config
    without cases. Exits with the simulator's code when it cannot read it."""
    proc = subprocess.run([sim, "cases", config], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode:
        sys.stderr.write(proc.stderr)
        sys.exit(proc.returncode)
    return proc.stdout.splitlines()


def unknown_metric(tables, metric):
    """An error message when `metric` is given and no table has that column,
    naming the columns they have; None otherwise."""
    if not metric or any(t and metric in t[0] for t in tables):
        return None
    columns = list(dict.fromkeys(c for t in tables if t for c in t[0]))
    return f"--metric {metric}: no results.tsv has that column (columns: {', '.join(columns) or 'none: no run wrote one'})"


# A run folder's list of the files its run wrote (platform/output_folder.h;
# the simulator writes it): the next run into the folder removes them first,
# so that nothing of an earlier run sits next to its results. Plots written
# into a run folder join it; a folder of cases (cases.py) keeps one too.
RUN_MANIFEST = ".m2vp-run-files"


def add_to_run_manifest(folder, paths):
    """Lists `paths` (files in `folder`) in its manifest, if it has one
    (rewritten whole, by output_files.replacing: never through a symlink)."""
    manifest = os.path.join(folder, RUN_MANIFEST)
    if os.path.islink(manifest) or not os.path.isfile(manifest):
        return  # not a run folder (traces/overlay/, --out elsewhere)
    try:
        with open(manifest, encoding="utf-8", errors="replace") as f:
            listed = f.read().splitlines()
    except OSError as e:
        raise OutputError(f"{manifest}: cannot read ({e.strerror})") from None
    new = [n for n in dict.fromkeys(os.path.basename(p) for p in paths) if n not in set(listed)]
    if new:
        with replacing(manifest, encoding="utf-8") as f:
            f.write("".join(n + "\n" for n in listed + new))


# The folder's run lock (platform/output_folder_lock.h): an flock on this
# file, which holds the holder's pid.
FOLDER_LOCK = ".m2vp-lock"


def hold_folder_lock(folder):
    """Takes the folder's run lock, as a run does, and returns its file
    descriptor: the lock holds until it is closed or the process ends.
    Raises RuntimeError naming the holder's pid when another run holds it."""
    path = os.path.join(folder, FOLDER_LOCK)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    except OSError as e:
        raise RuntimeError(f"{path}: cannot open the folder's run lock: {e.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        pid = "".join(c for c in os.pread(fd, 31, 0).decode("ascii", "replace").split("\n")[0] if c.isdigit())
        os.close(fd)
        raise RuntimeError(f"{folder}: another run ({'pid ' + pid if pid else 'pid not known'}) is writing into this "
                           f"folder: wait for it to end, or choose another --out (it holds {path})") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def start_run_manifest(folder, sim, force=False):
    """Removes what earlier runs wrote into the folder and starts an empty
    manifest, by the simulator's own rules (`m2vp-sim clear-output`: the same
    clean-up a run does, subfolders and older folders without a manifest
    included, and the same refusal of a folder holding what no run wrote
    unless `force`), then holds the folder's lock until the process ends, so
    that a second run of the same cases into it stops at once; raises
    RuntimeError with its message when it fails."""
    p = subprocess.run([sim, "clear-output", folder] + (["--out-force"] if force else []), capture_output=True,
                       text=True)
    if p.returncode != 0:
        message = (p.stderr or p.stdout).strip()
        # Its "error: " prefix: the caller says it ("m2vp run: error: ...").
        raise RuntimeError(message[len("error: "):] if message.startswith("error: ") else
                           message or f"{sim} clear-output {folder} failed")
    return hold_folder_lock(folder)


class TableError(Exception):
    """A table that cannot be read: "FILE[:LINE]: what is wrong"."""


def read_tsv(path):
    """The rows of a TSV file, header included; [] when it is missing (a
    run that ended before writing it). Raises TableError naming the file
    (and line) when it is there but cannot be read: a folder, no read
    permission, not UTF-8 text, a malformed field."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return []
    except OSError as e:
        raise TableError(f"{path}: cannot read ({e.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise TableError(f"{path}:{line}: not UTF-8 text (byte 0x{raw[e.start]:02x})") from None
    reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t")
    try:
        return list(reader)
    except csv.Error as e:  # e.g. a field over the csv module's size limit
        raise TableError(f"{path}:{reader.line_num}: malformed TSV ({e})") from None


def table_problem(path, table, metric=None):
    """What is wrong with a run's table, "FILE:LINE: what", or None: a row
    with more or fewer cells than the header, or a `metric` cell that is not
    a finite number (a value no comparison or plot can use)."""
    if not table:
        return None
    width = len(table[0])
    mi = table[0].index(metric) if metric and metric in table[0] else None
    for n, row in enumerate(table[1:], 2):
        if not row:
            continue  # a blank line
        if len(row) != width:
            return f"{path}:{n}: {len(row)} cells, the header has {width}"
        if mi is not None and not (is_number(row[mi]) and math.isfinite(float(row[mi]))):
            return f"{path}:{n}: {metric}: expected a finite number, got '{row[mi]}'"
    return None


def write_tsv(path, rows):
    """Writes the table (never through a symlink: output_files.replacing);
    raises OutputError naming the path when it cannot."""
    with replacing(path, newline="") as f:
        csv.writer(f, delimiter="\t", lineterminator="\n").writerows(rows)


def run_stats(run_dir):
    """stats.tsv of a run as {(source, key): value} ({} when it has none);
    raises TableError when it cannot be read."""
    return {(r[0], r[1]): r[2] for r in read_tsv(os.path.join(run_dir, "stats.tsv"))[1:] if len(r) == 3}


def stderr_summary(rc, text):
    """What a run's standard error says: (its error line, "" when it
    exited with 0; its warning lines)."""
    lines = [l for l in text.strip().splitlines() if l.strip()]
    # The first "error:" line says why; the lines after it are details.
    why = next((l for l in lines if l.startswith("error:")), lines[-1] if lines else "")
    if why.endswith(":"):
        why = _without_dangling_label(why, lines[lines.index(why) + 1:])
    warnings = [l for l in lines if l.startswith("warning:")]
    return why if rc else "", warnings


def _without_dangling_label(why, after):
    """An error line that ends in a label whose text is the indented lines
    after it (a stall's "network state:", one line per interface): the
    label says how many lines and where they are, as one line cannot hold
    them; with no such lines the label goes."""
    details = list(itertools.takewhile(lambda l: l[:1].isspace(), after))
    if details:
        return f"{why} {len(details)} line{'' if len(details) == 1 else 's'} in the run's run.log"
    head, sep, _ = why[:-1].rpartition("; ")
    return head if sep else why[:-1]


def _run_one(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return (proc.returncode,) + stderr_summary(proc.returncode, proc.stderr)


def _progress(what, done, total):
    # A bar redrawn with \r is for a terminal; in a log it is noise.
    if not sys.stderr.isatty():
        return
    width = 30
    filled = width * done // total
    sys.stderr.write(f"\r{what}: [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    sys.stderr.flush()


def run_parallel(commands, jobs, what):
    """Runs every command (an argv list), `jobs` at a time, with a progress
    bar; per command in order: (exit code, its error line or "", its warning
    lines)."""
    results = [None] * len(commands)
    _progress(what, 0, len(commands))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(_run_one, c): i for i, c in enumerate(commands)}
        for k, f in enumerate(concurrent.futures.as_completed(futures), 1):
            results[futures[f]] = f.result()
            _progress(what, k, len(commands))
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    return results


def choose_metric(tables, wanted=None):
    """The column to compare per size: `wanted`, else mbps, else latency_us;
    None when no table has a `bytes` column (or not the wanted one)."""
    sized = [t for t in tables if t and "bytes" in t[0]]
    for m in [wanted] if wanted else ["mbps", "latency_us"]:
        if any(m in t[0] for t in sized):
            return m
    return None


def is_number(text):
    """Whether a cell holds a number (nan counts: it is one)."""
    try:
        float(text)
        return True
    except ValueError:
        return False


def _prefix_columns(table):
    """The columns before `bytes` that name a row together with it: text
    columns (experiment 6's `pattern`, a case's `switch`) and numbers that
    vary (a merged case table's `hosts`); without them, rows with one size
    would overwrite each other. A constant number (`nodes`) names nothing."""
    bi = table[0].index("bytes")
    rows = table[1:]
    return [c for c in range(bi)
            if any(len(r) > c and not is_number(r[c]) for r in rows)
            or len({r[c] for r in rows if len(r) > c}) > 1]


def row_keys(table):
    """Each row's name, in the table's order: its size after the columns
    that name it with the size ("alltoall:16", "4:ooo8:1024"); None for a
    row too short to have them, [] for a table without `bytes`."""
    if not table or "bytes" not in table[0]:
        return []
    bi = table[0].index("bytes")
    prefix = _prefix_columns(table)
    last = max([bi] + prefix)
    keys, seen = [], {}
    for r in table[1:]:
        if len(r) <= last:
            keys.append(None)
            continue
        k = ":".join([r[c] for c in prefix] + [r[bi]])
        # A size measured again (NetPIPE's perturbation: 1, 4, 2, 5, ..., 1, 4)
        # is its own row, matched by its occurrence: "1", later "1#2".
        seen[k] = seen.get(k, 0) + 1
        keys.append(k if seen[k] == 1 else f"{k}#{seen[k]}")
    return keys


def metric_by_size(table, metric):
    """{row key: value} of one run's table ({} when it lacks either column)."""
    if not table or "bytes" not in table[0] or metric not in table[0]:
        return {}
    mi = table[0].index(metric)
    return {k: r[mi] for k, r in zip(row_keys(table), table[1:]) if k is not None and len(r) > mi}


def sizes_of(tables):
    """Every row key any table has: sizes in numeric order, or, for tables
    with key columns before the size, in the order the tables list them."""
    keys = [k for t in tables for k in row_keys(t) if k is not None]
    keyed = any(t and "bytes" in t[0] and _prefix_columns(t) for t in tables)
    unique = list(dict.fromkeys(keys))
    # Numbers in numeric order (a repeat, "1#2", after its first); a cell that
    # is not one (a damaged table) after them.
    def order(k):
        size, _, nth = k.partition("#")
        if is_number(size) and (not nth or nth.isdigit()):
            return (0, float(size), int(nth or 1), k)
        return (1, 0.0, 0, k)
    return unique if keyed else sorted(unique, key=order)


def key_heading(tables):
    """What sizes_of's keys are: "bytes", or e.g. "pattern:bytes"."""
    for t in tables:
        if t and "bytes" in t[0]:
            prefix = _prefix_columns(t)
            if prefix:
                return ":".join([t[0][c] for c in prefix] + ["bytes"])
    return "bytes"


def print_aligned(rows, out=None):
    """Prints rows as columns: the first left-aligned, the others right."""
    out = out or sys.stdout
    if not rows:
        return
    widths = [max(len(r[c]) if c < len(r) else 0 for r in rows) for c in range(max(len(r) for r in rows))]
    for r in rows:
        out.write("  ".join(cell.rjust(widths[c]) if c else cell.ljust(widths[c]) for c, cell in enumerate(r)).rstrip())
        out.write("\n")
