"""A closed round's second send when the NI has nothing to receive yet
(docs/experiments.md, experiment 9, "The ring's receive-free second send").

g_bi is the NI's time per message when it sends and receives: in the
all-to-all a firmware step (mmp_fw.c step(): requests, receive channels,
one chunk sent) serves a receive next to each send the whole round. The
ring's D = 2 requests are both taken in the first step (at most
REQUESTS_PER_STEP a step, model_requests.py), so the step of the second
send starts the moment the first send is done, before any arrival can be
there (the first sends of the neighbours are done at the same time and
still cross the network): that step has no receive to serve, and the
second send leaves g_r (a receive's time) earlier than g_bi after the
first. The steps after it find the arrivals in (a send-only step, 3.1 us
traced, is longer than the 16 B network time, 2.5-3.0 us), so only the
second send gains, and every send after it leaves g_r earlier too.
Only for one-chunk messages: a larger message's later chunks, each a step,
meet the arrivals, and its data's move (shared by both directions) sets
its time (the 4 KB rows keep g_bi).
"""
from model_requests import REQUESTS_PER_STEP


def early_send_saving_us(g_r, d, chunks):
    """Mean over a round's d sends of how much earlier a send leaves because
    the second send's step had no receive to serve: g_r for sends 2..d when
    the round's requests are all taken in the first step and a message is
    one chunk, else 0."""
    if chunks != 1 or d < 2 or d > REQUESTS_PER_STEP:
        return 0.0
    return g_r * (d - 1) / d
