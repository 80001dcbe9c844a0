#!/usr/bin/env python3
"""Integration test of traces/plot.py (`./m2vp plot`) on small handmade run
outputs: the expected files are written, the SVGs are XML with one element
per plotted series, the plotted numbers (NAME.tsv) are those of the input,
and malformed input fails with the file and line named.

  test_plot.py [unittest arguments, e.g. NetpipeTests]   (ctest runs one class each)
"""
import csv
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

PLOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "traces", "plot.py")
EXTS = ("png", "svg", "tsv")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def run_plot(*args):
    p = subprocess.run([sys.executable, PLOT, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def read_tsv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    return [dict(zip(rows[0], r)) for r in rows[1:]]


def svg_ids(path, prefix):
    """ids of the SVG's elements that start with prefix (the gid of a series)."""
    root = ET.parse(path).getroot()  # raises if the SVG is not well-formed XML
    return sorted(e.get("id") for e in root.iter() if (e.get("id") or "").startswith(prefix))


# Two NetPIPE runs: (bytes, Mbit/s, seconds); run b is unsorted on purpose
# (netpipe writes c-p, c, c+p) and has a comment and a blank line.
NP_A = [(1, 1.0, 8e-6), (4, 4.0, 8e-6), (64, 60.0, 8.533e-6), (1024, 800.0, 1.024e-5), (65536, 1800.0, 2.913e-4)]
NP_B = [(4, 2.0, 1.6e-5), (1, 0.5, 1.6e-5), (1024, 400.0, 2.048e-5), (64, 30.0, 1.707e-5)]


def np_out(rows, extra=""):
    return extra + "".join(f"{b:10d} {m:14.6f} {s:16.9f}\n" for b, m, s in rows)


class NetpipeTests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name
        write(os.path.join(self.d, "runA", "np.out"), np_out(NP_A))
        write(os.path.join(self.d, "runB", "np.out"), np_out(NP_B, "# bytes Mbit/s seconds\n\n"))

    def tearDown(self):
        self.tmp.cleanup()

    def test_two_files_overlaid(self):
        out = os.path.join(self.d, "plots")
        rc, stdout, err = run_plot(os.path.join(self.d, "runA", "np.out"), os.path.join(self.d, "runB", "np.out"),
                                   "--out", out)
        self.assertEqual(rc, 0, err)
        names = [f"netpipe_{v}.{e}" for v in ("throughput", "signature", "saturation") for e in EXTS]
        self.assertEqual(sorted(os.path.basename(l) for l in stdout.split()), sorted(names))
        for n in names:
            self.assertTrue(os.path.getsize(os.path.join(out, n)) > 0, n)
        for v in ("throughput", "signature", "saturation"):
            self.assertEqual(svg_ids(os.path.join(out, f"netpipe_{v}.svg"), "series-"), ["series-0", "series-1"])
            with open(os.path.join(out, f"netpipe_{v}.svg")) as f:
                svg = f.read()
            self.assertIn("runA", svg)  # legend labels: the folder names
            self.assertIn("runB", svg)
        # The signature is (seconds, Mbit/s) straight from np.out, by size.
        sig = read_tsv(os.path.join(out, "netpipe_signature.tsv"))
        for label, rows in (("runA", NP_A), ("runB", NP_B)):
            got = [(float(r["seconds"]), float(r["mbps"])) for r in sig if r["series"] == label]
            self.assertEqual(got, [(s, m) for _, m, s in sorted(rows)])
        sat = read_tsv(os.path.join(out, "netpipe_saturation.tsv"))
        self.assertEqual([(int(r["bytes"]), float(r["seconds"])) for r in sat if r["series"] == "runB"],
                         [(b, s) for b, _, s in sorted(NP_B)])
        thr = read_tsv(os.path.join(out, "netpipe_throughput.tsv"))
        self.assertEqual(len(thr), len(NP_A) + len(NP_B))

    def test_labels_and_default_output(self):
        # --label names the lines; one run folder gets its plots in itself.
        rc, stdout, err = run_plot(os.path.join(self.d, "runA"), "--label", "pci64-66")
        self.assertEqual(rc, 0, err)
        self.assertTrue(os.path.isfile(os.path.join(self.d, "runA", "netpipe_throughput.png")))
        self.assertEqual({r["series"] for r in read_tsv(os.path.join(self.d, "runA", "netpipe_throughput.tsv"))},
                         {"pci64-66"})

    def test_same_folder_name_gets_parent(self):
        a = write(os.path.join(self.d, "x", "np", "np.out"), np_out(NP_A))
        b = write(os.path.join(self.d, "y", "np", "np.out"), np_out(NP_B))
        out = os.path.join(self.d, "o")
        rc, _, err = run_plot(a, b, "--out", out)
        self.assertEqual(rc, 0, err)
        self.assertEqual({r["series"] for r in read_tsv(os.path.join(out, "netpipe_throughput.tsv"))},
                         {"x/np", "y/np"})

    def test_results_tsv_when_no_np_out(self):
        # A ping-pong run's table gives the same views: seconds = latency_us / 1e6.
        run = os.path.join(self.d, "pingpong")
        write(os.path.join(run, "results.tsv"), "bytes\tlatency_us\tmbps\n32\t4.0\t64.0\n1024\t12.5\t655.36\n")
        write(os.path.join(run, "stats.tsv"), "source\tkey\tvalue\n")
        rc, _, err = run_plot(run)
        self.assertEqual(rc, 0, err)
        sat = read_tsv(os.path.join(run, "netpipe_saturation.tsv"))
        self.assertEqual([int(r["bytes"]) for r in sat], [32, 1024])
        for r, seconds in zip(sat, (4e-6, 1.25e-5)):
            self.assertAlmostEqual(float(r["seconds"]), seconds, delta=1e-15)

    def test_zero_byte_messages(self):
        # mmp_pingpong --sizes 0,... writes a 0-byte row: the NetPIPE views
        # (logarithmic size axis) leave it out and say so, the breakdown keeps it.
        run = os.path.join(self.d, "zero")
        write(os.path.join(run, "results.tsv"), "bytes\tlatency_us\tmbps\n0\t3.5\t0\n32\t4.0\t64.0\n")
        write(os.path.join(run, "messages.csv"), "msg,src,dst,bytes,tag,start_us,end_us,total_us,host_us,wire_us\n"
              "0,0,1,0,1,0.0,3.5,3.5,2.0,1.5\n1,0,1,32,1,4.0,8.0,4.0,2.0,2.0\n")
        rc, out, err = run_plot(run)
        self.assertEqual(rc, 0, err)
        self.assertIn("zero: the 0-byte row is left out of the NetPIPE plots", out + err)
        self.assertEqual([int(r["bytes"]) for r in read_tsv(os.path.join(run, "netpipe_saturation.tsv"))], [32])
        bars = read_tsv(os.path.join(run, "breakdown_stacked.tsv"))
        self.assertEqual(sorted({int(r["bytes"]) for r in bars}), [0, 32])
        self.assertAlmostEqual(max(float(r["top_us"]) for r in bars if r["bytes"] == "0"), 3.5)

    def test_a_case_folder_plots_its_cases(self):
        # ./m2vp run on a config with cases: the folder holds cases.tsv and one
        # folder per case; plotting the folder overlays the cases, by name.
        cases = os.path.join(self.d, "variants")
        write(os.path.join(cases, "cases.tsv"), "case\tdir\texit\tsim_time_us\terror\n"
              "bus=pci64\tbus-pci64\t0\t10\t\nbus=pci32\tbus-pci32\t0\t20\t\nbus=gone\tbus-gone\t66\t\tfailed\n")
        write(os.path.join(cases, "results.tsv"), "bus\tbytes\tlatency_us\n")  # the merged table: not plotted
        for d, lat in (("bus-pci64", 4.0), ("bus-pci32", 8.0)):
            write(os.path.join(cases, d, "results.tsv"), f"bytes\tlatency_us\tmbps\n32\t{lat}\t1.0\n1024\t{lat * 3}\t1.0\n")
        rc, _, err = run_plot(cases)
        self.assertEqual(rc, 0, err)
        rows = read_tsv(os.path.join(cases, "netpipe_saturation.tsv"))
        self.assertEqual(sorted({r["series"] for r in rows}), ["bus=pci32", "bus=pci64"])  # the missing one skipped
        rc, _, err = run_plot(cases, "--label", "only one")
        self.assertEqual(rc, 1)
        self.assertIn("a case folder counts as its 2 cases: bus=pci64, bus=pci32", err)


# Stages host, dma, wire; size 100 has a gap (total > sum of stages, shown
# as `other`), size 2000 a message that skips dma (empty cell = 0).
MESSAGES = """msg,src,dst,bytes,tag,start_us,end_us,total_us,host_us,dma_us,wire_us
0,0,1,100,1,0.0,3.0,3.0,1.0,0.5,1.0
1,0,1,100,1,3.0,8.0,5.0,2.0,0.5,2.0
2,0,1,2000,1,10.0,20.0,10.0,1.0,4.0,5.0
3,1,0,2000,1,20.0,26.0,6.0,1.0,,5.0
4,1,0,2000,1,30.0,38.0,8.0,2.0,2.0,4.0
"""


class BreakdownTests(unittest.TestCase):
    def test_stacked_bars(self):
        with tempfile.TemporaryDirectory() as d:
            run = os.path.join(d, "run")
            write(os.path.join(run, "messages.csv"), MESSAGES)
            rc, stdout, err = run_plot(run)
            self.assertEqual(rc, 0, err)
            self.assertEqual(sorted(os.path.basename(l) for l in stdout.split()),
                             sorted(f"breakdown_stacked.{e}" for e in EXTS))
            rows = read_tsv(os.path.join(run, "breakdown_stacked.tsv"))
            by = {(int(r["bytes"]), r["stage"]): r for r in rows}
            # Stage means per size, in path order, `other` on top.
            self.assertEqual([r["stage"] for r in rows if r["bytes"] == "100"], ["host", "dma", "wire", "other"])
            self.assertEqual([r["stage"] for r in rows if r["bytes"] == "2000"], ["host", "dma", "wire"])
            self.assertAlmostEqual(float(by[(100, "host")]["mean_us"]), 1.5)
            self.assertAlmostEqual(float(by[(100, "other")]["mean_us"]), 0.5)
            self.assertAlmostEqual(float(by[(2000, "dma")]["mean_us"]), 2.0)  # (4 + 0 + 2) / 3
            self.assertEqual(by[(2000, "wire")]["messages"], "3")
            # Bar heights are the mean total_us of each size.
            self.assertAlmostEqual(max(float(r["top_us"]) for r in rows if r["bytes"] == "100"), 4.0)
            self.assertAlmostEqual(max(float(r["top_us"]) for r in rows if r["bytes"] == "2000"), 8.0)
            # One rectangle per size and (non-empty) stage: 2 x 3 + 1 other.
            self.assertEqual(len(svg_ids(os.path.join(run, "breakdown_stacked.svg"), "bar-")), 7)

    def test_warmup_rounds_left_out(self):
        # An application that names its rounds (messages.csv `phase`): only
        # the timed ones make the bars, as only they make its latency_us.
        phased = ("msg,src,dst,bytes,tag,phase,start_us,end_us,total_us,host_us,wire_us\n"
                  "0.1,0,1,100,0,warmup,0.0,9.0,9.0,8.0,1.0\n"
                  "1.1,1,0,100,0,warmup,9.0,18.0,9.0,8.0,1.0\n"
                  "0.2,0,1,100,0,timed,20.0,23.0,3.0,2.0,1.0\n"
                  "1.2,1,0,100,0,timed,23.0,28.0,5.0,3.0,2.0\n")
        with tempfile.TemporaryDirectory() as d:
            run = os.path.join(d, "run")
            write(os.path.join(run, "messages.csv"), phased)
            rc, _, err = run_plot(run)
            self.assertEqual(rc, 0, err)
            rows = read_tsv(os.path.join(run, "breakdown_stacked.tsv"))
            by = {r["stage"]: r for r in rows}
            self.assertEqual(by["host"]["messages"], "2")
            self.assertAlmostEqual(float(by["host"]["mean_us"]), 2.5)
            self.assertAlmostEqual(max(float(r["top_us"]) for r in rows), 4.0)  # mean total of the timed two
            # Without a "timed" message (phases named otherwise, or none): all.
            write(os.path.join(run, "messages.csv"), phased.replace("timed", "steady"))
            rc, _, err = run_plot(run)
            self.assertEqual(rc, 0, err)
            self.assertEqual(read_tsv(os.path.join(run, "breakdown_stacked.tsv"))[0]["messages"], "4")

    def test_plots_join_the_run_manifest(self):
        # A run folder lists what its run wrote (platform/output_folder.h);
        # plots written into it join the list, so that the next run into the
        # folder removes them with the rest. Elsewhere no list is started.
        with tempfile.TemporaryDirectory() as d:
            run = os.path.join(d, "run")
            write(os.path.join(run, "messages.csv"), MESSAGES)
            write(os.path.join(run, ".m2vp-run-files"), "messages.csv\nbreakdown_stacked.png\n")
            for _ in range(2):  # plotting twice lists each file once
                rc, _, err = run_plot(run)
                self.assertEqual(rc, 0, err)
            with open(os.path.join(run, ".m2vp-run-files")) as f:
                self.assertEqual(f.read().splitlines(),
                                 ["messages.csv", "breakdown_stacked.png", "breakdown_stacked.svg",
                                  "breakdown_stacked.tsv"])
            other = os.path.join(d, "plots")
            rc, _, err = run_plot(run, "--out", other)
            self.assertEqual(rc, 0, err)
            self.assertFalse(os.path.exists(os.path.join(other, ".m2vp-run-files")))


LATENCIES = "pattern\tbytes\tsrc\tdst\tlatency_us\n" + "".join(
    f"{p}\t{b}\t{i}\t{(i + 1) % 4}\t{lat}\n"
    for p, b, lats in (("all-to-all", 64, (5.0, 3.0, 4.0, 9.0)), ("hot-spot", 64, (20.0, 7.5)),
                       ("all-to-all", 4096, (30.0, 31.0, 32.0)), ("hot-spot", 4096, (80.0,)))
    for i, lat in enumerate(lats))


class CdfTests(unittest.TestCase):
    def test_cdf_per_pattern_and_size(self):
        with tempfile.TemporaryDirectory() as d:
            a = write(os.path.join(d, "ooo", "latencies.tsv"), LATENCIES)
            slow = LATENCIES.replace("all-to-all\t64\t0\t1\t5.0", "all-to-all\t64\t0\t1\t50.0")
            b = write(os.path.join(d, "inorder", "latencies.tsv"), slow)
            out = os.path.join(d, "o")
            rc, stdout, err = run_plot(a, b, "--out", out)
            self.assertEqual(rc, 0, err)
            self.assertEqual(sorted(os.path.basename(l) for l in stdout.split()),
                             sorted(f"latency_cdf.{e}" for e in EXTS))
            # 2 runs x 2 patterns x 2 sizes lines.
            self.assertEqual(len(svg_ids(os.path.join(out, "latency_cdf.svg"), "cdf-")), 8)
            rows = read_tsv(os.path.join(out, "latency_cdf.tsv"))
            curve = [(float(r["latency_us"]), float(r["cdf"])) for r in rows
                     if (r["series"], r["pattern"], r["bytes"]) == ("ooo", "all-to-all", "64")]
            self.assertEqual(curve, [(3.0, 0.25), (4.0, 0.5), (5.0, 0.75), (9.0, 1.0)])
            for key in {(r["series"], r["pattern"], r["bytes"]) for r in rows}:
                pts = [(float(r["latency_us"]), float(r["cdf"])) for r in rows
                       if (r["series"], r["pattern"], r["bytes"]) == key]
                self.assertEqual(pts, sorted(pts))  # non-decreasing
                self.assertEqual(pts[-1], (max(p[0] for p in pts), 1.0), key)  # 1.0 at the maximum
            self.assertEqual(max(float(r["latency_us"]) for r in rows
                                 if (r["series"], r["pattern"], r["bytes"]) == ("inorder", "all-to-all", "64")), 50.0)


    def test_legend_latencies_without_exponents(self):
        sys.path.insert(0, os.path.dirname(PLOT))  # traces/, where the plots package is
        from plots import cdf
        self.assertEqual(cdf.legend_us(1285.4), "1285")
        self.assertEqual(cdf.legend_us(21.434), "21.4")
        self.assertEqual(cdf.legend_us(999.4), "999")


class ErrorTests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def fails(self, args, *expected):
        rc, stdout, err = run_plot(*args, "--out", os.path.join(self.d, "o"))
        self.assertNotEqual(rc, 0, stdout)
        for e in expected:
            self.assertIn(e, err)
        self.assertNotIn("Traceback", err)
        self.assertEqual(stdout, "")
        return err

    def test_malformed_np_out(self):
        p = write(os.path.join(self.d, "r", "np.out"), "1 1.0 0.000008\n2 2.0 0.000008\n3 3.0\n")
        self.fails([p], f"{p}:3:", "expected 3 columns")
        p = write(os.path.join(self.d, "s", "np.out"), "1 1.0 0.000008\n2 fast 0.000008\n")
        self.fails([os.path.dirname(p)], f"{p}:2:", "Mbit/s: expected a number, got 'fast'")
        p = write(os.path.join(self.d, "t", "np.out"), "")
        self.fails([p], p, "no measurements")

    def test_malformed_messages_and_latencies(self):
        p = write(os.path.join(self.d, "m", "messages.csv"), MESSAGES.replace("3,1,0,2000,1,20.0", "3,1,0,2k,1,20.0"))
        self.fails([p], f"{p}:5:", "bytes: expected a number, got '2k'")
        p = write(os.path.join(self.d, "n", "messages.csv"), "msg,bytes,total_us\n0,10,1.0\n")
        self.fails([p], f"{p}:1:", "no stage columns")
        p = write(os.path.join(self.d, "l", "latencies.tsv"), "pattern\tbytes\tsrc\tdst\n")
        self.fails([p], f"{p}:1:", "latency_us")
        p = write(os.path.join(self.d, "k", "latencies.tsv"), LATENCIES + "hot-spot\t64\t1\n")
        self.fails([p], f"{p}:12:", "expected 5 fields")

    def test_not_text_and_oversized_fields(self):
        # Found by fuzz/readers.py: bytes that are not UTF-8 ended in a
        # UnicodeDecodeError traceback, a field over the csv module's limit in
        # a csv.Error one.
        p = os.path.join(self.d, "u", "np.out")
        write(p, "")
        with open(p, "wb") as f:
            f.write(b"1 1.0 0.000008\n2 2.0 0.0000\xb408\n")
        self.fails([p], f"{p}:2:", "not UTF-8 text (byte 0xb4)")
        p = write(os.path.join(self.d, "v", "results.tsv"), "bytes\tlatency_us\n1\t" + "9" * 200000 + "\n")
        self.fails([p], f"{p}:2:", "malformed TSV: field larger than field limit")

    def test_nothing_plottable(self):
        run = os.path.join(self.d, "empty")
        write(os.path.join(run, "run.log"), "hello\n")
        write(os.path.join(run, "results.tsv"), "source\tkey\tvalue\nni0\tfw_result0\t0\n")
        self.fails([run], run, "nothing to plot")
        self.fails([os.path.join(self.d, "missing")], "missing", "no such file or folder")
        self.fails([os.path.join(run, "run.log")], "run.log", "unknown kind of file")
        self.fails([os.path.join(run, "results.tsv")], "results.tsv:1:", "not a sweep over sizes")

    def test_label_count(self):
        p = write(os.path.join(self.d, "r", "np.out"), np_out(NP_A))
        self.fails([p, "--label", "a", "--label", "b"], "one label per input")

    def test_numbers_beyond_any_plot(self):
        # 1e308 Mbit/s ended in a traceback inside matplotlib (the axis range
        # overflows); every plotted number is at most 1e15.
        p = write(os.path.join(self.d, "h", "np.out"), "1 1e308 0.001\n")
        self.fails([p], f"{p}:1:", "Mbit/s: expected a number up to 1e+15, got '1e308'")
        p = write(os.path.join(self.d, "i", "np.out"), "1 1 nan\n")
        self.fails([p], f"{p}:1:", "seconds: expected a finite number, got 'nan'")
        p = write(os.path.join(self.d, "j", "latencies.tsv"), "pattern\tbytes\tsrc\tdst\tlatency_us\nx\t1\t0\t1\t-inf\n")
        self.fails([p], f"{p}:2:", "latency_us: expected a finite number")
        p = write(os.path.join(self.d, "k", "results.tsv"), "bytes\tlatency_us\n1\t1e-300\n")
        self.fails([p], f"{p}:2:", "over 1e+15 Mbit/s")

    def test_folders_where_files_belong(self):
        run = os.path.join(self.d, "r")
        os.makedirs(os.path.join(run, "np.out"))
        self.fails([run], os.path.join(run, "np.out") + ": not a file")
        cases = os.path.join(self.d, "c")
        write(os.path.join(cases, "cases.tsv"), "case\tdir\n")
        self.fails([cases], os.path.join(cases, "cases.tsv") + ": lists no case folder")
        write(os.path.join(cases, "cases.tsv"), "case\tdir\none\t" + "x" * 200000 + "\n")
        self.fails([cases], os.path.join(cases, "cases.tsv") + ":2: malformed TSV")
        self.fails([os.devnull], f"{os.devnull}: not a regular file or a folder")

    def test_folder_names_that_are_not_utf8(self):
        # A label from such a folder name broke matplotlib's SVG writer.
        folder = os.path.join(self.d.encode(), b"run-\xff")
        os.makedirs(folder)
        with open(os.path.join(folder, b"np.out"), "w") as f:
            f.write(np_out(NP_A))
        p = subprocess.run([sys.executable, PLOT, folder, "--out", os.path.join(self.d, "o")],
                           capture_output=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, b"")
        self.assertEqual(read_tsv(os.path.join(self.d, "o", "netpipe_throughput.tsv"))[0]["series"], "run-\ufffd")

    def test_out_is_a_file(self):
        p = write(os.path.join(self.d, "r", "np.out"), np_out(NP_A))
        rc, stdout, err = run_plot(p, "--out", p)
        self.assertEqual(rc, 1)
        self.assertEqual(err, f"plot: error: --out {p}: not a folder (it is a file; name a folder for the output)\n")
        self.assertEqual(stdout, "")

    def test_outputs_replace_a_symlink(self):
        # A symlink at an output's name is replaced, not written through.
        p = write(os.path.join(self.d, "r", "np.out"), np_out(NP_A))
        victim = write(os.path.join(self.d, "victim"), "keep\n")
        for ext in EXTS:
            os.symlink(victim, os.path.join(self.d, "r", f"netpipe_throughput.{ext}"))
        rc, stdout, err = run_plot(p)
        self.assertEqual(rc, 0, err)
        with open(victim) as f:
            self.assertEqual(f.read(), "keep\n")
        for ext in EXTS:
            out = os.path.join(self.d, "r", f"netpipe_throughput.{ext}")
            self.assertFalse(os.path.islink(out))
            self.assertGreater(os.path.getsize(out), 50)
        self.assertEqual(read_tsv(os.path.join(self.d, "r", "netpipe_throughput.tsv"))[0],
                         {"series": "r", "bytes": "1", "mbps": "1"})
        self.assertEqual([f for f in os.listdir(os.path.join(self.d, "r")) if f.endswith(".tmp")], [])


if __name__ == "__main__":
    unittest.main()
