// Firmware ELF loader for the PowerPC 603e (32-bit, big-endian executables).
//
// The whole file is read into memory and handed to libelf, so every offset the
// ELF claims can be checked against the real file size: a bad firmware image
// gives a ConfigError naming the file and what was expected, never a crash or
// a silently half-loaded memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace m2 {

// One PT_LOAD segment. `data` holds the p_filesz bytes from the file; the
// remaining memsz - data.size() bytes (.bss) are zero-filled when loaded.
struct ElfSegment {
  uint64_t paddr = 0;
  uint64_t vaddr = 0;
  std::vector<uint8_t> data;
  uint64_t memsz = 0;
  bool executable = false;
};

// A named function, object or label from .symtab (section/file symbols and
// undefined ones are dropped).
struct ElfSymbol {
  std::string name;
  uint64_t addr = 0;
  uint64_t size = 0;
  bool is_function = false;
};

class ElfImage {
 public:
  // Loads and checks the file; throws m2::ConfigError (models/core/params.h)
  // whose message starts with `path`. The image must be ELFCLASS32,
  // ELFDATA2MSB, ET_EXEC for `expected_machine`, with at least one PT_LOAD.
  static ElfImage load(const std::string& path, uint16_t expected_machine = 20 /*EM_PPC*/);

  const std::string& path() const { return m_path; }
  uint64_t entry() const { return m_entry; }
  // PT_LOAD segments in file order.
  const std::vector<ElfSegment>& segments() const { return m_segments; }

  // Address of a named symbol. When a name is defined more than once (local
  // statics in several files) the global definition wins, else the first one.
  std::optional<uint64_t> symbol(const std::string& name) const;
  // The NUL-terminated string the image holds at `addr` (at most `max`
  // bytes), from its loaded segments; nullopt when it is not all there.
  std::optional<std::string> string_at(uint64_t addr, size_t max = 256) const;

  // "main+0x1c" for an address inside a sized symbol ("main" at its start);
  // functions win over objects, then the innermost (highest start). A zero-size
  // label (e.g. an assembly `_start`) only matches its exact address.
  // nullopt when no symbol covers the address.
  std::optional<std::string> describe(uint64_t addr) const;

  // All kept symbols, sorted by address then name.
  const std::vector<ElfSymbol>& symbols() const { return m_symbols; }

 private:
  ElfImage() = default;

  std::string m_path;
  uint64_t m_entry = 0;
  std::vector<ElfSegment> m_segments;
  std::vector<ElfSymbol> m_symbols;  // sorted by (addr, name)
  std::map<std::string, uint64_t> m_addr_by_name;
  uint64_t m_max_symbol_size = 0;  // bounds the backward scan in describe()
};

// Writes the image through `write`, by physical address (p_paddr): once per
// segment for its file bytes (skipped when empty), then its zero-filled tail in
// chunks of at most 64 KiB, so the callback never needs a huge buffer.
void load_into(const ElfImage& img, const std::function<void(uint64_t addr, const uint8_t* data, size_t len)>& write);

}  // namespace m2
