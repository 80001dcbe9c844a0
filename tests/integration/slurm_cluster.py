"""A one-node Slurm cluster in a temporary folder, for tests: munged,
slurmctld and slurmd on this machine with their key, sockets, state, spool,
pid and log files and free ports in the folder, and a slurm.conf there
(SLURM_CONF). Needs root (the daemons run as SlurmUser=root) and Debian's
slurm-wlm and munge; `unavailable()` says why it cannot start."""
import os
import shutil
import socket
import subprocess
import time

DAEMONS = ("munged", "slurmctld", "slurmd")
PROGRAMS = ("mungekey", "munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "scancel", "sinfo")
# How many times, POLL_S apart, the node is looked at before the cluster is
# declared not ready, and a stopped daemon before it is killed.
ATTEMPTS = 240
POLL_S = 0.25


def unavailable():
    """Why this machine cannot run the cluster, or None."""
    if os.geteuid() != 0:
        return "not root (the Slurm daemons run as SlurmUser=root)"
    missing = [p for p in PROGRAMS if not shutil.which(p)]
    if missing:
        return f"{', '.join(missing)} not found (Debian packages slurm-wlm and munge)"
    return None


def _free_ports(n):
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _processes(names):
    """{pid: command line} of the processes with these names (comm)."""
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if comm in names and _alive(pid):
            found[int(pid)] = cmdline
    return found


class SlurmCluster:
    """with SlurmCluster(folder) as c: ... c.env has SLURM_CONF. Every exit
    path stops the daemons (by their pid files) and the job steps they
    started; stop() raises when one is left."""

    def __init__(self, folder):
        self.dir = os.path.abspath(folder)
        self.conf = os.path.join(self.dir, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self.steps_before = set()

    def path(self, name):
        return os.path.join(self.dir, name)

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        self.steps_before = set(_processes({"slurmstepd"}))
        os.chmod(self.dir, 0o755)  # munged: its socket's folder must be searchable by all
        for d in ("state", "spool"):
            os.makedirs(self.path(d), exist_ok=True)
        self._start(["mungekey", "-c", "-k", self.path("munge.key")])
        self._start(["munged", "--key-file", self.path("munge.key"), "--socket", self.path("munge.sock"),
                        "--pid-file", self.path("munged.pid"), "--log-file", self.path("munged.log"),
                        "--seed-file", self.path("munge.seed")])
        host = socket.gethostname().split(".")[0]
        ctld_port, d_port = _free_ports(2)
        settings = {
            "ClusterName": "m2vptest", "SlurmctldHost": host, "SlurmUser": "root", "SlurmdUser": "root",
            "AuthType": "auth/munge", "AuthInfo": f"socket={self.path('munge.sock')}", "CredType": "cred/munge",
            "SlurmctldPort": ctld_port, "SlurmdPort": d_port,
            "StateSaveLocation": self.path("state"), "SlurmdSpoolDir": self.path("spool"),
            "SlurmctldPidFile": self.path("slurmctld.pid"), "SlurmdPidFile": self.path("slurmd.pid"),
            "SlurmctldLogFile": self.path("slurmctld.log"), "SlurmdLogFile": self.path("slurmd.log"),
            "ProctrackType": "proctrack/pgid", "TaskPlugin": "task/none", "SelectType": "select/cons_tres",
            "SelectTypeParameters": "CR_CPU", "JobAcctGatherType": "jobacct_gather/none",
            "AccountingStorageType": "accounting_storage/none", "ReturnToService": 2, "MpiDefault": "none",
        }
        with open(self.conf, "w") as f:
            f.write("".join(f"{k}={v}\n" for k, v in settings.items()))
            f.write(f"NodeName={host} CPUs={os.cpu_count() or 1} State=UNKNOWN\n")
            f.write(f"PartitionName=m2vp Nodes={host} Default=YES MaxTime=INFINITE State=UP\n")
        self._start(["slurmctld", "-f", self.conf])
        self._start(["slurmd", "-f", self.conf])
        for _ in range(ATTEMPTS):
            p = subprocess.run(["sinfo", "--noheader", "--format=%T"], capture_output=True, text=True, env=self.env)
            if p.returncode == 0 and p.stdout.strip() == "idle":
                return
            time.sleep(POLL_S)
        raise RuntimeError(f"the one-node cluster did not become idle (sinfo: {p.stdout.strip()} "
                           f"{p.stderr.strip()}); logs in {self.dir}: {self.log_tail()}")

    def _start(self, cmd):
        p = subprocess.run(cmd, capture_output=True, text=True, env=self.env)
        if p.returncode:
            raise RuntimeError(f"{' '.join(cmd)}: exit code {p.returncode}: {(p.stderr or p.stdout).strip()}")

    def log_tail(self):
        text = []
        for name in ("slurmctld.log", "slurmd.log", "munged.log"):
            try:
                with open(self.path(name), errors="replace") as f:
                    text.append(f"{name}: " + " | ".join(f.read().splitlines()[-5:]))
            except OSError:
                pass
        return "; ".join(text)

    def stop(self):
        """Stops slurmd, slurmctld and munged by their pid files (SIGTERM,
        then SIGKILL for one that does not end), and any job step they left;
        raises RuntimeError naming a process that is left."""
        for name in ("slurmd", "slurmctld", "munged"):
            try:
                with open(self.path(f"{name}.pid")) as f:
                    pid = int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                continue
            self._end(pid)
        for pid in set(_processes({"slurmstepd"})) - self.steps_before:
            self._end(pid)
        left = {pid: cmd for pid, cmd in _processes(set(DAEMONS) | {"slurmstepd"}).items()
                if self.dir in cmd or (pid not in self.steps_before and "slurmstepd" in cmd)}
        if left:
            raise RuntimeError(f"processes left after stopping the cluster: {left}")

    @staticmethod
    def _end(pid):
        for sig in (15, 9):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                return
            for _ in range(ATTEMPTS // 4):
                if not _alive(pid):
                    return
                time.sleep(POLL_S)
