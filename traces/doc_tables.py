#!/usr/bin/env python3
"""Keeps the result tables in docs/*.md from drifting: `--check` finds
malformed tables, `--update` regenerates the marked ones from fresh runs.

  doc_tables.py --check [FILE.md ...] [--sim M2VP_SIM]     (default: every docs/**/*.md)
  doc_tables.py --update [FILE.md ...] [--sim M2VP_SIM] [--only TEXT]

A generated table stands between two markers:

  <!-- table: configs/pingping.yaml --set sim.timing=lt | summary.tsv | bytes=bytes 2/ooo1=ooo1 -->
  | bytes | ooo1 |
  |------:|-----:|
  ...
  <!-- end table -->

The marker says: the config and arguments of the run (m2vp run, so a config
with cases runs every case), the file of the run's output folder the table
comes from (results.tsv, summary.tsv), optionally the columns to show as
SOURCE=HEADING (default: every column, headed as in the file), and
optionally the rows to keep by the value of their first column, as a
fourth part `rows=1,2048,65536` (default: every row; for a sweep such as
NetPIPE's, which measures many sizes). Numbers
are written with up to 4 significant digits (at least 0 decimals for values
of 1000 and more); a missing value is shown as a dash (a case that stopped
early, e.g. a deadlock).

A model page's parameter table is generated from the code (the parameter
registry, `m2vp-sim params CONFIG --markdown MODULE`) between

  <!-- params: configs/cluster-4.yaml | node0.ni.dma -->
  | Name | Unit | Default | Description |
  ...
  <!-- end table -->

where the marker names the config (and --set arguments) that builds the
module, the module's name (a '*' pattern takes the first match), and
optionally, as a third part, the parameters to show (`| app args clock_mhz`:
a module described on two pages; default: all, in the code's order); --check
compares each such table with the simulator's and reports one that differs
(the simulator: --sim, else $M2VP_SIM, else build/bin/m2vp-sim).

A model page's statistics table comes from the statistics registry the same
way (`m2vp-sim stats CONFIG --markdown MODULE`), between

  <!-- stats: configs/cluster-4.yaml | node0.ni.dma -->
  | Name | Unit | Description | Reset after warm-up |
  ...
  <!-- end table -->

with the same parts (the third: the statistics to show, by their names local
to the model).

--check reads every markdown table: each row must have the header's number
of cells, and each right-aligned column (`---:`) numbers only (a dash, an
empty cell or the words listed in NON_NUMBERS allowed). A marked table must
also have the headings its marker asks for. Exit code 1 with FILE:LINE and
what is wrong; 0 when all is well.
"""
import argparse
import functools
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

from output_files import replacing
from runs import TableError, read_tsv

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MARK = re.compile(r"^<!-- table: (?P<spec>.*) -->\s*$")
PARAMS_MARK = re.compile(r"^<!-- params: (?P<spec>.*) -->\s*$")
STATS_MARK = re.compile(r"^<!-- stats: (?P<spec>.*) -->\s*$")
END = re.compile(r"^<!-- end table -->\s*$")
NON_NUMBERS = {"", "-", "–", "—", "deadlock", "n/a"}
# A number or a range of numbers, optionally signed, with a unit after it.
NUMBER = re.compile(r"^[+\-−~≈]?(\d[\d,]*(\.\d+)?|\.\d+)([–-]\d[\d,]*(\.\d+)?)?\s*(?P<unit>[A-Za-zµ/%]{1,8})?$")


def parse_spec(spec):
    """(run arguments, source file, [(column, heading)] or None, set of row
    keys or None) of a marker."""
    parts = [p.strip() for p in spec.split("|")]
    if len(parts) not in (2, 3, 4) or not parts[0] or not parts[1]:
        raise ValueError("expected 'CONFIG [ARGS] | SOURCE.tsv [| COLUMN=HEADING ...] [| rows=KEY,KEY,...]'")
    columns = None
    if len(parts) >= 3 and parts[2]:
        columns = []
        for item in shlex.split(parts[2]):
            col, sep, heading = item.partition("=")
            columns.append((col, heading if sep else col))
    rows = None
    if len(parts) == 4:
        name, sep, keys = parts[3].partition("=")
        if name.strip() != "rows" or not sep or not keys.strip():
            raise ValueError(f"expected 'rows=KEY,KEY,...' as the fourth part, got '{parts[3]}'")
        rows = {row_key(k) for k in keys.split(",")}
    return shlex.split(parts[0]), parts[1], columns, rows


