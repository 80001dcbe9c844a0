#!/usr/bin/env python3
"""Integration test of traces/compare.py (`./m2vp compare`) on handmade run
folders: the parameters that differ are listed, rows are matched by key
(size, and pattern where there is one), differences are computed from the
first run, --tolerance sets the exit code, and bad input names the file.
"""
import os
import subprocess
import sys
import tempfile
import unittest

COMPARE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "traces", "compare.py")

PARAMS = "name\tvalue\tunit\tdefault\torigin\nsim.timing\t{timing}\t\tlt\tdefault\nnode0.pci.variant\tpci64-66\t\tpci64-66\tdefault\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def run(*args):
    p = subprocess.run([sys.executable, COMPARE, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def line_of(text, start):
    return next(l for l in text.splitlines() if l.startswith(start))


class CompareTests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def run_dir(self, name, results, timing="lt"):
        folder = os.path.join(self.d, name)
        write(os.path.join(folder, "results.tsv"), results)
        write(os.path.join(folder, "params.tsv"), PARAMS.format(timing=timing))
        return folder

    def test_a_size_measured_twice_is_compared_twice(self):
        # NetPIPE's perturbation measures 1 and 4 bytes again later in the sweep.
        a = self.run_dir("a", "bytes\tlatency_us\n1\t8.0\n4\t8.0\n1\t8.4\n4\t8.8\n")
        b = self.run_dir("b", "bytes\tlatency_us\n1\t8.0\n4\t8.0\n1\t9.24\n4\t8.8\n")
        rc, out, err = run(a, b, "--tolerance", "5")
        self.assertEqual(rc, 1, out + err)  # the second 1-byte measurement is 10% apart
        self.assertRegex(line_of(out, "latency_us@1 "), r"8\.0\s+8\.0 \(\+0\.00%\)$")
        self.assertRegex(line_of(out, "latency_us@1#2"), r"8\.4\s+9\.24 \(\+10\.00%\) \*$")
        self.assertRegex(line_of(out, "latency_us@4#2"), r"8\.8\s+8\.8 \(\+0\.00%\)$")

    def test_differences_from_the_first_run(self):
        a = self.run_dir("a", "bytes\tlatency_us\tmbps\n32\t8.00\t32.0\n1024\t20.00\t400.0\n")
        b = self.run_dir("b", "bytes\tlatency_us\tmbps\n1024\t21.00\t380.0\n32\t8.00\t32.0\n", timing="at")
        rc, out, err = run(a, b)
        self.assertEqual(rc, 0, err)
        # Only the parameter that differs, with both values.
        self.assertRegex(line_of(out, "sim.timing"), r"^sim\.timing\s+lt\s+at$")
        self.assertNotIn("node0.pci.variant", out)
        # Rows matched by size whatever their order; the difference from run 1.
        self.assertRegex(line_of(out, "latency_us@1024"), r"20\.00\s+21\.00 \(\+5\.00%\)$")
        self.assertRegex(line_of(out, "latency_us@32"), r"8\.00\s+8\.00 \(\+0\.00%\)$")
        self.assertRegex(line_of(out, "mbps@1024"), r"400\.0\s+380\.0 \(-5\.00%\)$")
        self.assertIn("largest difference from run 1: +5.00% (latency_us at 1024)", out)  # the first of two equal ones

    def test_set_parameters_first_and_extra_instances_collapsed(self):
        # A tree against a fat tree: the shape set in each config comes
        # first, then a default that differs, then the fat tree's extra switch
        # boxes and ports, one line per instance range, not one per parameter.
        head = "name\tvalue\tunit\tdefault\torigin\n"
        common = ("sb0.bus_clock_mhz\t100\tMHz\t100\tvariant maestro2\n"
                  + "".join(f"sb0.port{p}.buffer.total_bytes\t8192\tB\t8192\tdefault\n" for p in range(8)))
        a = self.run_dir("tree", "bytes\tlatency_us\n32\t8.0\n")
        b = self.run_dir("fat", "bytes\tlatency_us\n32\t7.0\n")
        write(os.path.join(a, "params.tsv"), head + common + "sim.timing\tlt\t\tlt\tdefault\n"
              "topology.shape\ttree\t\tchain\ttree.yaml:7\n")
        extra = "".join(f"sb{s}.{k}\t{v}\t\t{v}\t{o}\n" for s in range(4, 8)
                        for k, v, o in (("ports", 8, "variant maestro2"), ("stations", 8, "variant maestro2"),
                                        ("variant", "maestro2", "fat.yaml:9")))
        extra += "".join(f"sb0.port{p}.link.{k}\t5\tm\t5\tvariant lvds\n" for p in (4, 5, 6)
                         for k in ("cable_m", "ns_per_m"))
        write(os.path.join(b, "params.tsv"), head + common + extra + "node0.ni.extra\t5\t\t5\tdefault\n"
              "sim.timing\tat\t\tlt\tdefault\ntopology.shape\tfat-tree\t\tchain\tfat.yaml:7\n")
        rc, out, err = run(a, b)
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[2], "parameters that differ, set by a config file, case or option:")
        self.assertRegex(lines[4], r"^topology\.shape\s+tree\s+fat-tree$")
        self.assertEqual(lines[5], "parameters that differ, defaults (the model's or a variant's):")
        # An instance with a single parameter in one run only keeps its row.
        self.assertRegex(lines[7], r"^node0\.ni\.extra\s+-\s+5$")
        self.assertRegex(lines[8], r"^sim\.timing\s+lt\s+at$")
        self.assertEqual(lines[9], "parameters of instances only some runs have: 18 parameters in 2 lines:")
        self.assertRegex(lines[10], r"^  sb0\.port4\.\.6\.link\.\*\s+only in run 2 \(6 parameters\)$")
        self.assertRegex(lines[11], r"^  sb4\.\.7\.\*\s+only in run 2 \(12 parameters, 4 set\)$")
        self.assertRegex(lines[12], r"^row\s+run 1\s+run 2$")
        self.assertNotIn("sb5.ports", out)
        self.assertNotIn("sb0.bus_clock_mhz", out)

    def test_instances_of_some_runs_of_three(self):
        # Ranges per run set: nodes 2..3 in runs 2 and 3, nodes 4..5 in run 3
        # only; a params.tsv without the origin column sets nothing.
        folders = []
        for n in (2, 4, 6):
            f = self.run_dir(f"n{n}", "bytes\tlatency_us\n32\t8.0\n")
            write(os.path.join(f, "params.tsv"), "name\tvalue\n" + f"topology.nodes\t{n}\n" + "".join(
                f"node{i}.host.{k}\t1\n" for i in range(n) for k in ("app", "args")))
            folders.append(f)
        rc, out, err = run(*folders)
        self.assertEqual(rc, 0, err)
        self.assertNotIn("set by a config file", out)
        self.assertRegex(line_of(out, "topology.nodes"), r"^topology\.nodes\s+2\s+4\s+6$")
        self.assertIn("parameters of instances only some runs have: 8 parameters in 2 lines:\n"
                      "  node2..3.*  only in runs 2, 3 (4 parameters)\n"
                      "  node4..5.*  only in run 3 (4 parameters)\n", out)
        # A bare results.tsv has no parameters: left out, not "only in runs 1, 3".
        write(os.path.join(self.d, "bare.tsv"), "bytes\tlatency_us\n32\t8.0\n")
        rc, out, err = run(folders[0], os.path.join(self.d, "bare.tsv"), folders[2])
        self.assertEqual(rc, 0, err)
        self.assertIn("parameters: no params.tsv for run 2: compared among the others\n", out)
        self.assertRegex(line_of(out, "topology.nodes"), r"^topology\.nodes\s+2\s+6$")
        self.assertRegex(line_of(out, "name"), r"^name\s+run 1\s+run 3$")
        self.assertIn("  node2..5.*  only in run 3 (8 parameters)\n", out)
        rc, out, err = run(folders[0], os.path.join(self.d, "bare.tsv"))
        self.assertEqual(rc, 0, err)
        self.assertIn("\nparameters: no params.tsv for run 2: not compared\nrow ", out)

    def test_tolerance_sets_the_exit_code(self):
        a = self.run_dir("a", "bytes\tlatency_us\n32\t8.00\n1024\t20.00\n")
        b = self.run_dir("b", "bytes\tlatency_us\n32\t8.10\n1024\t20.20\n")
        rc, out, _ = run(a, b, "--tolerance", "1.1")
        self.assertEqual(rc, 1)
        self.assertIn("1 value(s) differ from run 1 by more than 1.1%", out)
        self.assertTrue(line_of(out, "latency_us@32").endswith("*"))
        self.assertFalse(line_of(out, "latency_us@1024").endswith("*"))
        rc, out, _ = run(a, b, "--tolerance", "2")
        self.assertEqual(rc, 0, out)

    def test_patterns_stay_apart_and_missing_rows_show(self):
        head = "pattern\tnodes\tbytes\tmean_us\n"
        a = self.run_dir("a", head + "alltoall\t4\t16\t15.5\nhotspot\t4\t16\t28.7\n")
        b = self.run_dir("b", head + "alltoall\t4\t16\t15.5\nhotspot\t4\t16\t31.57\nneighbour\t4\t16\t11.3\n")
        rc, out, err = run(a, os.path.join(b, "results.tsv"), "--metric", "mean_us", "--tsv", os.path.join(self.d, "c.tsv"))
        self.assertEqual(rc, 0, err)
        self.assertRegex(line_of(out, "mean_us@hotspot:16"), r"28\.7\s+31\.57 \(\+10\.00%\)$")
        self.assertRegex(line_of(out, "mean_us@neighbour:16"), r"-\s+11\.3 \(run 1: -\)$")
        self.assertIn("1 value(s) only in run 1 or only in a later run", out)
        with open(os.path.join(self.d, "c.tsv")) as f:
            rows = [l.rstrip("\n").split("\t") for l in f]
        self.assertEqual(rows[0], ["row", "run 1", "run 2"])
        self.assertEqual(len(rows), 4)

    def test_a_run_that_ended_early_fails_the_tolerance(self):
        # The second run stopped before its last size (a time limit): with
        # --tolerance that is a failure, not a pass on the rows it has.
        a = self.run_dir("a", "bytes\tlatency_us\tmbps\n32\t8.00\t32.0\n65536\t300.0\t1760.5\n")
        b = self.run_dir("b", "bytes\tlatency_us\tmbps\n32\t8.00\t32.0\n")
        rc, out, _ = run(a, b, "--tolerance", "1")
        self.assertEqual(rc, 1, out)
        self.assertRegex(line_of(out, "mbps@65536"), r"1760\.5\s+- \(missing\)$")
        self.assertIn("2 value(s) only in run 1 or only in a later run", out)
        self.assertIn("0 value(s) differ from run 1 by more than 1%", out)
        rc, out, _ = run(a, b)  # without --tolerance: shown, exit 0
        self.assertEqual(rc, 0, out)
        # Runs with no row in common (a case folder's merged table against
        # one case's) compare nothing: an error naming both files.
        c = self.run_dir("c", "case\tbytes\tlatency_us\npinned\t32\t8.00\n")
        rc, _, err = run(a, c, "--tolerance", "1")
        self.assertEqual(rc, 2)
        self.assertIn(os.path.join(c, "results.tsv") + " has no row in common with " + os.path.join(a, "results.tsv"), err)
        self.assertIn("rows of the first: 32, 65536; of this one: pinned:32", err)

    def test_bad_input_names_the_file(self):
        a = self.run_dir("a", "bytes\tlatency_us\n32\t8.00\n")
        rc, _, err = run(a, os.path.join(self.d, "nothing"))
        self.assertEqual(rc, 2)
        self.assertIn(os.path.join(self.d, "nothing", "results.tsv") + ": no such file", err)
        broken = self.run_dir("broken", "bytes\tlatency_us\n32\n")
        rc, _, err = run(a, broken)
        self.assertEqual(rc, 2)
        self.assertIn(os.path.join(broken, "results.tsv") + ":2: 1 cells, the header has 2", err)
        garbled = self.run_dir("garbled", "bytes\tlatency_us\n32\t8.0\n")
        with open(os.path.join(garbled, "params.tsv"), "wb") as f:
            f.write(b"name\tvalue\n\xff\xfe\tx\n")
        rc, _, err = run(a, garbled)
        self.assertEqual(rc, 2)
        self.assertIn(os.path.join(garbled, "params.tsv") + ":2: not UTF-8 text (byte 0xff)", err)
        rc, _, err = run(a, a, "--metric", "p50_us")
        self.assertEqual(rc, 2)
        self.assertIn("--metric p50_us: no run's results.tsv has that column", err)
        rc, _, err = run(a)
        self.assertEqual(rc, 2)  # argparse: at least two runs
        self.assertIn("at least two runs", err)

    def test_nan_and_missing_values_fail_the_tolerance(self):
        a = self.run_dir("a", "bytes\tlatency_us\n1\t8.0\n4\tnan\n16\t9.0\n64\t0\n")
        b = self.run_dir("b", "bytes\tlatency_us\n1\t8.0\n4\t9.0\n16\tinf\n64\t3\n")
        rc, out, err = run(a, b, "--tolerance", "1")
        self.assertEqual(rc, 1, out + err)
        self.assertRegex(line_of(out, "latency_us@4 "), r"nan \(not a number\)\s+9\.0$")
        self.assertRegex(line_of(out, "latency_us@16 "), r"9\.0\s+inf \(not a number\)$")
        # From 0 no percentage: any other value is infinitely far.
        self.assertRegex(line_of(out, "latency_us@64 "), r"0\s+3 \(\+inf%\) \*$")
        self.assertIn("2 value(s) empty or not a finite number", out)
        self.assertIn("1 value(s) differ from run 1 by more than 1%", out)
        # Only the nan: still a failed check.
        c = self.run_dir("c", "bytes\tlatency_us\n1\t8.0\n4\t9.0\n")
        d = self.run_dir("d", "bytes\tlatency_us\n1\t8.0\n4\tNaN\n")
        rc, out, err = run(c, d, "--tolerance", "1")
        self.assertEqual(rc, 1, out + err)
        # An empty cell is a missing value.
        e = self.run_dir("e", "bytes\tlatency_us\n1\t8.0\n4\t\n")
        rc, out, err = run(c, e, "--tolerance", "50")
        self.assertEqual(rc, 1, out + err)
        self.assertRegex(line_of(out, "latency_us@4 "), r"9\.0\s+\(empty\)$")

    def test_tolerance_must_be_a_finite_percentage(self):
        a = self.run_dir("a", "bytes\tlatency_us\n1\t8.0\n")
        b = self.run_dir("b", "bytes\tlatency_us\n1\t12.0\n")  # 50% apart
        for bad in ("nan", "inf", "-1", "abc", ""):
            rc, out, err = run(a, b, "--tolerance", bad)
            self.assertEqual(rc, 2, bad)
            self.assertIn(f"--tolerance: expected a finite percentage of 0 or more, got '{bad}'", err)
            self.assertEqual(out, "")
        rc, _, _ = run(a, b, "--tolerance", "0")
        self.assertEqual(rc, 1)

    def assert_one_line_error(self, args, *expected):
        rc, _, err = run(*args)
        self.assertEqual(rc, 2, f"{args}: {err}")
        self.assertNotIn("Traceback", err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        for text in expected:
            self.assertIn(text, err)

    def test_malformed_inputs_get_one_line_naming_the_file(self):
        a = self.run_dir("a", "bytes\tlatency_us\n32\t8.00\n")
        empty = self.run_dir("empty", "")
        self.assert_one_line_error([a, empty], os.path.join(empty, "results.tsv") + ": empty")
        folder = os.path.join(self.d, "folder")
        os.makedirs(os.path.join(folder, "results.tsv"))
        self.assert_one_line_error([a, folder], os.path.join(folder, "results.tsv") + ": a folder")
        fifo = os.path.join(self.d, "fifo", "results.tsv")
        os.makedirs(os.path.dirname(fifo))
        os.mkfifo(fifo)  # read, it would block: refused unopened
        self.assert_one_line_error([a, fifo], fifo + ": not a regular file")
        huge = self.run_dir("huge", "bytes\tlatency_us\n32\t" + "9" * 200000 + "\n")
        self.assert_one_line_error([a, huge], os.path.join(huge, "results.tsv") + ":2: malformed TSV")
        params_folder = self.run_dir("pf", "bytes\tlatency_us\n32\t8.00\n")
        os.remove(os.path.join(params_folder, "params.tsv"))
        os.makedirs(os.path.join(params_folder, "params.tsv"))
        self.assert_one_line_error([a, params_folder], os.path.join(params_folder, "params.tsv") + ": cannot read")
        # Words where numbers belong are values that are not numbers, not a crash.
        words = self.run_dir("words", "bytes\tlatency_us\n32\tfast\n")
        rc, out, err = run(a, words, "--tolerance", "1")
        self.assertEqual(rc, 1, err)
        self.assertRegex(line_of(out, "latency_us@32"), r"fast \(not a number\)$")

    def test_tsv_output(self):
        a = self.run_dir("a", "bytes\tlatency_us\n32\t8.00\n")
        b = self.run_dir("b", "bytes\tlatency_us\n32\t8.80\n")
        self.assert_one_line_error([a, b, "--tsv", self.d], f"--tsv {self.d}: is a folder")
        rc, out, _ = run(a, b, "--tsv", self.d)
        self.assertEqual((rc, out), (2, ""))  # refused before the comparison is printed
        nowhere = os.path.join(self.d, "no", "such", "out.tsv")
        self.assert_one_line_error([a, b, "--tsv", nowhere], f"--tsv {nowhere}: cannot write")
        # A symlink at the output name is replaced, not written through.
        victim = os.path.join(self.d, "victim.txt")
        write(victim, "keep\n")
        link = os.path.join(self.d, "cmp.tsv")
        os.symlink(victim, link)
        rc, _, err = run(a, b, "--tsv", link)
        self.assertEqual(rc, 0, err)
        self.assertFalse(os.path.islink(link))
        with open(victim) as f:
            self.assertEqual(f.read(), "keep\n")
        with open(link) as f:
            self.assertEqual(f.read().splitlines()[1], "latency_us@32\t8.00\t8.80 (+10.00%)")
        self.assertEqual(sorted(os.listdir(self.d)), ["a", "b", "cmp.tsv", "victim.txt"])  # no temporary left


if __name__ == "__main__":
    unittest.main()
