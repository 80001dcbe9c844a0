#!/usr/bin/env python3
"""Integration test of traces/sweep.py (`./m2vp sweep`) and traces/cases.py
(`./m2vp run` on a config with cases) around a stand-in simulator: a script
that writes the results.tsv its --set values ask for. It checks what the
tools do with the runs' output, not the runs: variant folders are unique
however long the values, two variants or cases in one folder are an error,
a table a run left unreadable is an error naming it (no traceback), and
outputs replace a symlink at their name instead of writing through it.
"""
import os
import shlex
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest
import xml.etree.ElementTree as ET

TRACES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "traces")

# The stand-in m2vp-sim: `cases CONFIG` prints $FAKE_CASES (a header line and
# case lines), `clear-output DIR` makes DIR, `run CONFIG --out DIR --set
# NAME=VALUE...` exits 64 at once for fail=early, else writes DIR/results.tsv with one row whose mbps is the length
# of the settings' text (so variants differ), or, with --set table=TEXT, TEXT
# itself ('\n' and '\t' escaped), or a folder named results.tsv for
# table=folder; with --set exit=N (N > 0) it then stalls as the simulator does:
# exit N, an error line ending in "network state:" and two indented lines.
FAKE_SIM = textwrap.dedent("""\
    import os, sys
    args = sys.argv[1:]
    if args[0] == "cases":
        sys.stdout.write(os.environ.get("FAKE_CASES", ""))
        sys.exit(0)
    if args[0] == "clear-output":
        os.makedirs(args[1], exist_ok=True)
        sys.exit(0)
    out = args[args.index("--out") + 1]
    sets = [args[i + 1] for i, a in enumerate(args) if a == "--set"]
    if "fail=early" in sets:  # a configuration error: nothing written
        sys.exit(64)
    os.makedirs(out, exist_ok=True)
    table = dict(s.split("=", 1) for s in sets).get("table")
    path = os.path.join(out, "results.tsv")
    if table == "folder":
        os.makedirs(path)
    elif table is not None:
        with open(path, "wb") as f:
            f.write(table.encode("utf-8", "surrogateescape").decode("unicode_escape").encode("latin-1"))
    else:
        with open(path, "w") as f:
            f.write("bytes\\tmbps\\n1\\t%d\\n" % len(" ".join(sets)))
    with open(os.path.join(out, "stats.tsv"), "w") as f:
        f.write("source\\tkey\\tvalue\\nrun\\tsim_time_us\\t5\\n")
    code = int(dict(s.split("=", 1) for s in sets).get("exit", "0"))
    if code:
        sys.stderr.write("[node0.host] @row 1\\nerror: network stalled at 42 ms: no byte has moved; network state:\\n"
                         "  node0.ni.mlcx: link up, stalled on credit\\n  sb0.port0.mlx: link up\\n")
        sys.exit(code)
""")


def read(path):
    with open(path) as f:
        return f.read()


class ToolTestBase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name
        self.sim = os.path.join(self.d, "fake-sim")
        with open(self.sim, "w") as f:
            f.write(f"#!{sys.executable}\n" + FAKE_SIM)
        os.chmod(self.sim, os.stat(self.sim).st_mode | stat.S_IXUSR)
        self.config = os.path.join(self.d, "cfg.yaml")
        with open(self.config, "w") as f:
            f.write("platform: node\n")

    def tearDown(self):
        self.tmp.cleanup()

    def tool(self, script, *args, cases=""):
        env = dict(os.environ, FAKE_CASES=cases)
        p = subprocess.run([sys.executable, os.path.join(TRACES, script), "--sim", self.sim, self.config, *args],
                           capture_output=True, text=True, timeout=120, env=env)
        self.assertNotIn("Traceback", p.stderr)
        return p.returncode, p.stdout, p.stderr


