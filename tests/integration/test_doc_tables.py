#!/usr/bin/env python3
"""Test of traces/doc_tables.py: the docs' tables are well formed now (the
check that caught experiment 4's pasted row), the check finds each kind of
damage in a handmade page with its file and line, and a marked table is
rendered from a results file as its marker says.

  test_doc_tables.py [unittest arguments]
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "traces"))
import doc_tables  # noqa: E402

TOOL = os.path.join(HERE, "..", "..", "traces", "doc_tables.py")


def check_text(text, sim=None):
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
        f.write(text)
    try:
        return doc_tables.check_file(f.name, sim)
    finally:
        os.unlink(f.name)


# The simulator's table for a stand-in module (what `m2vp-sim params CONFIG
# --markdown MODULE` prints).
STAND_IN_TABLE = ["| Name | Unit | Default | Description |", "|------|------|---------|-------------|",
                  "| `setup_ns` | ns | 100 | from a descriptor to its first transaction (0..1000000) |",
                  "| `rate_mbyte_per_s` | MB/s | 1600 | engine data path (1..1000000) |"]


# Its statistics (what `m2vp-sim stats CONFIG --markdown MODULE` prints).
STAND_IN_STATS = ["| Name | Unit | Description | Reset after warm-up |", "|------|------|-------------|------|",
                  "| `descriptors` | count | descriptors completed | yes |",
                  "| `bytes` | bytes | bytes moved | yes |"]


def stand_in_sim(folder):
    """An executable that prints STAND_IN_TABLE for `params ... --markdown
    dev` and STAND_IN_STATS for `stats ... --markdown dev`, and fails like
    the simulator for any other module."""
    path = os.path.join(folder, "m2vp-sim")
    with open(path, "w") as f:
        f.write("#!" + sys.executable + "\nimport sys\nargs = sys.argv[1:]\n"
                "if args[0] not in ('params', 'stats') or args[-2] != '--markdown' or args[-1] != 'dev':\n"
                "    print('error: --markdown ' + args[-1] + ': no module with parameters has that name', "
                "file=sys.stderr)\n    sys.exit(64)\n"
                "if args[0] == 'stats':\n"
                f"    print({chr(10).join(STAND_IN_STATS)!r})\n"
                "else:\n"
                f"    print({chr(10).join(STAND_IN_TABLE)!r})\n")
    os.chmod(path, 0o755)
    return path


class DocTablesTests(unittest.TestCase):
    def test_docs_are_well_formed(self):
        # (A hang guard: the check runs the simulator once per parameter table.)
        p = subprocess.run([sys.executable, TOOL, "--check"], capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("0 problem(s)", p.stdout)

    def test_a_pasted_cell_with_another_unit_is_found(self):
        problems = check_text("x\n\n| bytes | a | b |\n|---:|---:|---:|\n| 1 | 1.8 | 1.8 |\n"
                              "| 256 | 388 | −3.3 % |\n| 1 K | 1106 | 1162 |\n")
        self.assertEqual(len(problems), 1, problems)
        self.assertRegex(problems[0], r":6: column 'b' holds '−3.3 %' among plain numbers")

    def test_a_row_with_a_cell_too_many_is_found(self):
        problems = check_text("| a | b |\n|---|---|\n| 1 | 2 | 3 |\n")
        self.assertEqual(len(problems), 1, problems)
        self.assertRegex(problems[0], r":3: 3 cells, the header has 2")

    def test_words_in_a_numeric_column_are_found_but_dashes_and_units_rows_pass(self):
        problems = check_text("| size | us |\n|---:|---:|\n| 1 | 2.5 |\n| 2 | fast |\n| 3 | – |\n"
                              "| peak | 2400 Mbit/s |\n| 4 | 3.0 |\n| 5 | 4.0 |\n")
        self.assertEqual(len(problems), 1, problems)
        self.assertRegex(problems[0], r":4: column 'us' holds 'fast', not a number")

    def test_tables_in_code_blocks_and_escaped_pipes_are_not_tables(self):
        self.assertEqual(check_text("```\n| a | b\n|x\n```\n| a | b |\n|---|---|\n| x \\| y | z |\n"), [])

    def test_a_marked_table_renders_the_chosen_columns(self):
        rows = [["bytes", "2/inorder", "2/ooo1"], ["1", "1.43", "1.43"], ["1024", "998.61", ""],
                ["65536", "2076.86", "2075.0"]]
        _, source, columns, keys = doc_tables.parse_spec('configs/x.yaml --set a=b | summary.tsv | bytes "2/ooo1=ooo 1"')
        self.assertIsNone(keys)
        self.assertEqual(source, "summary.tsv")
        lines = doc_tables.render(rows, columns)
        self.assertEqual(lines, ["| bytes | ooo 1 |", "|---:|---:|", "| 1 | 1.43 |", "| 1024 | – |",
                                 "| 65536 | 2075 |"])
        with self.assertRaisesRegex(ValueError, "no column 'nope'"):
            doc_tables.render(rows, [("nope", "nope")])

    def test_rows_keeps_the_rows_named_by_their_first_cell(self):
        rows = [["bytes", "mpi"], ["1", "9.0"], ["2", "9.0"], ["1024", "22.85"], ["16384", "1187.82"]]
        args, _, columns, keys = doc_tables.parse_spec("configs/x.yaml | summary.tsv | bytes mpi=MPI | rows=1,16384")
        self.assertEqual(args, ["configs/x.yaml"])
        lines = doc_tables.render(doc_tables.keep_rows(rows, keys), columns)
        self.assertEqual(lines, ["| bytes | MPI |", "|---:|---:|", "| 1 | 9.00 |", "| 16384 | 1188 |"])
        with self.assertRaisesRegex(ValueError, r"rows= asks for \['4096.0'\]"):
            doc_tables.keep_rows(rows, doc_tables.parse_spec("c.yaml | r.tsv | | rows=1,4096")[3])
        with self.assertRaisesRegex(ValueError, "expected 'rows=KEY,KEY,...'"):
            doc_tables.parse_spec("c.yaml | r.tsv | bytes | 1,2")

    def test_a_column_of_words_is_left_aligned(self):
        rows = [["pattern", "bytes", "p50_us"], ["alltoall", "16", "9.76"], ["hotspot", "16", "7.49"]]
        lines = doc_tables.render(rows, None)
        self.assertEqual(lines[1], "|---|---:|---:|")
        self.assertEqual(lines[2], "| alltoall | 16 | 9.76 |")

    def test_a_marker_whose_headings_differ_from_its_table_is_found(self):
        text = ("<!-- table: configs/x.yaml | results.tsv | bytes mbps=Mbit/s -->\n| bytes | mbps |\n|---:|---:|\n"
                "| 1 | 2 |\n<!-- end table -->\n")
        problems = check_text(text)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("differ from the marker's", problems[0])



class ParamTablesTests(unittest.TestCase):
    """Parameter tables (<!-- params: ... -->) against the simulator's."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.sim = stand_in_sim(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def page(self, table, marker="configs/x.yaml | dev"):
        return f"# Dev\n\n<!-- params: {marker} -->\n" + "\n".join(table) + "\n<!-- end table -->\n"

    def test_a_table_as_the_code_has_it_passes(self):
        self.assertEqual(check_text(self.page(STAND_IN_TABLE), self.sim), [])

    def test_a_drifted_description_is_found_with_its_line(self):
        drifted = STAND_IN_TABLE[:3] + ["| `rate_mbyte_per_s` | MB/s | 1600 | engine data path, per transaction |"]
        problems = check_text(self.page(drifted), self.sim)
        self.assertEqual(len(problems), 1, problems)
        self.assertRegex(problems[0], r":7: the parameter table of dev differs from the code \(run --update\): "
                                      r"the page has '.*per transaction \|', the code '.*\(1\.\.1000000\) \|'")

    def test_a_missing_or_extra_row_is_found(self):
        self.assertIn("the code '| `rate_mbyte_per_s`", check_text(self.page(STAND_IN_TABLE[:3]), self.sim)[0])
        extra = STAND_IN_TABLE + ["| `old_mbps` | MB/s | 1 | gone |"]
        self.assertIn("the page has '| `old_mbps`", check_text(self.page(extra), self.sim)[0])

    def test_named_rows_are_kept_in_the_code_order(self):
        self.assertEqual(check_text(self.page([STAND_IN_TABLE[i] for i in (0, 1, 3)],
                                              "configs/x.yaml | dev | rate_mbyte_per_s"), self.sim), [])
        problems = check_text(self.page(STAND_IN_TABLE, "configs/x.yaml | dev | nope"), self.sim)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("the module has no parameter nope (it has: setup_ns, rate_mbyte_per_s)", problems[0])

    def test_an_unknown_module_and_a_missing_simulator_are_problems(self):
        problems = check_text(self.page(STAND_IN_TABLE, "configs/x.yaml | nodev"), self.sim)
        self.assertEqual(len(problems), 1, problems)
        self.assertRegex(problems[0], r":3: parameter table of .*exit 64: error: --markdown nodev: no module")
        self.assertIn("expected 'CONFIG [--set NAME=VALUE]... | MODULE",
                      check_text(self.page(STAND_IN_TABLE, "configs/x.yaml"), self.sim)[0])
        # No simulator anywhere: the table cannot be compared, which is a problem too.
        saved_env, saved_root = os.environ.get("M2VP_SIM"), doc_tables.ROOT
        os.environ["M2VP_SIM"] = os.path.join(self.tmp.name, "none")
        doc_tables.ROOT = self.tmp.name
        try:
            problems = check_text(self.page(STAND_IN_TABLE))
        finally:
            doc_tables.ROOT = saved_root
            if saved_env is None:
                del os.environ["M2VP_SIM"]
            else:
                os.environ["M2VP_SIM"] = saved_env
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("no m2vp-sim to read the parameters from", problems[0])

    def test_update_regenerates_a_drifted_table(self):
        path = os.path.join(self.tmp.name, "dev.md")
        with open(path, "w") as f:
            f.write(self.page(STAND_IN_TABLE[:2] + ["| `x` | | 1 | stale |"]))
        self.assertEqual(doc_tables.update_file(path, self.sim, None), 1)
        with open(path) as f:
            self.assertEqual(f.read(), self.page(STAND_IN_TABLE))
        self.assertEqual(check_text(self.page(STAND_IN_TABLE), self.sim), [])


