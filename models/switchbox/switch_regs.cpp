#include "switchbox/switch_regs.h"

#include <ip/sb_regs.h>

#include "core/log.h"

namespace m2 {

SwitchRegs::SwitchRegs(sc_core::sc_module_name name, uint32_t config, BoundedFifo<SbHeader>& headers,
                       BoundedFifo<SbRequest>& requests, SwitchController& controller, sc_core::sc_time access)
    : sc_module(name),
      socket("socket"),
      m_headers(headers),
      m_requests(requests),
      m_controller(controller),
      m_regs(this->name()),
      m_access(access) {
  socket.register_b_transport(this, &SwitchRegs::b_transport);
  add_registers(config);
  m_headers.on_change([this] { update_irq(); });
  m_requests.on_change([this] { update_irq(); });
  m_controller.on_complete([this] { update_irq(); });
}

void SwitchRegs::add_registers(uint32_t config) {
  const SwitchController::Stats& st = m_controller.stats();
  m_regs.add(
      SB_CONFIG, "CONFIG", [config] { return config; }, nullptr);
  m_regs.add(
      SB_HDR_DEPTH, "HDR_DEPTH", [this] { return uint32_t(m_headers.depth()); }, nullptr);
  m_regs.add(
      SB_REQ_DEPTH, "REQ_DEPTH", [this] { return uint32_t(m_requests.depth()); }, nullptr);
  m_regs.add(
      SB_HDR_COUNT, "HDR_COUNT", [this] { return uint32_t(m_headers.size()); }, nullptr);
  m_regs.add(
      SB_HDR_SOURCE, "HDR_SOURCE",
      [this] {
        if (m_headers.empty()) return 0u;
        return SB_SOURCE_VALID | SB_SOURCE(m_headers.front().port, m_headers.front().channel);
      },
      nullptr);
  m_regs.add(
      SB_HDR_WORD0, "HDR_WORD0", [this] { return m_headers.empty() ? 0u : m_headers.front().word0; }, nullptr);
  m_regs.add(
      SB_HDR_WORD1, "HDR_WORD1", [this] { return m_headers.empty() ? 0u : m_headers.front().word1; }, nullptr);
  m_regs.add(SB_HDR_POP, "HDR_POP", nullptr, [this](uint32_t) {
    if (!m_headers.empty()) m_headers.pop();
  });
  m_regs.add(
      SB_REQ_FREE, "REQ_FREE", [this] { return uint32_t(m_requests.free()); }, nullptr);
  m_regs.add(
      SB_REQ_SOURCE, "REQ_SOURCE", [this] { return m_source; }, [this](uint32_t v) { m_source = v; });
  m_regs.add(
      SB_REQ_DEST, "REQ_DEST", [this] { return m_dest; }, [this](uint32_t v) { m_dest = v; });
  m_regs.add(
      SB_REQ_BYTES, "REQ_BYTES", [this] { return m_bytes; }, [this](uint32_t v) { m_bytes = v; });
  // A request the controller cannot take is refused (a bus error for the
  // firmware) with the reason logged.
  m_regs.add_checked(SB_REQ_PUSH, "REQ_PUSH", nullptr, [this](uint32_t flags) {
    const SbRequest r = staged(flags);
    const std::string why = m_controller.check(r);
    if (!why.empty()) {
      m_controller.refused();
      m_log.warning("switching request refused: " + why);
      m_last_error = m_log.name() + ": switching request refused: " + why;
      return tlm::TLM_GENERIC_ERROR_RESPONSE;
    }
    m_controller.accept(r, m_access_time);
    return tlm::TLM_OK_RESPONSE;
  });
  m_regs.add(
      SB_UP_PORTS, "UP_PORTS", [this] { return m_controller.up_ports(); },
      [this](uint32_t v) { m_controller.set_up_ports(v); });
  m_regs.add(
      SB_SRC_BUSY, "SRC_BUSY", [this] { return m_controller.busy_sources(); }, nullptr);
  m_regs.add(
      SB_SRC_QUEUED, "SRC_QUEUED", [this] { return m_controller.queued_sources(); }, nullptr);
  m_regs.add(
      SB_SRC_WATCH, "SRC_WATCH", [this] { return m_watch; },
      [this](uint32_t v) {
        m_watch = v;
        update_irq();
      });
  m_regs.add(
      SB_IRQ_ENABLE, "IRQ_ENABLE", [this] { return m_enable; },
      [this](uint32_t v) {
        m_enable = v & (SB_IRQ_HEADER | SB_IRQ_REQ_SPACE | SB_IRQ_SRC_IDLE);
        update_irq();
      });
  m_regs.add(
      SB_IRQ_STATUS, "IRQ_STATUS", [this] { return irq_status(); }, nullptr);
  m_regs.add(
      SB_CNT_HEADERS, "CNT_HEADERS", [&st] { return uint32_t(st.headers); }, nullptr);
  m_regs.add(
      SB_CNT_REQUESTS, "CNT_REQUESTS", [&st] { return uint32_t(st.requests); }, nullptr);
  m_regs.add(
      SB_CNT_MESSAGES, "CNT_MESSAGES", [&st] { return uint32_t(st.messages); }, nullptr);
  m_regs.add(
      SB_CNT_DISCARDS, "CNT_DISCARDS", [&st] { return uint32_t(st.discards); }, nullptr);
  m_regs.add(
      SB_CNT_REFUSED, "CNT_REFUSED", [&st] { return uint32_t(st.refused); }, nullptr);
  m_regs.add(
      SB_CNT_STALLS, "CNT_STALLS", [&st] { return uint32_t(st.stalls); }, nullptr);
  m_regs.add(
      SB_CNT_BYTES, "CNT_BYTES", [&st] { return uint32_t(st.bytes_in); }, nullptr);
}

SbRequest SwitchRegs::staged(uint32_t flags) const {
  SbRequest r;
  r.port = SB_SOURCE_PORT(m_source);
  r.channel = SB_SOURCE_CHANNEL(m_source);
  r.dest_mask = m_dest;
  r.bytes = m_bytes;
  r.discard = (flags & SB_REQ_FLAG_DISCARD) != 0;
  return r;
}

uint32_t SwitchRegs::irq_status() const {
  return (m_headers.empty() ? 0u : SB_IRQ_HEADER) | (m_requests.full() ? 0u : SB_IRQ_REQ_SPACE) |
         ((m_watch & ~m_controller.busy_sources()) != 0 ? SB_IRQ_SRC_IDLE : 0u);
}

void SwitchRegs::update_irq() { irq.set((irq_status() & m_enable) != 0); }

void SwitchRegs::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  m_access_time = sc_core::sc_time_stamp() + delay;  // the manager may run ahead of SystemC time
  delay += m_access;
  m_regs.access(t);
}

}  // namespace m2
