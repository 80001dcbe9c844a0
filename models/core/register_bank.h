// Memory-mapped 32-bit registers declared by name with read/write callbacks,
// so a device model lists its registers in one place (as its ip/ header does).
// Accesses are 32-bit and aligned; values are big-endian (the PowerPC's view)
// unless the bank is little-endian (a register page the host sees over PCI).
// Anything else is answered with an error that names the device, offset and
// size. A write the device cannot take (a full queue) is refused by its
// callback with a TLM response status; a register may declare the value
// reset() gives it; two registers at one offset are a programming error.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include <tlm>

#include "core/module_log.h"

namespace m2 {

enum class ByteOrder { Big, Little };

class RegisterBank {
 public:
  using ReadFn = std::function<uint32_t()>;
  using WriteFn = std::function<void(uint32_t)>;
  // A write that may be refused: returns TLM_OK_RESPONSE when done, or the
  // error status to answer with (the callback logs why; nothing is done).
  using CheckedWriteFn = std::function<tlm::tlm_response_status(uint32_t)>;

  explicit RegisterBank(std::string owner, ByteOrder order = ByteOrder::Big)
      : m_owner(owner), m_log(std::move(owner)), m_order(order) {}

  // A null callback makes the register write-only or read-only. Throws
  // std::logic_error when `offset` already has a register (it names both).
  void add(uint32_t offset, const std::string& name, ReadFn read, WriteFn write);
  // A register whose writes the device may refuse (see CheckedWriteFn).
  void add_checked(uint32_t offset, const std::string& name, ReadFn read, CheckedWriteFn write);
  // Declares the value reset() writes to the register at `offset` (through
  // its write callback). Throws std::logic_error for an offset without a
  // writable register.
  void set_reset_value(uint32_t offset, uint32_t value);
  // Writes every declared reset value, in offset order.
  void reset();

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
    CheckedWriteFn write;  // null: read-only
    std::optional<uint32_t> reset;
  };
  void insert(uint32_t offset, const std::string& name, ReadFn read, CheckedWriteFn write);
  std::string m_owner;
  ModuleLog m_log;  // the owner's
  ByteOrder m_order;
  std::map<uint32_t, Reg> m_regs;
  std::string m_last_error;
};

}  // namespace m2
