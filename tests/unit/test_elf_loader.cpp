// Unit tests for the firmware ELF loader (models/core/elf_loader.*).
//
// The test images are built at test time with the PowerPC cross toolchain (a
// declared build dependency), so the expected bytes and addresses come from the
// assembly source below rather than from a checked-in binary. Broken images are
// byte-patched copies of the good one.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.h"
#include "core/elf_loader.h"
#include "core/params.h"
#include "devices/simctrl.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

constexpr uint16_t kEmPpc = 20;
constexpr uint16_t kEmX86_64 = 62;

// Linked with -Ttext=0x3000 -e _start: _start at 0x3000, foo right after it.
const char* const kPpcSource = R"(
    .text
    .globl _start
_start:
    lis 1, 0x12          # 0x3c200012
    ori 1, 1, 0x3456     # 0x60213456
    bl foo               # 0x48000009
    b .                  # 0x48000000

    .globl foo
    .type foo, @function
foo:
    li 3, 0x1234         # 0x38601234
    addi 3, 3, 1         # 0x38630001
    blr                  # 0x4e800020
    .size foo, . - foo

    .data
    .globl counter
    .type counter, @object
counter:
    .long 0xdeadbeef
    .size counter, 4

    .bss
    .globl buf
    .type buf, @object
buf:
    .space 0x20000       # two full 64 KiB zero chunks in load_into
    .size buf, 0x20000
)";

const std::vector<uint8_t> kStartCode = {0x3c, 0x20, 0x00, 0x12, 0x60, 0x21, 0x34, 0x56, 0x48, 0x00,
                                         0x00, 0x09, 0x48, 0x00, 0x00, 0x00, 0x38, 0x60, 0x12, 0x34,
                                         0x38, 0x63, 0x00, 0x01, 0x4e, 0x80, 0x00, 0x20};

// A private directory under the system temp dir, removed with its contents.

std::string quote(const fs::path& p) {
  std::string out = "'";
  for (char c : p.string()) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool have_tool(const std::string& tool) {
  return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0;
}

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path& p, const std::vector<uint8_t>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::trunc);
  out << text;
}

// Runs a shell command with its output in `log`; FAILs the test with the log
// and the command when it does not succeed.
void run_or_fail(const std::string& cmd, const fs::path& log) {
  const int rc = std::system((cmd + " >" + quote(log) + " 2>&1").c_str());
  if (rc != 0) {
    std::ifstream in(log);
    std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    FAIL("command failed (status " << rc << "): " << cmd << "\n" << out);
  }
}

void require_tool(const std::string& tool, const std::string& why) {
  if (!have_tool(tool)) FAIL(tool << " not found in PATH: it is a declared build dependency of m2vp (" << why << ")");
}

// The good PowerPC image and its object file, built once per process.
struct PpcFixture {
  TempDir dir{"m2vp-elf-test"};
  fs::path elf, object;
  std::vector<uint8_t> bytes;
};

const PpcFixture& ppc() {
  static std::unique_ptr<PpcFixture> fx;
  if (fx) return *fx;
  require_tool("powerpc-linux-gnu-gcc", "cross toolchain for the PowerPC 603e firmware");
  auto f = std::make_unique<PpcFixture>();
  const fs::path src = f->dir.path / "fw.S";
  write_text(src, kPpcSource);
  f->elf = f->dir.path / "fw.elf";
  f->object = f->dir.path / "fw.o";
  run_or_fail("powerpc-linux-gnu-gcc -nostdlib -static -Ttext=0x3000 -e _start -Wl,--build-id=none -o " +
                  quote(f->elf) + " " + quote(src),
              f->dir.path / "link.log");
  run_or_fail("powerpc-linux-gnu-gcc -c -o " + quote(f->object) + " " + quote(src), f->dir.path / "as.log");
  f->bytes = read_bytes(f->elf);
  REQUIRE(f->bytes.size() > 200);
  fx = std::move(f);
  return *fx;
}

// Big-endian field access for patching copies of the ELF32 image.
uint32_t get_be(const std::vector<uint8_t>& b, size_t off, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | b.at(off + i);
  return v;
}
void put_be(std::vector<uint8_t>& b, size_t off, size_t n, uint32_t v) {
  for (size_t i = 0; i < n; ++i) b.at(off + n - 1 - i) = static_cast<uint8_t>(v >> (8 * i));
}

