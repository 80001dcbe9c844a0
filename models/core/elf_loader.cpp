// Firmware ELF loader; see elf_loader.h.
#include "core/elf_loader.h"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <sstream>
#include <tuple>

#include "core/bytes.h"
#include "core/input_file.h"
#include "core/params.h"

namespace m2 {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw ConfigError(path + ": " + what); }

constexpr uint64_t kMaxElfBytes = 256ull << 20;

[[noreturn]] void corrupt(const std::string& path, const std::string& detail) {
  fail(path, "truncated or corrupt ELF (" + detail + ")");
}

std::string libelf_error() {
  const char* msg = elf_errmsg(-1);
  return msg ? msg : "unknown libelf error";
}

// True when [offset, offset + len) lies inside a file of `file_size` bytes,
// written so that huge values cannot wrap around.
bool fits(uint64_t offset, uint64_t len, uint64_t file_size) {
  return offset <= file_size && len <= file_size - offset;
}

struct MachineName {
  uint16_t id;
  const char* name;
  const char* constant;
};

// Enough machines to make a wrong firmware path obvious in the message.
const MachineName kMachines[] = {
    {EM_NONE, "none", "EM_NONE"},         {EM_SPARC, "SPARC", "EM_SPARC"},        {EM_386, "Intel 80386", "EM_386"},
    {EM_68K, "Motorola 68000", "EM_68K"}, {EM_MIPS, "MIPS", "EM_MIPS"},           {EM_PPC, "PowerPC", "EM_PPC"},
    {EM_PPC64, "PowerPC64", "EM_PPC64"},  {EM_S390, "IBM S/390", "EM_S390"},      {EM_ARM, "ARM", "EM_ARM"},
    {EM_SH, "SuperH", "EM_SH"},           {EM_SPARCV9, "SPARC v9", "EM_SPARCV9"}, {EM_IA_64, "IA-64", "EM_IA_64"},
    {EM_X86_64, "x86-64", "EM_X86_64"},   {EM_AARCH64, "AArch64", "EM_AARCH64"},  {EM_RISCV, "RISC-V", "EM_RISCV"},
};

const MachineName* find_machine(uint16_t id) {
  for (const auto& m : kMachines)
    if (m.id == id) return &m;
  return nullptr;
}

// "62 (x86-64)", or just "4711" for a machine we have no name for.
std::string machine_text(uint16_t id) {
  const MachineName* m = find_machine(id);
  return m ? std::to_string(id) + " (" + m->name + ")" : std::to_string(id);
}

// "PowerPC (EM_PPC)".
std::string expected_machine_text(uint16_t id) {
  const MachineName* m = find_machine(id);
  return m ? std::string(m->name) + " (" + m->constant + ")" : "machine " + std::to_string(id);
}

std::string type_text(uint16_t type) {
  switch (type) {
    case ET_NONE:
      return "ET_NONE (no file type)";
    case ET_REL:
      return "ET_REL (a relocatable object: was it linked?)";
    case ET_DYN:
      return "ET_DYN (a shared object or PIE: link with -static -no-pie)";
    case ET_CORE:
      return "ET_CORE (a core dump)";
    default:
      return std::to_string(type);
  }
}

struct ElfCloser {
  void operator()(Elf* e) const { elf_end(e); }
};
using ElfPtr = std::unique_ptr<Elf, ElfCloser>;

void init_libelf(const std::string& path) {
  // Must be called once before any other libelf call; the static makes it so.
  static const bool ok = elf_version(EV_CURRENT) != EV_NONE;
  if (!ok) fail(path, "cannot load firmware ELF: libelf does not support ELF version EV_CURRENT");
}

}  // namespace

