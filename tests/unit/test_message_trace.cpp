// Unit tests of message tracing (docs/models/message-breakdown.md): the
// models' probes (DMA engine, network buffer, simctrl trace marks), the
// ledger and its stage breakdown, the Perfetto writer, and the MMP wire
// header's message id.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <ip/mlx.h>
#include <ip/mmp_protocol.h>
#include <ip/msg_trace.h>
#include <ip/ni_dma.h>
#include <ip/ni_memory_map.h>
#include <ip/simctrl.h>

#include "core/memory.h"
#include "core/params.h"
#include "core/router.h"
#include "core/run_control.h"
#include "devices/simctrl.h"
#include "ni/dma_engine.h"
#include "ni/netbuf.h"
#include "platform/mmp_message_id.h"
#include "trace/message_breakdown.h"
#include "trace/message_ledger.h"
#include "trace/perfetto_writer.h"

#include "message_observer_fake.h"
#include "test_initiator.h"
#include "test_thread.h"

using m2::MessageId;
using m2::MessagePoint;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

constexpr uint64_t HOST = NI_HOST_WINDOW_BASE;

// Records the message tag of every transaction into the host window.
struct TagProbe : sc_core::sc_module {
  tlm_utils::simple_target_socket<TagProbe> target{"target"};
  tlm_utils::simple_initiator_socket<TagProbe> init{"init"};
  std::vector<MessageId> writes;
  explicit TagProbe(sc_core::sc_module_name n) : sc_module(n) {
    target.register_b_transport(this, &TagProbe::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_time& d) {
    if (t.is_write()) writes.push_back(m2::message_of(t));
    init->b_transport(t, d);
  }
};

// An NI bus with SDRAM, host memory behind a tag probe, the network buffer
// and the DMA engine, both reporting to a fake observer as site 3.
struct Bench {
  m2::Router bus{"bus"};
  m2::Memory sdram{"sdram", 1 << 20};
  m2::Memory host_mem{"host_mem", 1 << 20};
  TagProbe probe{"probe"};
  m2::NetBuf nb{"nb"};
  m2::DmaEngine dma{"dma"};
  m2test::TestInitiator cpu{"cpu"};
  m2test::FakeObserver obs;

  Bench() {
    cpu.socket.bind(bus.target);
    dma.master.bind(bus.target);
    bus.attach(sdram.socket, NI_SDRAM_BASE, 1 << 20, "sdram");
    bus.attach(nb.data, NI_NETBUF_DATA_BASE, NI_NETBUF_DATA_SIZE, "netbuf data");
    bus.attach(nb.regs, NI_NETBUF_BASE, NI_DEVICE_SIZE, "netbuf regs");
    bus.attach(dma.regs, NI_DMA_BASE, NI_DEVICE_SIZE, "dma regs");
    bus.attach(probe.target, HOST, 1 << 20, "host window");
    probe.init.bind(host_mem.socket);
    dma.connect_netbuf(&nb);
    dma.set_message_probe({&obs, 3});
    nb.set_message_probe({&obs, 3});
  }
  void start(uint64_t src, uint64_t dst, uint32_t len, uint32_t ctrl) {
    REQUIRE(cpu.write32(NI_DMA_BASE + DMA_SRC, static_cast<uint32_t>(src)) == tlm::TLM_OK_RESPONSE);
    REQUIRE(cpu.write32(NI_DMA_BASE + DMA_DST, static_cast<uint32_t>(dst)) == tlm::TLM_OK_RESPONSE);
    REQUIRE(cpu.write32(NI_DMA_BASE + DMA_LEN, len) == tlm::TLM_OK_RESPONSE);
    REQUIRE(cpu.write32(NI_DMA_BASE + DMA_CTRL, ctrl) == tlm::TLM_OK_RESPONSE);
  }
  void wait_idle() {
    while (dma.status() & DMA_STATUS_BUSY) sc_core::wait(dma.done_event());
  }
};

// An MLX message: header (source field `src`) and `len` payload bytes.
std::vector<uint8_t> mlx_message(uint32_t src, uint32_t len) {
  std::vector<uint8_t> m(MLX_HEADER_BYTES + len, 0x5A);
  const uint32_t w0 = MLX_HDR_WORD0(1, src), w1 = MLX_HDR_WORD1(MLX_TYPE_UNICAST, len);
  for (int i = 0; i < 4; ++i) {
    m[i] = static_cast<uint8_t>(w0 >> (24 - 8 * i));
    m[4 + i] = static_cast<uint8_t>(w1 >> (24 - 8 * i));
  }
  return m;
}

void simulate(std::function<void()> body) {
  m2test::TestThread t("test", std::move(body));
  sc_core::sc_start();
  CHECK(t.finished);
}

}  // namespace