def row_key(text):
    """A row's key for rows=: its first cell, as a number where it is one."""
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        return text


def keep_rows(rows, keys):
    """The header and the rows whose first cell is one of `keys` (all: None)."""
    if keys is None:
        return rows
    kept = [rows[0]] + [r for r in rows[1:] if r and row_key(r[0]) in keys]
    missing = keys - {row_key(r[0]) for r in kept[1:]}
    if missing:
        raise ValueError(f"rows= asks for {sorted(map(str, missing))}, which the source does not have")
    return kept


def format_number(text):
    try:
        v = float(text)
    except ValueError:
        return text
    if v == int(v) and abs(v) < 1e15 and "." not in text:
        return str(int(v))
    a = abs(v)
    decimals = 0 if a >= 1000 else 1 if a >= 100 else 2 if a >= 1 else 3
    return f"{v:.{decimals}f}"


def render(rows, columns):
    """Markdown lines of a table from TSV rows (header first)."""
    if not rows:
        raise ValueError("the source table is empty")
    header = rows[0]
    if columns is None:
        columns = [(c, c) for c in header]
    index = []
    for col, _ in columns:
        if col not in header:
            raise ValueError(f"no column '{col}' in the source (it has: {', '.join(header)})")
        index.append(header.index(col))
    def numeric(i):
        values = [r[i] for r in rows[1:] if i < len(r) and r[i].strip().lower() not in NON_NUMBERS]
        try:
            [float(v) for v in values]
        except ValueError:
            return False
        return True

    # Numbers right-aligned, words (a pattern's or a case's name) left-aligned.
    align = ["---:" if numeric(i) else "---" for i in index]
    out = ["| " + " | ".join(h for _, h in columns) + " |", "|" + "|".join(align) + "|"]
    for r in rows[1:]:
        cells = [format_number(r[i]) if i < len(r) and r[i] != "" else "–" for i in index]
        out.append("| " + " | ".join(cells) + " |")
    return out


def markdown_tables(lines):
    """(first line number, lines) of each markdown table: consecutive lines
    starting with '|' outside fenced code blocks."""
    tables, start, fenced = [], None, False
    for n, line in enumerate(lines + [""]):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if line.lstrip().startswith("|") and not fenced:
            if start is None:
                start = n
        elif start is not None:
            tables.append((start, lines[start:n]))
            start = None
    return tables


def cells(line):
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    # A '|' inside backquotes is part of the cell (e.g. `--pairing adjacent|across`).
    out, cur, code, prev = [], "", False, ""
    for ch in s:
        if ch == "`":
            code = not code
        if ch == "|" and not code and prev != "\\":
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
        prev = ch
    out.append(cur.strip())
    return out


def check_table(path, start, lines):
    problems = []
    if len(lines) < 2:
        return problems
    head = cells(lines[0])
    align = cells(lines[1])
    if not all(re.fullmatch(r":?-+:?", a) for a in align):
        return [f"{path}:{start + 2}: the second line of a table must be its alignment row"]
    if len(align) != len(head):
        problems.append(f"{path}:{start + 2}: {len(align)} alignment cells for {len(head)} headings")
    numeric = [a.endswith(":") and not a.startswith(":") for a in align]
    units = {}  # column -> [(line, cell, unit)]
    for k, line in enumerate(lines[2:], start=start + 3):
        row = cells(line)
        if len(row) != len(head):
            problems.append(f"{path}:{k}: {len(row)} cells, the header has {len(head)}")
            continue
        row_units = []
        for c, cell in enumerate(row):
            if c == 0 or c >= len(numeric) or not numeric[c]:
                continue  # the first column names the row (sizes, cases)
            plain = re.sub(r"[*_`]", "", cell).split(" (")[0].strip()
            if plain.lower() in NON_NUMBERS:
                continue
            m = NUMBER.match(plain)
            if not m:
                problems.append(f"{path}:{k}: column '{head[c]}' holds '{cell}', not a number")
                continue
            if re.fullmatch(r"[+\-−]?0(\.0*)?", plain):
                continue  # a zero needs no unit
            row_units.append((c, k, cell, m.group("unit") or ""))
        # A row whose every number has its unit (a "peak" row in Mbit/s in a
        # table of microseconds) speaks for itself.
        if not (row_units and all(u for _, _, _, u in row_units)):
            for c, k2, cell, u in row_units:
                units.setdefault(c, []).append((k2, cell, u))
    # A column of bare numbers whose unit is in its heading: a cell with a
    # unit of its own there was pasted from elsewhere.
    for c, seen in units.items():
        bare = sum(1 for _, _, u in seen if not u)
        if bare >= 2 and bare * 3 >= len(seen) * 2:
            for k, cell, u in seen:
                if u:
                    problems.append(f"{path}:{k}: column '{head[c]}' holds '{cell}' among plain numbers")
    return problems


