#!/usr/bin/env python3
"""The ./m2vp wrapper's usage errors, which come before any build: an
option's NAME=VALUE taken for a config (a misspelt --set) is named as such,
`sweep --help` prints the usage, a missing config is named, an empty --out
is refused rather than taken for the default folder, --markdown's module is
not taken for the config."""
import os
import subprocess
import unittest

M2VP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "m2vp")


def run(*args):
    p = subprocess.run([M2VP, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


class UsageTests(unittest.TestCase):
    def test_misspelt_option_before_a_setting(self):
        rc, _, err = run("run", "--sets", "sim.timing=at")
        self.assertEqual(rc, 64)
        self.assertIn("'sim.timing=at' is not a config file: is '--sets' before it a misspelt option that takes a "
                      "value (--set NAME=VALUE)?", err)

    def test_sweep_help_and_missing_config(self):
        rc, out, _ = run("sweep", "--help")
        self.assertEqual(rc, 0)
        self.assertIn("usage: ./m2vp sweep CONFIG --vary NAME=V1,V2,...", out)
        rc, _, err = run("sweep", "--vary", "sim.timing=lt,at", "no-such.yaml")
        self.assertEqual(rc, 64)
        self.assertIn("config file 'no-such.yaml' not found", err)

    def test_empty_out_is_refused(self):
        for cmd in (["run", "configs/hello.yaml"], ["sweep", "configs/hello.yaml", "--vary", "sim.timing=lt,at"]):
            for empty in (["--out", ""], ["--out="]):
                rc, out, err = run(*cmd, *empty)
                self.assertEqual(rc, 64, (cmd, empty, err))
                self.assertIn("m2vp: error: --out needs a folder name, got an empty one", err)
                self.assertNotIn("configuring", err)  # said before any build

    def test_a_markdown_module_is_not_the_config(self):
        for cmd in ("params", "stats"):
            rc, _, err = run(cmd, "--markdown", "node0.ni.dma", "no-such.yaml")
            self.assertEqual(rc, 64, (cmd, err))
            self.assertIn("config file 'no-such.yaml' not found", err)
            self.assertNotIn("'node0.ni.dma'", err)


if __name__ == "__main__":
    unittest.main()
