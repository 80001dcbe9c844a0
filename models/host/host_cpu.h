// A host PC's CPU as seen by the platform: one SystemC thread that runs a
// native host application (sw/apps over sw/host) and charges the time the
// real host would spend: computation and copies (annotated), system calls,
// page pinning, programmed I/O over PCI (the bus model's time), polling and
// interrupt wake-up. Temporal decoupling as in the NI's processor: the thread
// runs ahead of SystemC time by a local offset and syncs before every PCI
// access and wait, and at quantum ends.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "core/memory.h"
#include "core/module_log.h"
#include "core/params.h"
#include "core/run_control.h"
#include "cpu/local_time.h"
#include "core/text_output.h"
#include "host/host_apps.h"
#include "host/host_program.h"
#include "host/phys_allocator.h"
#include "host/tcpip/ip_packet_port.h"
#include "trace/message_tag.h"

namespace m2 {

class HostSockets;

class HostCpu : public sc_core::sc_module {
 public:
  // Programmed I/O: PCI bus addresses, bound to the host bridge.
  tlm_utils::simple_initiator_socket<HostCpu> pio;

  Param<std::string> app;
  Param<std::string> exec;
  Param<std::string> args;
  Param<double> exec_cpu_scale;
  Param<uint64_t> exec_arena_mb;
  Param<std::string> exec_np_out;
  Param<double> clock_mhz;
  Param<double> memcpy_mbyte_per_s;
  Param<double> memcpy_setup_ns;
  Param<double> syscall_ns;
  Param<double> pin_us_per_page;
  Param<double> unpin_us_per_page;
  Param<double> poll_ns;
  Param<double> irq_wakeup_us;
  Param<uint64_t> pio_write_bytes;
  Param<uint64_t> pio_read_bytes;

  TextOutput console;  // the application's printf output

  SC_HAS_PROCESS(HostCpu);
  // `memory` is the host's physical memory, at PCI bus address `memory_bus_base`.
  // `id`/`count`: this host's number and the number of hosts in the platform.
  HostCpu(sc_core::sc_module_name name, RunControl& run, Memory& memory, uint64_t memory_bus_base, int id, int count);
  ~HostCpu() override;

  // PCI interrupt line (INTA#) from the NI.
  void pci_interrupt(bool level);
  // Something wrote host memory over PCI (DMA), complete `after` from now:
  // wakes pollers then.
  void memory_written(const sc_core::sc_time& after = sc_core::SC_ZERO_TIME);

  bool has_app() const { return m_app != nullptr || !exec.get().empty(); }
  // The host's TCP sockets (its TCP/IP stack), which its outside program's
  // socket calls use; nullptr (the default): the host has no TCP/IP, and
  // every socket call of its program ends the run saying so. Set by the
  // host node before the simulation starts; not owned.
  void set_sockets(HostSockets* sockets) { m_sockets = sockets; }
  HostSockets* sockets() const { return m_sockets; }
  // Resolves `exec` (an outside program, docs/models/host-process.md): a
  // name with a '/' relative to `config_dir`, else through PATH. Throws
  // ConfigError naming the parameter and the path when there is no such
  // program, it is not a regular file or not executable, or `app` is set too.
  void configure_program(const std::string& config_dir);
  // Memory for a kernel driver set up at boot (elaboration): page-aligned,
  // contiguous, free of charge; *bus_addr gets its bus address. Null when
  // the host memory has no room.
  uint8_t* reserve_memory(size_t bytes, uint64_t* bus_addr);
  // The host's network device (the NI's Ethernet emulation driver), when its
  // NI runs the eth firmware; else null.
  void set_ip_port(IpPacketPort* port) { m_ip_port = port; }
  IpPacketPort* ip_port() const { return m_ip_port; }
  // Run on the host's thread when its software ends, before the host counts
  // as finished (a driver bringing its interface down).
  void at_exit(std::function<void()> f) { m_at_exit.push_back(std::move(f)); }
  // One line for stall reports: what the host is doing.
  std::string state() const;

  // For the host watchdog (platform/host_watchdog.h): what the host has done
  // that the NI or another host can see, and how long it has slept waiting
  // for something to arrive (a DMA write or an interrupt).
  struct Activity {
    bool running = false;     // its software has started and not ended
    bool ended = false;       // its software has ended (exited, failed or aborted)
    uint64_t pci_writes = 0;  // PIO writes to the NI (requests, doorbells)
    uint64_t dma_writes = 0;  // DMA writes into its memory
    sc_core::sc_time waited;  // asleep in a poll or an interrupt wait, so far
  };
  Activity activity() const;

