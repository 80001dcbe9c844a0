"""Where the hot spot's queue starts and what each message's latency counts
from (docs/experiments.md, experiment 9, "The hot spot's queue origin").

The hot NI takes the K = (n - 1) M messages one every w from the first
arrival on, so the j-th it delivers leaves the NI at t_first + j w, whatever
path each message took (the queue does not empty: the far senders' first
messages reach the hot box a few box times after the near ones', long
before the NI has taken the near ones). scale.c measures each message's
latency from its own send (the sender's clock just before MMP_Send), so the
mean latency is

    t_first + P w - (mean send time - first send time)

  - t_first: the unloaded latency of the sender nearest the hot node, T0 at
    the fewest boxes on a route to it (1 where a sender shares its box), less
    half a request: the ping-pongs that T0 is fitted from post the pinging
    side's receive just before its send (mmp_pingpong.c), so its NI takes
    that request (q) ahead of the ping's send, every other message of the
    fit; scale.c's senders post
    nothing in the phase (their receives are none, the start's is taken
    before the start), so their sends have no request ahead.
  - the send times: sender i sends round r at i x scale.c's stagger + r g
    (model_order.injection_times, the same times the arrival order uses).
"""
import statistics

from model_fit import unloaded_latency
from model_order import START_STAGGER_US, hot_spot_paths, injection_times


def nearest_hops(shape, nodes):
    """The fewest boxes on a sender's route to the hot node (node 0)."""
    return min(len(p) for p in hot_spot_paths(shape, nodes).values())


def first_delivery_us(model, shape, nodes, size):
    """t_first: the nearest sender's unloaded latency without the request
    the ping-pong's half carried ahead of its send (q / 2)."""
    t0 = unloaded_latency(model["unloaded"], size, nearest_hops(shape, nodes))
    return t0 - model["requests"]["us_per_request"] / 2


def send_delay_us(nodes, msgs, gap_us, stagger_us=START_STAGGER_US):
    """Mean over the hot spot's messages of when they were sent, after the
    first was: what the latencies, each from its own send, do not count."""
    times = list(injection_times(nodes, msgs, gap_us, stagger_us).values())
    return statistics.fmean(times) - min(times) if times else 0.0
