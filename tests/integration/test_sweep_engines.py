#!/usr/bin/env python3
"""Sweeps and a config's cases on the real engines (traces/engines.py): GNU
parallel, and a one-node Slurm cluster started in a temporary folder
(tests/integration/slurm_cluster.py) and stopped at the end. A 4-variant
sweep of the MMP ping-pong (and a config with cases) runs on the local
engine and on the engine under test; the merged results (sweep.tsv, the
plots and their numbers; results.tsv, cases.tsv, summary.tsv) must be the
same bytes. A variant whose value the simulator refuses is named in the
merge with the engine's job id and state, the rest merged, exit 1. A task
cancelled from outside is named CANCELLED; SIGTERM to the sweep cancels
what it started (nothing left queued or running).

  test_sweep_engines.py M2VP_SIM parallel|slurm
Exit code 77 (CTest SKIP_RETURN_CODE) when the engine cannot run here,
saying why.
"""
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, HERE)
from slurm_cluster import SlurmCluster, unavailable  # noqa: E402

SKIP = 77
SIM = None
ENGINE = None
CONFIG = os.path.join(ROOT, "configs", "mmp-pingpong.yaml")
# Short runs: two sizes, two iterations.
COMMON = ["--set", "node*.host.args=--sizes 1,1k --iters 2 --warmup 1"]
VARY = ["--vary", "node*.host.clock_mhz=100,300,600,1000"]
# The third value is no number: that run stops with a configuration error.
VARY_FAILING = ["--vary", "node*.host.clock_mhz=100,300,fast,1000"]
# What the engines add to a folder beside the merged results.
ENGINE_FILES = {"jobs.txt", ".engine", ".m2vp-lock", ".m2vp-run-files"}
# The ping-pong with cases (two) added.
CASES = """
cases:
  show: latency_us
  vary:
    clock:
      slow: {node*.host.clock_mhz: 500}
      fast: {node*.host.clock_mhz: 1000}
"""


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def processes_mentioning(text):
    """{pid: command line} of live processes whose command line contains `text`."""
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
            with open(f"/proc/{pid}/stat") as f:
                zombie = f.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            continue
        if text in cmd and not zombie and int(pid) != os.getpid():
            found[int(pid)] = cmd
    return found


