#include "host/exec_calls.h"

namespace m2 {
namespace {

ExecCallHandler g_handler;  // registered from a static constructor: plain data, no order problem

}  // namespace

void register_exec_handler(const ExecCallHandler& handler) { g_handler = handler; }

const ExecCallHandler* exec_handler() { return g_handler.run ? &g_handler : nullptr; }

}  // namespace m2
