// The base protocol's phases by name, for messages. By number: an ignorable
// phase's id lies outside tlm_phase_enum's range.
#pragma once

#include <tlm>

namespace m2 {

inline const char* phase_name(const tlm::tlm_phase& phase) {
  const unsigned int p = phase;
  if (p == tlm::BEGIN_REQ) return "BEGIN_REQ";
  if (p == tlm::END_REQ) return "END_REQ";
  if (p == tlm::BEGIN_RESP) return "BEGIN_RESP";
  if (p == tlm::END_RESP) return "END_RESP";
  return "a phase outside the base protocol (an ignorable one)";
}

}  // namespace m2
