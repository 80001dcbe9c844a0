// LeakSanitizer and SystemC threads that never return.
//
// An SC_THREAD still suspended when a run ends (a host application stopped
// by MPI_Abort, a stall or the time limit) never unwinds: what only its
// stack frames point to stays in use until exit. LeakSanitizer does not scan
// SystemC's coroutine stacks (they are separate mappings, not heap blocks),
// so in a sanitized build such memory is reported as leaked. A thread that
// runs application code calls keep_stack_as_leak_root() once at its start:
// its whole coroutine stack becomes a root region, and what the frames hold
// counts as reachable. In other builds the call does nothing.
#pragma once

namespace m2 {

void keep_stack_as_leak_root();

}  // namespace m2
