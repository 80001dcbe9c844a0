#include "host/exec_calls.h"

namespace m2 {
namespace {

// Registered from static constructors: plain data, no order problem.
constexpr uint32_t kKinds = 8;
ExecCallHandler g_handlers[kKinds];

}  // namespace

void register_exec_handler(uint32_t kind, const ExecCallHandler& handler) {
  if (kind < kKinds) g_handlers[kind] = handler;
}

const ExecCallHandler* exec_handler(uint32_t kind) {
  return kind < kKinds && g_handlers[kind].run ? &g_handlers[kind] : nullptr;
}

}  // namespace m2
