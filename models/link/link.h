// A cable between two MLX engines (an NI's MLC-X and a switch-box port, or
// two NIs): side A and side B each send frames into their target socket
// (`a_in`, `b_in`) and get the other side's frames from their initiator
// socket (`a_out`, `b_out`). The link times each frame by its wire bytes
// (header, packets with padding, continue commands, checksum: MlxFrame
// says how many), delays it by the serializer and the cable, and may
// corrupt it (seeded bit-error rate, chosen frame numbers).
//
// A direction (full duplex) or the one medium (half duplex) carries one
// frame at a time:
//  - AT: a frame waits for it in SystemC time; on a half-duplex medium the
//    sides alternate when both wait (fair arbitration after every burst).
//  - LT: it is booked by time stamps: a frame starts when the caller's
//    local time has come and the previous frame has ended; the time is
//    annotated, nothing waits for another frame.
// In both, a frame whose sender may continue it (MlxFrame::extend) is
// timed burst by burst in SystemC time, because the sender decides at the
// end of each burst. See docs/models/link.md.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <set>
#include <vector>
#include <string>

#include <systemc>

#include "core/busy_log.h"
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "core/ip_variant.h"
#include "core/module_log.h"
#include "core/params.h"
#include "core/signals.h"
#include "core/stats.h"
#include "core/timing_style.h"
#include "link/mlx_frame.h"

namespace m2 {

class Link : public sc_core::sc_module {
 public:
  enum Side : unsigned { A = 0, B = 1 };

  // Frames the engine on side A (B) sends: bind its link_out here.
  tlm_utils::simple_target_socket_tagged<Link> a_in, b_in;
  // Frames delivered to side A's (B's) engine: bind to its link_in. The
  // target must not wait (it is called when the frame has arrived).
  tlm_utils::simple_initiator_socket<Link> a_out, b_out;

  VariantParam variant;  // first: its values (ip/link_variants.h) preset the others

 public:
  Param<double> gbit_per_s;
  Param<std::string> duplex;
  Param<double> serializer_ns;
  Param<double> cable_m;
  Param<double> ns_per_m;
  Param<double> arbitration_ns;
  Param<double> bit_error_rate;
  Param<uint64_t> seed;
  Param<std::string> corrupt_frames_ab;
  Param<std::string> corrupt_frames_ba;
  Param<std::string> damage_frames_ab;
  Param<std::string> damage_frames_ba;

  SC_HAS_PROCESS(Link);
  // Throws ConfigError on a bad frame list.
  Link(sc_core::sc_module_name name, TimingStyle style);

  bool half_duplex() const { return duplex.get() == "half"; }
  // Time `bytes` take on the wire.
  sc_core::sc_time wire_time(uint64_t bytes) const;
  // From a frame's last bit leaving the sender to its arrival: serializer
  // plus propagation.
  sc_core::sc_time latency() const { return m_latency; }
  // Arbitration before every burst on a half-duplex medium (zero in full duplex).
  sc_core::sc_time arbitration() const { return half_duplex() ? m_arbitration : sc_core::SC_ZERO_TIME; }
  TimingStyle timing_style() const { return m_style; }

  // Per direction: 0 = A to B (sent by A), 1 = B to A.
  struct DirectionStats {
    uint64_t frames = 0, data_frames = 0, info_frames = 0;
    uint64_t bytes = 0;  // wire bytes
    uint64_t corrupted_data = 0, corrupted_info = 0;
    uint64_t damaged_data = 0;     // damaged behind the checksum (damage_frames_*)
    sc_core::sc_time busy;         // the wire carried this direction's bits
    sc_core::sc_time arbitration;  // half duplex: arbitration before its bursts
    sc_core::sc_time waiting;      // frames waited for the direction or medium
    uint64_t corrupted() const { return corrupted_data + corrupted_info; }
  };
  const DirectionStats& stats(unsigned dir) const { return m_stats.at(dir); }
  // Each direction's frames' times, for a sampled busy signal (kept once enabled).
  BusyLog& busy_log(unsigned dir) { return m_busy_log.at(dir); }
  // damage_frames_* numbers of direction `dir` that damaged nothing: an info
  // frame (no data), or a number the run never reached.
  std::vector<uint64_t> damage_missed(unsigned dir) const;
  // The chance that one frame of `wire_bytes` crosses without a bit error at
  // bit_error_rate (what corrupt() draws against; watchdogs judge resends by it).
  double intact_chance(uint64_t wire_bytes) const;
  // corrupt_frames_* of direction `dir` still lists frames not sent yet: a
  // sender resending through them will get through (for watchdogs).
  bool corruption_listed_ahead(unsigned dir) const {
    return !m_corrupt.at(dir).empty() && *m_corrupt.at(dir).rbegin() > m_stats.at(dir).frames;
  }
  // Frames in flight per direction, the medium's owner: for watchdogs.
  std::string describe_state() const;

 private:
  // A frame on its way to the receiver.
  struct Delivery {
    sc_core::sc_time at;
    std::unique_ptr<MlxFrameTransaction> tr;
  };
  // AT: a frame waiting for a direction or the medium.
  struct Waiter {
    unsigned side = 0;
    bool granted = false;
    sc_core::sc_event event;
  };
  // A direction in full duplex; the medium (index 0) in half duplex.
  struct Resource {
    bool busy = false;            // AT: owned
    unsigned last_side = 0;       // AT: the side that had it last
    std::deque<Waiter*> waiters;  // AT
    sc_core::sc_time free_at;     // LT: end of the last booked frame
    bool open = false;            // LT: a frame being continued holds it
    sc_core::sc_event closed;     // LT: notified when `open` ends
  };

  void b_transport(int side, tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  sc_core::sc_time start_at(Resource& r, unsigned side, sc_core::sc_time& delay);
  void acquire(Resource& r, unsigned side);
  void release(Resource& r);
  bool corrupt(unsigned dir, const MlxFrame& f);
  double log_intact_chance(uint64_t wire_bytes) const;  // ln of intact_chance (bit_error_rate < 1)
  void damage(unsigned dir, MlxFrame& copy);
  void deliver_ab() { deliver(0); }
  void deliver_ba() { deliver(1); }
  void deliver(unsigned dir);
  std::set<uint64_t> parse_frames(const Param<std::string>& p) const;

  const TimingStyle m_style;
  ModuleLog m_log{this};  // messages named after this module, at its sim.log level
  sc_core::sc_time m_latency, m_arbitration;
  double m_ns_per_byte = 0;
  std::array<Resource, 2> m_res;
  std::array<DirectionStats, 2> m_stats;
  std::array<BusyLog, 2> m_busy_log;
  // The VCD's busy lines per direction (core/signals.h).
  Signal m_signal_ab_busy{this, "ab_busy", m_busy_log[0]};
  Signal m_signal_ba_busy{this, "ba_busy", m_busy_log[1]};
  std::array<std::set<uint64_t>, 2> m_corrupt;
  std::array<std::set<uint64_t>, 2> m_damage;
  std::array<std::set<uint64_t>, 2> m_damaged;  // the listed frames that were damaged
  std::array<std::mt19937_64, 2> m_rng;
  std::array<std::deque<Delivery>, 2> m_queue;
  std::array<sc_core::sc_event, 2> m_queued;
  std::array<MlxFrameTransaction, 2> m_handover;  // LT: the receiver's copy, per direction
  // What the run reports, per direction "ab." and "ba." (core/stats.h).
  std::vector<std::unique_ptr<StatProbe>> declare_stats();
  const std::vector<std::unique_ptr<StatProbe>> m_stat_decls = declare_stats();
};

}  // namespace m2
