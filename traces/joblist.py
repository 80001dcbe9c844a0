"""The job list of a sweep or a config's cases: a plain text file, one job
per line, each line a POSIX shell command line (words quoted as `sh`
reads them) that runs one simulation into its own output folder
(`m2vp-sim run CONFIG ... --out FOLDER`), every path absolute. Job N
(from 0) is line N+1; nothing else is in the file. Any scheduler can run
it: `sh -c "$(sed -n 3p jobs.txt)"` runs job 2, `parallel < jobs.txt` all
of them (docs/usage.md, "Sweeps and cases on other machines")."""
import os
import shlex

from output_files import replacing

JOB_LIST = "jobs.txt"


def absolute_command(sim, config, rest):
    """A job's argv with the simulator and the config as absolute paths and
    every --out value made absolute (a job may start in another folder)."""
    words = [os.path.abspath(sim), "run", os.path.abspath(config)]
    it = iter(rest)
    for w in it:
        words.append(w)
        if w == "--out":
            words.append(os.path.abspath(next(it)))
    return words


def write_job_list(path, commands):
    """Writes the commands (argv lists) one per line; raises OutputError
    naming the path when it cannot. A word with a newline cannot be on one
    line: ValueError naming it."""
    lines = []
    for c in commands:
        line = shlex.join(c)
        if "\n" in line or "\r" in line:
            raise ValueError(f"a job's command has a line break ({line!r}): it cannot go into a job list")
        lines.append(line + "\n")
    with replacing(path, encoding="utf-8", errors="surrogateescape") as f:
        f.write("".join(lines))


def read_job_list(path):
    """The job list's commands as argv lists."""
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return [shlex.split(line) for line in f.read().splitlines()]
