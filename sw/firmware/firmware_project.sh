#!/usr/bin/env bash
# Firmware projects outside the repository (sw/firmware/README.md), what
# `./m2vp firmware` runs:
#   firmware_project.sh new DIR [NAME]  a project from project-template/:
#       CMakeLists.txt, main.c, NAME.yaml (NAME: DIR's name by default)
#   firmware_project.sh build DIR [-DNAME=VALUE]...  cross-compiles it into
#       DIR/build, the ELF files into DIR/build/out/; -D options go to CMake
#       (e.g. -DM2FW_OPTIMIZE=-Og to debug with every local visible)
# Exit 0 on success, 64 on a usage error, the build's status otherwise.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
say() { echo "m2vp firmware: $*" >&2; }
die() { say "error: $*"; exit 64; }
usage() { die "usage: m2vp firmware new DIR [NAME] | m2vp firmware build DIR [-DNAME=VALUE]..."; }

new_project() {
  local dir="${1:-}" name="${2:-}"
  [ -n "$dir" ] || usage
  [ -z "$name" ] && name="$(basename "$(realpath -m "$dir")")"
  # A CMake target, a file name and a word in C strings.
  [[ "$name" =~ ^[A-Za-z_][A-Za-z0-9_]{0,63}$ ]] ||
    die "'$name' cannot name a firmware: letters, digits and '_', not starting with a digit (give NAME after DIR)"
  if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
    die "'$dir' exists and is not empty: a new project goes into a new or empty folder"
  fi
  mkdir -p "$dir"
  local f
  for f in CMakeLists.txt main.c; do
    sed "s/@NAME@/$name/g" "$HERE/project-template/$f" > "$dir/$f"
  done
  # The config is named after the project: runs and their folders are too.
  sed "s/@NAME@/$name/g" "$HERE/project-template/config.yaml" > "$dir/$name.yaml"
  say "new firmware project '$name' in $dir"
  say "build it:  $ROOT/m2vp firmware build $dir"
  say "run it:    $ROOT/m2vp run $dir/$name.yaml --out $dir/out"
}

build_project() {
  local dir="${1:-}" opt
  [ -n "$dir" ] || usage
  shift
  for opt in "$@"; do
    [ "${opt#-D}" != "$opt" ] || die "'$opt': build takes only -DNAME=VALUE options after DIR"
  done
  [ -f "$dir/CMakeLists.txt" ] || die "'$dir' has no CMakeLists.txt (make one with: m2vp firmware new $dir)"
  dir="$(cd "$dir" && pwd)"
  # The optimisation level is set on every build: one given once must not
  # stay in CMake's cache for the builds after it.
  local level="-O2"
  for opt in "$@"; do
    case "$opt" in -DM2FW_OPTIMIZE=*) level="${opt#-DM2FW_OPTIMIZE=}" ;; esac
  done
  cmake -S "$dir" -B "$dir/build" -G Ninja \
    -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchain-ppc603e.cmake" -DM2VP_ROOT="$ROOT" "$@" \
    -DM2FW_OPTIMIZE="$level" >/dev/null
  cmake --build "$dir/build"
  local elf
  for elf in "$dir"/build/out/*.elf; do
    [ -e "$elf" ] && say "built $elf ($level)"
  done
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
  new) [ $# -le 2 ] || usage; new_project "$@" ;;
  build) [ $# -ge 1 ] || usage; build_project "$@" ;;
  *) usage ;;
esac