  // ---- the host environment (host_env.h), for the running host ----------
  static HostCpu& current();
  int id() const { return m_id; }
  int count() const { return m_count; }
  sc_core::sc_time now() const { return m_qk.now(); }
  void charge(const sc_core::sc_time& t);
  void charge_ns(double ns) { charge(sc_core::sc_time(ns, sc_core::SC_NS)); }
  void charge_memcpy(size_t bytes);
  void* phys_alloc(size_t bytes, uint64_t* bus_addr);
  void phys_free(void* p);
  bool bus_address(const void* p, uint64_t* bus_addr) const;
  bool pci_access(bool is_write, uint64_t addr, uint8_t* data, size_t len);
  bool poll32(const volatile uint32_t* word, uint32_t mask, uint32_t value, double timeout_us);
  bool wait_interrupt(double timeout_us);
  // Brings SystemC time up to the host's own (before a call into a model
  // that waits in SystemC time, such as the TCP/IP stack).
  void sync_time() { sync(); }
  // After such a call: the model may have waited, so this host becomes the
  // current one again, its local time the kernel's.
  void after_blocking();
  // Sleeps until `e` or `timeout_us` (< 0: none), `doing` meanwhile in
  // state(); true when `e` came.
  bool wait_event(const sc_core::sc_event& e, double timeout_us, const char* doing);
  // Looks at `ready` (one poll_ns each time) until it holds, sleeping until
  // the next DMA write into host memory in between: for kernel code that
  // waits on a shared count rather than one word's value. False after
  // timeout_us (< 0: none).
  bool poll_until(const std::function<bool()>& ready, double timeout_us);
  // Sleeps until `ready` holds, looking at it (free) each time `e` (a
  // driver's or another thread's event) is notified.
  void wait_until(const std::function<bool()>& ready, const sc_core::sc_event& e);
  void result(const std::string& key, int64_t value);
  // Ends the whole run (m2host_abort); the host's thread never returns.
  [[noreturn]] void abort_run(int code, const std::string& why);

  // The run's output folder, for m2host_output_path (empty: none). Set by the
  // simulation before it starts; shared by every host.
  static void set_output_dir(const std::string& dir);
  static const std::string& output_dir();
  // The file names host software asked for there (m2host_output_path): the
  // run's output folder lists them as the run's (platform/output_folder.h).
  static void add_output_file(const std::string& name);
  static const std::set<std::string>& output_files();
  // Told each new name add_output_file gets, before the application creates
  // the file (the run's manifest lists it at once; empty: nobody).
  static void set_output_file_listener(std::function<void(const std::string&)> listener);

  // Message tracing (m2host_msg_*; docs/models/message-breakdown.md): where
  // this host's software reports its messages. Unset: the hooks do nothing.
  void set_message_probe(MessageProbe probe) { m_probe = probe; }
  const MessageProbe& message_probe() const { return m_probe; }
  // The message the following PIO writes belong to (0: none): they carry
  // its MessageTag, so that the NI can tell when the request is in.
  void set_pio_message(MessageId id) { m_pio_tag.id = id; }
  // The application's phase for the messages it sends next (m2host_msg_phase).
  void set_message_phase(std::string phase) { m_msg_phase = std::move(phase); }
  // What the software waits in, per layer (m2host_activity): for state().
  void set_activity(int layer, const char* what) {
    if (layer >= 0 && layer < 2) m_activity[layer] = what ? what : "";
  }
  const std::string& message_phase() const { return m_msg_phase; }

 private:
  void start_of_simulation() override;
  void run();
  void finish(int rc);  // the software ended with `rc`: the host's exit
  void sync();
  // wait() that keeps current() pointing at this host afterwards.
  void wait_for(const sc_core::sc_event& e, double timeout_us);

  RunControl& m_run;
  Memory& m_memory;
  uint64_t m_bus_base;
  int m_id, m_count;
  const HostAppInfo* m_app = nullptr;
  std::unique_ptr<HostProgram> m_program;  // with `exec`
  HostSockets* m_sockets = nullptr;
  PhysAllocator m_alloc;
  LocalTime m_qk;
  bool m_inta = false;
  sc_core::sc_event m_inta_event, m_memory_event, m_never;
  const char* m_doing = "not started";  // a static string: set on every PCI access
  int m_exit_code = 0;
  sc_core::sc_time m_exit_time;  // when the software ended (state())
  uint64_t m_pci_writes = 0, m_dma_writes = 0;
  sc_core::sc_time m_waited;      // asleep in wait_for(), finished waits
  sc_core::sc_time m_wait_since;  // start of the wait in progress
  bool m_in_wait = false;
  bool m_started = false;
  int m_arena_fd = -1;  // the host's memory as a file, with `exec`
  // The application's arguments. Members, not locals of run(): a thread
  // stopped by a stall never returns, and its coroutine stack is not
  // scanned by LeakSanitizer (docs/sanitizers.md).
  std::vector<std::string> m_words;
  std::vector<char*> m_argv;
  tlm::tlm_generic_payload m_trans;
  MessageTag m_pio_tag;  // attached to m_trans for its life
  MessageProbe m_probe;
  std::string m_msg_phase;
  std::string m_activity[2];  // MMP library, the layer above (MPI)
  ModuleLog m_log{this};      // messages named after this module, at its sim.log level
  IpPacketPort* m_ip_port = nullptr;
  std::vector<std::function<void()>> m_at_exit;
};

}  // namespace m2
