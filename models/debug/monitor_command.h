// A GDB "monitor" command a platform adds to a CPU's debugger: what the
// firmware engineer asks about the hardware around the CPU (the NI's DMA
// queue, its network-buffer levels, the last traced transactions), answered
// from the models' state while the CPU is halted.
#pragma once

#include <functional>
#include <string>

namespace m2 {

struct MonitorCommand {
  std::string name;                  // "dma": typed as "monitor dma"
  std::string help;                  // one line for "monitor help"
  std::function<std::string()> run;  // the answer, ending with a newline
};

}  // namespace m2