// Offset of program header `i` (ELF32: e_phoff at 28, e_phnum at 44, 32-byte entries).
size_t phdr(const std::vector<uint8_t>& b, size_t i) { return get_be(b, 28, 4) + 32 * i; }
size_t phnum(const std::vector<uint8_t>& b) { return get_be(b, 44, 2); }
constexpr uint32_t kPtLoad = 1;

// Index of the first PT_LOAD program header.
size_t first_load(const std::vector<uint8_t>& b) {
  for (size_t i = 0; i < phnum(b); ++i)
    if (get_be(b, phdr(b, i), 4) == kPtLoad) return i;
  FAIL("test image has no PT_LOAD");
  return 0;
}

// The ConfigError message load() gives for `path`; FAILs if it loads fine.
std::string load_error(const std::string& path, uint16_t machine = kEmPpc) {
  try {
    m2::ElfImage::load(path, machine);
  } catch (const m2::ConfigError& e) {
    return e.what();
  }
  FAIL("loading " << path << " should have thrown m2::ConfigError");
  return "";
}

// Writes a patched copy of the good image and returns the load error.
std::string patched_error(const std::string& name, std::vector<uint8_t> bytes, fs::path* out_path) {
  *out_path = ppc().dir.path / name;
  write_bytes(*out_path, bytes);
  return load_error(out_path->string());
}

