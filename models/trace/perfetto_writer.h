// A Chrome trace event file (JSON; loads in ui.perfetto.dev and
// chrome://tracing) built from slices on named tracks:
//  - a process per group of tracks ("transactions", "messages"), a thread
//    track per name; slices of one track that overlap go to extra lanes
//    ("node0.ni.dma #2"), since a thread track must nest properly;
//  - one complete event ("ph":"X", ts/dur in us) per slice;
//  - flow arrows following each message: for the slices naming it, in time
//    order, a flow start ("s"), steps ("t") and an end ("f"), each placed
//    inside its slice and bound to it ("bp":"e").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/message_tag.h"

namespace m2 {

class PerfettoTrace {
 public:
  // A group of tracks shown as one process; returns its pid.
  unsigned add_process(const std::string& name);
  // A track of process `pid`; returns its number for add(). Tracks are
  // shown in the order added, also when they get no slice.
  unsigned add_track(unsigned pid, const std::string& name);
  // The track of that name in `pid`, added if new.
  unsigned track(unsigned pid, const std::string& name);

  // `args`: extra members of the slice's "args" object, as JSON text without
  // braces ("\"bytes\":32"); the messages also become an "msg" argument.
  void add(unsigned track, std::string name, uint64_t start_ps, uint64_t end_ps, std::string args = "",
           std::vector<MessageId> msgs = {});

  // Writes the file; throws ConfigError naming the path when it cannot.
  void write(const std::string& path) const;

  size_t slices() const { return m_slices.size(); }

 private:
  struct Track {
    unsigned pid;
    std::string name;
  };
  struct Slice {
    unsigned track;
    std::string name;
    uint64_t start_ps, end_ps;
    std::string args;
    std::vector<MessageId> msgs;
  };
  std::vector<std::string> m_processes;
  std::vector<Track> m_tracks;
  std::vector<Slice> m_slices;
};

std::string json_escape(const std::string& s);

}  // namespace m2
