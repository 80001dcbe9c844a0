// libFuzzer target: the firmware ELF loader (models/core/elf_loader) on any
// file. Outcomes: an image, or m2::ConfigError naming the file. A loaded
// image must describe addresses and load into memory within its segments.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "core/elf_loader.h"
#include "core/params.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/m2vp-fuzz-elf-" + std::to_string(::getpid()) + ".elf";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  try {
    const m2::ElfImage img = m2::ElfImage::load(path);
    for (const m2::ElfSegment& s : img.segments()) {
      img.describe(s.paddr);
      img.describe(s.paddr + s.memsz / 2);
    }
    img.symbol("main");
    uint64_t written = 0, expected = 0;
    for (const m2::ElfSegment& s : img.segments()) expected += s.memsz;
    m2::load_into(img, [&](uint64_t addr, const uint8_t* bytes, size_t len) {
      bool inside = false;
      for (const m2::ElfSegment& s : img.segments()) inside |= addr >= s.paddr && addr + len <= s.paddr + s.memsz;
      if (!inside) __builtin_trap();                     // a write outside every segment is a loader bug
      volatile uint8_t sink = len ? bytes[len - 1] : 0;  // the bytes must be readable
      (void)sink;
      written += len;
    });
    if (written != expected) __builtin_trap();
  } catch (const m2::ConfigError&) {
  }
  return 0;
}