def blocks(lines, mark=MARK):
    """(marker line, end line, spec) of each generated table (of the kind
    `mark` opens: result tables, or with PARAMS_MARK / STATS_MARK the tables
    generated from the code)."""
    out, open_at = [], None
    for n, line in enumerate(lines):
        if MARK.match(line) or PARAMS_MARK.match(line) or STATS_MARK.match(line):
            open_at = None  # another kind's block: its end is not ours
        m = mark.match(line)
        if m:
            open_at = (n, m.group("spec"))
        elif END.match(line) and open_at:
            out.append((open_at[0], n, open_at[1]))
            open_at = None
    return out


class CodeTable:
    """A kind of table generated from the code: its marker, the simulator
    command that prints it and the words its messages use."""

    def __init__(self, mark, command, table, row, rows, model):
        self.mark, self.command = mark, command
        self.table, self.row, self.rows, self.model = table, row, rows, model


PARAMS = CodeTable(PARAMS_MARK, "params", "parameter table", "parameter", "parameters", "module")
STATS = CodeTable(STATS_MARK, "stats", "statistics table", "statistic", "statistics", "model")
CODE_TABLES = (PARAMS, STATS)


def parse_params_spec(spec):
    """(simulator arguments, module, names to keep or None) of a parameter
    or statistics table's marker."""
    parts = [p.strip() for p in spec.split("|")]
    if len(parts) not in (2, 3) or not parts[0] or not parts[1] or len(parts[1].split()) != 1 or \
            (len(parts) == 3 and not parts[2]):
        raise ValueError("expected 'CONFIG [--set NAME=VALUE]... | MODULE [| NAME NAME ...]'")
    names = parts[2].split() if len(parts) == 3 else None
    return shlex.split(parts[0]), parts[1], names


def keep_params(lines, names, kind=PARAMS):
    """The header and the rows of the parameters (or statistics) `names`
    (all: None), in the code's order; a name the module lacks is an error."""
    if names is None:
        return lines
    rows = {cells(l)[0].strip("`"): l for l in lines[2:]}
    missing = [n for n in names if n not in rows]
    if missing:
        raise ValueError(f"the {kind.model} has no {kind.row} {', '.join(missing)} (it has: {', '.join(rows)})")
    return lines[:2] + [l for l in lines[2:] if cells(l)[0].strip("`") in names]


