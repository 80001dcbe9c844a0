// The ISS core through the ISS hook, without SystemC (tests of breakpoints,
// single steps and watchpoints): 64 MB of RAM at 0 and one device page at the
// console address, nothing else mapped, with firmware from
// M2VP_TEST_FIRMWARE_DIR loaded by BareCore.
#pragma once

#include <catch2/catch.hpp>

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ip/ni_memory_map.h>

#include "core/elf_loader.h"
#include "cpu/core_factory.h"
#include "cpu/iss.h"

namespace m2test {

// Every device access is a bus error, unless `device_ok`: then the device
// page is a bank of 32-bit registers (big-endian) and every access is logged.
struct BareEnv : m2::iss::Environment {
  struct Access {
    bool is_write;
    uint64_t addr;
    uint32_t value;
  };
  uint8_t* ram = nullptr;
  uint64_t size = NI_SDRAM_SIZE;
  unsigned transports = 0;
  bool device_ok = false;
  uint32_t regs[NI_DEVICE_SIZE / 4] = {};
  std::vector<Access> accesses;

  BareEnv() {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    REQUIRE(p != MAP_FAILED);
    ram = static_cast<uint8_t*>(p);
  }
  ~BareEnv() override { munmap(ram, size); }
  std::vector<m2::iss::MemRegion> memory_map() override {
    return {{0, size, "ram"}, {NI_CONSOLE_BASE, NI_DEVICE_SIZE, "console"}};
  }
  std::optional<m2::iss::DirectMemory> direct_memory(uint64_t addr) override {
    if (addr < size) return m2::iss::DirectMemory{ram, 0, size, true};
    return std::nullopt;
  }
  bool transport(bool is_write, uint64_t addr, uint8_t* data, unsigned len) override {
    ++transports;
    if (!device_ok || len != 4 || (addr & 3)) return false;
    uint32_t& r = regs[(addr - NI_CONSOLE_BASE) / 4];
    if (is_write) r = (uint32_t(data[0]) << 24) | (uint32_t(data[1]) << 16) | (uint32_t(data[2]) << 8) | data[3];
    else
      for (int i = 0; i < 4; ++i) data[i] = uint8_t(r >> (24 - 8 * i));
    accesses.push_back({is_write, addr, r});
    return true;
  }
  uint64_t ps = 0;  // simulated time the core sees (tests of the timebase set it)
  uint64_t now_ps() override { return ps; }
};

constexpr unsigned kRegLr = 67;  // GDB order: r0-r31, f0-f31, pc, msr, cr, lr, ...

// Steps until something other than the budget stops the core.
inline m2::iss::StopReason run_until_stop(m2::iss::Core& core, uint64_t budget = 100'000'000) {
  for (uint64_t i = 0; i < 100'000'000'000ull / budget; ++i) {
    const auto why = core.step(budget);
    if (why != m2::iss::StopReason::Budget) return why;
  }
  return m2::iss::StopReason::Budget;
}

// After set_pc() onto a breakpoint, a core may either report that breakpoint
// first (no instruction executed) or step over it at once; accept both.
inline m2::iss::StopReason resume_at(m2::iss::Core& core, uint64_t pc) {
  core.set_pc(pc);
  const uint64_t n = core.instruction_count();
  const auto why = run_until_stop(core);
  if (why == m2::iss::StopReason::Breakpoint && core.pc() == pc && core.instruction_count() == n)
    return run_until_stop(core);
  return why;
}

struct BareCore {
  BareEnv env;
  m2::ElfImage img;
  std::unique_ptr<m2::iss::Core> core;
  explicit BareCore(const std::string& firmware = "compute")
      : img(m2::ElfImage::load(std::string(M2VP_TEST_FIRMWARE_DIR) + "/" + firmware + ".elf")) {
    core = m2::iss::make_core("ppc603e", env, {"test.cpu", 25'000'000, NI_ISS_PRIVATE_BASE});
    m2::load_into(img, [this](uint64_t addr, const uint8_t* data, size_t len) {
      REQUIRE(addr + len <= env.size);
      std::memcpy(env.ram + addr, data, len);
    });
    for (const auto& s : img.segments())
      if (s.executable) core->code_changed(s.paddr, s.memsz);
    core->reset(img.entry());
  }
  uint64_t sym(const std::string& n) {
    auto a = img.symbol(n);
    REQUIRE(a);
    return *a;
  }
};

// Instructions bench_kernel of compute.elf executes from its entry to its
// return, on a fresh core (the reference for runs under a debugger).
inline uint64_t kernel_instructions() {
  BareCore ref;
  ref.core->insert_breakpoint(ref.sym("bench_kernel"));
  REQUIRE(run_until_stop(*ref.core) == m2::iss::StopReason::Breakpoint);
  const uint64_t n = ref.core->instruction_count();
  ref.core->insert_breakpoint(ref.core->read_register(kRegLr));
  REQUIRE(run_until_stop(*ref.core) == m2::iss::StopReason::Breakpoint);
  return ref.core->instruction_count() - n;
}

}  // namespace m2test