class SweepTests(ToolTestBase):
    def sweep(self, *args):
        return self.tool("sweep.py", "--out", os.path.join(self.d, "sw"), "--jobs", "2", *args)

    def test_long_values_get_folders_of_their_own(self):
        # Two values that differ only after 150 characters: one folder each
        # (the name cut, a hash of the whole settings after it), own results.
        long_a, long_b = "v" * 200 + "a", "v" * 200 + "bb"
        rc, out, err = self.sweep("--vary", f"x.args={long_a},{long_b}")
        self.assertEqual(rc, 0, out + err)
        folders = sorted(os.listdir(os.path.join(self.d, "sw")))
        variant_folders = [f for f in folders if f.startswith("x.args-")]
        self.assertEqual(len(variant_folders), 2, folders)
        self.assertTrue(all(len(f) <= 120 for f in variant_folders), variant_folders)
        rows = read(os.path.join(self.d, "sw", "sweep.tsv")).splitlines()
        self.assertEqual(rows[0], "variant\texit\tsim_time_us\tmbps@1")
        # The stand-in's mbps is the length of the settings: 1 apart.
        self.assertEqual(rows[1], f"x.args={long_a}\t0\t5\t{len('x.args=' + long_a)}")
        self.assertEqual(rows[2], f"x.args={long_b}\t0\t5\t{len('x.args=' + long_b)}")
        # A short name stays as it was.
        rc, out, err = self.sweep("--vary", "sb0.variant=ooo1,ooo8")
        self.assertEqual(rc, 0, out + err)
        self.assertTrue(os.path.isdir(os.path.join(self.d, "sw", "sb0.variant-ooo8")))

    def test_local_sweep_writes_its_job_list(self):
        rc, out, err = self.sweep("--vary", "x=1,22", "--set", "y=a b")
        self.assertEqual(rc, 0, out + err)
        sw = os.path.join(self.d, "sw")
        with open(os.path.join(sw, "jobs.txt")) as f:
            lines = f.read().splitlines()
        self.assertEqual([shlex.split(l) for l in lines],
                         [[self.sim, "run", self.config, "--quiet", "--out", os.path.join(sw, f"x-{v}"),
                           "--set", "y=a b", "--set", f"x={v}"] for v in ("1", "22")])
        # A line is a shell command another scheduler can run: the same table.
        table = read(os.path.join(sw, "x-22", "results.tsv"))
        os.remove(os.path.join(sw, "x-22", "results.tsv"))
        subprocess.run(["sh", "-c", lines[1]], check=True)
        self.assertEqual(read(os.path.join(sw, "x-22", "results.tsv")), table)

    def test_engine_options_are_checked(self):
        for args, message in [
                (["--engine", "grid"], "argument --engine: invalid choice: 'grid'"),
                (["--slurm-args", "--time=5"], "--slurm-args is for --engine slurm (this is --engine local)"),
                (["--engine", "slurm", "--parallel-args", "-j 2"], "--parallel-args is for --engine parallel"),
                (["--engine", "slurm", "--slurm-args", "--comment='open"], "--slurm-args '--comment='open': "
                                                                           "No closing quotation")]:
            rc, out, err = self.sweep("--vary", "x=1,2", *args)
            self.assertEqual(rc, 64, args)
            self.assertIn(message, err, args)
            self.assertFalse(os.path.exists(os.path.join(self.d, "sw", "sweep.tsv")), args)

    def test_a_variant_that_fails_early_shows_no_earlier_table(self):
        rc, out, err = self.sweep("--vary", "x=1,2")
        self.assertEqual(rc, 0, out + err)
        rc, out, err = self.sweep("--vary", "x=1,2", "--set", "fail=early")
        self.assertEqual(rc, 1, out + err)
        self.assertEqual(read(os.path.join(self.d, "sw", "sweep.tsv")).splitlines()[1:],
                         ["x=1\t64\t", "x=2\t64\t"])

    def test_values_that_are_not_utf8_get_a_folder(self):
        # argv bytes that are not UTF-8 (Python's surrogate escapes) in a long value.
        value = b"v" * 130 + b"\xff"
        env = dict(os.environ, FAKE_CASES="")
        p = subprocess.run([sys.executable, os.path.join(TRACES, "sweep.py"), "--sim", self.sim, self.config,
                            "--out", os.path.join(self.d, "sw"), "--vary", b"x=" + value + b",w"],
                           capture_output=True, timeout=120, env=env)
        self.assertNotIn(b"Traceback", p.stderr)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(len([f for f in os.listdir(os.path.join(self.d, "sw")) if f.startswith("x-")]), 2)

    def test_variants_that_would_share_a_folder_are_an_error(self):
        for values in ("a b,a/b", "1,1"):
            rc, out, err = self.sweep("--vary", f"x={values}")
            self.assertEqual(rc, 64, out + err)
            self.assertIn("would share the folder x-", err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertFalse(os.path.exists(os.path.join(self.d, "sw")))  # nothing ran

    def test_unreadable_tables_name_the_file(self):
        rc, out, err = self.sweep("--vary", r"table=bytes\tmbps\n1\t\xff,folder,bytes\tmbps\n1\t1e308")
        self.assertEqual(rc, 1, out + err)
        sw = os.path.join(self.d, "sw")
        garbled = [l for l in out.splitlines() if "not UTF-8" in l]
        self.assertEqual(len(garbled), 1, out)
        self.assertRegex(garbled[0], r"^variant table=.*: exit code 1 error: " + sw + r"/table-[^ ]*/results.tsv:2: "
                         r"not UTF-8 text \(byte 0xff\)$")
        self.assertRegex(out, r"variant table=folder: exit code 1 error: " + sw +
                         r"/table-folder/results.tsv: cannot read \(Is a directory\)")
        # A value too large to plot is shown in the table and left out of the plot.
        self.assertIn("1e308", read(os.path.join(sw, "sweep.tsv")))

    def test_damaged_tables_fail_their_variant(self):
        rc, out, err = self.sweep("--vary", r"table=bytes\tmbps\n1\t2\n4,bytes\tmbps\n1\tnan\n,bytes\tmbps\n1\t5\n")
        self.assertEqual(rc, 1, out + err)
        failed = [l for l in out.splitlines() if "exit code 1" in l]
        self.assertEqual(len(failed), 2, out)
        self.assertRegex(failed[0], r"results.tsv:3: 1 cells, the header has 2$")
        self.assertRegex(failed[1], r"results.tsv:2: mbps: expected a finite number, got 'nan'$")
        self.assertIn("table=bytes\\tmbps\\n1\\t5\\n\t0\t5\t5", read(os.path.join(self.d, "sw", "sweep.tsv")))

    def test_out_is_a_file(self):
        path = os.path.join(self.d, "file")
        open(path, "w").close()
        rc, out, err = self.tool("sweep.py", "--out", path, "--vary", "x=1,2")
        self.assertEqual(rc, 64, out + err)
        self.assertIn(f"--out {path}: not a folder", err)

    def test_summary_replaces_a_symlink(self):
        sw = os.path.join(self.d, "sw")
        os.makedirs(sw)
        victim = os.path.join(self.d, "victim")
        with open(victim, "w") as f:
            f.write("keep\n")
        os.symlink(victim, os.path.join(sw, "sweep.tsv"))
        rc, out, err = self.sweep("--vary", "x=1,2")
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(read(victim), "keep\n")
        self.assertFalse(os.path.islink(os.path.join(sw, "sweep.tsv")))
        self.assertTrue(read(os.path.join(sw, "sweep.tsv")).startswith("variant\texit"))
        self.assertEqual([f for f in os.listdir(sw) if f.endswith(".tmp")], [])

    def test_failed_variants_are_named_in_the_plot(self):
        # A variant that stalled (exit 66) after one point, and two that
        # failed before any (exit 64): all three named as failed in the
        # legend, the stalled one's point kept under its failure label.
        rc, out, err = self.sweep("--vary", "fail=none,early", "--vary", "exit=0,66")
        self.assertEqual(rc, 1, out + err)
        sw = os.path.join(self.d, "sw")
        self.assertEqual([r.split("\t")[0] for r in read(os.path.join(sw, "sweep_mbps.tsv")).splitlines()[1:]],
                         ["fail=none, exit=0", "fail=none, exit=66 (failed: exit 66)"])
        legend = svg_texts(os.path.join(sw, "sweep_mbps.svg"))
        self.assertIn("fail=none, exit=0", legend)
        self.assertIn("fail=none, exit=66 (failed: exit 66)", legend)
        self.assertIn("fail=early, exit=0 (failed: exit 64, nothing to plot)", legend)
        self.assertIn("fail=early, exit=66 (failed: exit 64, nothing to plot)", legend)
        # The stall's error line says where its network state is, not a bare label.
        self.assertIn("variant fail=none, exit=66: exit code 66 error: network stalled at 42 ms: no byte has moved; "
                      "network state: 2 lines in the run's run.log\n", out)
        self.assertIn(f"sweep: 4 variants in {sw}/", out)

    def test_one_variant_is_one(self):
        rc, out, err = self.sweep("--vary", "x=1")
        self.assertEqual(rc, 0, out + err)
        self.assertIn(f"sweep: 1 variant in {os.path.join(self.d, 'sw')}/", out)


def svg_texts(path):
    """The text of every <text> element of an SVG (figure.py keeps text as text)."""
    return ["".join(e.itertext()).strip() for e in ET.parse(path).getroot().iter("{http://www.w3.org/2000/svg}text")]


class SweepPlotTests(unittest.TestCase):
    """plots/variants.py called directly: the look of each line."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        sys.path.insert(0, TRACES)
        try:
            from plots import figure, variants
        finally:
            sys.path.remove(TRACES)
        if figure.plt is None:
            self.skipTest("python3-matplotlib is missing")
        self.variants = variants

    def tearDown(self):
        self.tmp.cleanup()

    def draw(self, n_variants, kinds, exits=None):
        rows = [{"variant": f"v={i}", "exit": (exits or {}).get(i, 0)} for i in range(n_variants)]
        points = [{(f"{k}:" if k else "") + str(b): str(i + b) for k in kinds for b in (16, 256)}
                  for i in range(n_variants)]
        return self.variants.plot(self.tmp.name, "p50_us", rows, points)

    def test_twelve_lines_look_different(self):
        # 4 variants x 3 patterns (beyond the palette's ten colours).
        lines = self.draw(4, ["alltoall", "neighbour", "hotspot"])
        self.assertEqual(len(lines), 12)
        self.assertEqual(len({tuple(look[1:4]) for look in lines}), 12, lines)
        # A variant keeps its colour; a pattern keeps its line style and marker.
        colours = {label.split(",")[0]: set() for label, *_ in lines}
        shapes = {label.split(", ")[1]: set() for label, *_ in lines}
        for label, colour, style, marker, _ in lines:
            colours[label.split(",")[0]].add(colour)
            shapes[label.split(", ")[1]].add((style, marker))
        self.assertEqual([len(c) for c in colours.values()], [1] * 4)
        self.assertEqual(len(set.union(*colours.values())), 4)
        self.assertEqual([len(s) for s in shapes.values()], [1] * 3)
        ids = [e.get("id") for e in ET.parse(os.path.join(self.tmp.name, "sweep_p50_us.svg"))
               .getroot().iter() if (e.get("id") or "").startswith("sweep-")]
        self.assertEqual(len(ids), 12, ids)

    def test_more_variants_than_colours(self):
        for n, kinds in ((12, [""]), (30, ["a", "b", "c"])):
            lines = self.draw(n, kinds)
            self.assertEqual(len(lines), n * len(kinds))
            self.assertEqual(len({tuple(look[1:4]) for look in lines}), len(lines), (n, kinds))

    def test_a_failed_variant_is_hollow_and_labelled(self):
        lines = self.draw(3, ["a"], exits={1: 66, 2: 1})
        self.assertEqual([(label, hollow) for label, *_, hollow in lines],
                         [("v=0, a", False), ("v=1, a (failed: exit 66)", True), ("v=2, a (failed: exit 1)", True)])


class CasesTests(ToolTestBase):
    HEADER = "case\tdir\tswitch\n"

    def test_one_case_runs_on_no_engine(self):
        rc, out, err = self.tool("cases.py", "--case", "a", "--engine", "parallel", cases="case\tdir\tx\na\ta\t1\n")
        self.assertEqual(rc, 64, out + err)
        self.assertIn("--engine parallel runs a config's cases; one --case is a plain run on this machine", err)

    def test_cases_that_would_share_a_folder_are_an_error(self):
        rc, out, err = self.tool("cases.py", "--out", os.path.join(self.d, "c"),
                                 cases=self.HEADER + "a=1_b-2,b=3\ta-1_b-2_b-3\tx\na=1,b=2_b-3\ta-1_b-2_b-3\ty\n")
        self.assertEqual(rc, 64, out + err)
        self.assertIn("cases a=1_b-2,b=3 and a=1,b=2_b-3 would share the folder a-1_b-2_b-3/", err)

    def test_an_unreadable_case_table_names_the_file(self):
        out_dir = os.path.join(self.d, "c")
        rc, out, err = self.tool("cases.py", "--out", out_dir, "--set", r"table=bytes\tmbps\n1\t\xfe",
                                 cases=self.HEADER + "one\tswitch-one\tone\n")
        self.assertEqual(rc, 1, out + err)
        self.assertIn(f"case one: exit code 1: error: {out_dir}/switch-one/results.tsv:2: not UTF-8 text (byte 0xfe)",
                      out)
        self.assertIn("switch-one\t1\t\terror: ", read(os.path.join(out_dir, "cases.tsv")))

    def test_a_damaged_case_table_fails_the_case(self):
        out_dir = os.path.join(self.d, "c")
        rc, out, err = self.tool("cases.py", "--out", out_dir, "--set", r"table=bytes\tmbps\n1\tinf\n",
                                 cases=self.HEADER + "one\tswitch-one\tone\n")
        self.assertEqual(rc, 1, out + err)
        self.assertIn(f"case one: exit code 1: error: {out_dir}/switch-one/results.tsv:2: mbps: expected a finite "
                      f"number, got 'inf'", out)

    def test_netpipe_cases_are_drawn_in_one_command(self):
        # Two cases with NetPIPE's columns (experiment 8's layers): the set's
        # folder gets NetPIPE's three views, one curve per case, listed in
        # the run's manifest; cases without them get no plot.
        out_dir = os.path.join(self.d, "c")
        table = r"table=bytes\tlatency_us\tmbps\n1\t13.5\t0.59\n1024\t19.3\t424\n65536\t302\t1734\n"
        rc, out, err = self.tool("cases.py", "--out", out_dir, "--set", table,
                                 cases=self.HEADER + "mmp\tlayer-mmp\tmmp\ntcp\tlayer-tcp\ttcp\n")
        self.assertEqual(rc, 0, out + err)
        for view in ("throughput", "signature", "saturation"):
            self.assertTrue(os.path.isfile(os.path.join(out_dir, f"netpipe_{view}.png")), view)
            rows = read(os.path.join(out_dir, f"netpipe_{view}.tsv")).splitlines()
            self.assertEqual(sorted({r.split("\t")[0] for r in rows[1:]}), ["mmp", "tcp"])
            self.assertEqual(len(rows), 1 + 2 * 3)
        self.assertIn("NetPIPE's three views of the cases", out)
        rc, out, err = self.tool("cases.py", "--out", os.path.join(self.d, "p"),
                                 cases=self.HEADER + "one\tswitch-one\tone\n")
        self.assertEqual(rc, 0, out + err)
        self.assertFalse(os.path.exists(os.path.join(self.d, "p", "netpipe_throughput.png")))


if __name__ == "__main__":
    unittest.main()