def find_sim(sim):
    """The m2vp-sim that renders parameter and statistics tables, or None."""
    for candidate in (sim, os.environ.get("M2VP_SIM"), os.path.join(ROOT, "build", "bin", "m2vp-sim")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def params_table(args, module, sim, kind=PARAMS):
    """The simulator's markdown lines for a module's parameters (or, with
    STATS, its statistics); one run per config, arguments and module: pages
    share modules."""
    return list(_code_table(kind.command, tuple(args), module, sim))


@functools.lru_cache(maxsize=None)
def _code_table(command, args, module, sim):
    if not sim:
        what = "parameters" if command == "params" else "statistics"
        raise RuntimeError(f"no m2vp-sim to read the {what} from (build it, or give --sim or $M2VP_SIM)")
    cmd = [sim, command, *args, "--markdown", module]
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    if proc.returncode != 0:
        tail = " / ".join(proc.stderr.strip().splitlines()[-3:])
        raise RuntimeError(f"{' '.join(cmd)}: exit {proc.returncode}: {tail}")
    return tuple(proc.stdout.splitlines())


def check_params_blocks(path, lines, sim, kind=PARAMS):
    """A problem for each parameter (or statistics) table that differs from
    the code's."""
    problems = []
    rel = os.path.relpath(path, ROOT)
    for mark, end, spec in blocks(lines, kind.mark):
        try:
            args, module, names = parse_params_spec(spec)
            want = keep_params(params_table(args, module, sim, kind), names, kind)
        except (ValueError, RuntimeError, subprocess.TimeoutExpired) as e:
            problems.append(f"{rel}:{mark + 1}: {kind.table} of '{spec}': {e}")
            continue
        have = lines[mark + 1:end]
        if have != want:
            n = next((i for i, (a, b) in enumerate(zip(have, want)) if a != b), min(len(have), len(want)))
            doc = have[n] if n < len(have) else "(no line)"
            code = want[n] if n < len(want) else "(no line)"
            problems.append(f"{rel}:{mark + 2 + n}: the {kind.table} of {module} differs from the code "
                            f"(run --update): the page has '{doc}', the code '{code}'")
    return problems


def check_file(path, sim=None):
    with open(path) as f:
        lines = f.read().splitlines()
    problems = [p for kind in CODE_TABLES for p in check_params_blocks(path, lines, find_sim(sim), kind)]
    for start, table in markdown_tables(lines):
        problems += check_table(os.path.relpath(path, ROOT), start, table)
    for mark, end, spec in blocks(lines):
        try:
            _, _, columns, _ = parse_spec(spec)
        except ValueError as e:
            problems.append(f"{os.path.relpath(path, ROOT)}:{mark + 1}: bad table marker: {e}")
            continue
        body = [l for l in lines[mark + 1:end] if l.lstrip().startswith("|")]
        if not body:
            problems.append(f"{os.path.relpath(path, ROOT)}:{mark + 1}: a marked table with no table (run --update)")
        elif columns is not None and cells(body[0]) != [h for _, h in columns]:
            problems.append(f"{os.path.relpath(path, ROOT)}:{mark + 2}: headings {cells(body[0])} differ from the "
                            f"marker's {[h for _, h in columns]} (run --update)")
    return problems


def run_and_read(args, source, sim):
    with tempfile.TemporaryDirectory(prefix="m2vp-doc-table-") as out:
        cmd = [os.path.join(ROOT, "m2vp"), "run", *args, "--out", out, "--quiet"]
        env = dict(os.environ)
        if sim:
            env["M2VP_BUILD_DIR"] = os.path.dirname(os.path.dirname(os.path.abspath(sim)))
        proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
        try:
            rows = read_tsv(os.path.join(out, source))
        except TableError as e:
            raise RuntimeError(f"{' '.join(cmd)}: {e}") from None
        if not rows:
            tail = proc.stderr.strip().splitlines()[-3:]
            raise RuntimeError(f"{' '.join(cmd)}: exit {proc.returncode}, no {source}: {' / '.join(tail)}")
        return rows, proc.returncode


def update_file(path, sim, only):
    with open(path) as f:
        lines = f.read().splitlines()
    changed = 0
    params_sim = find_sim(sim)
    for kind in CODE_TABLES:
        for mark, end, spec in reversed(blocks(lines, kind.mark)):
            if only and only not in spec:
                continue
            args, module, names = parse_params_spec(spec)
            print(f"{os.path.relpath(path, ROOT)}:{mark + 1}: m2vp-sim {kind.command} {' '.join(args)} "
                  f"--markdown {module}", flush=True)
            lines[mark + 1:end] = keep_params(params_table(args, module, params_sim, kind), names, kind)
            changed += 1
    for mark, end, spec in reversed(blocks(lines)):
        if only and only not in spec:
            continue
        args, source, columns, keys = parse_spec(spec)
        print(f"{os.path.relpath(path, ROOT)}:{mark + 1}: m2vp run {' '.join(args)} -> {source}", flush=True)
        rows, rc = run_and_read(args, source, sim)
        if rc:
            print(f"  (the run exited with {rc}: missing values are shown as dashes)")
        lines[mark + 1:end] = render(keep_rows(rows, keys), columns)
        changed += 1
    with replacing(path) as f:  # never through a symlink
        f.write("\n".join(lines) + "\n")
    return changed


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--update", action="store_true")
    p.add_argument("files", nargs="*")
    p.add_argument("--sim", help="m2vp-sim to use (its build folder); default: $M2VP_SIM, else ./m2vp's")
    p.add_argument("--only", help="update only the tables whose marker contains this text")
    a = p.parse_args(argv)
    files = a.files or sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    if a.check:
        problems = [p for f in files for p in check_file(f, a.sim)]
        for line in problems:
            print(line, file=sys.stderr)
        print(f"doc tables: {len(files)} file(s), {len(problems)} problem(s)")
        return 1 if problems else 0
    try:
        n = sum(update_file(f, a.sim, a.only) for f in files)
    except (ValueError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"doc tables: {n} table(s) regenerated")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
