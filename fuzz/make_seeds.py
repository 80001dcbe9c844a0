#!/usr/bin/env python3
"""Writes the hand-made seeds of fuzz/corpus/ (the GDB session, MLX packets,
MMP answers and config inputs with --set overrides). The firmware ELFs in
fuzz/corpus/fuzz_elf/ are copies of build/firmware/*.elf with debug
sections stripped (powerpc-linux-gnu-strip --strip-debug), not made here.
Rerun after changing a format: python3 fuzz/make_seeds.py"""
import pathlib
import struct

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE / "corpus"


def write(target, name, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def gdb_frame(payload):
    return "$%s#%02x" % (payload, sum(payload.encode()) % 256)


def gdb_seeds():
    # What gdb-multiarch sends on `target remote`, then a look around, a
    # breakpoint, a step, a continue, Ctrl-C and detach.
    connect = ["qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;xmlRegisters=powerpc",
               "vMustReplyEmpty", "QStartNoAckMode", "Hg0", "qXfer:features:read:target.xml:0,ffb",
               "qTStatus", "?", "qfThreadInfo", "qsThreadInfo", "qC", "qAttached", "Hc-1", "g"]
    write("fuzz_gdb", "connect", "+" + "".join(gdb_frame(p) + "+" for p in connect))
    look = ["m1000,4", "m1ffc,8", "p3", "P3=00001008", "p4", "M1000,4:deadbeef",
            "X1004,2:\x7d\x5d\x7d\x03", "qRcmd,74696d65", "qRcmd,6e6f6e65"]
    write("fuzz_gdb", "memory_registers", "".join(gdb_frame(p) for p in look))
    run = ["Z0,1008,4", "vCont?", "vCont;s:1", "s", "z0,1008,4", "Z0,3,4", "c", "vCont;c"]
    write("fuzz_gdb", "break_step_continue", "".join(gdb_frame(p) for p in run) + "\x03" + gdb_frame("D"))
    # Framing trouble: a bad checksum, a NAK, an unterminated packet, a kill.
    write("fuzz_gdb", "framing", "$g#00-" + gdb_frame("m1000,") + "$m10" + gdb_frame("k"))
    write("fuzz_gdb", "run_length", gdb_frame("X1000,8:" + "0*\x22") + gdb_frame("G" + "0" * 40 + "1" * 16))


def mlx_message(dst, src, payload):
    words = struct.pack(">II", (dst << 16) | src, len(payload))  # type 0: unicast
    body = words + payload
    pad = (-len(body)) % 32
    return body + bytes(pad)


def mlx_seeds():
    write("fuzz_mlx", "one_packet", mlx_message(1, 0, bytes(range(24))))
    write("fuzz_mlx", "four_packets", mlx_message(3, 2, bytes((i * 7) & 0xFF for i in range(100))))
    write("fuzz_mlx", "empty_then_two", mlx_message(0, 1, b"") + mlx_message(1, 0, b"ab" * 20))
    # Broadcast header (type 1) with a length of 56: two packets.
    write("fuzz_mlx", "broadcast", struct.pack(">II", 0xFFFF0002, (1 << 24) | 56) + bytes(range(56)))


def mmp_seeds():
    # The fake NI's answers byte by byte (fuzz/fuzz_mmp_host.c): all honest,
    # all zero, and a fixed pseudo-random stream.
    write("fuzz_mmp_host", "honest", bytes([1]) * 512)
    write("fuzz_mmp_host", "zeros", bytes(256))
    x, out = 12345, bytearray()
    for _ in range(1024):
        x = (1103515245 * x + 12345) % 2**31
        out.append(x >> 16 & 0xFF)
    write("fuzz_mmp_host", "lcg", bytes(out))
    # Send then receive of 64 bytes with a record that says 64 bytes at offset 0.
    rec = bytes([9, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 7, 3])
    write("fuzz_mmp_host", "send_recv", bytes([1] * 12) + bytes([0, 0, 64]) + bytes([1] * 8) + bytes([1, 0, 64]) + rec * 4)


def config_seeds():
    root = HERE.parent / "configs"
    for name in ["hello", "cluster-4", "mmp-variants", "pingping-cascade", "scale-4"]:
        write("fuzz_config", name, (root / (name + ".yaml")).read_text())
    # The config, then NUL-separated --set assignments.
    write("fuzz_config", "cluster-4_set", (root / "cluster-4.yaml").read_text()
          + "\0topology.nodes=8\0sim.max_time_ms=5\0node*.ni.cpu.offset=-3")
    write("fuzz_config", "links_groups", "platform: cluster\ntopology:\n  nodes: 4\n  switch_boxes: 2\n"
          "  links: node0:sb0.0 node1:sb0.1 sb0.7:sb1.7 node2:sb1.0 node3:sb1.1\n  groups: 1=0,2 2=1,3\n")
    write("fuzz_config", "recursive_alias", "topology: &t {nodes: 4, self: *t}\n")
    write("fuzz_config", "cases_set", "platform: cluster\ncases:\n  show: latency_us\n  vary:\n    nodes:\n"
          "      two: {topology.nodes: 2}\n      three: {topology.nodes: 3}\n\0sim.trace=*\0sim.messages=true")


if __name__ == "__main__":
    gdb_seeds()
    mlx_seeds()
    mmp_seeds()
    config_seeds()