TEST_CASE(
    "message trace: traced DMA descriptors report queue and end and tag their transactions, the netbuf names "
    "what passes its windows",
    "[model][trace][messages]") {
  Bench b;
  const uint32_t tag = MSG_TAG(5, 77);
  const MessageId dma_id = 0x2000 | tag;  // the fake observer's resolution
  const uint32_t traced = DMA_CTRL_START | DMA_CTRL_TRACE(tag);
  simulate([&] {
    // TX: the CPU writes a message's first 32 bytes, a traced descriptor the
    // rest; then a second message by an untraced descriptor.
    const std::vector<uint8_t> m = mlx_message(9, 100), m2 = mlx_message(10, 40);
    REQUIRE(b.cpu.write(NI_SDRAM_BASE + 0x1000, m) == tlm::TLM_OK_RESPONSE);
    REQUIRE(b.cpu.write(NI_SDRAM_BASE + 0x2000, m2) == tlm::TLM_OK_RESPONSE);
    REQUIRE(b.cpu.write(NI_NETBUF_TX_WINDOW(0), std::vector<uint8_t>(m.begin(), m.begin() + 32)) ==
            tlm::TLM_OK_RESPONSE);
    CHECK(b.obs.of(MessagePoint::TxPushed).empty());
    sc_core::wait(sc_time(100, SC_NS));
    b.start(NI_SDRAM_BASE + 0x1000 + 32, NI_NETBUF_TX_WINDOW(0), 76, traced);
    b.wait_idle();
    b.start(NI_SDRAM_BASE + 0x2000, NI_NETBUF_TX_WINDOW(0), 48, DMA_CTRL_START);
    b.wait_idle();
    // RX: a message arrives; the CPU reads its header, a traced descriptor
    // moves the rest to host memory, another (a record) SDRAM to host.
    b.nb.rx_push(1, m.data(), static_cast<unsigned>(m.size()));
    std::vector<uint8_t> head(32);
    REQUIRE(b.cpu.read(NI_NETBUF_RX_WINDOW(1), head) == tlm::TLM_OK_RESPONSE);
    b.start(NI_NETBUF_RX_WINDOW(1), HOST + 0x100, 76, traced);
    b.wait_idle();
    b.start(NI_SDRAM_BASE + 0x1000, HOST + 0x1000, 32, traced);
    b.wait_idle();
  });
  using P = MessagePoint;
  const auto queued = b.obs.of(P::TxDmaQueued), done = b.obs.of(P::TxDmaDone), pushed = b.obs.of(P::TxPushed);
  REQUIRE(queued.size() == 1);
  REQUIRE(done.size() == 1);
  REQUIRE(pushed.size() == 2);
  CHECK(queued[0].id == dma_id);
  CHECK(queued[0].site == 3);
  // The CTRL write: issued at 100 ns, at the engine after the bus's latency.
  CHECK(queued[0].time_ps == 100000 + static_cast<uint64_t>(b.bus.latency_ns.get() * 1000));
  CHECK(done[0].id == dma_id);
  CHECK(done[0].time_ps > queued[0].time_ps);
  // Each message's last byte in, named by its header (source 9, then 10).
  CHECK(pushed[0].id == 0x1009);
  CHECK(pushed[0].time_ps > queued[0].time_ps);
  CHECK(pushed[0].time_ps <= done[0].time_ps);
  CHECK(pushed[1].id == 0x100A);
  const auto header = b.obs.of(P::RxHeader);
  REQUIRE(header.size() == 1);
  CHECK(header[0].id == 0x1009);
  REQUIRE(b.obs.of(P::RxDmaQueued).size() == 1);
  REQUIRE(b.obs.of(P::RxDmaDone).size() == 1);
  CHECK(b.obs.of(P::RxDmaDone)[0].id == dma_id);
  REQUIRE(b.obs.of(P::RecordQueued).size() == 1);
  REQUIRE(b.obs.of(P::RecordDone).size() == 1);
  // Every host write of the traced descriptors carries the message's tag.
  REQUIRE(b.probe.writes.size() >= 3);
  for (MessageId id : b.probe.writes) CHECK(id == dma_id);
}