ElfImage ElfImage::load(const std::string& path, uint16_t expected_machine) {
  const std::string expected_desc = expected_machine_text(expected_machine);
  const std::string not_elf = "not an ELF file (expected a " +
                              (find_machine(expected_machine) ? std::string(find_machine(expected_machine)->name)
                                                              : "machine " + std::to_string(expected_machine)) +
                              " 32-bit big-endian executable)";

  // Firmware for a 64 MB SDRAM: a 256 MB file cannot be one.
  std::vector<uint8_t> file = read_input_file(path, "firmware ELF", kMaxElfBytes);
  const uint64_t size = file.size();
  if (size < SELFMAG || std::memcmp(file.data(), ELFMAG, SELFMAG) != 0) fail(path, not_elf);

  init_libelf(path);
  // elf_memory keeps pointing into `file`, which outlives `elf`.
  ElfPtr elf(elf_memory(reinterpret_cast<char*>(file.data()), file.size()));
  if (!elf) corrupt(path, "libelf cannot read the " + std::to_string(size) + "-byte file: " + libelf_error());
  // It has the ELF magic, so anything libelf cannot make sense of is damage.
  if (elf_kind(elf.get()) != ELF_K_ELF)
    corrupt(path, "file is " + std::to_string(size) + " bytes; libelf does not recognise it as ELF");

  size_t ident_size = 0;
  const char* ident = elf_getident(elf.get(), &ident_size);
  if (!ident || ident_size < EI_NIDENT)
    corrupt(path, "file is only " + std::to_string(size) + " bytes, shorter than the ELF identification");
  const unsigned char cls = static_cast<unsigned char>(ident[EI_CLASS]);
  const unsigned char data = static_cast<unsigned char>(ident[EI_DATA]);
  if (cls != ELFCLASS32 && cls != ELFCLASS64) corrupt(path, "invalid EI_CLASS " + std::to_string(cls));
  if (data != ELFDATA2LSB && data != ELFDATA2MSB) corrupt(path, "invalid EI_DATA " + std::to_string(data));

  GElf_Ehdr eh;
  if (!gelf_getehdr(elf.get(), &eh)) corrupt(path, "cannot read the ELF header: " + libelf_error());

  // The machine is checked first (an x86-64 host binary is "wrong machine", not
  // "wrong class"), except that a big-endian image mislabelled little-endian
  // reads back as the byte-swapped machine: that one is reported as endianness.
  const uint16_t swapped = static_cast<uint16_t>((eh.e_machine >> 8) | (eh.e_machine << 8));
  const bool machine_ok = eh.e_machine == expected_machine || (data == ELFDATA2LSB && swapped == expected_machine);
  if (!machine_ok) fail(path, "ELF is for machine " + machine_text(eh.e_machine) + ", expected " + expected_desc);
  if (cls != ELFCLASS32)
    fail(path, "ELF is 64-bit (ELFCLASS64), expected a 32-bit (ELFCLASS32) " + expected_desc + " image");
  if (data != ELFDATA2MSB) fail(path, "ELF is little-endian (ELFDATA2LSB), expected big-endian (ELFDATA2MSB)");
  if (eh.e_type != ET_EXEC) fail(path, "ELF type is " + type_text(eh.e_type) + ", expected an executable (ET_EXEC)");

  ElfImage img;
  img.m_path = path;
  img.m_entry = eh.e_entry;

  // --- Program headers: the PT_LOAD segments are what gets loaded. ---
  size_t phnum = 0;
  if (elf_getphdrnum(elf.get(), &phnum) != 0) corrupt(path, "cannot read the program header count: " + libelf_error());
  // Checked here as well as by libelf so that the message says what is cut off;
  // the header's own count is used too because libelf may quietly shrink it.
  if (eh.e_phnum != PN_XNUM) phnum = std::max<size_t>(phnum, eh.e_phnum);
  // libelf reads entries of its own size whatever the header says; a different
  // size means the table is not what the header describes.
  if (phnum > 0 && eh.e_phentsize != sizeof(Elf32_Phdr))
    corrupt(path, "program header entry size e_phentsize is " + std::to_string(eh.e_phentsize) + ", expected " +
                      std::to_string(sizeof(Elf32_Phdr)) + " for a 32-bit ELF");
  if (phnum > 0 && !fits(eh.e_phoff, uint64_t(phnum) * eh.e_phentsize, size))
    corrupt(path, "program header table at offset " + hex(eh.e_phoff) + " (" + std::to_string(phnum) +
                      " entries) runs past the end of the " + std::to_string(size) + "-byte file");
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(elf.get(), static_cast<int>(i), &ph))
      corrupt(path, "cannot read program header " + std::to_string(i) + ": " + libelf_error());
    if (ph.p_type != PT_LOAD) continue;
    const std::string what = "segment " + std::to_string(i) + " at " + hex(ph.p_paddr);
    if (ph.p_memsz < ph.p_filesz)
      corrupt(path, what + ": p_memsz " + hex(ph.p_memsz) + " is smaller than p_filesz " + hex(ph.p_filesz));
    if (!fits(ph.p_offset, ph.p_filesz, size))
      corrupt(path, what + ": file bytes " + hex(ph.p_offset) + ".." + hex(ph.p_offset + ph.p_filesz) +
                        " lie past the end of the " + std::to_string(size) + "-byte file");
    // A 32-bit CPU cannot hold a segment that wraps the address space.
    if (!fits(ph.p_paddr, ph.p_memsz, uint64_t(1) << 32))
      corrupt(path, what + ": " + hex(ph.p_memsz) + " bytes wrap past the 32-bit address space");
    ElfSegment seg;
    seg.paddr = ph.p_paddr;
    seg.vaddr = ph.p_vaddr;
    seg.memsz = ph.p_memsz;
    seg.executable = (ph.p_flags & PF_X) != 0;
    seg.data.assign(file.begin() + static_cast<std::ptrdiff_t>(ph.p_offset),
                    file.begin() + static_cast<std::ptrdiff_t>(ph.p_offset + ph.p_filesz));
    img.m_segments.push_back(std::move(seg));
  }
  if (img.m_segments.empty()) fail(path, "ELF has no loadable (PT_LOAD) segment, expected at least one");
  // Overlapping segments would make the loaded bytes depend on their order.
  {
    std::vector<const ElfSegment*> by_addr;
    for (const ElfSegment& seg : img.m_segments)
      if (seg.memsz > 0) by_addr.push_back(&seg);
    std::sort(by_addr.begin(), by_addr.end(),
              [](const ElfSegment* a, const ElfSegment* b) { return a->paddr < b->paddr; });
    for (size_t i = 1; i < by_addr.size(); ++i)
      if (by_addr[i]->paddr < by_addr[i - 1]->paddr + by_addr[i - 1]->memsz)
        corrupt(path, "loadable segments overlap: " + hex(by_addr[i - 1]->paddr) + ".." +
                          hex(by_addr[i - 1]->paddr + by_addr[i - 1]->memsz) + " and " + hex(by_addr[i]->paddr) + ".." +
                          hex(by_addr[i]->paddr + by_addr[i]->memsz));
  }

  // --- Symbols (optional: a stripped image simply has none). ---
  size_t shnum = 0;
  if (elf_getshdrnum(elf.get(), &shnum) != 0) corrupt(path, "cannot read the section header count: " + libelf_error());
  // libelf silently drops a section header table that lies past the end of the
  // file (the symbols would just vanish), so check the header's numbers here.
  if (eh.e_shoff != 0) shnum = std::max<size_t>({shnum, eh.e_shnum, 1});
  if (shnum > 0 && !fits(eh.e_shoff, uint64_t(shnum) * eh.e_shentsize, size))
    corrupt(path, "section header table at offset " + hex(eh.e_shoff) + " (" + std::to_string(shnum) +
                      " entries) runs past the end of the " + std::to_string(size) + "-byte file");

  struct RawSymbol {
    ElfSymbol sym;
    bool global;
  };
  std::vector<RawSymbol> raw;
  for (Elf_Scn* scn = elf_nextscn(elf.get(), nullptr); scn; scn = elf_nextscn(elf.get(), scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) corrupt(path, "cannot read a section header: " + libelf_error());
    if (sh.sh_type != SHT_SYMTAB) continue;
    if (!fits(sh.sh_offset, sh.sh_size, size))
      corrupt(path, "symbol table at offset " + hex(sh.sh_offset) + " runs past the end of the " +
                        std::to_string(size) + "-byte file");
    Elf_Data* d = elf_getdata(scn, nullptr);
    if (!d) corrupt(path, "cannot read the symbol table: " + libelf_error());
    const size_t count = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t k = 1; k < count; ++k) {  // entry 0 is the reserved null symbol
      GElf_Sym s;
      if (!gelf_getsym(d, static_cast<int>(k), &s))
        corrupt(path, "cannot read symbol " + std::to_string(k) + ": " + libelf_error());
      const int type = GELF_ST_TYPE(s.st_info);
      const bool is_func = type == STT_FUNC || type == STT_GNU_IFUNC;
      if (!is_func && type != STT_OBJECT && type != STT_NOTYPE) continue;  // sections, files, TLS
      if (s.st_shndx == SHN_UNDEF) continue;
      const char* name = elf_strptr(elf.get(), sh.sh_link, s.st_name);
      if (!name) corrupt(path, "symbol " + std::to_string(k) + " has a bad name: " + libelf_error());
      if (!*name) continue;
      const int bind = GELF_ST_BIND(s.st_info);
      raw.push_back({ElfSymbol{name, s.st_value, s.st_size, is_func}, bind == STB_GLOBAL || bind == STB_WEAK});
    }
  }

  std::map<std::string, bool> name_is_global;
  for (const RawSymbol& r : raw) {
    auto it = name_is_global.find(r.sym.name);
    if (it == name_is_global.end()) {
      name_is_global.emplace(r.sym.name, r.global);
      img.m_addr_by_name[r.sym.name] = r.sym.addr;
    } else if (r.global && !it->second) {
      it->second = true;
      img.m_addr_by_name[r.sym.name] = r.sym.addr;
    }
    img.m_symbols.push_back(r.sym);
    img.m_max_symbol_size = std::max(img.m_max_symbol_size, r.sym.size);
  }
  std::sort(img.m_symbols.begin(), img.m_symbols.end(),
            [](const ElfSymbol& a, const ElfSymbol& b) { return std::tie(a.addr, a.name) < std::tie(b.addr, b.name); });
  return img;
}

