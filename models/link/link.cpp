#include "link/link.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/ip_variant.h"
#include "core/log.h"
#include "ip/link_variants.h"

namespace m2 {

using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

Link::Link(sc_core::sc_module_name name, TimingStyle style)
    : sc_module(name),
      a_in("a_in"),
      b_in("b_in"),
      a_out("a_out"),
      b_out("b_out"),
      variant(this->name(), "variant", "lvds",
              "link generation: lvds (Maestro2, 3.2 Gbit/s full duplex), ieee1394 (the first Maestro, "
              "400 Mbit/s half duplex)",
              link_variants()),
      gbit_per_s(this->name(), "gbit_per_s", 3.2, "Gbit/s", "bit rate of a direction (of the medium in half duplex)",
                 Range<double>{0.001, 1000}),
      duplex(this->name(), "duplex", "full",
             "full: each direction its own wire; half: one medium, the sides take turns", {"full", "half"}),
      serializer_ns(this->name(), "serializer_ns", 20.0, "ns",
                    "serializer plus deserializer latency of a frame (after its last bit is sent)",
                    Range<double>{0, 1e6}),
      cable_m(this->name(), "cable_m", 5.0, "m", "cable length", Range<double>{0, 1e4}),
      ns_per_m(this->name(), "ns_per_m", 5.0, "ns/m", "propagation delay of the cable", Range<double>{0, 100}),
      arbitration_ns(this->name(), "arbitration_ns", 0.0, "ns",
                     "half duplex: medium arbitration before every burst (ignored in full duplex)",
                     Range<double>{0, 1e6}),
      bit_error_rate(this->name(), "bit_error_rate", 0.0, "",
                     "probability that a bit is flipped; a frame with a flipped bit arrives corrupted",
                     Range<double>{0, 1}),
      seed(this->name(), "seed", 1, "number", "seed of the bit-error draws (same seed, same errors)"),
      corrupt_frames_ab(this->name(), "corrupt_frames_ab", "", "",
                        "frames A to B to corrupt: comma-separated numbers, 1 = the first frame"),
      corrupt_frames_ba(this->name(), "corrupt_frames_ba", "", "", "frames B to A to corrupt, as corrupt_frames_ab"),
      damage_frames_ab(this->name(), "damage_frames_ab", "", "",
                       "data frames A to B (frame numbers as corrupt_frames_ab, info frames counted too) whose middle "
                       "packet byte is flipped behind the checksum, as faulty SDRAM or DMA would: the checksum passes "
                       "(a number that is no data frame damages nothing and is warned about)"),
      damage_frames_ba(this->name(), "damage_frames_ba", "", "", "frames B to A to damage, as damage_frames_ab"),
      m_style(style) {
  m_ns_per_byte = 8.0 / gbit_per_s.get();
  m_latency = sc_time(serializer_ns.get() + cable_m.get() * ns_per_m.get(), SC_NS);
  m_arbitration = sc_time(arbitration_ns.get(), SC_NS);
  m_corrupt[0] = parse_frames(corrupt_frames_ab);
  m_corrupt[1] = parse_frames(corrupt_frames_ba);
  m_damage[0] = parse_frames(damage_frames_ab);
  m_damage[1] = parse_frames(damage_frames_ba);
  // Independent streams per direction, so that one direction's errors do
  // not depend on how many frames the other one carried.
  m_rng[0].seed(seed.get() * 2 + 1);
  m_rng[1].seed(seed.get() * 2 + 2);
  a_in.register_b_transport(this, &Link::b_transport, A);
  b_in.register_b_transport(this, &Link::b_transport, B);
  SC_THREAD(deliver_ab);
  SC_THREAD(deliver_ba);
}

std::set<uint64_t> Link::parse_frames(const Param<std::string>& p) const {
  std::set<uint64_t> frames;
  std::stringstream in(p.get());
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    if (b == std::string::npos) continue;
    item = item.substr(b, e - b + 1);
    size_t used = 0;
    unsigned long long v = 0;
    try {
      v = std::stoull(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || v == 0 || item[0] == '-')
      throw ConfigError(p.name() + ": expected comma-separated frame numbers (1, 2, ...), got '" + item + "'");
    frames.insert(v);
  }
  return frames;
}

sc_time Link::wire_time(uint64_t bytes) const { return sc_time(double(bytes) * m_ns_per_byte, SC_NS); }

// ------------------------------------------------------------ transport

void Link::b_transport(int side_id, tlm::tlm_generic_payload& t, sc_time& delay) {
  const unsigned side = static_cast<unsigned>(side_id), dir = side;
  MlxFrame* f = mlx_frame(t);
  if (!f) {
    m_log.warning(std::string("a transaction without an MLX frame from side ") + (side == A ? "A" : "B") +
                  " was refused");
    t.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  Resource& r = m_res[half_duplex() ? 0 : dir];
  DirectionStats& s = m_stats[dir];
  const sc_time start = start_at(r, side, delay);
  f->number = ++s.frames;
  f->wire_start = start;

  // Serialise; a continuable frame burst by burst, the sender deciding at
  // the end of each burst whether it goes on.
  uint64_t sent = 0;
  sc_time end = start;
  // Each piece of the wire time goes to the busy log when it is known (a
  // continued frame's next burst only after the wait below), not at the end.
  for (;;) {
    const uint64_t body = f->body_bytes();
    const sc_time piece_start = end;
    end += wire_time(body - sent);
    m_busy_log[dir].add(piece_start, end);
    sent = body;
    if (!f->is_data() || !f->extend) break;
    if (m_style == TimingStyle::LT) r.open = true;
    sc_core::wait(end - sc_core::sc_time_stamp());
    const bool more = f->extend(*f);
    f->sync_payload(t);
    if (!more) break;
  }
  const sc_time piece_start = end;
  end += wire_time(f->wire_bytes() - sent);
  m_busy_log[dir].add(piece_start, end);
  f->wire_end = end;

  if (m_style == TimingStyle::AT) {
    sc_core::wait(end - sc_core::sc_time_stamp());
    release(r);
  } else {
    r.free_at = end;
    if (r.open) {
      r.open = false;
      r.closed.notify(SC_ZERO_TIME);
    }
    delay = end - sc_core::sc_time_stamp();
  }

  s.bytes += f->wire_bytes();
  s.busy += end - start;
  (f->is_data() ? s.data_frames : s.info_frames)++;
  const bool bad = corrupt(dir, *f);
  if (bad) (f->is_data() ? s.corrupted_data : s.corrupted_info)++;

  // The receiver gets its own copy (the sender keeps and reuses its frame).
  const sc_time at = end + m_latency;
  if (m_style == TimingStyle::LT) {
    // LT: handed over at once with its arrival time as the annotation (the
    // receiver queues it for that time; delivery targets never wait), so no
    // process has to wake up for it. Same times, one kernel event less a frame.
    MlxFrameTransaction& tr = m_handover[dir];
    tr.frame.copy_from(*f);
    tr.frame.checksum_ok = !bad;
    damage(dir, tr.frame);
    tr.reset();
    sc_time d = at - sc_core::sc_time_stamp();
    (dir == 0 ? b_out : a_out)->b_transport(tr.payload(), d);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  auto tr = std::make_unique<MlxFrameTransaction>();
  tr->frame.copy_from(*f);
  tr->frame.checksum_ok = !bad;
  damage(dir, tr->frame);
  tr->reset();
  m_queue[dir].push_back(Delivery{at, std::move(tr)});
  if (m_queue[dir].size() == 1) m_queued[dir].notify(SC_ZERO_TIME);
  t.set_response_status(tlm::TLM_OK_RESPONSE);
}

// When the frame's first bit (after arbitration) leaves the sender. AT waits
// for it; LT computes it and leaves `delay` as it was.
sc_time Link::start_at(Resource& r, unsigned side, sc_time& delay) {
  DirectionStats& s = m_stats[side];
  const sc_time arb = arbitration();
  if (m_style == TimingStyle::AT) {
    if (delay != SC_ZERO_TIME) sc_core::wait(delay);
    delay = SC_ZERO_TIME;
    const sc_time asked = sc_core::sc_time_stamp();
    acquire(r, side);
    s.waiting += sc_core::sc_time_stamp() - asked;
    if (arb != SC_ZERO_TIME) sc_core::wait(arb);
    s.arbitration += arb;
    return sc_core::sc_time_stamp();
  }
  // LT: a frame being continued has not got an end yet: wait for it. The
  // caller's time counts from the call (its delay may reach past that end).
  const sc_time called = sc_core::sc_time_stamp() + delay;
  while (r.open) sc_core::wait(r.closed);
  const sc_time asked = std::max(called, sc_core::sc_time_stamp());
  const sc_time begin = std::max(asked, r.free_at);
  s.waiting += begin - asked;
  s.arbitration += arb;
  r.free_at = begin + arb;  // holds the medium for the frame's own serialisation
  return begin + arb;
}

void Link::acquire(Resource& r, unsigned side) {
  if (!r.busy && r.waiters.empty()) {
    r.busy = true;
    r.last_side = side;
    return;
  }
  Waiter w;
  w.side = side;
  r.waiters.push_back(&w);
  while (!w.granted) sc_core::wait(w.event);
}

void Link::release(Resource& r) {
  if (r.waiters.empty()) {
    r.busy = false;
    return;
  }
  // Fair arbitration: the other side first if it waits; within a side, in
  // order of arrival. The resource stays owned during the hand-over.
  auto next = std::find_if(r.waiters.begin(), r.waiters.end(), [&](const Waiter* w) { return w->side != r.last_side; });
  if (next == r.waiters.end()) next = r.waiters.begin();
  Waiter* w = *next;
  r.waiters.erase(next);
  r.last_side = w->side;
  w->granted = true;
  w->event.notify(SC_ZERO_TIME);
}

// Chosen frame numbers first; otherwise one draw per frame: P(corrupt) =
// 1 - (1 - ber)^bits.
bool Link::corrupt(unsigned dir, const MlxFrame& f) {
  bool bad = m_corrupt[dir].count(f.number) != 0;
  const double ber = bit_error_rate.get();
  if (ber > 0) {
    // 1 - intact_chance, without losing digits for small error rates.
    const double p = ber >= 1 ? 1.0 : -std::expm1(log_intact_chance(f.wire_bytes()));
    const double u = double(m_rng[dir]() >> 11) * 0x1.0p-53;  // portable: same numbers on every library
    if (u < p) bad = true;
  }
  return bad;
}

double Link::log_intact_chance(uint64_t wire_bytes) const {
  return 8.0 * double(wire_bytes) * std::log1p(-bit_error_rate.get());
}

double Link::intact_chance(uint64_t wire_bytes) const {
  return bit_error_rate.get() >= 1 ? 0.0 : std::exp(log_intact_chance(wire_bytes));
}

// The receiver's copy of a chosen data frame gets one bit flipped in the
// middle byte of its packets. The checksum was computed over the intact
// bytes before the fault, so the frame arrives as good: a failure path test
// (MMP has no end-to-end check; docs/models/link.md).
void Link::damage(unsigned dir, MlxFrame& copy) {
  if (!copy.is_data() || copy.packets.empty() || !m_damage[dir].count(copy.number)) return;
  copy.packets[copy.packets.size() / 2] ^= 0x01;
  m_stats[dir].damaged_data++;
  m_damaged[dir].insert(copy.number);
}

std::vector<uint64_t> Link::damage_missed(unsigned dir) const {
  std::vector<uint64_t> missed;
  for (uint64_t n : m_damage.at(dir))
    if (!m_damaged.at(dir).count(n)) missed.push_back(n);
  return missed;
}

void Link::deliver(unsigned dir) {
  auto& q = m_queue[dir];
  auto& out = dir == 0 ? b_out : a_out;
  for (;;) {
    while (q.empty()) sc_core::wait(m_queued[dir]);
    const sc_time now = sc_core::sc_time_stamp();
    if (q.front().at > now) {
      sc_core::wait(q.front().at - now);
      continue;
    }
    std::unique_ptr<MlxFrameTransaction> tr = std::move(q.front().tr);
    q.pop_front();
    sc_time d = SC_ZERO_TIME;
    out->b_transport(tr->payload(), d);
  }
}

std::string Link::describe_state() const {
  std::ostringstream o;
  o << name() << ": " << variant.get() << ", " << duplex.get() << " duplex";
  for (unsigned dir = 0; dir < 2; ++dir) {
    const DirectionStats& s = m_stats[dir];
    o << (dir == 0 ? "; A->B " : "; B->A ") << s.frames << " frames (" << s.corrupted() << " corrupted), "
      << m_queue[dir].size() << " in flight";
  }
  for (unsigned i = 0; i < (half_duplex() ? 1u : 2u); ++i) {
    const Resource& r = m_res[i];
    o << (half_duplex() ? "; medium " : (i == 0 ? "; A->B " : "; B->A "));
    if (m_style == TimingStyle::AT) o << (r.busy ? "busy" : "idle") << ", " << r.waiters.size() << " waiting";
    else o << "booked until " << r.free_at << (r.open ? " (burst continuing)" : "");
  }
  return o.str();
}

std::vector<std::unique_ptr<StatProbe>> Link::declare_stats() {
  std::vector<std::unique_ptr<StatProbe>> d;
  for (unsigned dir = 0; dir < 2; ++dir) {
    const std::string p = dir == 0 ? "ab." : "ba.";
    const std::string who = dir == 0 ? " sent by end A" : " sent by end B";
    auto declare = [&](const char* what, const char* unit, const std::string& description, auto read) {
      d.push_back(std::make_unique<StatProbe>(this, p + what, unit, description, read));
      return d.back().get();
    };
    declare("frames", "count", "frames" + who + " (data and info)",
            [this, dir] { return double(m_stats[dir].frames); });
    declare("info_frames", "count", "info frames" + who, [this, dir] { return double(m_stats[dir].info_frames); });
    declare("busy_us", "us", "time the wire carried the frames" + who,
            [this, dir] { return in_us(m_stats[dir].busy); });
    declare("corrupted", "count", "frames" + who + " corrupted (bit_error_rate, corrupt_frames_*)",
            [this, dir] { return double(m_stats[dir].corrupted()); });
    // Only in runs that inject it (damage_frames_*): other runs' tables stay as they were.
    declare("damaged", "count", "data frames" + who + " damaged behind the checksum (damage_frames_*)", [this, dir] {
      return double(m_stats[dir].damaged_data);
    })->only_when_nonzero();
    // Listed but not damaged: an info frame, or past the run's last frame.
    declare("damage_missed", "count", "damage_frames_* numbers" + who + " that damaged nothing", [this, dir] {
      return double(damage_missed(dir).size());
    })->only_when_nonzero();
  }
  return d;
}

}  // namespace m2