TEST_CASE("message trace: a simctrl trace mark reports its event at the store's time and unknown events are ignored",
          "[model][trace][messages]") {
  m2::RunControl run;
  m2::SimCtrl simctrl("simctrl", run, "cpu", 100000000, 300000000);
  m2test::TestInitiator cpu("cpu");
  cpu.socket.bind(simctrl.regs);
  m2test::FakeObserver obs;
  simctrl.set_message_probe({&obs, 4});
  simulate([&] {
    const uint32_t tag = MSG_TAG(2, 9);
    uint8_t v[4];
    auto store = [&](uint32_t word, sc_time offset) {
      for (int i = 0; i < 4; ++i) v[i] = static_cast<uint8_t>(word >> (24 - 8 * i));
      REQUIRE(cpu.transport(tlm::TLM_WRITE_COMMAND, SIMCTRL_TRACE_MARK, v, 4, offset) == tlm::TLM_OK_RESPONSE);
    };
    store(SIMCTRL_MARK(SIMCTRL_MARK_SEND_TAKEN, tag), sc_time(30, SC_NS));  // a CPU 30 ns ahead
    store(SIMCTRL_MARK(0x7F, tag), sc_core::SC_ZERO_TIME);
  });
  REQUIRE(obs.events.size() == 1);
  CHECK(obs.events[0].point == MessagePoint::SendTaken);
  CHECK(obs.events[0].site == 4);
  CHECK(obs.events[0].id == (0x2000 | MSG_TAG(2, 9)));
  CHECK(obs.events[0].time_ps == 30000);
}

TEST_CASE("message trace: the MMP wire header names its message", "[trace][messages]") {
  uint8_t h[MMP_WIRE_HEADER_BYTES] = {};
  auto put = [&h](unsigned off, uint32_t v) {
    for (int i = 0; i < 4; ++i) h[off + i] = static_cast<uint8_t>(v >> (24 - 8 * i));
  };
  put(0, MLX_HDR_WORD0(1, 3));
  put(4, MLX_HDR_WORD1(MLX_TYPE_UNICAST, MMP_HDR_BYTES + 10));
  put(MLX_HEADER_BYTES + MMP_HDR_SEQ, 0x12345678u);
  put(MLX_HEADER_BYTES + MMP_HDR_KIND, MMP_KIND_WORD(MMP_KIND_DATA, MMP_HFLAG_LAST));
  CHECK(m2::mmp_message_id(h, sizeof h) == m2::make_message_id(3, 0x12345678u));
  CHECK(m2::message_name(m2::mmp_message_id(h, sizeof h)) == "3.305419896");
  CHECK(m2::mmp_message_id(h, sizeof h - 1) == 0);    // not a whole wire header
  put(MLX_HEADER_BYTES + MMP_HDR_KIND, 0x12340100u);  // not MMP
  CHECK(m2::mmp_message_id(h, sizeof h) == 0);
}

