"""The engines that run a sweep's or a config's cases' job list
(traces/joblist.py): `local` (this machine's processes, as always), `parallel`
(GNU parallel; its --sshlogin lists run jobs on other machines sharing the
folder) and `slurm` (one Slurm job array, sbatch --array; the cluster's
config from SLURM_CONF as for any Slurm command). Each gives per job
(exit code, error line or "", warning lines), the error line of a failed
job naming the engine's job id and its exit state."""
import argparse
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time

from joblist import JOB_LIST, absolute_command, write_job_list
from output_files import replacing
from runs import RUN_MANIFEST, add_to_run_manifest, run_parallel, stderr_summary

ENGINES = ("local", "parallel", "slurm")
# The engines' own files in the sweep's folder: each job's standard error,
# GNU parallel's job log, Slurm's output files. A folder of its own with a
# manifest, so that the next sweep into the folder clears it as a run's.
ENGINE_DIR = ".engine"
RUN_JOB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run_job.sh")
# Seconds between two looks at the Slurm queue.
POLL_S = 1.0
# squeue failures in a row before the sweep gives up on the array (and cancels it).
SQUEUE_FAILURES = 120
# Options whose value is a list of another program's options ('--time=5'):
# the word after them is their value whatever it starts with.
PASS_THROUGH = ("--parallel-args", "--slurm-args")


class Interrupted(Exception):
    """SIGINT or SIGTERM while the engine ran (the signal number)."""


def join_pass_through(argv):
    """`--slurm-args '--time=5'` as `--slurm-args=--time=5` (argparse would
    take a lone '--time=5' for an option of its own)."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] in PASS_THROUGH and i + 1 < len(argv):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def add_engine_options(p):
    p.add_argument("--engine", default="local", choices=ENGINES,
                   help="what runs the jobs (default local; docs/usage.md, 'Sweeps and cases on other machines')")
    p.add_argument("--parallel-args", default="", metavar="'OPTIONS'",
                   help="for GNU parallel (--engine parallel), e.g. '--sshlogin 4/host1,4/host2'")
    p.add_argument("--slurm-args", default="", metavar="'OPTIONS'",
                   help="for sbatch (--engine slurm), e.g. '--partition=short --time=10'")


def check_engine_options(p, a):
    """Usage errors (exit 64 by the parser): options of another engine,
    option lists that do not split, an engine's program that is missing."""
    for opt, engine in (("parallel_args", "parallel"), ("slurm_args", "slurm")):
        value = getattr(a, opt)
        if value and a.engine != engine:
            p.error(f"--{opt.replace('_', '-')} is for --engine {engine} (this is --engine {a.engine})")
        try:
            setattr(a, opt, shlex.split(value))
        except ValueError as e:
            p.error(f"--{opt.replace('_', '-')} '{value}': {e}")
    needs = {"parallel": [("parallel", "parallel")],
             "slurm": [(c, "slurm-wlm") for c in ("sbatch", "squeue", "scontrol", "scancel")]}
    for program, package in needs.get(a.engine, []):
        if not shutil.which(program):
            p.error(f"--engine {a.engine} needs {program} (Debian package {package}), not found in PATH")


def run_jobs(a, commands, out, what):
    """Runs the commands (argv lists: `m2vp-sim run CONFIG ... --out DIR`) on
    a.engine and writes their job list to out/jobs.txt; per command in
    order: (exit code, error line or "", warning lines). Raises Interrupted
    after cancelling what it started when SIGINT or SIGTERM comes."""
    jobs = [absolute_command(c[0], c[2], c[3:]) for c in commands]
    try:
        write_job_list(os.path.join(out, JOB_LIST), jobs)
        add_to_run_manifest(out, [JOB_LIST])
    except ValueError as e:
        if a.engine != "local":
            raise
        # This machine runs the commands themselves: only the list is lost.
        print(f"{what}: no {JOB_LIST}: {e}", file=sys.stderr)
    if a.engine == "local":
        return run_parallel(commands, a.jobs, what)
    logs = os.path.abspath(os.path.join(out, ENGINE_DIR))
    job_list = os.path.abspath(os.path.join(out, JOB_LIST))
    _clear_engine_dir(logs)
    previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    try:
        if a.engine == "parallel":
            states = _run_parallel(a, job_list, logs, len(jobs))
        else:
            states = _run_slurm(a, job_list, logs, len(jobs))
    except KeyboardInterrupt:
        raise Interrupted(signal.SIGINT) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
        add_to_run_manifest(logs, sorted(n for n in os.listdir(logs) if n != RUN_MANIFEST))
    results = []
    for i, (job_id, state, rc) in enumerate(states):
        try:
            with open(os.path.join(logs, f"{i}.err"), encoding="utf-8", errors="replace") as f:
                err = f.read()
        except OSError:
            err = ""
        why, warnings = stderr_summary(rc, err)
        if rc:  # the engine's name for the job and how it ended
            why = f"{why} ({a.engine} job {job_id}: {state})" if why else f"error: {a.engine} job {job_id}: {state}"
        results.append((rc, why, warnings))
    return results


