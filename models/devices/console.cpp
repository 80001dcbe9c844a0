#include "devices/console.h"

#include <ip/console.h>

namespace m2 {

Console::Console(sc_core::sc_module_name name, std::string speaker)
    : Peripheral(name,
                 [] {
                   Options o;
                   o.socket_name = "socket";
                   o.debug_reads = false;  // as before the base: TXDATA-only device, nothing to inspect
                   return o;
                 }()),
      TextOutput(std::move(speaker)) {
  bank().add(CONSOLE_TXDATA, "TXDATA", nullptr, [this](uint32_t v) { put(static_cast<char>(v & 0xFF)); });
  bank().add(
      CONSOLE_STATUS, "STATUS", [] { return CONSOLE_STATUS_READY; }, nullptr);
}

}  // namespace m2