namespace {

using Kind = m2::MessageLedger::SiteKind;

// The ledger, on, with sites node0, node1, sb0, sb1.
struct Ledger {
  m2::MessageLedger& l = m2::MessageLedger::instance();
  m2::MessageProbe n0, n1, s0, s1;
  Ledger(uint64_t from = 0, uint64_t to = UINT64_MAX) {
    l.clear();
    l.configure(true, from, to, m2::mmp_message_id);
    n0 = l.probe(Kind::Node, 0);
    n1 = l.probe(Kind::Node, 1);
    s0 = l.probe(Kind::SwitchBox, 0);
    s1 = l.probe(Kind::SwitchBox, 1);
  }
  ~Ledger() { l.clear(); }
  size_t column(const std::string& name) const {
    const auto& st = m2::message_stages();
    for (size_t i = 0; i < st.size(); ++i)
      if (name == st[i].column) return i;
    FAIL("no stage " << name);
    return 0;
  }
};

}  // namespace

TEST_CASE(
    "message breakdown: consecutive stages from the last piece at each point, switch boxes in the order "
    "reached, summing to the end-to-end time",
    "[trace][messages]") {
  Ledger t;
  using P = MessagePoint;
  const MessageId id = m2::make_message_id(0, 5);
  t.l.started(t.n0.site, id, 1, 4096, 7, 1000);
  CHECK(t.l.resolve(MSG_TAG(0, 5)) == id);
  t.n0(P::HostPosted, id, 1200);
  t.n0(P::RequestIn, id, 1100);  // in before the host was done: adds nothing
  t.n0(P::TxDmaQueued, id, 2000);
  t.n0(P::TxDmaQueued, id, 2500);  // later chunks: the firmware's stage ends at the first
  t.n0(P::TxPushed, id, 3000);
  t.n0(P::TxPushed, id, 4000);
  t.n0(P::MlxCut, id, 4100);
  // Through sb1, then sb0 (reached in that order, whatever their numbers).
  t.s1(P::LinkIn, id, 4500);
  t.s1(P::SbHeader, id, 4600);  // the header while the tail still comes: hidden
  t.s1(P::LinkIn, id, 5000);
  t.s1(P::SbRequest, id, 5100);
  t.s1(P::SbMoveStart, id, 5150);
  t.s1(P::SbMoveEnd, id, 5300);
  t.s0(P::LinkIn, id, 5600);
  t.s0(P::SbHeader, id, 5650);
  t.s0(P::SbRequest, id, 5700);
  t.s0(P::SbMoveStart, id, 5800);
  t.s0(P::SbMoveEnd, id, 5900);
  t.n1(P::LinkIn, id, 6200);
  t.n1(P::RxHeader, id, 6500);
  t.n1(P::RxDmaQueued, id, 6600);
  t.n1(P::RxDmaDone, id, 7000);
  t.n1(P::RecordQueued, id, 7050);
  t.n1(P::HostDone, id, 8000);
  t.n1(P::RxDmaDone, id, 9000);            // after the end: ignored
  CHECK(t.l.resolve(MSG_TAG(0, 5)) == 0);  // complete: its tag names nothing any more

  REQUIRE(t.l.records().size() == 1);
  const m2::MessageLedger::Record& r = t.l.records()[0];
  CHECK(r.done);
  CHECK(r.dst == 1);
  CHECK(r.bytes == 4096);
  CHECK(r.tag == 7);
  const m2::MessageBreakdown b = m2::break_down(r, t.l);
  const std::vector<std::pair<std::string, uint64_t>> want = {
      {"host_send_us", 200},   {"request_us", 0},     {"fw_send_us", 800},    {"dma_send_us", 2000},
      {"netbuf_wait_us", 100}, {"link_send_us", 900}, {"sb_analyzer_us", 50}, {"sb_routing_us", 150},
      {"sb_station_us", 150},  {"sb_bus_us", 250},    {"sb_link_us", 300},    {"link_recv_us", 300},
      {"fw_recv_us", 400},     {"dma_recv_us", 400},  {"host_recv_us", 1000}};
  uint64_t sum = 0;
  for (const auto& [column, ps] : want) {
    INFO(column);
    CHECK(b.stage_ps[t.column(column)] == ps);
    sum += ps;
  }
  CHECK(sum == r.end_ps - r.start_ps);
  // The intervals are consecutive, non-empty and where they were spent.
  REQUIRE(!b.intervals.empty());
  CHECK(b.intervals.front().begin_ps == 1000);
  CHECK(b.intervals.back().end_ps == 8000);
  for (size_t i = 0; i < b.intervals.size(); ++i) {
    CHECK(b.intervals[i].end_ps > b.intervals[i].begin_ps);
    if (i) CHECK(b.intervals[i].begin_ps == b.intervals[i - 1].end_ps);
  }
  CHECK(b.intervals[4].stage == t.column("link_send_us"));
  CHECK(b.intervals[5].site == static_cast<int>(t.s1.site));  // sb1's routing first
}