std::optional<uint64_t> ElfImage::symbol(const std::string& name) const {
  auto it = m_addr_by_name.find(name);
  if (it == m_addr_by_name.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> ElfImage::string_at(uint64_t addr, size_t max) const {
  for (const ElfSegment& seg : m_segments) {
    if (addr < seg.vaddr || addr >= seg.vaddr + seg.data.size()) continue;
    std::string s;
    for (uint64_t i = addr - seg.vaddr; i < seg.data.size() && s.size() < max; ++i) {
      if (seg.data[i] == 0) return s;
      s += static_cast<char>(seg.data[i]);
    }
    return std::nullopt;  // runs out of the segment or over `max`
  }
  return std::nullopt;
}

std::optional<std::string> ElfImage::describe(uint64_t addr) const {
  // Symbols starting more than the largest symbol size below `addr` cannot
  // contain it, so only a short backward walk from upper_bound is needed.
  auto it = std::upper_bound(m_symbols.begin(), m_symbols.end(), addr,
                             [](uint64_t a, const ElfSymbol& s) { return a < s.addr; });
  const uint64_t reach = std::max<uint64_t>(m_max_symbol_size, 1);
  const ElfSymbol* best = nullptr;
  int best_rank = 0;
  while (it != m_symbols.begin()) {
    const ElfSymbol& s = *--it;
    const uint64_t off = addr - s.addr;
    if (off >= reach) break;
    int rank;  // lower is better
    if (s.size > 0 && off < s.size) rank = s.is_function ? 0 : 1;
    else if (s.size == 0 && off == 0) rank = 2;
    else continue;
    // Walking down by address: on equal rank keep the higher start (innermost);
    // at the same address keep the alphabetically first name.
    if (!best || rank < best_rank || (rank == best_rank && s.addr == best->addr)) best = &s, best_rank = rank;
  }
  if (!best) return std::nullopt;
  if (addr == best->addr) return best->name;
  return best->name + "+" + hex(addr - best->addr);
}

void load_into(const ElfImage& img, const std::function<void(uint64_t addr, const uint8_t* data, size_t len)>& write) {
  // One shared block of zeros keeps a large .bss from needing a large buffer.
  static constexpr size_t kZeroChunk = 64 * 1024;
  static const uint8_t kZeros[kZeroChunk] = {};
  for (const ElfSegment& seg : img.segments()) {
    if (!seg.data.empty()) write(seg.paddr, seg.data.data(), seg.data.size());
    uint64_t addr = seg.paddr + seg.data.size();
    uint64_t left = seg.memsz - seg.data.size();
    while (left > 0) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(left, kZeroChunk));
      write(addr, kZeros, n);
      addr += n;
      left -= n;
    }
  }
}

}  // namespace m2
