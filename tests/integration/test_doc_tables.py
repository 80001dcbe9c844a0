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


def check_text(text):
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
        f.write(text)
    try:
        return doc_tables.check_file(f.name)
    finally:
        os.unlink(f.name)


class DocTablesTests(unittest.TestCase):
    def test_docs_are_well_formed(self):
        p = subprocess.run([sys.executable, TOOL, "--check"], capture_output=True, text=True, timeout=60)
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


if __name__ == "__main__":
    unittest.main()
