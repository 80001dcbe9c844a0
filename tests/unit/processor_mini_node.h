// A processor on a minimal platform for unit tests: Router + 64 MB Memory +
// Console + SimCtrl + Processor, wired like platform/ni_node.cpp but without
// the platform layer, running real firmware from M2VP_TEST_FIRMWARE_DIR.
// One per process (SystemC elaborates once).
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <string>

#include <systemc>
#include <tlm>

#include <ip/ni_memory_map.h>

#include "core/elf_loader.h"
#include "core/memory.h"
#include "core/router.h"
#include "core/run_control.h"
#include "cpu/processor.h"
#include "devices/console.h"
#include "devices/simctrl.h"

namespace m2test {

inline std::string firmware_path(const std::string& name) {
  return std::string(M2VP_TEST_FIRMWARE_DIR) + "/" + name + ".elf";
}

// The NI node's models, as platform/ni_node.cpp wires them, at top level.
struct MiniNode {
  m2::RunControl run;
  m2::Router bus{"bus"};
  m2::Memory sdram{"sdram", NI_SDRAM_SIZE};
  m2::Processor cpu{"cpu", run, [this] { return bus.memory_map(); }};
  m2::Console console{"console", cpu.name()};
  m2::SimCtrl simctrl{"simctrl", run, cpu.name(), static_cast<uint32_t>(cpu.timebase_hz.get()),
                      static_cast<uint32_t>(cpu.clock_mhz.get() * 1e6)};
  std::shared_ptr<const m2::ElfImage> image;

  explicit MiniNode(const std::string& fw) {
    cpu.socket.bind(bus.target);
    bus.attach(sdram.socket, NI_SDRAM_BASE, sdram.size(), sdram.name());
    bus.attach(console.regs, NI_CONSOLE_BASE, NI_DEVICE_SIZE, console.name());
    bus.attach(simctrl.regs, NI_SIMCTRL_BASE, NI_DEVICE_SIZE, simctrl.name());
    image = std::make_shared<m2::ElfImage>(m2::ElfImage::load(firmware_path(fw)));
    cpu.load_firmware(image);
    run.add_participant(cpu.name());
  }

  void simulate() {
    tlm::tlm_global_quantum::instance().set(sc_core::sc_time(1, sc_core::SC_US));
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC), sc_core::SC_EXIT_ON_STARVATION);
    console.flush();
  }

  std::optional<int64_t> result(const std::string& key) const {
    for (const auto& r : run.results())
      if (r.source == cpu.name() && r.key == key) return r.value;
    return std::nullopt;
  }

  uint64_t symbol(const std::string& name) const {
    auto a = image->symbol(name);
    REQUIRE(a);
    return *a;
  }
};

}  // namespace m2test
