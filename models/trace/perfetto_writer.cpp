#include "trace/perfetto_writer.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>

#include "core/output_file.h"
#include "core/params.h"

namespace m2 {

namespace {

// Microseconds with picosecond digits.
std::string us(uint64_t ps) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6f", static_cast<double>(ps) / 1e6);
  return b;
}

}  // namespace

std::string json_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;  // names never hold control characters
    r += c;
  }
  return r;
}

unsigned PerfettoTrace::add_process(const std::string& name) {
  m_processes.push_back(name);
  return static_cast<unsigned>(m_processes.size());
}

unsigned PerfettoTrace::add_track(unsigned pid, const std::string& name) {
  m_tracks.push_back({pid, name});
  return static_cast<unsigned>(m_tracks.size() - 1);
}

unsigned PerfettoTrace::track(unsigned pid, const std::string& name) {
  for (size_t i = 0; i < m_tracks.size(); ++i)
    if (m_tracks[i].pid == pid && m_tracks[i].name == name) return static_cast<unsigned>(i);
  return add_track(pid, name);
}

void PerfettoTrace::add(unsigned track, std::string name, uint64_t start_ps, uint64_t end_ps, std::string args,
                        std::vector<MessageId> msgs) {
  m_slices.push_back({track, std::move(name), start_ps, std::max(start_ps, end_ps), std::move(args), std::move(msgs)});
}

void PerfettoTrace::write(const std::string& path) const {
  OutputFile file(path, "the trace file");
  std::ostream& f = file.stream();

  // Slices by track in time order, each in the first lane free at its start.
  std::vector<size_t> order(m_slices.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [this](size_t a, size_t b) {
    const Slice &x = m_slices[a], &y = m_slices[b];
    if (x.track != y.track) return x.track < y.track;
    return x.start_ps != y.start_ps ? x.start_ps < y.start_ps : x.end_ps < y.end_ps;
  });
  std::vector<unsigned> lane(m_slices.size(), 0);
  std::vector<unsigned> lanes(m_tracks.size(), 1);
  for (size_t i = 0; i < order.size();) {
    const unsigned t = m_slices[order[i]].track;
    std::vector<uint64_t> busy_until;
    for (; i < order.size() && m_slices[order[i]].track == t; ++i) {
      const Slice& s = m_slices[order[i]];
      unsigned l = 0;
      while (l < busy_until.size() && busy_until[l] > s.start_ps) ++l;
      if (l == busy_until.size()) busy_until.push_back(0);
      busy_until[l] = s.end_ps;
      lane[order[i]] = l;
    }
    lanes[t] = static_cast<unsigned>(std::max<size_t>(1, busy_until.size()));
  }
  std::vector<unsigned> first_tid(m_tracks.size());
  unsigned tid = 0;
  for (size_t t = 0; t < m_tracks.size(); ++t) {
    first_tid[t] = tid;
    tid += lanes[t];
  }

  f << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  auto sep = [&] {
    f << (first ? "" : ",\n");
    first = false;
  };
  for (size_t p = 0; p < m_processes.size(); ++p) {
    sep();
    f << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << p + 1 << ",\"args\":{\"name\":\""
      << json_escape(m_processes[p]) << "\"}}";
  }
  for (size_t t = 0; t < m_tracks.size(); ++t) {
    for (unsigned l = 0; l < lanes[t]; ++l) {
      const std::string name = m_tracks[t].name + (l ? " #" + std::to_string(l + 1) : "");
      sep();
      f << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << m_tracks[t].pid << ",\"tid\":" << first_tid[t] + l
        << ",\"args\":{\"name\":\"" << json_escape(name) << "\"}}";
    }
  }
  auto where = [&](size_t i) {
    const Slice& s = m_slices[i];
    return "\"pid\":" + std::to_string(m_tracks[s.track].pid) +
           ",\"tid\":" + std::to_string(first_tid[s.track] + lane[i]);
  };
  for (size_t i = 0; i < m_slices.size(); ++i) {
    const Slice& s = m_slices[i];
    std::string args = s.args;
    if (!s.msgs.empty()) {
      std::string names;
      for (MessageId id : s.msgs) names += (names.empty() ? "" : " ") + message_name(id);
      args += std::string(args.empty() ? "" : ",") + "\"msg\":\"" + names + "\"";
    }
    sep();
    f << "{\"ph\":\"X\"," << where(i) << ",\"name\":\"" << json_escape(s.name) << "\",\"ts\":" << us(s.start_ps)
      << ",\"dur\":" << us(s.end_ps - s.start_ps) << ",\"args\":{" << args << "}}";
  }

  // Flows: each message through its slices in time order. A flow event sits
  // 1 ps inside the start of its slice: inside, so that it binds to it, and
  // in the slices' order of start, so that the arrows never go back in time
  // (at the middle, a long slice's point came after a later short one's).
  // Slices too short to hold a point inside are left out of the flow.
  std::map<MessageId, std::vector<size_t>> by_message;
  for (size_t i = 0; i < m_slices.size(); ++i)
    if (m_slices[i].end_ps - m_slices[i].start_ps >= 2)
      for (MessageId id : m_slices[i].msgs) by_message[id].push_back(i);
  unsigned flow = 0;
  for (auto& [id, slices] : by_message) {
    if (slices.size() < 2) continue;
    std::stable_sort(slices.begin(), slices.end(), [this](size_t a, size_t b) {
      const Slice &x = m_slices[a], &y = m_slices[b];
      return x.start_ps != y.start_ps ? x.start_ps < y.start_ps : x.end_ps < y.end_ps;
    });
    ++flow;
    const std::string common =
        ",\"id\":" + std::to_string(flow) + ",\"cat\":\"message\",\"name\":\"message " + message_name(id) + "\",";
    for (size_t k = 0; k < slices.size(); ++k) {
      const Slice& s = m_slices[slices[k]];
      const char* ph = k == 0 ? "s" : k + 1 == slices.size() ? "f" : "t";
      sep();
      f << "{\"ph\":\"" << ph << "\"" << common << where(slices[k]) << ",\"ts\":" << us(s.start_ps + 1)
        << (k == 0 ? "" : ",\"bp\":\"e\"") << "}";
    }
  }
  f << "\n]}\n";
  file.commit();
}

}  // namespace m2
