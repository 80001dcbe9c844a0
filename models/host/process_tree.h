// The processes below the simulator: what its outside programs
// (hostN.exec) started and left behind, whatever they did to their session
// and process group. The simulator is a child subreaper
// (PR_SET_CHILD_SUBREAPER), so every orphan of a program reparents to it
// rather than to init; these functions find such leftovers by walking
// /proc for processes whose parent chain leads to the simulator, kill them
// and reap them. docs/models/host-process.md, "What a run guarantees".
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace m2 {

// Makes the simulator the reaper of its programs' orphans (once; idempotent).
void adopt_orphans();

struct Leftover {
  pid_t pid = 0;
  std::string name;  // /proc/PID/comm
  std::string node;  // the M2VP_NODE it inherited ("" when it has none)
};

// Kills (SIGKILL) every live process below the simulator except the
// programs `keep` and what runs below them, waits until they are gone (a
// wall-time bound of 2 s) and reaps those that became the simulator's
// children. Returns the ones it killed (zombies only reaped, not listed).
std::vector<Leftover> kill_leftovers(const std::vector<pid_t>& keep);

// Async-signal-safe: SIGKILL to every process below the simulator, a few
// passes to catch what forks meanwhile; no waiting, no reaping. For the
// signal handlers and the exit of the simulator.
void kill_all_descendants() noexcept;

}  // namespace m2
