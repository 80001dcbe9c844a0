"""The parameters that differ between runs (compare.py), in the order that
finds the cause first: those a config file, case or option set, then those
that kept a default (the model's or a variant's), then, collapsed to one
line per instance, those of instances that only some runs have (a fat tree's
extra switch boxes: hundreds of parameters that say one thing)."""
import re

ABSENT = "-"
# A number in an instance's name; a leading 0 stays text ("port04": "port0" and 4).
NUMBER = re.compile(r"[1-9][0-9]*|0(?![0-9])")


def was_set(origin):
    """A value someone chose: params.tsv's origin is a config file's line
    ("x.yaml:7", also "..., case NAME") or an option ("--set"), not
    "default" nor "variant NAME" (a variant's preset default). A params.tsv
    without the origin column sets nothing."""
    return bool(origin) and origin != "default" and not origin.startswith("variant ")


def _prefixes(name):
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _missing_instance(name, lacking, known):
    """The shortest dotted prefix of `name` of which the runs in `lacking`
    have no parameter at all (the instance they do not have); the name
    itself when they have the instance but not this parameter."""
    for p in _prefixes(name):
        if not any(p in known[i] for i in lacking):
            return p
    return name


def _ranges(numbers):
    """[4, 5, 6, 7, 9] -> "4..7,9"."""
    numbers = sorted(set(numbers))
    spans = []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ",".join(str(a) if a == b else f"{a}..{b}" for a, b in spans)


def _runs_phrase(runs):
    """Run numbers as "run 2" or "runs 2, 3"."""
    return ("run " if len(runs) == 1 else "runs ") + ", ".join(map(str, runs))


def differences(params, numbers=None):
    """params: per run, {name: (value, origin)}; numbers: the runs' numbers
    in what is printed (default 1, 2, ...). Returns (set rows,
    default rows, collapsed lines, parameters collapsed): rows are
    [name, value per run] (ABSENT where a run lacks it), sorted by name;
    a collapsed line is [instances, what, count], e.g. ["sb4..7.*",
    "only in run 2", "280 parameters, 2 set"]."""
    numbers = numbers or list(range(1, len(params) + 1))
    names = sorted(set().union(*params))
    known = [set(p for n in run for p in _prefixes(n)) for run in params]
    chosen, kept = [], []
    groups = {}  # (instance with "#" for numbers, runs that have it) -> {numbers: [(row, was set)]}
    for n in names:
        values = [run[n][0] if n in run else ABSENT for run in params]
        if len(set(values)) == 1:
            continue
        having = tuple(i for i, run in enumerate(params) if n in run)
        lacking = [i for i in range(len(params)) if i not in having]
        instance = _missing_instance(n, lacking, known) if lacking else n
        row = [n] + values
        is_set = any(was_set(run[n][1]) for run in params if n in run)
        if instance == n:
            (chosen if is_set else kept).append(row)
            continue
        in_name = tuple(int(d) for d in NUMBER.findall(instance))
        groups.setdefault((NUMBER.sub("#", instance), having), {}).setdefault(in_name, []).append((row, is_set))
    collapsed = []
    count = 0
    for (template, having), members in groups.items():
        for shown, rows in _merge(template, members):
            if len(rows) == 1:  # one parameter says more as its own row
                row, is_set = rows[0]
                (chosen if is_set else kept).append(row)
                continue
            n_set = sum(1 for _, s in rows if s)
            collapsed.append([shown, f"only in {_runs_phrase([numbers[i] for i in having])}",
                              f"{len(rows)} parameters" + (f", {n_set} set" if n_set else "")])
            count += len(rows)
    return sorted(chosen), sorted(kept), sorted(collapsed, key=lambda c: _natural(c[0])), count


def _merge(template, members):
    """Instances of one template ("sb#.port#.link") as few exact lines:
    first the last number's values per the other numbers (sb3.port4..7),
    then the first number's over those with the same rest (sb0..2.port4..6).
    Yields (instances shown, e.g. "sb0..2.port4..6.link.*", [(row, was set)])."""
    if not template.count("#"):
        yield f"{template}.*", [r for rows in members.values() for r in rows]
        return
    by_prefix = {}  # numbers but the last -> {last: rows}
    for numbers, rows in members.items():
        by_prefix.setdefault(numbers[:-1], {})[numbers[-1]] = rows
    merged = {}  # (numbers but the first and last, last values) -> {first: rows}
    for prefix, lasts in by_prefix.items():
        key = (prefix[1:], tuple(sorted(lasts)))
        merged.setdefault(key, {})[prefix[0] if prefix else None] = [r for rs in lasts.values() for r in rs]
    pieces = template.split("#")
    for (middle, lasts), firsts in merged.items():
        if None in firsts:
            numbers = [_ranges(lasts)]
        else:
            numbers = [_ranges(firsts)] + [str(m) for m in middle] + [_ranges(lasts)]
        shown = "".join(p + n for p, n in zip(pieces, numbers)) + pieces[-1]
        yield f"{shown}.*", [r for rs in firsts.values() for r in rs]


def _natural(text):
    """Sort key that puts sb4 before sb10."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]
