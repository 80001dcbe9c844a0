#include "core/tlm_protocol_rules.h"

#include "core/tlm_phase_name.h"

#include <cinttypes>
#include <cstdio>
#include <sstream>

namespace m2 {

namespace {

// Where the standard says it.
constexpr const char* kClausePhases = "IEEE 1666-2011 15.2, base protocol phase sequences";
constexpr const char* kClauseReturn = "IEEE 1666-2011 11.1 and 15.2, nb_transport return values";
constexpr const char* kClauseFlowControl = "IEEE 1666-2011 15.2, base protocol flow control and exclusion rules";
constexpr const char* kClausePayload = "IEEE 1666-2011 14, generic payload attributes";
constexpr const char* kClauseMemoryManager = "IEEE 1666-2011 14, memory management and reference counts";
constexpr const char* kClauseBlocking = "IEEE 1666-2011 15.2, switching between b_transport and nb_transport";
constexpr const char* kClauseDmi = "IEEE 1666-2011 11.2, direct memory interface";
constexpr const char* kClauseDebug = "IEEE 1666-2011 11.3, debug transport interface";

const char* stage_text(int stage) {
  switch (stage) {
    case 0:
      return "in its request phase";
    case 1:
      return "between END_REQ and BEGIN_RESP";
    default:
      return "in its response phase";
  }
}

const char* status_name(tlm::tlm_sync_enum status) {
  switch (status) {
    case tlm::TLM_ACCEPTED:
      return "TLM_ACCEPTED";
    case tlm::TLM_UPDATED:
      return "TLM_UPDATED";
    case tlm::TLM_COMPLETED:
      return "TLM_COMPLETED";
  }
  return "an unknown tlm_sync_enum";
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

// Byte i of the data array is enabled unless the byte enables say 0x00 for it.
bool byte_enabled(const unsigned char* be, unsigned int be_length, unsigned int i) {
  return be == nullptr || be[i % be_length] != TLM_BYTE_DISABLED;
}

}  // namespace

ProtocolRules::ProtocolRules(std::string binding) : m_binding(std::move(binding)) {}

void ProtocolRules::report(const char* rule, const std::string& what, const char* clause) {
  ProtocolFinding f{rule, m_binding + ": " + rule + ": " + what + " (" + clause + ")", sc_core::sc_time_stamp()};
  ++m_finding_count;
  if (m_findings.size() < kKeptFindings) m_findings.push_back(f);
  if (m_sink) m_sink(f);
  else SC_REPORT_ERROR(kProtocolMsgType, f.message.c_str());
}

bool ProtocolRules::is_base_phase(const tlm::tlm_phase& phase) {
  const unsigned int p = phase;
  return p == tlm::BEGIN_REQ || p == tlm::END_REQ || p == tlm::BEGIN_RESP || p == tlm::END_RESP;
}

std::string ProtocolRules::describe(const tlm::tlm_generic_payload& gp) {
  std::ostringstream s;
  s << "transaction " << static_cast<const void*>(&gp) << " (";
  switch (gp.get_command()) {
    case tlm::TLM_READ_COMMAND:
      s << "read";
      break;
    case tlm::TLM_WRITE_COMMAND:
      s << "write";
      break;
    default:
      s << "ignore";
      break;
  }
  s << " of " << gp.get_data_length() << " bytes at " << hex(gp.get_address()) << ")";
  return s.str();
}

void ProtocolRules::check_reference_count(const tlm::tlm_generic_payload& gp, const tlm::tlm_phase& phase) {
  if (gp.has_mm() && gp.get_ref_count() <= 0)
    report(kRuleReferenceCount,
           std::string(phase_name(phase)) + " for " + describe(gp) +
               ", which has a memory manager and a reference count of " + std::to_string(gp.get_ref_count()) +
               "; expected the initiator to acquire() it before sending it and every holder to keep a reference "
               "while it is in flight",
           kClauseMemoryManager);
}

bool ProtocolRules::check_request_attributes(const tlm::tlm_generic_payload& gp) {
  std::vector<std::string> wrong;
  if (gp.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
    wrong.push_back("response status " + gp.get_response_string() + " instead of TLM_INCOMPLETE_RESPONSE");
  const int command = gp.get_command();
  if (command != tlm::TLM_READ_COMMAND && command != tlm::TLM_WRITE_COMMAND && command != tlm::TLM_IGNORE_COMMAND)
    wrong.push_back("command " + std::to_string(command) + " is none of read, write, ignore");
  if (command == tlm::TLM_READ_COMMAND || command == tlm::TLM_WRITE_COMMAND) {
    if (gp.get_data_ptr() == nullptr) wrong.push_back("a null data pointer");
    if (gp.get_data_length() == 0) wrong.push_back("a data length of 0");
    if (gp.get_streaming_width() == 0) wrong.push_back("a streaming width of 0");
  }
  if (gp.get_byte_enable_ptr() != nullptr) {
    if (gp.get_byte_enable_length() == 0) {
      wrong.push_back("byte enables with a byte enable length of 0");
    } else {
      for (unsigned int i = 0; i < gp.get_byte_enable_length(); ++i) {
        const unsigned char b = gp.get_byte_enable_ptr()[i];
        if (b != TLM_BYTE_DISABLED && b != TLM_BYTE_ENABLED) {
          wrong.push_back("byte enable " + std::to_string(i) + " is " + hex(b) + ", neither 0x00 nor 0xff");
          break;
        }
      }
    }
  }
  if (wrong.empty()) return true;
  std::string what = describe(gp) + " sent with";
  for (std::size_t i = 0; i < wrong.size(); ++i) what += (i ? ", " : " ") + wrong[i];
  report(kRuleRequestAttributes,
         what +
             "; expected TLM_INCOMPLETE_RESPONSE, a data pointer, a data length and streaming width above 0 and "
             "byte enables of 0x00/0xff with a length above 0",
         kClausePayload);
  return false;
}

ProtocolRules::Request ProtocolRules::snapshot(const tlm::tlm_generic_payload& gp) const {
  Request r;
  r.command = gp.get_command();
  r.data = gp.get_data_ptr();
  r.length = gp.get_data_length();
  r.streaming_width = gp.get_streaming_width();
  r.byte_enables = gp.get_byte_enable_ptr();
  r.byte_enable_length = gp.get_byte_enable_length();
  // Kept to compare at the response: a write's data (read-only for the
  // target) and a read's disabled bytes (which the target must not touch).
  const bool keep_data = r.data != nullptr && (r.command == tlm::TLM_WRITE_COMMAND ||
                                               (r.command == tlm::TLM_READ_COMMAND && r.byte_enables != nullptr));
  if (keep_data) r.data_copy.assign(r.data, r.data + r.length);
  if (r.byte_enables != nullptr && r.byte_enable_length > 0)
    r.byte_enable_copy.assign(r.byte_enables, r.byte_enables + r.byte_enable_length);
  return r;
}

void ProtocolRules::check_response(const tlm::tlm_generic_payload& gp, const Request& req, const char* how) {
  ++m_responses;
  if (gp.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
    report(
        kRuleResponseStatus,
        std::string(how) + " for " + describe(gp) +
            " with the response status still TLM_INCOMPLETE_RESPONSE; expected the target to set it (TLM_OK_RESPONSE "
            "or an error) before the response",
        kClausePayload);
  std::vector<std::string> changed;
  if (gp.get_command() != req.command) changed.push_back("command");
  if (gp.get_data_ptr() != req.data) changed.push_back("data pointer");
  if (gp.get_data_length() != req.length) changed.push_back("data length");
  if (gp.get_streaming_width() != req.streaming_width) changed.push_back("streaming width");
  if (gp.get_byte_enable_ptr() != req.byte_enables) changed.push_back("byte enable pointer");
  if (gp.get_byte_enable_length() != req.byte_enable_length) changed.push_back("byte enable length");
  if (!changed.empty()) {
    std::string list;
    for (std::size_t i = 0; i < changed.size(); ++i) list += (i ? ", " : "") + changed[i];
    report(kRuleReadOnlyAttributes,
           std::string(how) + " for " + describe(gp) + " with its " + list +
               " changed since the request; expected the target and interconnect to leave them as the initiator set "
               "them",
           kClausePayload);
    return;  // the data array cannot be compared any more
  }
  if (req.byte_enable_copy.size() == req.byte_enable_length && req.byte_enables != nullptr &&
      !std::equal(req.byte_enable_copy.begin(), req.byte_enable_copy.end(), req.byte_enables)) {
    report(kRuleReadOnlyAttributes,
           std::string(how) + " for " + describe(gp) + " with its byte enable array rewritten since the request",
           kClausePayload);
    return;
  }
  if (req.data_copy.empty() || req.data == nullptr) return;
  const unsigned char* be = req.byte_enable_copy.empty() ? nullptr : req.byte_enable_copy.data();
  for (unsigned int i = 0; i < req.length; ++i) {
    if (req.data[i] == req.data_copy[i]) continue;
    if (req.command == tlm::TLM_WRITE_COMMAND) {
      report(kRuleWriteData,
             std::string(how) + " for " + describe(gp) + " with byte " + std::to_string(i) +
                 " of the data array changed from " + hex(req.data_copy[i]) + " to " + hex(req.data[i]) +
                 "; expected the target to leave a write's data as the initiator wrote it",
             kClausePayload);
      return;
    }
    if (!byte_enabled(be, req.byte_enable_length, i)) {
      report(kRuleByteEnables,
             std::string(how) + " for " + describe(gp) + " with byte " + std::to_string(i) +
                 " of the data array changed from " + hex(req.data_copy[i]) + " to " + hex(req.data[i]) +
                 " although its byte enable is 0x00; expected a read to leave disabled bytes untouched",
             kClausePayload);
      return;
    }
  }
}

void ProtocolRules::begin_request(const tlm::tlm_generic_payload& gp) {
  if (m_blocking.count(&gp)) {
    report(kRuleTransactionReuse,
           "BEGIN_REQ for " + describe(gp) +
               " while the same object is in a b_transport call across this binding; expected a transaction "
               "object to be sent again only after its previous use has completed",
           kClauseBlocking);
    return;
  }
  auto it = m_nb.find(&gp);
  if (it != m_nb.end()) {
    report(kRuleTransactionReuse,
           "BEGIN_REQ for " + describe(gp) + " while the same object is still in flight " +
               stage_text(static_cast<int>(it->second.stage)) +
               "; expected a transaction object to be sent again only after its previous use has completed "
               "(END_RESP or TLM_COMPLETED)",
           kClausePhases);
    return;
  }
  if (m_in_request != nullptr)
    report(kRuleRequestExclusion,
           "BEGIN_REQ for " + describe(gp) + " while transaction " + hex(reinterpret_cast<uintptr_t>(m_in_request)) +
               " is still in its request phase; expected the initiator to wait for END_REQ (or BEGIN_RESP) of "
               "the earlier one",
           kClauseFlowControl);
  check_request_attributes(gp);
  m_nb.emplace(&gp, snapshot(gp));
  m_in_request = &gp;
}

void ProtocolRules::begin_response(const tlm::tlm_generic_payload& gp, Request& req) {
  if (m_in_response != nullptr && m_in_response != &gp)
    report(kRuleResponseExclusion,
           "BEGIN_RESP for " + describe(gp) + " while transaction " + hex(reinterpret_cast<uintptr_t>(m_in_response)) +
               " is still in its response phase; expected the target to wait for END_RESP (or TLM_COMPLETED) of "
               "the earlier one",
           kClauseFlowControl);
  if (req.stage == Stage::Request && m_in_request == &gp) m_in_request = nullptr;  // END_REQ implied
  req.stage = Stage::Response;
  m_in_response = &gp;
  check_response(gp, req, "BEGIN_RESP");
  if (m_observer) m_observer(gp);
}

void ProtocolRules::finish(const tlm::tlm_generic_payload* gp) {
  m_nb.erase(gp);
  if (m_in_request == gp) m_in_request = nullptr;
  if (m_in_response == gp) m_in_response = nullptr;
}

void ProtocolRules::apply(const tlm::tlm_generic_payload& gp, const tlm::tlm_phase& phase, Side side) {
  if (!is_base_phase(phase)) return;  // ignorable phases: the base protocol lets them pass
  const unsigned int p = phase;
  const bool from_initiator = side == Side::Initiator;
  const bool initiators_phase = p == tlm::BEGIN_REQ || p == tlm::END_RESP;
  if (initiators_phase != from_initiator) {
    report(kRulePhaseOrder,
           std::string(phase_name(phase)) + " for " + describe(gp) + " sent by the " +
               (from_initiator ? "initiator (forward path)" : "target (backward path)") + "; expected only the " +
               (initiators_phase ? "initiator" : "target") + " to send " + phase_name(phase),
           kClausePhases);
    return;
  }
  if (p == tlm::BEGIN_REQ) {
    begin_request(gp);
    return;
  }
  auto it = m_nb.find(&gp);
  if (it == m_nb.end()) {
    if (p == tlm::BEGIN_RESP)
      report(kRuleResponseBeforeRequest,
             "BEGIN_RESP for " + describe(gp) +
                 ", which has no request in flight on this binding; expected BEGIN_RESP only after BEGIN_REQ "
                 "(with END_REQ sent or implied)",
             kClausePhases);
    else
      report(kRulePhaseOrder,
             std::string(phase_name(phase)) + " for " + describe(gp) +
                 ", which is not in flight on this binding; expected BEGIN_REQ first",
             kClausePhases);
    return;
  }
  Request& req = it->second;
  const char* expected = req.stage == Stage::Request            ? "END_REQ or BEGIN_RESP from the target"
                         : req.stage == Stage::AwaitingResponse ? "BEGIN_RESP from the target"
                                                                : "END_RESP from the initiator";
  bool in_order = false;
  switch (p) {
    case tlm::END_REQ:
      in_order = req.stage == Stage::Request;
      break;
    case tlm::BEGIN_RESP:
      in_order = req.stage != Stage::Response;
      break;
    case tlm::END_RESP:
      in_order = req.stage == Stage::Response;
      break;
    default:
      break;
  }
  if (!in_order) {
    report(kRulePhaseOrder,
           std::string(phase_name(phase)) + " for " + describe(gp) + ", which is " +
               stage_text(static_cast<int>(req.stage)) + "; expected " + expected,
           kClausePhases);
    return;
  }
  if (p == tlm::END_REQ) {
    req.stage = Stage::AwaitingResponse;
    if (m_in_request == &gp) m_in_request = nullptr;
  } else if (p == tlm::BEGIN_RESP) {
    begin_response(gp, req);
  } else {
    finish(&gp);
  }
}

void ProtocolRules::before_fw(const tlm::tlm_generic_payload& gp, const tlm::tlm_phase& phase) {
  if (!is_base_phase(phase)) return;
  check_reference_count(gp, phase);
  apply(gp, phase, Side::Initiator);
}

void ProtocolRules::before_bw(const tlm::tlm_generic_payload& gp, const tlm::tlm_phase& phase) {
  if (!is_base_phase(phase)) return;
  check_reference_count(gp, phase);
  apply(gp, phase, Side::Target);
}

void ProtocolRules::after_fw(const tlm::tlm_generic_payload& gp, const tlm::tlm_phase& sent,
                             const tlm::tlm_phase& returned, tlm::tlm_sync_enum status) {
  if (!is_base_phase(sent)) return;
  switch (status) {
    case tlm::TLM_ACCEPTED:
      if (returned != sent)
        report(kRuleNbReturn,
               std::string("the target returned TLM_ACCEPTED to ") + phase_name(sent) + " for " + describe(gp) +
                   " with the phase changed to " + phase_name(returned) +
                   "; expected the phase left unchanged with TLM_ACCEPTED",
               kClauseReturn);
      return;
    case tlm::TLM_UPDATED:
      if (returned == sent) {
        report(kRuleNbReturn,
               std::string("the target returned TLM_UPDATED to ") + phase_name(sent) + " for " + describe(gp) +
                   " without changing the phase; expected TLM_UPDATED only with the next phase",
               kClauseReturn);
        return;
      }
      apply(gp, returned, Side::Target);
      return;
    case tlm::TLM_COMPLETED: {
      // The target ends the transaction: with the response when it had none yet.
      auto it = m_nb.find(&gp);
      if (it == m_nb.end()) return;
      if (it->second.stage != Stage::Response) {
        check_response(gp, it->second, "TLM_COMPLETED");
        if (m_observer) m_observer(gp);
      }
      finish(&gp);
      return;
    }
  }
  report(kRuleNbReturn,
         std::string("the target returned ") + status_name(status) + " (" + std::to_string(static_cast<int>(status)) +
             ") to " + phase_name(sent) + " for " + describe(gp) +
             "; expected TLM_ACCEPTED, TLM_UPDATED or TLM_COMPLETED",
         kClauseReturn);
}

void ProtocolRules::after_bw(const tlm::tlm_generic_payload& gp, const tlm::tlm_phase& sent,
                             const tlm::tlm_phase& returned, tlm::tlm_sync_enum status) {
  if (!is_base_phase(sent)) return;
  switch (status) {
    case tlm::TLM_ACCEPTED:
      if (returned != sent)
        report(kRuleNbReturn,
               std::string("the initiator returned TLM_ACCEPTED to ") + phase_name(sent) + " for " + describe(gp) +
                   " with the phase changed to " + phase_name(returned) +
                   "; expected the phase left unchanged with TLM_ACCEPTED",
               kClauseReturn);
      return;
    case tlm::TLM_UPDATED:
      if (returned == sent) {
        report(kRuleNbReturn,
               std::string("the initiator returned TLM_UPDATED to ") + phase_name(sent) + " for " + describe(gp) +
                   " without changing the phase; expected TLM_UPDATED only with the next phase",
               kClauseReturn);
        return;
      }
      apply(gp, returned, Side::Initiator);
      return;
    case tlm::TLM_COMPLETED:
      finish(&gp);  // only the pointer: the initiator may have released it
      return;
  }
  report(kRuleNbReturn,
         std::string("the initiator returned ") + std::to_string(static_cast<int>(status)) + " to " + phase_name(sent) +
             "; expected TLM_ACCEPTED, TLM_UPDATED or TLM_COMPLETED",
         kClauseReturn);
}

void ProtocolRules::before_b_transport(const tlm::tlm_generic_payload& gp) {
  auto it = m_nb.find(&gp);
  if (it != m_nb.end()) {
    report(kRuleBlockingInFlight,
           "b_transport for " + describe(gp) + ", which is in flight through nb_transport " +
               stage_text(static_cast<int>(it->second.stage)) +
               "; expected b_transport only for a transaction not in flight on the non-blocking path",
           kClauseBlocking);
    return;
  }
  if (m_blocking.count(&gp)) {
    report(kRuleBlockingInFlight,
           "b_transport for " + describe(gp) +
               " while the same object is already in a b_transport call across this binding; expected a "
               "transaction object to be sent again only after its previous use has completed",
           kClauseBlocking);
    return;
  }
  check_request_attributes(gp);
  m_blocking.emplace(&gp, snapshot(gp));
}

void ProtocolRules::after_b_transport(const tlm::tlm_generic_payload& gp) {
  auto it = m_blocking.find(&gp);
  if (it == m_blocking.end()) return;  // its start was a finding already
  check_response(gp, it->second, "return from b_transport");
  if (m_observer) m_observer(gp);
  m_blocking.erase(it);
}

void ProtocolRules::after_get_direct_mem_ptr(const tlm::tlm_generic_payload& gp, bool granted,
                                             const tlm::tlm_dmi& dmi) {
  if (!granted) return;
  const uint64_t start = dmi.get_start_address(), end = dmi.get_end_address();
  std::string wrong;
  if (dmi.get_dmi_ptr() == nullptr) wrong = "a null DMI pointer";
  else if (start > end) wrong = "a region whose start " + hex(start) + " lies above its end " + hex(end);
  else if (gp.get_address() < start || gp.get_address() > end)
    wrong = "the region " + hex(start) + ".." + hex(end) + ", which does not hold the address asked for";
  else if (dmi.get_granted_access() == tlm::tlm_dmi::DMI_ACCESS_NONE) wrong = "no access (DMI_ACCESS_NONE)";
  if (!wrong.empty()) {
    report(kRuleDmiGrant,
           "get_direct_mem_ptr for " + hex(gp.get_address()) + " returned true with " + wrong +
               "; expected a pointer to a region holding that address, with read and/or write access",
           kClauseDmi);
    return;
  }
  m_dmi.push_back({start, end});
}

void ProtocolRules::on_invalidate_direct_mem_ptr(uint64_t start, uint64_t end) {
  if (start > end) {
    report(kRuleDmiInvalidation,
           "invalidate_direct_mem_ptr(" + hex(start) + ", " + hex(end) +
               ") with the start above the end; expected an inclusive range start <= end",
           kClauseDmi);
    return;
  }
  // Regions the invalidation touches are gone as a whole (the initiator must
  // ask again for any part of them).
  std::vector<DmiRegion> kept;
  for (const DmiRegion& r : m_dmi)
    if (r.end < start || r.start > end) kept.push_back(r);
  m_dmi.swap(kept);
}

void ProtocolRules::after_transport_dbg(const tlm::tlm_generic_payload& gp, unsigned int count) {
  if (count > gp.get_data_length())
    report(kRuleDebugTransport,
           "transport_dbg for " + describe(gp) + " returned " + std::to_string(count) +
               " bytes; expected at most the data length",
           kClauseDebug);
}

}  // namespace m2