TEST_CASE("message breakdown: missing points add nothing, the window and cancelled sends, the table and the CSV",
          "[trace][messages]") {
  constexpr uint64_t ns = 1000;  // ps
  Ledger t(1000 * ns, 50000 * ns);
  using P = MessagePoint;
  // Outside the window: not recorded, its reports ignored.
  t.l.started(t.n0.site, m2::make_message_id(0, 1), 1, 8, 0, 500 * ns);
  t.n0(P::HostPosted, m2::make_message_id(0, 1), 600 * ns);
  // Cancelled: not a message.
  t.l.started(t.n0.site, m2::make_message_id(0, 2), 1, 8, 0, 1000 * ns);
  t.l.cancelled(m2::make_message_id(0, 2));
  // An empty message the CPU pushed (no DMA) and whose record the firmware
  // queued without a data DMA: the firmware stages last until then.
  const MessageId a = m2::make_message_id(0, 3), c = m2::make_message_id(1, 4);
  t.l.started(t.n0.site, a, 1, 0, 2, 2000 * ns, "timed");  // the application's phase, into the CSV
  t.n0(P::HostPosted, a, 2100 * ns);
  t.n0(P::TxPushed, a, 2600 * ns);
  t.n1(P::LinkIn, a, 3000 * ns);  // straight to the receiver (no switch box)
  t.n1(P::RecordQueued, a, 3500 * ns);
  t.n1(P::HostDone, a, 4000 * ns);
  // Another, still in flight at the end.
  t.l.started(t.n1.site, c, 0, 64, 0, 4500 * ns);

  REQUIRE(t.l.records().size() == 3);
  const m2::MessageBreakdown b = m2::break_down(t.l.records()[1], t.l);
  CHECK(b.stage_ps[t.column("host_send_us")] == 100 * ns);
  CHECK(b.stage_ps[t.column("fw_send_us")] == 500 * ns);
  CHECK(b.stage_ps[t.column("dma_send_us")] == 0);
  CHECK(b.stage_ps[t.column("link_send_us")] == 400 * ns);
  CHECK(b.stage_ps[t.column("link_recv_us")] == 0);
  CHECK(b.stage_ps[t.column("fw_recv_us")] == 500 * ns);
  CHECK(b.stage_ps[t.column("dma_recv_us")] == 0);
  CHECK(b.stage_ps[t.column("host_recv_us")] == 500 * ns);

  const std::string summary = m2::format_message_summary(t.l);
  INFO(summary);
  CHECK(summary.find("2 messages sent in the window, 1 complete, 1 not complete") != std::string::npos);
  CHECK(summary.find("  fw_send_us              0.500        0.500        0.500    25.0%\n") != std::string::npos);
  CHECK(summary.find("  total_us                2.000        2.000        2.000   100.0%\n") != std::string::npos);

  const std::string path =
      (std::filesystem::temp_directory_path() / ("m2vp-messages-" + std::to_string(::getpid()) + ".csv")).string();
  m2::write_messages_csv(path, t.l);
  std::ifstream f(path);
  std::string header, row, extra;
  std::getline(f, header);
  std::getline(f, row);
  CHECK_FALSE(std::getline(f, extra));
  std::filesystem::remove(path);
  CHECK(header.rfind("msg,src,dst,bytes,tag,phase,start_us,end_us,total_us,host_send_us,request_us,fw_send_us,", 0) ==
        0);
  CHECK(row ==
        "0.3,0,1,0,2,timed,2.000000,4.000000,2.000000,0.100000,0.000000,0.500000,0.000000,0.000000,0.400000,"
        "0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.500000,0.000000,0.500000");
}