def _clear_engine_dir(logs):
    """Makes the engine's folder, without what an earlier sweep's engine
    left (the files its manifest lists), with an empty manifest."""
    if os.path.islink(logs):
        raise RuntimeError(f"{logs}: a symbolic link where the engine's folder goes (remove it)")
    os.makedirs(logs, exist_ok=True)
    manifest = os.path.join(logs, RUN_MANIFEST)
    try:
        with open(manifest, encoding="utf-8", errors="replace") as f:
            listed = f.read().splitlines()
    except FileNotFoundError:
        listed = []
    for name in listed:
        path = os.path.join(logs, name)
        if name and "/" not in name and name not in (".", "..") and os.path.isfile(path) and not os.path.islink(path):
            os.remove(path)
    with replacing(manifest) as f:
        f.write("")


def _raise_interrupted(signum, _frame):
    raise Interrupted(signum)


def _run_parallel(a, job_list, logs, n):
    """GNU parallel over the job indexes; per job (parallel's sequence
    number, state, exit code) from its --joblog."""
    joblog = os.path.join(logs, "parallel.joblog")
    if os.path.exists(joblog):
        os.remove(joblog)  # --joblog appends
    cmd = (["parallel", "--will-cite", "--quote", "--jobs", str(max(1, a.jobs)), "--joblog", joblog]
           + a.parallel_args + ["sh", RUN_JOB, job_list, logs, "{}", ":::"] + [str(i) for i in range(n)])
    # A signal while Popen starts parallel would leave it running unknown:
    # it waits until proc is known (parallel itself starts with them unblocked).
    stops = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_UNBLOCK, stops))
    except BaseException:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
        raise
    try:
        print(f"{os.path.basename(job_list)}: {n} jobs on GNU parallel", file=sys.stderr)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
        proc.wait()
    except (KeyboardInterrupt, Interrupted):
        # parallel ends its running jobs (--termseq) on SIGTERM; a second
        # one, then SIGKILL, if it does not.
        for sig in (signal.SIGTERM, signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(timeout=30)
                break
            except subprocess.TimeoutExpired:
                continue
        proc.wait()
        print(f"interrupted: GNU parallel (pid {proc.pid}) and its jobs stopped", file=sys.stderr)
        raise
    done = {}
    try:
        with open(joblog, encoding="utf-8", errors="replace") as f:
            rows = [l.rstrip("\n").split("\t") for l in f][1:]
    except OSError:
        rows = []
    for r in rows:
        # Seq Host Starttime JobRuntime Send Receive Exitval Signal Command
        if len(r) >= 9 and r[0].isdigit() and r[6].lstrip("-").isdigit() and r[7].isdigit():
            done[int(r[0])] = (r[1], int(r[6]), int(r[7]))
    states = []
    for i in range(n):
        seq = i + 1
        if seq not in done:
            states.append((str(seq), "NOT RUN (not in parallel's job log)", 1))
            continue
        host, rc, sig = done[seq]
        where = f"{seq} on {host}" if host not in (":", "") else str(seq)
        if sig:
            states.append((where, f"KILLED (signal {sig})", 128 + sig))
        else:
            states.append((where, "COMPLETED" if rc == 0 else "FAILED", rc))
    return states


def _slurm(args, check=True):
    p = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if check and p.returncode:
        said = (p.stderr or p.stdout).strip()
        hint = (" (no Slurm cluster found: SLURM_CONF names its slurm.conf)"
                if "configuration source" in said and not os.environ.get("SLURM_CONF") else "")
        raise RuntimeError(f"{args[0]} failed (exit code {p.returncode}){hint}: {said}")
    return p


def _run_slurm(a, job_list, logs, n):
    """One job array of n tasks; waits for it; per task (array job id
    ARRAY_TASK, Slurm's state, exit code). Cancels the array when
    interrupted."""
    cmd = (["sbatch", "--parsable", f"--array=0-{n - 1}", "--job-name=m2vp-" + os.path.basename(
        os.path.dirname(os.path.abspath(job_list))),
            f"--output={os.path.join(logs, 'slurm-%A_%a.out')}"] + a.slurm_args + [RUN_JOB, job_list, logs])
    # A signal while sbatch submits would leave an array whose id is not
    # known yet: it waits until the id is, then cancels it.
    stops = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    finished = False
    queued = set()  # tasks seen in the queue: one that leaves it unstarted was cancelled there
    try:
        array = _slurm(cmd).stdout.strip().split(";")[0]
    except BaseException:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
        raise
    if not array.isdigit():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
        raise RuntimeError(f"sbatch gave no job id (it printed '{array}')")
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
        failures, announced = 0, False
        while True:
            q = _slurm(["squeue", "--noheader", "--array", "--jobs", array, "--format=%K"], check=False)
            if q.returncode and "Invalid job id" not in q.stderr:
                # slurmctld not answering for a moment: ask again, for a while.
                failures += 1
                if failures > SQUEUE_FAILURES:
                    raise RuntimeError(f"squeue failed {failures} times in a row: {q.stderr.strip()}")
                time.sleep(POLL_S)
                continue
            failures = 0
            tasks = q.stdout.split()
            queued.update(int(t) for t in tasks if t.isdigit())
            if not announced:  # once its tasks are known to be queued
                print(f"{os.path.basename(job_list)}: {n} jobs as Slurm job array {array}", file=sys.stderr)
                announced = True
            if not tasks:
                break
            time.sleep(POLL_S)
        finished = True
    finally:
        if not finished:
            _cancel(array)
    return _slurm_states(array, n, queued)


def _cancel(array):
    """scancel of the array, then waits until the queue no longer has it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second ^C must not leave it queued
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        _slurm(["scancel", array], check=False)
        for _ in range(300):
            if not _slurm(["squeue", "--noheader", "--array", "--jobs", array, "--format=%i"], check=False).stdout.strip():
                break
            time.sleep(POLL_S)
        print(f"interrupted: Slurm job array {array} cancelled (scancel {array})", file=sys.stderr)
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _slurm_states(array, n, queued):
    """Each task's state and exit code: from sacct where the cluster keeps
    accounting, else from scontrol (which keeps finished jobs MinJobAge
    seconds, but no record of a task cancelled while it was pending: one
    seen in the queue (`queued`) without a record was)."""
    found = {}
    p = _slurm(["sacct", "--noheader", "--parsable2", "--jobs", array, "--format=JobID,State,ExitCode"], check=False)
    if p.returncode == 0:
        for line in p.stdout.splitlines():
            job, _, rest = line.partition("|")
            state, _, code = rest.partition("|")
            head, _, task = job.partition("_")
            if head == array and task.isdigit():
                found[int(task)] = (state.split(" ")[0], code)
    if len(found) < n:
        p = _slurm(["scontrol", "show", "job", "--oneliner", array], check=False)
        for line in p.stdout.splitlines():
            fields = dict(f.split("=", 1) for f in line.split(" ") if "=" in f)
            task = fields.get("ArrayTaskId", "")
            if fields.get("ArrayJobId") == array and task.isdigit():
                found.setdefault(int(task), (fields.get("JobState", "UNKNOWN"), fields.get("ExitCode", "")))
    states = []
    for i in range(n):
        missing = ("CANCELLED (left the queue before it started)" if i in queued else
                   "UNKNOWN (not in sacct or scontrol)", "")
        state, code = found.get(i, missing)
        rc_text, _, sig_text = code.partition(":")
        rc = int(rc_text) if rc_text.isdigit() else 1
        sig = int(sig_text) if sig_text.isdigit() else 0
        if sig and not rc:
            rc = 128 + sig
        if state != "COMPLETED" and not rc:
            rc = 1  # cancelled or timed out before its command said anything
        states.append((f"{array}_{i}", state, rc))
    return states