class EngineTest(unittest.TestCase):
    cluster = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="m2vp-engines-")
        cls.d = cls.tmp.name
        os.chmod(cls.d, 0o755)  # munged's socket below it: a path every user can search
        cls.env = dict(os.environ)
        if ENGINE == "slurm":
            cls.cluster = SlurmCluster(os.path.join(cls.d, "slurm"))
            os.makedirs(cls.cluster.dir)
            try:
                cls.cluster.__enter__()
            except BaseException:
                cls.tmp.cleanup()
                raise
            cls.env = cls.cluster.env  # SLURM_CONF, as on a real cluster
            # CTest's timeout ends a test with SIGTERM: the daemons go first.
            signal.signal(signal.SIGTERM, cls.stop_on_signal)
        try:
            cls.local = os.path.join(cls.d, "local")
            rc, out, err = cls.sweep(cls.local, "local", *VARY)
            assert rc == 0, f"the local sweep failed ({rc}): {out} {err}"
            cls.local_failing = os.path.join(cls.d, "local-failing")
            rc, out, err = cls.sweep(cls.local_failing, "local", *VARY_FAILING)
            assert rc == 1, f"the local sweep with a failing variant exited {rc}: {out} {err}"
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            if cls.cluster:
                cls.cluster.stop()  # raises when a daemon or job step is left
        finally:
            cls.tmp.cleanup()

    @classmethod
    def stop_on_signal(cls, signum, _frame):
        try:
            cls.tearDownClass()
        finally:
            os._exit(128 + signum)

    @classmethod
    def sweep(cls, out, engine, *args):
        p = subprocess.run([sys.executable, os.path.join(ROOT, "traces", "sweep.py"), "--sim", SIM, CONFIG,
                            "--out", out, "--engine", engine] + COMMON + list(args),
                           capture_output=True, text=True, env=cls.env, timeout=600)
        return p.returncode, p.stdout, p.stderr

    def assert_same_merge(self, expected, got):
        names = sorted(set(os.listdir(expected)) - ENGINE_FILES)
        self.assertEqual(names, sorted(set(os.listdir(got)) - ENGINE_FILES))
        self.assertIn("sweep.tsv", names)
        for n in names:
            e, g = os.path.join(expected, n), os.path.join(got, n)
            if os.path.isdir(e):  # a variant's folder: its measurement table
                self.assertEqual(read_bytes(os.path.join(e, "results.tsv")),
                                 read_bytes(os.path.join(g, "results.tsv")), n)
            else:
                self.assertEqual(read_bytes(e), read_bytes(g), f"{n} differs from the local engine's")

    def sweep_tsv(self, folder):
        with open(os.path.join(folder, "sweep.tsv")) as f:
            return [line.split("\t") for line in f.read().splitlines()]

    def test_sweep_merges_as_the_local_engine_does(self):
        out = os.path.join(self.d, f"{ENGINE}-ok")
        rc, stdout, stderr = self.sweep(out, ENGINE, *VARY, *self.engine_args())
        self.assertEqual(rc, 0, stdout + stderr)
        self.assert_same_merge(self.local, out)
        plots = [n for n in os.listdir(out) if n.startswith("sweep_")]
        self.assertTrue(any(n.endswith(".png") for n in plots), plots)
        # The job list: one shell command line per variant, absolute paths, its own folder.
        with open(os.path.join(out, "jobs.txt")) as f:
            jobs = [shlex.split(line) for line in f.read().splitlines()]
        self.assertEqual(len(jobs), 4)
        for job, mhz in zip(jobs, ["100", "300", "600", "1000"]):
            self.assertEqual(job[:3], [os.path.abspath(SIM), "run", os.path.abspath(CONFIG)])
            self.assertEqual(job[job.index("--out") + 1], os.path.join(out, f"nodex.host.clock_mhz-{mhz}"))
            self.assertIn(f"node*.host.clock_mhz={mhz}", job)
        # Run again into the same folder: the engine's files of the first are replaced.
        rc, stdout, stderr = self.sweep(out, ENGINE, *VARY, *self.engine_args())
        self.assertEqual(rc, 0, stdout + stderr)
        self.assert_same_merge(self.local, out)
        if ENGINE == "slurm":
            outs = [n for n in os.listdir(os.path.join(out, ".engine")) if n.startswith("slurm-")]
            self.assertEqual(len(outs), 4, outs)
            self.assertEqual(len({n.split("_")[0] for n in outs}), 1, outs)

    def test_failing_variant_is_named_and_the_rest_merged(self):
        out = os.path.join(self.d, f"{ENGINE}-failing")
        rc, stdout, stderr = self.sweep(out, ENGINE, *VARY_FAILING, *self.engine_args())
        self.assertEqual(rc, 1, stdout + stderr)
        # The same table as the local engine's: the three good rows and the failed one's exit code.
        self.assertEqual(self.sweep_tsv(self.local_failing), self.sweep_tsv(out))
        rows = {r[0]: r for r in self.sweep_tsv(out)[1:]}
        self.assertEqual(rows["node*.host.clock_mhz=fast"][1], "64")
        self.assertEqual([rows[f"node*.host.clock_mhz={v}"][1] for v in ("100", "300", "1000")], ["0"] * 3)
        self.assertTrue(all(rows[f"node*.host.clock_mhz={v}"][3] for v in ("100", "300", "1000")))
        failed = [l for l in stdout.splitlines() if l.startswith("variant node*.host.clock_mhz=fast: exit code 64")]
        self.assertEqual(len(failed), 1, stdout)
        job = "3" if ENGINE == "parallel" else r"\d+_2"
        self.assertRegex(failed[0], rf"error: .*clock_mhz.* \({ENGINE} job {job}: FAILED\)$")
        self.assertEqual([l for l in stdout.splitlines() if ": exit code" in l], failed)

    def test_interrupted_sweep_leaves_nothing_running(self):
        out = os.path.join(self.d, f"{ENGINE}-interrupted")
        # Jobs that wait: held in the Slurm queue, or 1000 s apart in parallel.
        wait = ["--slurm-args", "--hold"] if ENGINE == "slurm" else ["--parallel-args", "--delay 1000"]
        p = subprocess.Popen([sys.executable, os.path.join(ROOT, "traces", "sweep.py"), "--sim", SIM, CONFIG,
                              "--out", out, "--engine", ENGINE] + COMMON + VARY + wait,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env)
        try:
            started = p.stderr.readline()
            self.assertRegex(started, r"^jobs\.txt: 4 jobs (as Slurm job array \d+|on GNU parallel)$")
            p.send_signal(signal.SIGTERM)
            stdout, stderr = p.communicate(timeout=300)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            for _ in range(40):  # a killed job may take a moment to be gone
                left = processes_mentioning(out)
                if not left:
                    break
                time.sleep(0.25)
            for pid in left:  # a failure leaves nothing running either
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.assertEqual(left, {})
        self.assertEqual(p.returncode, 128 + signal.SIGTERM, stdout + stderr)
        self.assertIn("interrupted (signal 15): nothing merged", stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "sweep.tsv")))
        if ENGINE == "slurm":
            array = started.split()[-1]
            self.assertIn(f"Slurm job array {array} cancelled (scancel {array})", stderr)
            q = subprocess.run(["squeue", "--noheader", "--array", "--jobs", array], capture_output=True,
                               text=True, env=self.env)
            self.assertEqual(q.stdout.strip(), "")
            s = subprocess.run(["scontrol", "show", "job", "--oneliner", array], capture_output=True, text=True,
                               env=self.env)
            states = [f.split("=", 1)[1] for line in s.stdout.splitlines() for f in line.split() if
                      f.startswith("JobState=")]
            self.assertTrue(states and set(states) == {"CANCELLED"}, s.stdout)

    def test_cancelled_task_is_named(self):
        if ENGINE != "slurm":
            self.skipTest("a Slurm task cancelled from outside")
        out = os.path.join(self.d, "slurm-cancelled")
        p = subprocess.Popen([sys.executable, os.path.join(ROOT, "traces", "sweep.py"), "--sim", SIM, CONFIG,
                              "--out", out, "--engine", "slurm", "--slurm-args", "--hold"] + COMMON + VARY,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env)
        try:
            array = p.stderr.readline().split()[-1]
            self.assertTrue(array.isdigit(), array)
            subprocess.run(["scancel", f"{array}_1"], check=True, env=self.env)
            subprocess.run(["scontrol", "release", array], check=True, env=self.env)
            stdout, stderr = p.communicate(timeout=600)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual(p.returncode, 1, stdout + stderr)
        self.assertIn(f"variant node*.host.clock_mhz=300: exit code 1 error: slurm job {array}_1: CANCELLED",
                      stdout)
        rows = {r[0]: r for r in self.sweep_tsv(out)[1:]}
        self.assertEqual(rows["node*.host.clock_mhz=300"][1], "1")
        local = {r[0]: r for r in self.sweep_tsv(self.local)[1:]}
        for v in ("100", "600", "1000"):
            self.assertEqual(rows[f"node*.host.clock_mhz={v}"], local[f"node*.host.clock_mhz={v}"])

    def test_refused_array_is_an_error(self):
        if ENGINE != "slurm":
            self.skipTest("sbatch's refusal")
        out = os.path.join(self.d, "slurm-refused")
        rc, stdout, stderr = self.sweep(out, "slurm", *VARY, "--slurm-args", "--partition=no-such-partition")
        self.assertEqual(rc, 1, stdout + stderr)
        self.assertRegex(stderr, r"m2vp sweep: error: sbatch failed \(exit code 1\): .*[Pp]artition")
        self.assertNotIn("Traceback", stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "sweep.tsv")))

    def test_cases_merge_as_the_local_engine_does(self):
        config = os.path.join(self.d, "two-cases.yaml")
        with open(config, "w") as f:
            with open(CONFIG) as base:
                f.write(base.read() + CASES)
        outs = {}
        for engine in ("local", ENGINE):
            outs[engine] = os.path.join(self.d, f"cases-{engine}")
            p = subprocess.run([sys.executable, os.path.join(ROOT, "traces", "cases.py"), "--sim", SIM, config,
                                "--out", outs[engine], "--engine", engine] + COMMON, capture_output=True, text=True,
                               env=self.env, timeout=600)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        for name in ("results.tsv", "cases.tsv", "summary.tsv"):
            self.assertEqual(read_bytes(os.path.join(outs["local"], name)),
                             read_bytes(os.path.join(outs[ENGINE], name)), name)
        with open(os.path.join(outs[ENGINE], "jobs.txt")) as f:
            jobs = [shlex.split(line) for line in f.read().splitlines()]
        self.assertEqual([j[j.index("--case") + 1] for j in jobs], ["clock=slow", "clock=fast"])

    def engine_args(self):
        return []


def main():
    global SIM, ENGINE
    if len(sys.argv) < 3 or sys.argv[2] not in ("parallel", "slurm"):
        sys.exit("usage: test_sweep_engines.py M2VP_SIM parallel|slurm")
    SIM, ENGINE = sys.argv[1], sys.argv[2]
    why = None
    if ENGINE == "parallel":
        import shutil
        why = None if shutil.which("parallel") else "GNU parallel not found (Debian package parallel)"
    else:
        why = unavailable()
    if why:
        print(f"skipped: the {ENGINE} engine cannot run here: {why}")
        sys.exit(SKIP)
    unittest.main(argv=sys.argv[:1], verbosity=2)


if __name__ == "__main__":
    main()
