// The instruction-set simulator's raw speed: the compute kernel of
// compute.elf (sw/firmware/tests/compute/) on a bare Unicorn 603e, without
// the platform around it. iss_speed compares the platform with it; speed
// uses it for the ISS-bound limit of a run (its instructions at this speed).
#pragma once

#include <sys/mman.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include <unicorn/unicorn.h>

#include "core/elf_loader.h"
#include "platform/paths.h"

namespace m2bench {

struct RawResult {
  uint32_t r3 = 0;
  double seconds = 0;
  uint64_t instructions = 0;  // only when counted
};

[[noreturn]] inline void raw_die(const std::string& why) {
  std::fprintf(stderr, "raw Unicorn: error: %s\n", why.c_str());
  std::exit(1);
}

inline std::string compute_elf() { return (std::filesystem::path(m2::firmware_dir()) / "compute.elf").string(); }

// bench_kernel's address in compute.elf.
inline uint32_t compute_kernel(const m2::ElfImage& img) {
  const auto sym = img.symbol("bench_kernel");
  if (!sym) raw_die(compute_elf() + " has no symbol bench_kernel");
  return static_cast<uint32_t>(*sym);
}

inline void uc_check(uc_err e, const char* what) {
  if (e != UC_ERR_OK) raw_die(std::string(what) + ": " + uc_strerror(e));
}

inline void count_block(uc_engine*, uint64_t, uint32_t size, void* user) { *static_cast<uint64_t*>(user) += size / 4; }

// Runs bench_kernel(iterations) on a bare Unicorn 603e. With `count`, a block
// hook counts instructions (that run is not a speed measurement). The kernel
// starts with r3 = iterations, r1 = kStack and LR = kReturn; Unicorn stops
// before running kReturn.
inline RawResult run_raw(const m2::ElfImage& img, uint32_t kernel, unsigned iterations, bool count) {
  constexpr uint64_t kMemSize = 64ull << 20;
  constexpr uint32_t kStack = 0x03FFFFF0;
  constexpr uint32_t kReturn = 0x100;
  void* mem = mmap(nullptr, kMemSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) raw_die("mmap of the raw Unicorn memory failed");
  auto* bytes = static_cast<uint8_t*>(mem);
  m2::load_into(img, [&](uint64_t addr, const uint8_t* data, size_t len) {
    if (addr + len > kMemSize) raw_die("compute.elf does not fit in 64 MB at 0");
    std::memcpy(bytes + addr, data, len);
  });

  uc_engine* uc = nullptr;
  uc_check(uc_open(UC_ARCH_PPC, static_cast<uc_mode>(UC_MODE_PPC32 | UC_MODE_BIG_ENDIAN), &uc), "uc_open");
  uc_check(uc_ctl_set_cpu_model(uc, UC_CPU_PPC32_603E_V4_1), "select CPU model 603e");
  uc_check(uc_mem_map_ptr(uc, 0, kMemSize, UC_PROT_ALL, mem), "uc_mem_map_ptr");
  RawResult r;
  if (count) {
    uc_hook h;
    uc_check(uc_hook_add(uc, &h, UC_HOOK_BLOCK, reinterpret_cast<void*>(&count_block), &r.instructions, 1, 0),
             "block hook");
  }
  uint32_t v = iterations;
  uc_check(uc_reg_write(uc, UC_PPC_REG_3, &v), "write r3");
  v = kStack;
  uc_check(uc_reg_write(uc, UC_PPC_REG_1, &v), "write r1");
  v = kReturn;
  uc_check(uc_reg_write(uc, UC_PPC_REG_LR, &v), "write lr");

  const auto t0 = std::chrono::steady_clock::now();
  const uc_err err = uc_emu_start(uc, kernel, kReturn, 0, 0);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  uc_check(err, "uc_emu_start");
  uint32_t pc = 0;
  uc_reg_read(uc, UC_PPC_REG_PC, &pc);
  if (pc != kReturn) raw_die("the run stopped at pc " + std::to_string(pc) + ", not at the return address");
  uc_reg_read(uc, UC_PPC_REG_3, &r.r3);
  uc_close(uc);
  munmap(mem, kMemSize);
  return r;
}

// Raw speed in instructions per second: one counted run, then the best of two
// timed runs of `iterations`.
inline double raw_instructions_per_second(unsigned iterations) {
  const m2::ElfImage img = m2::ElfImage::load(compute_elf());
  const uint32_t kernel = compute_kernel(img);
  const uint64_t n = run_raw(img, kernel, iterations, true).instructions;
  double best = run_raw(img, kernel, iterations, false).seconds;
  const double second = run_raw(img, kernel, iterations, false).seconds;
  if (second < best) best = second;
  return static_cast<double>(n) / best;
}

}  // namespace m2bench
