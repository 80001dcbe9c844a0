"""The receiving NI's walk over its posted receives (docs/experiments.md,
experiment 9, "The hot node's posted receives"): what a message costs the
MMP firmware beyond g_r for every posted receive of another source ahead of
the one it matches.

The firmware (sw/firmware/mmp/mmp_fw.c, take_receive) keeps the posted
receives in one list in posting order and, for every arriving message's
first chunk, walks it from its head comparing source, ports and tag; it
takes the first entry that matches and unlinks it. scale.c posts all of a
phase's receives before its start, round by round (round 0 from its
sources in their order, then round 1, ...), all with one tag, so a message
from source s matches s's oldest entry still posted and walks past every
entry still posted ahead of it. If the messages arrive in the posting order
they skip nothing; in another order each skips the entries of sources that
have not arrived yet.

Time per skipped entry: the loop's instructions in the built firmware
(powerpc-linux-gnu-objdump -d of build/firmware/mmp.elf, inlined into
step(): for an entry whose source differs, mulli, lwzx, add, cmpw, bne,
then add, lhz, mr, clrlwi, cmpw, beq, mr, b to the next entry) times the NI
CPU's time per instruction (cpi / clock_mhz of the measurement runs'
params.tsv: the ISS charges SDRAM loads only their instruction,
docs/models/processor.md).
"""
import os

from model_fit import ModelInputError, read_table

# take_receive's loop per posted receive of another source (see above).
SKIP_INSTRUCTIONS = 13
# The run whose parameters give the NI CPU's speed: the NI benchmark that
# g_r and g_bi come from (every node's NI runs the same model).
CPU_RUN = "ni-8"
CPU_KEYS = ("node0.ni.cpu.clock_mhz", "node0.ni.cpu.cpi")


def read_ni_cpu(folder):
    """{'us_per_instruction', 'us_per_skip'} from <folder>/ni-8/params.tsv;
    ModelInputError naming the file and key when one is missing or not a
    positive number."""
    path = os.path.join(folder, CPU_RUN, "params.tsv")
    rows = read_table(path, "\t", ("value",))
    if "name" not in rows[0]:
        raise ModelInputError(f"{path}: no column name (expected m2vp-sim's params.tsv)")
    values = {r["name"]: r["value"] for r in rows}
    got = {}
    for key in CPU_KEYS:
        if key not in values:
            raise ModelInputError(f"{path}: no row {key} (expected the NI CPU's parameters of the run)")
        try:
            v = float(values[key])
        except ValueError:
            v = float("nan")
        if not v > 0 or v == float("inf"):
            raise ModelInputError(f"{path}: {key}: expected a positive number, got '{values[key]}'")
        got[key] = v
    us = got["node0.ni.cpu.cpi"] / got["node0.ni.cpu.clock_mhz"]
    return {"us_per_instruction": us, "us_per_skip": SKIP_INSTRUCTIONS * us}


def skipped_entries(arrivals, posted):
    """Per arriving message (its source, in arrival order) the posted
    receives still in the list ahead of the one it takes: the oldest posted
    for its source. posted: the sources of the receives in posting order."""
    waiting = list(posted)
    out = []
    for src in arrivals:
        try:
            i = waiting.index(src)
        except ValueError:
            raise ValueError(f"model_match: a message from node {src} finds no posted receive") from None
        out.append(i)
        del waiting[i]
    return out


def mean_skipped(arrivals, posted):
    """Mean of skipped_entries over the messages (0 for none)."""
    s = skipped_entries(arrivals, posted)
    return sum(s) / len(s) if s else 0.0
