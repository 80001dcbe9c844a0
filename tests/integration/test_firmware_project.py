#!/usr/bin/env python3
"""Integration test of firmware projects outside the repository
(sw/firmware/firmware_project.sh, `./m2vp firmware new|build`): a new
project builds with the cross compiler against the platform's firmware
library and runs on the single-NI platform from its own NAME.yaml, its DMA
copy arriving intact and taking at least what the DMA engine's data path
needs; bad names, occupied folders, compile errors and a configure without
the platform are refused with a message that says what to do.

  test_firmware_project.py M2VP_SIM
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SCRIPT = os.path.join(ROOT, "sw", "firmware", "firmware_project.sh")
SIM = None  # from the command line


def run(*args, cwd=None):
    p = subprocess.run(list(args), capture_output=True, text=True, timeout=300, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def stats(path):
    rows = {}
    with open(path) as f:
        for line in f:
            source, key, value = line.rstrip("\n").split("\t")
            rows[(source, key)] = value
    return rows


class FirmwareProjectTests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def new(self, name="probe_fw"):
        proj = os.path.join(self.d, name)
        rc, _, err = run(SCRIPT, "new", proj)
        self.assertEqual(rc, 0, err)
        return proj

    def test_new_project_builds_runs_and_copies_intact(self):
        proj = self.new()
        self.assertEqual(sorted(os.listdir(proj)), ["CMakeLists.txt", "main.c", "probe_fw.yaml"])
        with open(os.path.join(proj, "main.c")) as f:
            self.assertIn('printf("probe_fw: hello', f.read())  # the name went in everywhere
        rc, _, err = run(SCRIPT, "build", proj, "-DM2FW_OPTIMIZE=-O0")
        self.assertEqual(rc, 0, err)
        elf = os.path.join(proj, "build", "out", "probe_fw.elf")
        self.assertIn("built " + elf + " (-O0)", err)
        # A build without the option goes back to -O2 (not CMake's cached -O0).
        rc, _, err = run(SCRIPT, "build", proj)
        self.assertEqual(rc, 0, err)
        self.assertIn("built " + elf + " (-O2)", err)
        with open(elf, "rb") as f:
            head = f.read(20)
        self.assertEqual(head[:4], b"\x7fELF")
        self.assertEqual(head[5], 2)  # big-endian
        self.assertEqual(int.from_bytes(head[18:20], "big"), 20)  # EM_PPC

        out = os.path.join(self.d, "run")
        rc, stdout, stderr = run(SIM, "run", os.path.join(proj, "probe_fw.yaml"), "--out", out)
        self.assertEqual(rc, 0, stdout + stderr)
        self.assertIn("== probe_fw: all firmware exited with code 0", stdout)  # the run is named after the project
        self.assertIn("probe_fw: hello from the NI's PowerPC 603e at 300 MHz", stdout)
        self.assertRegex(stdout, r"probe_fw: DMA copied 4096 bytes in \d+ ns, 0 wrong")
        s = stats(os.path.join(out, "stats.tsv"))
        self.assertEqual(int(s[("ni0.cpu", "fw_result0")]), 4096)
        # The DMA engine's data path alone (rate_mbyte_per_s 1600: 4096 B in 2560 ns)
        # plus its set-up (100 ns) is a floor; its per-burst costs and the
        # SDRAM come on top, a few microseconds at most.
        copy_ns = int(s[("ni0.cpu", "fw_result1")])
        self.assertGreaterEqual(copy_ns, 2660)
        self.assertLess(copy_ns, 10000)
        with open(os.path.join(out, "report.txt")) as f:
            self.assertRegex(f.read(), r"fw_result0\s+4096\s+bytes copied intact")

    def test_two_sources_and_a_rebuild(self):
        proj = self.new("two_files")
        with open(os.path.join(proj, "extra.c"), "w") as f:
            f.write("unsigned extra_value(void) { return 1234u; }\n")
        cml = os.path.join(proj, "CMakeLists.txt")
        with open(cml) as f:
            text = f.read()
        with open(cml, "w") as f:
            f.write(text.replace("m2_firmware(two_files main.c)", "m2_firmware(two_files main.c extra.c)"))
        main = os.path.join(proj, "main.c")
        with open(main) as f:
            text = f.read()
        # main's opening line, whatever the template's layout (.clang-format).
        text, n = re.subn(r"int main\(void\)\s*\{", "unsigned extra_value(void);\n\n"
                          "void fw_external_interrupt(void) { fw_exit(9); }\n\n"
                          "int main(void) {\n  fw_result(2, extra_value());", text, count=1)
        self.assertEqual(n, 1, "the template's main() not found")
        with open(main, "w") as f:
            f.write(text)
        rc, _, err = run(SCRIPT, "build", proj)
        self.assertEqual(rc, 0, err)
        out = os.path.join(self.d, "run")
        rc, stdout, stderr = run(SIM, "run", os.path.join(proj, "two_files.yaml"), "--out", out)
        self.assertEqual(rc, 0, stdout + stderr)
        self.assertEqual(int(stats(os.path.join(out, "stats.tsv"))[("ni0.cpu", "fw_result2")]), 1234)
        # The firmware's own hook replaces the library's default entirely: a
        # breakpoint on it has one location (the default's debug information
        # once stayed behind at address 0).
        elf = os.path.join(proj, "build", "out", "two_files.elf")
        rc, out_text, err = run("gdb-multiarch", "-batch", "-nx", elf, "-ex", "break fw_external_interrupt")
        self.assertEqual(rc, 0, err)
        self.assertRegex(out_text, r"Breakpoint 1 at 0x[0-9a-f]+: file .*main\.c")
        self.assertNotIn("locations", out_text)

    def test_compile_error_fails_the_build_with_the_compiler_message(self):
        proj = self.new("broken")
        with open(os.path.join(proj, "main.c"), "a") as f:
            f.write("\nint oops(void) { return undeclared_thing; }\n")
        rc, out, err = run(SCRIPT, "build", proj)
        self.assertNotEqual(rc, 0)
        self.assertIn("undeclared_thing", out + err)
        self.assertFalse(os.path.exists(os.path.join(proj, "build", "out", "broken.elf")))

    def test_refusals_name_the_problem(self):
        rc, _, err = run(SCRIPT, "new", os.path.join(self.d, "x"), "9lives")
        self.assertEqual(rc, 64)
        self.assertIn("'9lives' cannot name a firmware", err)
        rc, _, err = run(SCRIPT, "new", os.path.join(self.d, "has-dash"))
        self.assertEqual(rc, 64)
        self.assertIn("'has-dash' cannot name a firmware", err)
        proj = self.new("taken")
        rc, _, err = run(SCRIPT, "new", proj)
        self.assertEqual(rc, 64)
        self.assertIn("exists and is not empty", err)
        rc, _, err = run(SCRIPT, "build", os.path.join(self.d, "nothing"))
        self.assertEqual(rc, 64)
        self.assertIn("has no CMakeLists.txt", err)
        rc, _, err = run(SCRIPT, "frobnicate")
        self.assertEqual(rc, 64)
        self.assertIn("usage: m2vp firmware new DIR [NAME] | m2vp firmware build DIR", err)
        # Configured by hand without the platform's folder or the cross compiler.
        rc, out, err = run("cmake", "-S", proj, "-B", os.path.join(self.d, "b1"), "-G", "Ninja")
        self.assertNotEqual(rc, 0)
        self.assertIn("is not the Maestro2 platform's folder", out + err)
        rc, out, err = run("cmake", "-S", proj, "-B", os.path.join(self.d, "b2"), "-G", "Ninja", "-DM2VP_ROOT=" + ROOT)
        self.assertNotEqual(rc, 0)
        self.assertIn("the firmware needs the PowerPC cross compiler", out + err)


if __name__ == "__main__":
    SIM = sys.argv.pop(1)
    unittest.main()
