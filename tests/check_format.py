#!/usr/bin/env python3
"""The C and C++ files keep the layout of .clang-format (issue 25).

The whole tree was formatted once; this checks every C/C++ file git knows,
tracked or new and not ignored, so any file changed since is checked too
(all of them take about 2 s). It first proves that it can fail: a file laid
out against the style, in a temporary folder with the same .clang-format,
must be reported.

  check_format.py          check; exit 1 naming each file that differs
  check_format.py --fix    reformat those files in place
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUFFIXES = (".c", ".h", ".cpp")


def clang_format():
    exe = shutil.which("clang-format")
    if not exe:
        sys.exit("check_format: clang-format not found (Debian package clang-format; ./m2vp installs it)")
    return exe


def project_files():
    """C/C++ files git tracks, and new ones it does not ignore."""
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "--cached", "--others", "--exclude-standard"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"check_format: git ls-files failed in {ROOT}: {out.stderr.strip()}")
    return sorted(f for f in out.stdout.splitlines() if f.endswith(SUFFIXES) and os.path.isfile(os.path.join(ROOT, f)))


def misformatted(exe, cwd, files):
    """Those of `files` (relative to cwd) whose layout differs, with clang-format's first complaint."""
    bad = []
    for i in range(0, len(files), 100):
        chunk = files[i:i + 100]
        r = subprocess.run([exe, "--dry-run", "--Werror", *chunk], cwd=cwd, capture_output=True, text=True)
        for line in r.stderr.splitlines():
            # "path:line:col: error: code should be clang-formatted [-Wclang-format-violations]"
            if "clang-format-violations" in line:
                path = line.split(":", 1)[0]
                if not any(b[0] == path for b in bad):
                    bad.append((path, line))
    return bad


def self_test(exe):
    with tempfile.TemporaryDirectory(prefix="m2vp-format-") as d:
        shutil.copy(os.path.join(ROOT, ".clang-format"), d)
        with open(os.path.join(d, "wrong.cpp"), "w") as f:
            f.write("int  f( int x ){return x+1;}\n")
        with open(os.path.join(d, "right.cpp"), "w") as f:
            f.write("int f(int x) { return x + 1; }\n")
        found = [b[0] for b in misformatted(exe, d, ["wrong.cpp", "right.cpp"])]
        if found != ["wrong.cpp"]:
            sys.exit(f"check_format: self-test failed: expected only wrong.cpp reported, got {found}")


def main():
    fix = "--fix" in sys.argv[1:]
    exe = clang_format()
    self_test(exe)
    files = project_files()
    if not files:
        sys.exit(f"check_format: no C/C++ files found under {ROOT}")
    bad = misformatted(exe, ROOT, files)
    if bad and fix:
        subprocess.run([exe, "-i", *[b[0] for b in bad]], cwd=ROOT, check=True)
        print(f"check_format: reformatted {len(bad)} file(s)")
        return 0
    for path, line in bad:
        print(f"{path}: not laid out as .clang-format says ({line.split(': ', 2)[-1]})")
    print(f"check_format: {len(files)} file(s), {len(bad)} not formatted"
          + ("; tests/check_format.py --fix reformats them" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
