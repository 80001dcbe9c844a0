#!/usr/bin/env python3
"""Test of traces/runs.py, which sweeps (`./m2vp sweep`) and configs with
cases (`./m2vp run`) use to put the runs' result tables side by side: a row
is named by its size, after its text key columns (experiment 6's pattern),
so rows of different patterns with one size stay apart. And the tables and
the manifest it writes into a run folder replace a link there rather than
write through it (docs/usage.md, "What a run may touch").
"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "traces"))
import runs  # noqa: E402

SCALE = [
    ["pattern", "nodes", "bytes", "messages", "mean_us", "mbps"],
    ["alltoall", "4", "16", "96", "15.5", "18.7"],
    ["alltoall", "4", "4096", "96", "80.1", "931.4"],
    ["neighbour", "4", "16", "64", "11.3", "18.9"],
    ["neighbour", "4", "4096", "64", "61.7", "940.6"],
    ["hotspot", "4", "16", "24", "28.7", "10.1"],
]
NETPIPE = [
    ["bytes", "latency_us", "mbps"],
    ["1024", "14.9", "548.0"],
    ["32", "8.5", "30.1"],
    ["4096", "31.5", "1040.0"],
]


class RunFolderFilesTests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="m2vp-run-files-")
        self.d = self.tmp.name
        self.outside = os.path.join(self.d, "outside.txt")
        with open(self.outside, "w") as f:
            f.write("the user's\n")
        self.out = os.path.join(self.d, "out")
        os.mkdir(self.out)

    def tearDown(self):
        self.tmp.cleanup()

    def read(self, path):
        with open(path) as f:
            return f.read()

    def test_a_table_replaces_a_link_at_its_name(self):
        table = os.path.join(self.out, "results.tsv")
        os.symlink(self.outside, table)
        runs.write_tsv(table, [["bytes", "mbps"], ["1", "2.5"]])
        self.assertEqual(self.read(self.outside), "the user's\n")
        self.assertFalse(os.path.islink(table))
        self.assertEqual(self.read(table), "bytes\tmbps\n1\t2.5\n")
        self.assertEqual(sorted(os.listdir(self.out)), ["results.tsv"])  # no temporary file left
        mask = os.umask(0)
        os.umask(mask)
        self.assertEqual(os.stat(table).st_mode & 0o777, 0o666 & ~mask)

    def test_the_manifest_grows_in_place_and_a_linked_one_is_left_alone(self):
        manifest = os.path.join(self.out, runs.RUN_MANIFEST)
        with open(manifest, "w") as f:
            f.write("run.log\n")
        runs.add_to_run_manifest(self.out, ["results.tsv", os.path.join(self.out, "cases.tsv"), "run.log"])
        self.assertEqual(self.read(manifest), "run.log\nresults.tsv\ncases.tsv\n")
        os.remove(manifest)
        os.symlink(self.outside, manifest)
        runs.add_to_run_manifest(self.out, ["summary.tsv"])  # not a run folder's list: nothing written
        self.assertEqual(self.read(self.outside), "the user's\n")
        self.assertTrue(os.path.islink(manifest))


    def test_one_holder_of_a_folder_at_a_time(self):
        fd = runs.hold_folder_lock(self.out)
        try:
            self.assertEqual(self.read(os.path.join(self.out, runs.FOLDER_LOCK)), f"{os.getpid()}\n")
            # Another open of the lock file is another holder, as another process is.
            with self.assertRaises(RuntimeError) as e:
                runs.hold_folder_lock(self.out)
            self.assertEqual(str(e.exception),
                             f"{self.out}: another run (pid {os.getpid()}) is writing into this folder: wait for it "
                             f"to end, or choose another --out (it holds {os.path.join(self.out, runs.FOLDER_LOCK)})")
        finally:
            os.close(fd)
        os.close(runs.hold_folder_lock(self.out))  # free again
        # A lock file that is a link is not opened.
        os.remove(os.path.join(self.out, runs.FOLDER_LOCK))
        os.symlink(self.outside, os.path.join(self.out, runs.FOLDER_LOCK))
        with self.assertRaises(RuntimeError):
            runs.hold_folder_lock(self.out)
        self.assertEqual(self.read(self.outside), "the user's\n")


class RunTablesTests(unittest.TestCase):
    def test_rows_with_a_pattern_keep_apart(self):
        m = runs.metric_by_size(SCALE, "mean_us")
        self.assertEqual(m, {"alltoall:16": "15.5", "alltoall:4096": "80.1", "neighbour:16": "11.3",
                             "neighbour:4096": "61.7", "hotspot:16": "28.7"})
        # In the table's order (pattern by pattern), each once, over every run.
        other = SCALE[:1] + [["hotspot", "4", "4096", "24", "124.9", "488.3"]]
        self.assertEqual(runs.sizes_of([SCALE, other]),
                         ["alltoall:16", "alltoall:4096", "neighbour:16", "neighbour:4096", "hotspot:16",
                          "hotspot:4096"])
        self.assertEqual(runs.key_heading([SCALE]), "pattern:bytes")

    def test_merged_case_tables_keep_cases_apart(self):
        # cases.py's results.tsv: a column per axis (here a number and a word) in front.
        merged = [["hosts", "switch", "bytes", "mbps"],
                  ["2", "inorder", "1024", "998.6"], ["2", "ooo8", "1024", "1050.4"],
                  ["4", "inorder", "1024", "1919.1"], ["4", "ooo8", "1024", "2171.3"]]
        self.assertEqual(runs.metric_by_size(merged, "mbps"),
                         {"2:inorder:1024": "998.6", "2:ooo8:1024": "1050.4", "4:inorder:1024": "1919.1",
                          "4:ooo8:1024": "2171.3"})
        self.assertEqual(runs.key_heading([merged]), "hosts:switch:bytes")

    def test_plain_sizes_as_before(self):
        self.assertEqual(runs.metric_by_size(NETPIPE, "latency_us"), {"1024": "14.9", "32": "8.5", "4096": "31.5"})
        self.assertEqual(runs.sizes_of([NETPIPE, NETPIPE[:1] + [["64", "8.6", "59.0"]]]), ["32", "64", "1024", "4096"])
        self.assertEqual(runs.key_heading([NETPIPE]), "bytes")
        # A damaged size sorts after the numbers instead of ending the sweep.
        damaged = NETPIPE[:1] + [["1k", "9.0", "1.0"]]
        self.assertEqual(runs.sizes_of([NETPIPE, damaged]), ["32", "1024", "4096", "1k"])

    def test_missing_columns_and_short_rows(self):
        self.assertEqual(runs.metric_by_size(SCALE, "p99_us"), {})
        self.assertEqual(runs.metric_by_size([], "mbps"), {})
        short = SCALE[:1] + [["alltoall", "4"]]
        self.assertEqual(runs.metric_by_size(short, "mbps"), {})
        self.assertEqual(runs.sizes_of([short]), [])


if __name__ == "__main__":
    unittest.main()