class StatsTablesTests(unittest.TestCase):
    """Statistics tables (<!-- stats: ... -->) against the simulator's."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.sim = stand_in_sim(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def page(self, table, marker="configs/x.yaml | dev"):
        return f"# Dev\n\n<!-- stats: {marker} -->\n" + "\n".join(table) + "\n<!-- end table -->\n"

    def test_a_table_as_the_code_has_it_passes(self):
        self.assertEqual(check_text(self.page(STAND_IN_STATS), self.sim), [])

    def test_a_stale_table_is_found_with_its_line(self):
        stale = STAND_IN_STATS[:3] + ["| `bytes` | count | bytes moved | yes |"]
        problems = check_text(self.page(stale), self.sim)
        self.assertEqual(len(problems), 1, problems)
        self.assertRegex(problems[0], r":7: the statistics table of dev differs from the code \(run --update\): "
                                      r"the page has '\| `bytes` \| count .*', the code '\| `bytes` \| bytes .*'")
        # A statistic the code no longer declares, and one the page lacks.
        self.assertIn("the page has '| `frames`", check_text(self.page(STAND_IN_STATS + ["| `frames` | count | x | yes |"]),
                                                              self.sim)[0])
        self.assertIn("the code '| `bytes`", check_text(self.page(STAND_IN_STATS[:3]), self.sim)[0])

    def test_a_stats_marker_is_not_a_parameter_table(self):
        # The parameters' table under a statistics marker differs from the code's statistics.
        problems = check_text(self.page(STAND_IN_TABLE), self.sim)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("the statistics table of dev differs", problems[0])

    def test_named_rows_and_unknown_names(self):
        self.assertEqual(check_text(self.page([STAND_IN_STATS[i] for i in (0, 1, 3)], "configs/x.yaml | dev | bytes"),
                                    self.sim), [])
        problems = check_text(self.page(STAND_IN_STATS, "configs/x.yaml | dev | frames"), self.sim)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("statistics table of 'configs/x.yaml | dev | frames': the model has no statistic frames "
                      "(it has: descriptors, bytes)", problems[0])

    def test_update_regenerates_a_stale_table_beside_a_parameter_table(self):
        path = os.path.join(self.tmp.name, "dev.md")
        params = "<!-- params: configs/x.yaml | dev -->\n" + "\n".join(STAND_IN_TABLE[:2]) + "\n<!-- end table -->\n"
        with open(path, "w") as f:
            f.write(self.page(STAND_IN_STATS[:2] + ["| `x` | | stale | yes |"]) + "\n" + params)
        self.assertEqual(doc_tables.update_file(path, self.sim, None), 2)
        want = self.page(STAND_IN_STATS) + "\n<!-- params: configs/x.yaml | dev -->\n" + "\n".join(STAND_IN_TABLE) + \
            "\n<!-- end table -->\n"
        with open(path) as f:
            self.assertEqual(f.read(), want)
        self.assertEqual(check_text(want, self.sim), [])


@unittest.skipUnless(os.environ.get("M2VP_SIM"), "needs the simulator ($M2VP_SIM, set by CTest)")
class ModelPagesTests(unittest.TestCase):
    """The model pages' parameter tables against the simulator built from this tree."""

    def test_a_drifted_table_of_a_real_page_is_found(self):
        with open(os.path.join(doc_tables.ROOT, "docs", "models", "dma-engine.md")) as f:
            text = f.read()
        self.assertIn("<!-- params: ", text)
        self.assertEqual(check_text(text), [])
        # The description the page had before it was generated from the code.
        line = next(l for l in text.splitlines() if l.startswith("| `rate_mbyte_per_s` |"))
        drifted = text.replace(line, "| `rate_mbyte_per_s` | MB/s | 1600 | engine data path, per transaction "
                                     "(calibrated: 128 bit at 100 MHz, the netbuf port's width) (1..1e6) |")
        problems = check_text(drifted)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("the parameter table of node0.ni.dma differs from the code", problems[0])
        renamed = text.replace("`rate_mbyte_per_s`", "`rate_mbps`")
        self.assertIn("the page has '| `rate_mbps` |", check_text(renamed)[0])

    def test_a_stale_statistics_table_of_a_real_page_is_found(self):
        with open(os.path.join(doc_tables.ROOT, "docs", "models", "dma-engine.md")) as f:
            text = f.read()
        self.assertIn("<!-- stats: configs/cluster-4.yaml | node0.ni.dma -->", text)
        self.assertEqual(check_text(text), [])
        line = next(l for l in text.splitlines() if l.startswith("| `descriptors` |"))
        self.assertEqual(line, "| `descriptors` | count | descriptors completed without error | yes |")
        # A description changed in the code but not on the page, and a statistic the page lost.
        stale = text.replace(line, "| `descriptors` | count | descriptors completed | yes |")
        problems = check_text(stale)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("the statistics table of node0.ni.dma differs from the code", problems[0])
        self.assertIn("the code '| `descriptors` | count | descriptors completed without error | yes |'", problems[0])
        self.assertIn("the statistics table of node0.ni.dma differs", check_text(text.replace(line + "\n", ""))[0])


if __name__ == "__main__":
    unittest.main()
