// Memory-mapped 32-bit registers declared by name with read/write callbacks,
// so a device model lists its registers in one place (as its ip/ header does).
// Accesses are 32-bit and aligned; values are big-endian (the PowerPC's view)
// unless the bank is little-endian (a register page the host sees over PCI).
// Anything else is answered with an error that names the device, offset and
// size.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include <tlm>

namespace m2 {

enum class ByteOrder { Big, Little };

class RegisterBank {
 public:
  using ReadFn = std::function<uint32_t()>;
  using WriteFn = std::function<void(uint32_t)>;

  explicit RegisterBank(std::string owner, ByteOrder order = ByteOrder::Big)
      : m_owner(std::move(owner)), m_order(order) {}

  // A null callback makes the register write-only or read-only.
  void add(uint32_t offset, const std::string& name, ReadFn read, WriteFn write);

  // Performs the access in `t` (address relative to the bank). On error the
  // response status says so and last_error() tells why.
  void access(tlm::tlm_generic_payload& t);
  // A debugger's read (transport_dbg, any address and length): the values of
  // registers from their getters, which only look at state (a write-only
  // register reads 0). Returns the bytes done, up to the first byte where no
  // register is. Writes are refused (0): writing a register acts.
  unsigned debug_read(tlm::tlm_generic_payload& t) const;
  const std::string& last_error() const { return m_last_error; }

 private:
  struct Reg {
    std::string name;
    ReadFn read;
    WriteFn write;
  };
  std::string m_owner;
  ByteOrder m_order;
  std::map<uint32_t, Reg> m_regs;
  std::string m_last_error;
};

}  // namespace m2
