#!/bin/sh
# Runs one job of a job list (traces/joblist.py): line INDEX+1 of JOBLIST, a
# shell command line, with its standard error in LOGDIR/INDEX.err; exits
# with the job's exit code. INDEX defaults to $SLURM_ARRAY_TASK_ID, so that
# `sbatch --array=0-(N-1) run_job.sh JOBLIST LOGDIR` runs the whole list;
# GNU parallel gives INDEX (traces/engines.py).
#   run_job.sh JOBLIST LOGDIR [INDEX]
set -u
[ $# -ge 2 ] || { echo "usage: run_job.sh JOBLIST LOGDIR [INDEX]" >&2; exit 64; }
list=$1
logs=$2
index=${3:-${SLURM_ARRAY_TASK_ID:-}}
case "$index" in
  ''|*[!0-9]*) echo "run_job.sh: error: no job index (give INDEX or run it as a Slurm array task), got '$index'" >&2
               exit 64 ;;
esac
[ -r "$list" ] || { echo "run_job.sh: error: $list: cannot read the job list" >&2; exit 64; }
line=$(sed -n "$((index + 1))p" "$list")
if [ -z "$line" ]; then
  echo "error: $list has no job $index (line $((index + 1)))" >"$logs/$index.err"
  exit 64
fi
exec sh -c "$line" 2>"$logs/$index.err"
