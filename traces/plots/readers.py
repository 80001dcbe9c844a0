"""Readers of the run-output files that can be plotted. Each returns plain
data and raises InputError naming the file and line for anything malformed,
so a bad file never gets as far as a confusing plot."""
import csv
import io
import math


class InputError(Exception):
    """A file that cannot be plotted: "FILE:LINE: what was expected"."""

    def __init__(self, path, line, message):
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")


# The largest magnitude a plotted number may have: 1e15 bytes, Mbit/s, s or
# us is far beyond any run, and near float's limit (1e308) the axes' ranges
# overflow inside matplotlib.
LARGEST = 1e15


def _number(path, line, column, text, positive=False, nonnegative=False):
    try:
        v = float(text)
    except ValueError:
        raise InputError(path, line, f"{column}: expected a number, got '{text}'") from None
    if not math.isfinite(v):
        raise InputError(path, line, f"{column}: expected a finite number, got '{text}'")
    if abs(v) > LARGEST:
        raise InputError(path, line, f"{column}: expected a number up to {LARGEST:g}, got '{text}'")
    if positive and v <= 0:
        raise InputError(path, line, f"{column}: expected a positive number, got '{text}'")
    if nonnegative and v < 0:
        raise InputError(path, line, f"{column}: expected a number >= 0, got '{text}'")
    return v + 0.0  # -0 reads as 0


def _open(path):
    """The file as text (UTF-8); bytes that are not UTF-8 are an error at
    their line, not a UnicodeDecodeError."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise InputError(path, 0, f"cannot read: {e.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise InputError(path, line, f"not UTF-8 text (byte 0x{raw[e.start]:02x})") from None
    return io.StringIO(text, newline="")


def read_netpipe(path):
    """NetPIPE's np.out: one measurement a line, "bytes Mbit/s seconds"
    (further columns, as some NetPIPE versions write, are ignored). Returns
    [(bytes, mbps, seconds)] in file order."""
    rows = []
    with _open(path) as f:
        for n, line in enumerate(f, 1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) < 3:
                raise InputError(path, n, f"expected 3 columns 'bytes Mbit/s seconds', got {len(fields)}")
            b = _number(path, n, "bytes", fields[0], positive=True)
            mbps = _number(path, n, "Mbit/s", fields[1], nonnegative=True)
            sec = _number(path, n, "seconds", fields[2], positive=True)
            rows.append((b, mbps, sec))
    if not rows:
        raise InputError(path, 0, "no measurements (expected lines 'bytes Mbit/s seconds')")
    return rows


def _table(path, delimiter, required):
    """Header + rows of a delimited file; checks the header has `required`
    and every row the header's width. Yields (line, {column: text})."""
    with _open(path) as f:
        reader = csv.reader(f, delimiter=delimiter)
        try:
            return _header_and_rows(path, reader, required)
        except csv.Error as e:  # e.g. a field over the csv module's size limit
            raise InputError(path, reader.line_num, f"malformed {'CSV' if delimiter == ',' else 'TSV'}: {e}") from None


def _header_and_rows(path, reader, required):
    header = next(reader, None)
    if not header:
        raise InputError(path, 1, "empty file (expected a header line)")
    header = [h.strip() for h in header]
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(path, 1, f"header lacks column(s) {', '.join(missing)} (has: {' '.join(header)})")
    rows = []
    for fields in reader:
        if not fields or (len(fields) == 1 and not fields[0].strip()):
            continue
        if len(fields) != len(header):
            raise InputError(path, reader.line_num,
                             f"expected {len(header)} fields as in the header, got {len(fields)}")
        rows.append((reader.line_num, dict(zip(header, (x.strip() for x in fields)))))
    return header, rows


# Columns of messages.csv that end in _us but are not stages.
MESSAGE_TIMES = ("start_us", "end_us", "total_us")


def read_messages(path):
    """messages.csv, the per-message breakdown: msg,src,dst,bytes,tag,phase,
    start_us,end_us,total_us,<stage>_us,... Every _us column other than the
    three times is a stage, in path order; an empty stage cell is a stage
    this message did not pass (0). When the application named its phases
    (`phase`) and some messages are "timed", only those are kept: its timed
    rounds, whose mean is what it reports (warm-up rounds left out). Returns
    (stages, [(bytes, total_us, [stage_us...])])."""
    header, rows = _table(path, ",", ("bytes", "total_us"))
    if "phase" in header and any(r["phase"] == "timed" for _, r in rows):
        rows = [(n, r) for n, r in rows if r["phase"] == "timed"]
    stages = [h for h in header if h.endswith("_us") and h not in MESSAGE_TIMES]
    if not stages:
        raise InputError(path, 1, "no stage columns (expected <stage>_us columns besides start_us, end_us, total_us)")
    out = []
    for n, r in rows:
        b = _number(path, n, "bytes", r["bytes"], nonnegative=True)  # 0: a message without payload
        total = _number(path, n, "total_us", r["total_us"], nonnegative=True)
        parts = [_number(path, n, s, r[s], nonnegative=True) if r[s] else 0.0 for s in stages]
        out.append((b, total, parts))
    if not out:
        raise InputError(path, 0, "no messages (only a header)")
    return [s[:-3] for s in stages], out


def read_latencies(path):
    """latencies.tsv (multi-node experiments): pattern bytes src dst
    latency_us, one message a row. Returns [(pattern, bytes, latency_us)]."""
    _, rows = _table(path, "\t", ("pattern", "bytes", "latency_us"))
    out = []
    for n, r in rows:
        if not r["pattern"]:
            raise InputError(path, n, "pattern: empty")
        b = _number(path, n, "bytes", r["bytes"], nonnegative=True)
        lat = _number(path, n, "latency_us", r["latency_us"], nonnegative=True)
        out.append((r["pattern"], b, lat))
    if not out:
        raise InputError(path, 0, "no messages (only a header)")
    return out


def results_as_netpipe(path):
    """A run's results.tsv as NetPIPE measurements [(bytes, mbps, seconds)]
    when it is one sweep over sizes: columns bytes and latency_us (one-way,
    us; mbps if present, else bytes*8/latency), one row per size. None when
    it is another kind of table (no such columns, or several rows per size);
    a malformed row of a table that has them is an error."""
    with _open(path) as f:
        first = f.readline().rstrip("\r\n").split("\t")
    if "bytes" not in first or "latency_us" not in first:
        return None
    _, rows = _table(path, "\t", ("bytes", "latency_us"))
    out = []
    for n, r in rows:
        b = _number(path, n, "bytes", r["bytes"], nonnegative=True)
        us = _number(path, n, "latency_us", r["latency_us"], positive=True)
        mbps = _number(path, n, "mbps", r["mbps"], nonnegative=True) if "mbps" in r else b * 8 / us
        if mbps > LARGEST:  # bytes over a latency near 0
            raise InputError(path, n, f"latency_us: {r['latency_us']} us for {r['bytes']} bytes is over "
                                      f"{LARGEST:g} Mbit/s (expected a latency that can be plotted)")
        out.append((b, mbps, us / 1e6))
    sizes = [b for b, _, _ in out]
    if not out or len(set(sizes)) != len(sizes):
        return None
    return out