const m2::ElfSegment* segment_containing(const m2::ElfImage& img, uint64_t addr) {
  for (const auto& s : img.segments())
    if (addr >= s.paddr && addr < s.paddr + s.memsz) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("ElfImage loads entry, segments and bytes of a PowerPC executable", "[elf]") {
  const auto& fx = ppc();
  const m2::ElfImage img = m2::ElfImage::load(fx.elf.string());
  CHECK(img.path() == fx.elf.string());
  CHECK(img.entry() == 0x3000);
  REQUIRE(!img.segments().empty());

  const m2::ElfSegment* text = segment_containing(img, 0x3000);
  REQUIRE(text != nullptr);
  CHECK(text->executable);
  CHECK(text->vaddr == text->paddr);
  REQUIRE(text->paddr + text->data.size() >= 0x3000 + kStartCode.size());
  const std::vector<uint8_t> code(text->data.begin() + (0x3000 - text->paddr),
                                  text->data.begin() + (0x3000 - text->paddr) + kStartCode.size());
  CHECK(code == kStartCode);

  const auto counter = img.symbol("counter");
  REQUIRE(counter);
  const m2::ElfSegment* data = segment_containing(img, *counter);
  REQUIRE(data != nullptr);
  CHECK_FALSE(data->executable);
  const uint64_t off = *counter - data->paddr;
  REQUIRE(off + 4 <= data->data.size());
  CHECK(std::vector<uint8_t>(data->data.begin() + off, data->data.begin() + off + 4) ==
        std::vector<uint8_t>{0xde, 0xad, 0xbe, 0xef});
  // .bss follows .data in the same segment: present in memory, not in the file.
  CHECK(data->memsz > data->data.size());
  CHECK(data->memsz - data->data.size() >= 0x20000);
  const auto buf = img.symbol("buf");
  REQUIRE(buf);
  CHECK(*buf >= data->paddr + data->data.size());
  CHECK(*buf + 0x20000 <= data->paddr + data->memsz);

  for (const auto& s : img.segments()) CHECK(s.memsz >= s.data.size());
}

TEST_CASE("ElfImage looks up and describes symbols", "[elf]") {
  const m2::ElfImage img = m2::ElfImage::load(ppc().elf.string());
  CHECK(img.symbol("_start") == std::optional<uint64_t>(0x3000));
  CHECK(img.symbol("foo") == std::optional<uint64_t>(0x3010));
  CHECK_FALSE(img.symbol("no_such_symbol"));

  bool found_foo = false;
  for (const auto& s : img.symbols())
    if (s.name == "foo") {
      found_foo = true;
      CHECK(s.is_function);
      CHECK(s.addr == 0x3010);
      CHECK(s.size == 12);
    } else if (s.name == "counter") {
      CHECK_FALSE(s.is_function);
      CHECK(s.size == 4);
    }
  CHECK(found_foo);

  CHECK(img.describe(0x3014) == std::optional<std::string>("foo+0x4"));
  CHECK(img.describe(0x3010) == std::optional<std::string>("foo"));
  CHECK(img.describe(0x3018) == std::optional<std::string>("foo+0x8"));
  CHECK_FALSE(img.describe(0x301c));                                    // just past foo's .size
  CHECK(img.describe(0x3000) == std::optional<std::string>("_start"));  // zero-size label, exact
  CHECK_FALSE(img.describe(0x3004));
  const uint64_t counter = *img.symbol("counter");
  CHECK(img.describe(counter + 2) == std::optional<std::string>("counter+0x2"));
  const uint64_t buf = *img.symbol("buf");
  CHECK(img.describe(buf + 0x1ffff) == std::optional<std::string>("buf+0x1ffff"));
  CHECK_FALSE(img.describe(0xfff00100));
}

TEST_CASE("load_into writes exactly the file bytes and the zero fill", "[elf]") {
  const m2::ElfImage img = m2::ElfImage::load(ppc().elf.string());

  struct Write {
    uint64_t addr;
    std::vector<uint8_t> bytes;
  };
  std::vector<Write> writes;
  m2::load_into(img, [&](uint64_t addr, const uint8_t* data, size_t len) {
    writes.push_back({addr, std::vector<uint8_t>(data, data + len)});
  });

  // Replay the expected sequence: file bytes, then zero chunks of <= 64 KiB.
  size_t w = 0;
  for (const auto& seg : img.segments()) {
    if (!seg.data.empty()) {
      REQUIRE(w < writes.size());
      CHECK(writes[w].addr == seg.paddr);
      CHECK(writes[w].bytes == seg.data);
      ++w;
    }
    uint64_t addr = seg.paddr + seg.data.size();
    uint64_t zeros = 0;
    while (zeros < seg.memsz - seg.data.size()) {
      REQUIRE(w < writes.size());
      const Write& z = writes[w++];
      CHECK(z.addr == addr);
      CHECK(!z.bytes.empty());
      CHECK(z.bytes.size() <= 64 * 1024);
      CHECK(z.bytes == std::vector<uint8_t>(z.bytes.size(), 0));
      addr += z.bytes.size();
      zeros += z.bytes.size();
    }
    CHECK(zeros == seg.memsz - seg.data.size());
  }
  CHECK(w == writes.size());

  // The result as memory: code at 0x3000, counter, and a zeroed .bss.
  std::map<uint64_t, uint8_t> mem;
  size_t overlapping = 0;  // counted, not CHECKed per byte, to keep the report small
  for (const auto& wr : writes)
    for (size_t i = 0; i < wr.bytes.size(); ++i) overlapping += !mem.emplace(wr.addr + i, wr.bytes[i]).second;
  CHECK(overlapping == 0);
  for (size_t i = 0; i < kStartCode.size(); ++i) CHECK(mem.at(0x3000 + i) == kStartCode[i]);
  const uint64_t counter = *img.symbol("counter");
  CHECK(mem.at(counter) == 0xde);
  CHECK(mem.at(counter + 3) == 0xef);
  const uint64_t buf = *img.symbol("buf");
  CHECK(mem.at(buf) == 0);
  CHECK(mem.at(buf + 0x1ffff) == 0);
  uint64_t total = 0;
  for (const auto& seg : img.segments()) total += seg.memsz;
  CHECK(mem.size() == total);
}

TEST_CASE("ElfImage reports unreadable and non-ELF files", "[elf]") {
  TempDir dir{"m2vp-elf-test"};
  SECTION("missing file") {
    const std::string p = (dir.path / "does-not-exist.elf").string();
    const std::string msg = load_error(p);
    CHECK_THAT(msg, StartsWith(p + ": cannot open firmware ELF: "));
    CHECK_THAT(msg, Contains("No such file or directory"));
  }
  SECTION("directory") {
    const std::string p = dir.path.string();
    CHECK_THAT(load_error(p), StartsWith(p + ": cannot open firmware ELF: "));
  }
  SECTION("empty file") {
    const std::string p = (dir.path / "empty.elf").string();
    write_text(p, "");
    CHECK(load_error(p) == p + ": not an ELF file (expected a PowerPC 32-bit big-endian executable)");
  }
  SECTION("text file") {
    const std::string p = (dir.path / "notes.txt").string();
    write_text(p, "this is firmware, honest\n");
    CHECK(load_error(p) == p + ": not an ELF file (expected a PowerPC 32-bit big-endian executable)");
  }
  SECTION("bare ELF magic") {
    const std::string p = (dir.path / "magic.elf").string();
    write_text(p,
               "\x7f"
               "ELF");
    const std::string msg = load_error(p);
    CHECK_THAT(msg, StartsWith(p + ": "));
    CHECK_THAT(msg, Contains("truncated or corrupt ELF"));
  }
}

TEST_CASE("ElfImage reports truncated and corrupt images", "[elf]") {
  const auto& fx = ppc();
  fs::path p;
  SECTION("first 200 bytes only") {
    const std::string msg = patched_error("trunc200.elf", {fx.bytes.begin(), fx.bytes.begin() + 200}, &p);
    CHECK_THAT(msg, StartsWith(p.string() + ": truncated or corrupt ELF ("));
    CHECK_THAT(msg, Contains("past the end"));
  }
  SECTION("cut inside the ELF header") {
    const std::string msg = patched_error("trunc40.elf", {fx.bytes.begin(), fx.bytes.begin() + 40}, &p);
    CHECK_THAT(msg, StartsWith(p.string() + ": truncated or corrupt ELF ("));
  }
  SECTION("cut before the section headers (symbols would silently vanish)") {
    const uint32_t shoff = get_be(fx.bytes, 32, 4);  // e_shoff
    REQUIRE(shoff > 0);
    REQUIRE(shoff < fx.bytes.size());
    const std::string msg = patched_error("noshdr.elf", {fx.bytes.begin(), fx.bytes.begin() + shoff}, &p);
    CHECK_THAT(msg, StartsWith(p.string() + ": truncated or corrupt ELF (section header table"));
  }
  SECTION("segment pointing past the end of the file") {
    auto b = fx.bytes;
    put_be(b, phdr(b, first_load(b)) + 4, 4, static_cast<uint32_t>(b.size()));  // p_offset
    const std::string msg = patched_error("pastend.elf", b, &p);
    CHECK_THAT(msg, StartsWith(p.string() + ": truncated or corrupt ELF ("));
    CHECK_THAT(msg, Contains("past the end"));
  }
  SECTION("segment with memsz < filesz") {
    auto b = fx.bytes;
    put_be(b, phdr(b, first_load(b)) + 20, 4, 0);  // p_memsz
    const std::string msg = patched_error("memsz.elf", b, &p);
    CHECK_THAT(msg, StartsWith(p.string() + ": truncated or corrupt ELF ("));
    CHECK_THAT(msg, Contains("p_memsz 0x0 is smaller than p_filesz"));
  }
  SECTION("no PT_LOAD segment") {
    auto b = fx.bytes;
    for (size_t i = 0; i < phnum(b); ++i) put_be(b, phdr(b, i), 4, 0);  // PT_NULL
    const std::string msg = patched_error("noload.elf", b, &p);
    CHECK(msg == p.string() + ": ELF has no loadable (PT_LOAD) segment, expected at least one");
  }
}

TEST_CASE("ElfImage rejects ELF files for the wrong target", "[elf]") {
  const auto& fx = ppc();
  fs::path p;
  SECTION("64-bit class") {
    auto b = fx.bytes;
    b[4] = 2;  // EI_CLASS = ELFCLASS64
    const std::string msg = patched_error("class64.elf", b, &p);
    CHECK_THAT(msg, StartsWith(p.string() + ": ELF is 64-bit (ELFCLASS64), expected a 32-bit"));
  }
  SECTION("little-endian") {
    auto b = fx.bytes;
    b[5] = 1;  // EI_DATA = ELFDATA2LSB
    const std::string msg = patched_error("le.elf", b, &p);
    CHECK(msg == p.string() + ": ELF is little-endian (ELFDATA2LSB), expected big-endian (ELFDATA2MSB)");
  }
  SECTION("relocatable object, not linked") {
    const std::string msg = load_error(fx.object.string());
    CHECK_THAT(msg, StartsWith(fx.object.string() + ": ELF type is ET_REL"));
    CHECK_THAT(msg, Contains("expected an executable (ET_EXEC)"));
  }
  SECTION("shared object type") {
    auto b = fx.bytes;
    put_be(b, 16, 2, 3);  // e_type = ET_DYN
    const std::string msg = patched_error("dyn.elf", b, &p);
    CHECK_THAT(msg, StartsWith(p.string() + ": ELF type is ET_DYN"));
    CHECK_THAT(msg, Contains("expected an executable (ET_EXEC)"));
  }
  SECTION("PowerPC image when another machine is expected") {
    const std::string msg = load_error(fx.elf.string(), kEmX86_64);
    CHECK(msg == fx.elf.string() + ": ELF is for machine 20 (PowerPC), expected x86-64 (EM_X86_64)");
  }
  SECTION("host executable") {
    require_tool("gcc", "native compiler");
    TempDir dir{"m2vp-elf-test"};
    const fs::path src = dir.path / "host.c";
    const fs::path exe = dir.path / "host.elf";
    write_text(src, "int main(void) { return 0; }\n");
    run_or_fail("gcc -o " + quote(exe) + " " + quote(src), dir.path / "gcc.log");
    const std::string msg = load_error(exe.string());
    CHECK_THAT(msg, StartsWith(exe.string() + ": ELF is for machine "));
    CHECK_THAT(msg, Contains(", expected PowerPC (EM_PPC)"));
#if defined(__x86_64__)
    CHECK_THAT(msg, Contains("machine 62 (x86-64)"));
#endif
  }
}

// Found by probing (issue 14): inputs that were accepted silently or hung.
TEST_CASE("ElfImage rejects overlapping segments, a wrong program-header size and non-regular files", "[elf]") {
  const auto& fx = ppc();
  fs::path p;
  SECTION("two PT_LOAD segments over the same addresses") {
    auto b = fx.bytes;
    std::vector<size_t> loads;
    for (size_t i = 0; i < phnum(b); ++i)
      if (get_be(b, phdr(b, i), 4) == kPtLoad) loads.push_back(i);
    REQUIRE(loads.size() >= 2);
    const uint32_t first_paddr = get_be(b, phdr(b, loads[0]) + 12, 4);
    put_be(b, phdr(b, loads[1]) + 12, 4, first_paddr);  // p_paddr of the second = the first's
    const std::string msg = patched_error("overlap.elf", b, &p);
    CHECK_THAT(msg, StartsWith(p.string() + ": truncated or corrupt ELF (loadable segments overlap: "));
  }
  SECTION("e_phentsize not the size of an ELF32 program header") {
    auto b = fx.bytes;
    put_be(b, 42, 2, 40);  // e_phentsize
    const std::string msg = patched_error("phentsize.elf", b, &p);
    CHECK(msg == p.string() +
                     ": truncated or corrupt ELF (program header entry size e_phentsize is 40, expected 32 "
                     "for a 32-bit ELF)");
  }
  SECTION("a named pipe is refused at once instead of blocking in open()") {
    const fs::path fifo = fx.dir.path / "pipe.elf";
    fs::remove(fifo);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(load_error(fifo.string()) ==
          fifo.string() + ": cannot open firmware ELF: it is a named pipe, expected a regular file");
  }
  SECTION("a device that never ends is refused instead of read until memory runs out") {
    CHECK(load_error("/dev/zero") ==
          "/dev/zero: cannot open firmware ELF: it is a character device, expected a regular file");
  }
}

TEST_CASE("ELF loader: a string the image holds, and the firmware's result names from it", "[elf]") {
  const m2::ElfImage hello = m2::ElfImage::load(std::string(M2VP_TEST_FIRMWARE_DIR) + "/hello.elf");
  const auto names = hello.symbol("fw_result_names");
  REQUIRE(names);
  CHECK(hello.string_at(*names) == std::optional<std::string>("sum of primes,slept us"));
  CHECK(hello.string_at(*names, 5) == std::nullopt);    // longer than allowed
  CHECK(hello.string_at(0xfffffff0u) == std::nullopt);  // in no segment
  CHECK(m2::SimCtrl::result_names_of(hello) == std::vector<std::string>{"sum of primes", "slept us"});
  // Firmware without the string: no names.
  const m2::ElfImage plain = m2::ElfImage::load(std::string(M2VP_TEST_FIRMWARE_DIR) + "/exit_code.elf");
  CHECK(m2::SimCtrl::result_names_of(plain).empty());
}
