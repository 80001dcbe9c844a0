"""The analytical model's equations: unloaded latency per size and hop
count, and for experiment 6's patterns per topology the mean latency and the
throughput per node (docs/experiments.md, experiment 9).

Contention model. A phase of the pattern is M rounds (scale.c: --msgs).
  All-to-all and ring are closed rounds: a node sends its D messages, then
  waits for its D arrivals. A round takes T0 (the unloaded latency at the
  pattern's mean hop count) plus the queue at the busiest resource:
      R = T0 + max((D - 1) g_bi, max_c (L_c - 1) t*_c, (H - 1) t_sb)
  with g_bi the NI's time per message when it sends and receives (the
  injection / per-port bound: D messages each way per round) and L the
  flows per round on the busiest channel between switch boxes (the
  bisection bound generalised to every cut: L >= flows across the
  bisection / channels across it), t_ch a channel's time per message
  (t*_c: held longer while the next channel of the path is busy,
  model_blocking.py; the max over channels is near the busiest's), and
  H the headers per round at the busiest switch box (model_boxes.py: the
  messages whose path passes it, times their chunks), t_sb its routing
  firmware's time per header (the switch-box bound: one PowerPC routes
  every header of the box one after another).
  Arrivals spread evenly over the round, and each message also waits for
  its own service at the NI (not in T0's unloaded share): the mean latency
  is (T0 + R + g_bi) / 2, plus how much later the early sends leave
  because the NI's firmware takes the round's D requests four a step ahead
  of its sends (model_requests.py; 0 where the data's time hides them),
  less g_r (D - 1) / D where the round's requests are all taken in the
  first step and a message is one chunk (the ring): the second send's step
  has no receive to serve yet (model_early_sends.py).
  Throughput per node: M D s / phase, the phase M rounds R_max, the same
  round at the pattern's longest path: a node's next round waits for its D
  arrivals (scale.c), so the nodes of the farthest pairs (the ring's
  wrap-around pair, the pairs over a tree's top) finish their M rounds
  last, and the phase (experiment 6's, from the earliest start to the last
  arrival on any node) is M of their rounds after the later one's start:
      R_max = T0(s, h_max) + the same queue [+ W on the ring],
  W the ring's farthest message's wait on the cables of its path for the
  round's other flows on them (model_blocking.path_wait: rho_c t*_c / 2 per
  cable). In the all-to-all the round is the busiest resource's backlog,
  which a path's wait does not lengthen (not added there). The phase runs
  from the earliest start (scale.c's common start: node i starts
  i x START_STAGGER_US late) to the end of the last node's M rounds:
      phase = max over the farthest pairs of (later node's start + M R_max)
  (the all-to-all: (n - 1) x stagger + M R_max).
  The projections pass stagger_us = 0 (model.py says why), also to the hot
  spot's send times (its arrival order and the send delay d).
  The mean latency stays at the mean hop count.
  Hot spot: the n - 1 senders stream M messages each into one NI that
  receives only (the receiver's NI bound, g_r); the busiest channel
  carries L of the n - 1 streams and the busiest box routes H headers of
  them, so per message at the hot node (S: the posted receives of other
  sources each message walks past in the hot NI's list, in the arrival
  order below, t_skip the firmware's time per entry, model_match.py)
      w = max(g_r + S t_skip, L t_ch / (n - 1), H t_sb / (n - 1)),
      phase = t_first + ((n - 1) M - 1) w.
  The senders inject far faster than one NI takes (their sends alone), so
  the K = (n - 1) M messages queue at once: the j-th to arrive waits j w
  behind the first, which the NI delivers at t_first (the nearest sender's
  unloaded latency, model_hot_origin.py).
  The hot node takes them in its program order (round by round, sources
  1..n-1), not in their arrival order: a message is observed at the prefix
  maximum of the arrival positions in that order (model_order.py predicts
  the arrival order from the routes and the boxes' FIFO routing), so the
  mean latency is t_first + P w - d with P that mean position ((K - 1) / 2
  if the arrival order were the wait order) and d the messages' mean send
  time after the first's (each latency counts from its own send).
  Throughput per node: the hot node's (n - 1) M s / phase over n
  (experiment 6's column).
"""
from model_blocking import channel_graph, channel_queue, path_wait
from model_boxes import busiest_box
from model_early_sends import early_send_saving_us
from model_fit import FLOOR_BYTES, chunks, unloaded_latency
from model_hot_origin import first_delivery_us, send_delay_us
from model_match import mean_skipped
from model_requests import intake_delay_us
from model_order import START_STAGGER_US, hot_spot_order, hot_spot_position, scale_wait_order
from model_shapes import farthest_pairs, traffic_summary

PATTERNS = ("alltoall", "neighbour", "hotspot")


def service(model, name, size):
    p = model["service"][name]
    return max(p["us"] + p["us_per_byte"] * size, p.get("floor_us", 0.0), 0.0)


