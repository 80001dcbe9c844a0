// The TLM-2.0 base protocol's rules (IEEE 1666-2011 clauses 11, 14 and 15.2)
// as seen on one binding: which transactions are in flight there, in which
// phase, and whether each call across the binding is allowed. The sockets and
// the forwarding are ProtocolChecker's (core/tlm_protocol_checker.h); this
// class only judges the calls it is told about, so that every rule has one
// place and works for any bus width.
//
// A broken rule is a finding: its rule name (one of the kRule* below), a
// message naming the binding, the transaction and what was expected, and the
// simulated time. Findings go to the sink, by default SC_REPORT_ERROR with
// message type "m2/tlm_protocol"; tests install their own sink.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>

namespace m2 {

// The rules' names, as they appear at the start of every finding's message.
inline constexpr const char* kRulePhaseOrder = "phase order";
inline constexpr const char* kRuleNbReturn = "nb_transport return";
inline constexpr const char* kRuleRequestExclusion = "request exclusion";
inline constexpr const char* kRuleResponseExclusion = "response exclusion";
inline constexpr const char* kRuleResponseBeforeRequest = "response before request";
inline constexpr const char* kRuleResponseStatus = "response status";
inline constexpr const char* kRuleRequestAttributes = "request attributes";
inline constexpr const char* kRuleReadOnlyAttributes = "read-only attributes";
inline constexpr const char* kRuleWriteData = "write data";
inline constexpr const char* kRuleByteEnables = "byte enables";
inline constexpr const char* kRuleTransactionReuse = "transaction reuse";
inline constexpr const char* kRuleReferenceCount = "reference count";
inline constexpr const char* kRuleBlockingInFlight = "b_transport in flight";
inline constexpr const char* kRuleDmiGrant = "DMI grant";
inline constexpr const char* kRuleDmiInvalidation = "DMI invalidation";
inline constexpr const char* kRuleDebugTransport = "debug transport";

// The SystemC message type of the default sink's reports.
inline constexpr const char* kProtocolMsgType = "m2/tlm_protocol";

struct ProtocolFinding {
  std::string rule;     // one of the kRule* names
  std::string message;  // "<binding>: <rule>: <what happened> (<standard's clause>)"
  sc_core::sc_time time;
};

// A DMI region granted across the binding and not invalidated since.
struct DmiRegion {
  uint64_t start, end;  // inclusive, as tlm_dmi has them
};

class ProtocolRules {
 public:
  using Sink = std::function<void(const ProtocolFinding&)>;
  using ResponseObserver = std::function<void(const tlm::tlm_generic_payload&)>;

  explicit ProtocolRules(std::string binding);

  // Where findings go instead of SC_REPORT_ERROR (an empty function restores it).
  void set_sink(Sink sink) { m_sink = std::move(sink); }
  // Called with each transaction whose response crosses the binding (BEGIN_RESP,
  // a target's early completion, the return of b_transport), e.g. a scoreboard.
  void set_response_observer(ResponseObserver observer) { m_observer = std::move(observer); }

  std::size_t finding_count() const { return m_finding_count; }
  // The first kKeptFindings findings (a broken model can produce millions).
  const std::vector<ProtocolFinding>& findings() const { return m_findings; }
  static constexpr std::size_t kKeptFindings = 100;
  // Transactions whose response crossed the binding (nb and b_transport).
  std::size_t responses() const { return m_responses; }
  std::size_t transactions_in_flight() const { return m_nb.size() + m_blocking.size(); }
  const std::vector<DmiRegion>& dmi_regions() const { return m_dmi; }

  // The calls across the binding: before_* as the caller makes the call,
  // after_* with what the callee returned.
  void before_fw(const tlm::tlm_generic_payload& gp, const tlm::tlm_phase& phase);
  void after_fw(const tlm::tlm_generic_payload& gp, const tlm::tlm_phase& sent, const tlm::tlm_phase& returned,
                tlm::tlm_sync_enum status);
  void before_bw(const tlm::tlm_generic_payload& gp, const tlm::tlm_phase& phase);
  // After an initiator's TLM_COMPLETED `gp` is not read: it may be gone.
  void after_bw(const tlm::tlm_generic_payload& gp, const tlm::tlm_phase& sent, const tlm::tlm_phase& returned,
                tlm::tlm_sync_enum status);
  void before_b_transport(const tlm::tlm_generic_payload& gp);
  void after_b_transport(const tlm::tlm_generic_payload& gp);
  void after_get_direct_mem_ptr(const tlm::tlm_generic_payload& gp, bool granted, const tlm::tlm_dmi& dmi);
  void on_invalidate_direct_mem_ptr(uint64_t start, uint64_t end);
  void after_transport_dbg(const tlm::tlm_generic_payload& gp, unsigned int count);

 private:
  enum class Stage { Request, AwaitingResponse, Response };
  enum class Side { Initiator, Target };

  // What the initiator sent, to check at the response that the target kept
  // the read-only attributes, a write's data and a read's disabled bytes.
  struct Request {
    Stage stage = Stage::Request;
    tlm::tlm_command command = tlm::TLM_IGNORE_COMMAND;
    const unsigned char* data = nullptr;
    unsigned int length = 0, streaming_width = 0;
    const unsigned char* byte_enables = nullptr;
    unsigned int byte_enable_length = 0;
    std::vector<unsigned char> data_copy, byte_enable_copy;
  };

  void report(const char* rule, const std::string& what, const char* clause);
  static bool is_base_phase(const tlm::tlm_phase& phase);
  static std::string describe(const tlm::tlm_generic_payload& gp);

  // A phase sent by `side` (by a call or a TLM_UPDATED return).
  void apply(const tlm::tlm_generic_payload& gp, const tlm::tlm_phase& phase, Side side);
  void begin_request(const tlm::tlm_generic_payload& gp);
  void begin_response(const tlm::tlm_generic_payload& gp, Request& req);
  // The transaction ends on this binding (END_RESP or TLM_COMPLETED).
  void finish(const tlm::tlm_generic_payload* gp);
  void check_reference_count(const tlm::tlm_generic_payload& gp, const tlm::tlm_phase& phase);
  bool check_request_attributes(const tlm::tlm_generic_payload& gp);
  Request snapshot(const tlm::tlm_generic_payload& gp) const;
  // At the response: status set, read-only attributes, write data, byte enables.
  void check_response(const tlm::tlm_generic_payload& gp, const Request& req, const char* how);

  std::string m_binding;
  Sink m_sink;
  ResponseObserver m_observer;
  std::size_t m_finding_count = 0, m_responses = 0;
  std::vector<ProtocolFinding> m_findings;
  std::unordered_map<const tlm::tlm_generic_payload*, Request> m_nb, m_blocking;
  const tlm::tlm_generic_payload* m_in_request = nullptr;   // request exclusion
  const tlm::tlm_generic_payload* m_in_response = nullptr;  // response exclusion
  std::vector<DmiRegion> m_dmi;
};

}  // namespace m2
