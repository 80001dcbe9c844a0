#include "link/mlx_frame.h"

namespace m2 {

std::string MlxFrame::describe() const {
  std::string s = "#" + std::to_string(number) + (is_data() ? " data" : " info");
  if (is_data()) {
    s += " ch" + std::to_string(channel) + " seq " + std::to_string(seq) + " pkts ";
    for (size_t i = 0; i < bursts.size(); ++i) s += (i ? "+" : "") + std::to_string(bursts[i]);
    if (retransmission) s += " (repeat)";
  }
  s += " ack ";
  for (unsigned c = 0; c < kChannels; ++c)
    s += (c ? "/" : "") + (info[c].ack_valid ? std::to_string(info[c].ack_seq) : std::string("-"));
  s += " lim ";
  for (unsigned c = 0; c < kChannels; ++c) s += (c ? "/" : "") + std::to_string(info[c].credit_limit);
  if (credit_request) s += " credit?";
  if (!checksum_ok) s += " CORRUPT";
  return s;
}

}  // namespace m2