def predict(model, shape, nodes, pattern, size, msgs, stagger_us=START_STAGGER_US):
    """{'mean_us', 'mbps', 't0_us', 'bound', 'mean_hops', 'max_load',
    'box_headers', 'sbs', 't_ch_held_us', 'wait_position', 'skipped',
    'intake_us', 'early_us', 'max_hops', 't0_max_us', 't_first_us',
    'send_delay_us', 'wrap_us', 'start_us', 'phase_us'} of one phase
    (stagger_us: scale.c's start stagger per node number; wrap_us the
    ring's farthest message's wait on its cables, start_us the start of the
    node whose M rounds end last, phase_us the phase; on the hot spot
    wrap_us and start_us are 0 and phase_us its stream's phase); intake_us
    the closed rounds' request
    intake, early_us how much earlier the ring's sends leave for its
    receive-free second send (both 0 for the hot spot); skipped the hot NI's mean posted receives walked past per message
    (None for the other patterns);
    t_ch_held_us is t* of the channel that sets the channels' queue (t_ch on
    the hot spot), wait_position the hot spot's mean observed position (in
    messages; None for the other patterns), t_first_us the hot spot's
    first delivery and send_delay_us its messages' mean send time after the
    first's (model_hot_origin.py; None for the other patterns)."""
    t = traffic_summary(shape, nodes, pattern)
    t0 = unloaded_latency(model["unloaded"], size, t["mean_hops"])
    g_bi = service(model, "g_bi", size)
    t_ch = service(model, "t_ch", size)
    g_r = service(model, "g_r", size)
    # The hot spot's busiest channel ends at the hot node's box, where the
    # blocking term adds nothing, and a stream has no round: t_ch as it is.
    held = {"held_us": t_ch}
    L = t["max_load"]
    t_sb = model["switch_box"]["us_per_header"]
    H = busiest_box(shape, nodes, pattern)["messages"] * chunks(size)
    position = skipped = t_first = send_delay = None
    intake = early = wrap = start = 0.0
    t0_max = t0  # the hot spot's phase has its own terms
    if pattern == "hotspot":
        senders = nodes - 1
        # scale.c posts the hot node's receives in its wait order; each
        # arriving message walks past those of sources not arrived yet.
        arrivals = [s for s, _ in hot_spot_order(model, shape, nodes, size, msgs, t_ch, stagger_us)]
        skipped = mean_skipped(arrivals, [s for s, _ in scale_wait_order(nodes, msgs)])
        w, bound = g_r + skipped * model["ni_cpu"]["us_per_skip"], "receiver NI"
        if L * t_ch / senders > w:  # the busiest channel carries L of the n - 1 streams
            w, bound = L * t_ch / senders, "channel"
        if H * t_sb / senders > w:  # the busiest box routes H headers of them
            w, bound = H * t_sb / senders, "switch box"
        k = senders * msgs
        # The queue starts at the nearest sender's message, and each
        # latency counts from its own send (model_hot_origin.py).
        t_first = first_delivery_us(model, shape, nodes, size)
        send_delay = send_delay_us(nodes, msgs, model["logp"]["g_us"], stagger_us)
        phase = t_first + (k - 1) * w
        position = hot_spot_position(model, shape, nodes, size, msgs, t_ch, stagger_us)
        mean = t_first + position * w - send_delay
        mbps = senders * msgs * size * 8 / phase / nodes
    else:
        d = 2 if pattern == "neighbour" and nodes > 2 else (1 if pattern == "neighbour" else nodes - 1)
        # The channels' queue with their blocking (model_blocking.py): the
        # busy time of the NIs and boxes bounds how busy a channel can be.
        held = channel_queue(channel_graph(shape, nodes, pattern), t_ch, max(d * g_bi, H * t_sb))
        queues = {"injection (NI)": (d - 1) * g_bi, "channel": held["queue_us"],
                  "switch box": max(H - 1, 0) * t_sb}
        bound = max(queues, key=queues.get)  # ties: the first (dict order)
        queue = queues[bound]
        r = t0 + queue
        if d == 1:
            bound = "latency"
        # The request intake (model_requests.py): the NI's CPU sets a 16 B
        # message's time, the data's move a larger one's, if it is longer.
        g_cpu = service(model, "g_bi", FLOOR_BYTES)  # the smallest fitted size: the NI's CPU alone
        intake = intake_delay_us(model["requests"]["us_per_request"], g_cpu, g_bi, d, chunks(size))
        # The ring's second send: its step has no receive to serve yet
        # (model_early_sends.py), so it follows the first sooner.
        early = early_send_saving_us(g_r, d, chunks(size))
        mean = (t0 + r + g_bi) / 2 + intake - early
        # The phase lasts M rounds of the farthest pairs' nodes, from the
        # earliest start: the later of a pair starts its first round
        # (its node number) x stagger_us late (scale.c's common start).
        t0_max = unloaded_latency(model["unloaded"], size, t["max_hops"])
        if pattern == "neighbour":
            # Its farthest message meets the round's other flows on the
            # cables of its path (model_blocking.path_wait).
            graph = channel_graph(shape, nodes, pattern)
            ends = []
            for (a, b), route in farthest_pairs(shape, nodes, pattern):
                w = path_wait(graph, t_ch, held["busy_us"], route)
                ends.append((max(a, b) * stagger_us + msgs * (t0_max + queue + w), w, max(a, b) * stagger_us))
            phase, wrap, start = max(ends)
        else:
            # The all-to-all's round is its busiest resource's backlog, the
            # same on every node: the last node to start ends last.
            start = (nodes - 1) * stagger_us
            phase = start + msgs * (t0_max + queue)
        mbps = msgs * d * size * 8 / phase
    return {"mean_us": mean, "mbps": mbps, "t0_us": t0, "bound": bound, "mean_hops": t["mean_hops"],
            "max_load": L, "box_headers": H, "sbs": t["sbs"], "t_ch_held_us": held["held_us"],
            "wait_position": position, "skipped": skipped,
            "intake_us": intake, "early_us": early, "max_hops": t["max_hops"], "t0_max_us": t0_max,
            "t_first_us": t_first, "send_delay_us": send_delay,
            "wrap_us": wrap, "start_us": start, "phase_us": phase}