// What PerfettoTrace::write puts into a file.
static std::string written(const m2::PerfettoTrace& trace) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("m2vp-trace-" + std::to_string(::getpid()) + ".json")).string();
  trace.write(path);
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::filesystem::remove(path);
  return ss.str();
}

TEST_CASE(
    "perfetto writer: overlapping slices of a track go to lanes, flows follow each message through its "
    "slices",
    "[trace][messages]") {
  m2::PerfettoTrace trace;
  const unsigned pid = trace.add_process("messages");
  const unsigned a = trace.add_track(pid, "node0.ni.dma"), b = trace.track(pid, "sb0.cpu");
  CHECK(trace.track(pid, "node0.ni.dma") == a);
  const MessageId m = m2::make_message_id(0, 1), n = m2::make_message_id(1, 2);
  trace.add(a, "DMA", 1000000, 3000000, "\"bytes\":64", {m});
  trace.add(a, "DMA", 2000000, 4000000, "", {n});  // overlaps: a second lane
  trace.add(a, "DMA", 5000000, 6000000, "", {m});  // fits the first lane again
  trace.add(b, "routing", 3000000, 3500000, "", {m});
  trace.add(b, "tiny", 7000000, 7000001, "", {n});  // too short to bind a flow to
  const std::string json = written(trace);
  auto count = [&json](const std::string& what) {
    size_t k = 0;
    for (size_t at = json.find(what); at != std::string::npos; at = json.find(what, at + 1)) ++k;
    return k;
  };
  CHECK(count("\"ph\":\"X\"") == 5);
  CHECK(count("\"name\":\"node0.ni.dma #2\"") == 1);
  CHECK(count("\"name\":\"sb0.cpu\"") == 1);
  CHECK(count("\"name\":\"process_name\"") == 1);
  // Message 0.1: three slices (start, step, end); 1.2 has one usable slice.
  CHECK(count("\"ph\":\"s\"") == 1);
  CHECK(count("\"ph\":\"t\"") == 1);
  CHECK(count("\"ph\":\"f\"") == 1);
  CHECK(count("\"msg\":\"0.1\"") == 3);
  // Each point 1 ps after its slice's start: inside it, in the slices' order.
  CHECK(json.find("\"ph\":\"s\",\"id\":1,\"cat\":\"message\",\"name\":\"message 0.1\",\"pid\":1,\"tid\":0,"
                  "\"ts\":1.000001}") != std::string::npos);
  CHECK(json.find("\"ph\":\"t\",\"id\":1,\"cat\":\"message\",\"name\":\"message 0.1\",\"pid\":1,\"tid\":2,"
                  "\"ts\":3.000001,\"bp\":\"e\"}") != std::string::npos);
  CHECK(json.find("\"ph\":\"f\",\"id\":1,\"cat\":\"message\",\"name\":\"message 0.1\",\"pid\":1,\"tid\":0,"
                  "\"ts\":5.000001,\"bp\":\"e\"}") != std::string::npos);
}

TEST_CASE("perfetto writer: a flow through a long slice and a short one inside its time never goes back",
          "[trace][messages]") {
  m2::PerfettoTrace trace;
  const unsigned pid = trace.add_process("messages");
  const unsigned a = trace.add_track(pid, "node0.ni.dma"), b = trace.track(pid, "node0.link");
  const MessageId m = m2::make_message_id(0, 1);
  trace.add(a, "dma_send", 1000000, 9000000, "", {m});  // long: its middle (5 us) is after the next start
  trace.add(b, "frame", 2000000, 2500000, "", {m});
  const std::string json = written(trace);
  const size_t s = json.find("\"ph\":\"s\""), e = json.find("\"ph\":\"f\"");
  REQUIRE(s != std::string::npos);
  REQUIRE(e != std::string::npos);
  CHECK(json.find("\"ts\":1.000001}", s) < e);                                // the start, in the long slice
  CHECK(json.find("\"ts\":2.000001,\"bp\":\"e\"}", e) != std::string::npos);  // then the frame
}
