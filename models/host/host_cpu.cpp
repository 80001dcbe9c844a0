#include "host/host_cpu.h"

#include <cstdio>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/leak_roots.h"
#include "core/log.h"
#include "core/paths.h"

namespace m2 {
namespace {

HostCpu* g_current = nullptr;

// What the host is doing, for stall reports (compared by address).
const char* const kRunning = "running";
const char* const kExited = "exited";  // the host whose thread runs (SystemC threads are coroutines)
const char* const kFailed = "failed";
std::string g_output_dir;  // HostCpu::set_output_dir

std::vector<std::string> app_choices() {
  std::vector<std::string> names{""};
  for (const HostAppInfo& a : host_apps()) names.push_back(a.name);
  return names;
}

// Why stat() of a program's path failed, in plain words (the system's own
// text where there is no plainer one).
std::string path_error_text(int err) {
  switch (err) {
    case ENOENT:
      return "no such file";
    case ELOOP:
      return "a symbolic link loop (Too many levels of symbolic links)";
    case ENOTDIR:
      return "a part of the path that should be a folder is not one (Not a directory)";
    case EACCES:
      return "a folder on the path cannot be searched (Permission denied)";
    default:
      return std::strerror(err);
  }
}

}  // namespace

HostCpu::HostCpu(sc_core::sc_module_name name, RunControl& run, Memory& memory, uint64_t memory_bus_base, int id,
                 int count)
    : sc_module(name),
      pio("pio"),
      app(this->name(), "app", "", "host application to run (empty: none; the choices are the registered applications)",
          app_choices()),
      exec(
          this->name(), "exec", "", "",
          "outside Linux program to run as this host's software instead of an app (a name found through PATH, "
          "or a path relative to the config); its MPI and socket calls run on this host (docs/models/host-process.md)"),
      args(this->name(), "args", "", "",
           "the application's (or program's) command-line arguments, separated by spaces"),
      exec_cpu_scale(this->name(), "exec_cpu_scale", 0.0, "factor",
                     "simulated time per second of the outside program's own CPU time between its calls; 0: its "
                     "computation is free and runs repeat exactly (non-zero makes results depend on this machine's "
                     "speed and load; about 8 stands for a Pentium III 1 GHz against a 2020s x86-64 core)",
                     Range<double>{0, 1e6}),
      exec_arena_mb(this->name(), "exec_arena_mb", 64, "MiB",
                    "shared memory for the outside program's message buffers in flight (largest message, and all "
                    "nonblocking ones at once, must fit)",
                    Range<uint64_t>{1, 65536}),
      exec_np_out(this->name(), "exec_np_out", "", "",
                  "file in the program's working folder in NetPIPE's np.out format (bytes, Mbit/s, seconds) that "
                  "becomes the run's results.tsv (bytes, latency_us, mbps) when the program ends; read where it "
                  "exists (NetPIPE's rank 0 writes it); empty: none"),
      clock_mhz(this->name(), "clock_mhz", 1000.0, "MHz", "host CPU clock (Pentium III 1 GHz)",
                Range<double>{1, 10000}),
      memcpy_mbyte_per_s(this->name(), "memcpy_mbyte_per_s", 300.0, "MB/s",
                         "memcpy bandwidth, memory to memory (assumption: PIII with PC133 SDRAM)",
                         Range<double>{1, 1e6}),
      memcpy_setup_ns(this->name(), "memcpy_setup_ns", 40.0, "ns", "fixed cost of one memcpy call (assumption)",
                      Range<double>{0, 1e6}),
      syscall_ns(this->name(), "syscall_ns", 1000.0, "ns",
                 "one system call, entry to return (assumption: Linux 2.4 on a PIII 1 GHz)", Range<double>{0, 1e9}),
      pin_us_per_page(this->name(), "pin_us_per_page", 130.0, "us",
                      "pinning one 4 KB page and handing its address to the NI (measured on the real system)",
                      Range<double>{0, 1e6}),
      unpin_us_per_page(this->name(), "unpin_us_per_page", 10.0, "us", "unpinning one 4 KB page (assumption)",
                        Range<double>{0, 1e6}),
      poll_ns(this->name(), "poll_ns", 100.0, "ns",
              "one poll of a flag in host memory that DMA wrote (a cache miss; assumption)", Range<double>{0, 1e6}),
      irq_wakeup_us(this->name(), "irq_wakeup_us", 8.0, "us",
                    "PCI interrupt to the waiting process running again (assumption: Linux 2.4)",
                    Range<double>{0, 1e6}),
      pio_write_bytes(this->name(), "pio_write_bytes", 32, "bytes",
                      "largest PCI write the CPU issues (write combining of the PIII)", Range<uint64_t>{4, 4096}),
      pio_read_bytes(this->name(), "pio_read_bytes", 4, "bytes",
                     "largest PCI read the CPU issues (uncached reads are not combined)", Range<uint64_t>{4, 4096}),
      console(this->name()),
      m_run(run),
      m_memory(memory),
      m_bus_base(memory_bus_base),
      m_id(id),
      m_count(count),
      // The first MB stays with the "kernel", as on a PC.
      m_alloc(0x100000,
              memory.size() > 0x100000 ? (memory.size() - 0x100000) / PhysAllocator::PAGE * PhysAllocator::PAGE : 0) {
  if (!app.get().empty()) {
    m_app = find_host_app(app.get());
    run.add_participant(this->name());
  }
  m_trans.set_extension(&m_pio_tag);
  SC_THREAD(run);
  // Native applications may keep large arrays on their stack.
  set_stack_size(16 * 1024 * 1024);
}

void HostCpu::configure_program(const std::string& config_dir) {
  const std::string& value = exec.get();
  if (value.empty()) return;
  const std::string key = std::string(name()) + ".exec = '" + value + "'";
  if (!app.get().empty())
    throw ConfigError(key + " and " + name() + ".app = '" + app.get() +
                      "': a host runs either an application or an outside program, not both");
  namespace fs = std::filesystem;
  std::string path;
  if (value.find('/') != std::string::npos) {
    const fs::path p(value);
    path = (p.is_absolute() || config_dir.empty() ? p : fs::path(config_dir) / p).lexically_normal().string();
  } else {
    // As a shell finds a command: the first PATH entry that has it.
    const char* env = std::getenv("PATH");
    const std::string dirs = env ? env : "";
    size_t start = 0;
    for (;;) {
      const size_t colon = dirs.find(':', start);
      const std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      const fs::path candidate = fs::path(dir.empty() ? "." : dir) / value;
      struct stat st {};
      if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
        path = candidate.string();
        break;
      }
      // for the message: something by that name (a link that leads nowhere too)
      if (path.empty() && ::lstat(candidate.c_str(), &st) == 0) path = candidate.string();
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    if (path.empty()) throw ConfigError(key + ": no such program in PATH (" + dirs + ")");
  }
  // The program starts in its own working folder (<out>/node<N>): a path
  // relative to the simulator's would not be found from there.
  std::error_code abs_ec;
  path = fs::absolute(path, abs_ec).lexically_normal().string();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw ConfigError(key + ": " + path + ": " + path_error_text(errno));
  if (!S_ISREG(st.st_mode)) throw ConfigError(key + ": " + path + " is not a regular file");
  if (::access(path.c_str(), X_OK) != 0) throw ConfigError(key + ": " + path + " is not executable");

  // Its stdout is its own: a line that happens to start with "@row" is
  // logged, not taken as a row of results.tsv (exec_np_out feeds the table).
  console.ignore_table_lines();
  HostProgram::Options o;
  o.program = path;
  std::istringstream in(args.get());
  for (std::string w; in >> w;) o.args.push_back(w);
  const std::string me = name();
  o.node = me.substr(0, me.rfind('.'));
  // What an MPI launcher tells each process (MPICH's Hydra and Open MPI's
  // names), and our libmpich.so.12 before the system's.
  const std::string rank = std::to_string(m_id), size = std::to_string(m_count);
  const char* old_path = std::getenv("LD_LIBRARY_PATH");
  const char* old_preload = std::getenv("LD_PRELOAD");
  o.env = {"PMI_RANK=" + rank, "PMI_SIZE=" + size, "MPI_LOCALRANKID=0", "MPI_LOCALNRANKS=1",
           "OMPI_COMM_WORLD_RANK=" + rank, "OMPI_COMM_WORLD_SIZE=" + size, std::string(M2X_ENV_NODE) + "=" + o.node,
           "LD_LIBRARY_PATH=" + library_dir() + (old_path && *old_path ? std::string(":") + old_path : ""),
           // Every program, MPI or not, gets the line to this host, the
           // simulated clocks and the sockets (docs/models/host-process.md).
           "LD_PRELOAD=" + library_dir() + "/" + M2X_PRELOAD +
               (old_preload && *old_preload ? std::string(":") + old_preload : "")};
  o.cpu_scale = exec_cpu_scale.get();
  o.arena_bytes = exec_arena_mb.get() << 20;
  // The arena is part of the host's physical memory, as a program's pages
  // are: the MPI library and MMP pin it and DMA into it like any buffer
  // there (not a copy through MMP's bounce buffer), and the pin-down cache
  // applies to it.
  const auto arena = m_alloc.allocate(o.arena_bytes);
  if (!arena)
    throw ConfigError(me + ".exec_arena_mb = " + exec_arena_mb.value_string() + ": the arena does not fit in the " +
                      std::to_string(m_memory.size() >> 20) + " MB of the host's memory");
  try {
    m_arena_fd = m_memory.share_as_file();
  } catch (const std::runtime_error& e) {
    throw ConfigError(me + ".exec: " + e.what());
  }
  o.arena_fd = m_arena_fd;
  o.arena_offset = *arena;
  o.arena_view = m_memory.host() + *arena;
  o.np_out = exec_np_out.get();
  if (o.np_out.find('/') != std::string::npos || o.np_out == "." || o.np_out == "..")
    throw ConfigError(me + ".exec_np_out = '" + o.np_out +
                      "': expected a plain file name (the program's working folder)");
  m_program = std::make_unique<HostProgram>(*this, m_run, std::move(o));
  m_run.add_participant(name());
}

HostCpu::~HostCpu() {
  if (m_arena_fd >= 0) ::close(m_arena_fd);
  m_trans.clear_extension(&m_pio_tag);  // a member: the payload must not delete it
}

void HostCpu::start_of_simulation() {
  if (m_program) m_program->start();
}

HostCpu& HostCpu::current() {
  if (!g_current) throw std::logic_error("host environment called outside a host thread");
  return *g_current;
}

void HostCpu::run() {
  if (!m_app && !m_program) return;
  // Application memory that only this thread's frames hold stays reachable
  // when a run ends with the thread suspended (sanitized builds).
  keep_stack_as_leak_root();
  m_started = true;
  g_current = this;
  m_qk.reset();
  if (m_program) {
    m_doing = kRunning;
    const int rc = m_program->run();
    if (rc < 0) {
      m_doing = kFailed;
      return;
    }
    finish(rc);
    return;
  }
  m_words = {app.get()};
  {
    std::istringstream in(args.get());
    for (std::string w; in >> w;) m_words.push_back(w);
  }
  m_argv.clear();
  for (std::string& w : m_words) m_argv.push_back(w.data());
  m_argv.push_back(nullptr);
  m_doing = kRunning;
  finish(m_app->main(static_cast<int>(m_words.size()), m_argv.data()));
}

void HostCpu::finish(int rc) {
  for (auto& f : m_at_exit) f();
  sync();
  console.flush();
  m_exit_code = rc;
  m_exit_time = sc_core::sc_time_stamp();
  m_doing = kExited;
  m_run.firmware_exit(name(), static_cast<uint32_t>(rc), sc_core::sc_time_stamp(), "program");
}

void HostCpu::sync() {
  m_qk.sync();
  g_current = this;
}

void HostCpu::wait_for(const sc_core::sc_event& e, double timeout_us) {
  sync();
  m_in_wait = true;
  m_wait_since = sc_core::sc_time_stamp();
  if (timeout_us < 0) wait(e);
  else wait(sc_core::sc_time(timeout_us, sc_core::SC_US), e);
  m_in_wait = false;
  m_waited += sc_core::sc_time_stamp() - m_wait_since;
  g_current = this;
  m_qk.reset();
}

void HostCpu::after_blocking() {
  g_current = this;
  m_qk.reset();
}

void HostCpu::charge(const sc_core::sc_time& t) {
  m_qk.set(m_qk.offset() + t);
  if (m_qk.need_sync()) sync();
}

void HostCpu::charge_memcpy(size_t bytes) {
  charge_ns(memcpy_setup_ns.get() + static_cast<double>(bytes) * 1e3 / memcpy_mbyte_per_s.get());
}

void* HostCpu::phys_alloc(size_t bytes, uint64_t* bus_addr) {
  charge_ns(syscall_ns.get());
  const auto off = m_alloc.allocate(bytes);
  if (!off) return nullptr;
  if (bus_addr) *bus_addr = m_bus_base + *off;
  return m_memory.host() + *off;
}

void HostCpu::phys_free(void* p) {
  charge_ns(syscall_ns.get());
  const auto* b = static_cast<const uint8_t*>(p);
  if (b < m_memory.host() || b >= m_memory.host() + m_memory.size() ||
      !m_alloc.free(static_cast<uint64_t>(b - m_memory.host())))
    m_log.warning("m2host_phys_free of a pointer that m2host_phys_alloc did not return; ignored");
}

bool HostCpu::bus_address(const void* p, uint64_t* bus_addr) const {
  const auto* b = static_cast<const uint8_t*>(p);
  if (b < m_memory.host() || b >= m_memory.host() + m_memory.size()) return false;
  *bus_addr = m_bus_base + static_cast<uint64_t>(b - m_memory.host());
  return true;
}

bool HostCpu::pci_access(bool is_write, uint64_t addr, uint8_t* data, size_t len) {
  const size_t chunk = is_write ? pio_write_bytes.get() : pio_read_bytes.get();
  m_doing = is_write ? "PCI write" : "PCI read";
  if (is_write) ++m_pci_writes;
  // The device must see the state of the time of the access.
  sync();
  bool ok = true;
  for (size_t done = 0; done < len && ok;) {
    // A CPU access never crosses its own natural alignment.
    const size_t n = std::min(len - done, chunk - (addr + done) % chunk);
    sc_core::sc_time delay = m_qk.offset();
    m_trans.set_command(is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    m_trans.set_address(addr + done);
    m_trans.set_data_ptr(data + done);
    m_trans.set_data_length(static_cast<unsigned>(n));
    m_trans.set_streaming_width(static_cast<unsigned>(n));
    m_trans.set_byte_enable_ptr(nullptr);
    m_trans.set_dmi_allowed(false);
    m_trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    pio->b_transport(m_trans, delay);
    g_current = this;  // the bridge may have waited
    ok = m_trans.is_response_ok();
    m_qk.set(delay);
    done += n;
  }
  if (m_qk.need_sync()) sync();
  m_doing = kRunning;
  return ok;
}

bool HostCpu::poll32(const volatile uint32_t* word, uint32_t mask, uint32_t value, double timeout_us) {
  const sc_core::sc_time deadline = now() + sc_core::sc_time(timeout_us < 0 ? 0 : timeout_us, sc_core::SC_US);
  m_doing = "polling host memory";
  for (;;) {
    charge_ns(poll_ns.get());
    sync();  // the flag's value is the one at the current time
    if ((*word & mask) == value) break;
    if (timeout_us >= 0 && now() >= deadline) {
      m_doing = kRunning;
      return false;
    }
    // Nothing changes host memory but DMA: sleep until the next write.
    wait_for(m_memory_event, timeout_us < 0 ? -1.0 : (deadline - now()).to_seconds() * 1e6);
  }
  m_doing = kRunning;
  return true;
}

bool HostCpu::wait_event(const sc_core::sc_event& e, double timeout_us, const char* doing) {
  m_doing = doing;
  sync();
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  wait_for(e, timeout_us);
  m_doing = kRunning;
  return timeout_us < 0 || sc_core::sc_time_stamp() - start < sc_core::sc_time(timeout_us, sc_core::SC_US);
}

bool HostCpu::poll_until(const std::function<bool()>& ready, double timeout_us) {
  const sc_core::sc_time deadline = now() + sc_core::sc_time(timeout_us < 0 ? 0 : timeout_us, sc_core::SC_US);
  const char* const before = m_doing;
  m_doing = "polling host memory";
  for (;;) {
    charge_ns(poll_ns.get());
    sync();  // the memory as it is at the current time
    if (ready()) break;
    if (timeout_us >= 0 && now() >= deadline) {
      m_doing = before;
      return false;
    }
    wait_for(m_memory_event, timeout_us < 0 ? -1.0 : (deadline - now()).to_seconds() * 1e6);
  }
  m_doing = before;
  return true;
}

void HostCpu::wait_until(const std::function<bool()>& ready, const sc_core::sc_event& e) {
  sync();
  // From here to each wait nothing yields: a notification cannot slip in
  // between the look and the wait.
  while (!ready()) {
    m_in_wait = true;
    m_wait_since = sc_core::sc_time_stamp();
    wait(e);
    m_in_wait = false;
    m_waited += sc_core::sc_time_stamp() - m_wait_since;
    g_current = this;
    m_qk.reset();
  }
}

uint8_t* HostCpu::reserve_memory(size_t bytes, uint64_t* bus_addr) {
  const auto off = m_alloc.allocate(bytes);
  if (!off) return nullptr;
  *bus_addr = m_bus_base + *off;
  return m_memory.host() + *off;
}

bool HostCpu::wait_interrupt(double timeout_us) {
  charge_ns(syscall_ns.get());
  m_doing = "waiting for the NI's interrupt";
  if (!m_inta) wait_for(m_inta_event, timeout_us);
  const bool got = m_inta;
  if (got) charge(sc_core::sc_time(irq_wakeup_us.get(), sc_core::SC_US));
  m_doing = kRunning;
  return got;
}

void HostCpu::pci_interrupt(bool level) {
  m_inta = level;
  if (level) m_inta_event.notify(sc_core::SC_ZERO_TIME);
}

void HostCpu::memory_written(const sc_core::sc_time& after) {
  ++m_dma_writes;
  m_memory_event.notify(after);
}

HostCpu::Activity HostCpu::activity() const {
  Activity a;
  a.ended = m_started && (m_doing == kExited || m_doing == kFailed);
  a.running = m_started && !a.ended && !m_run.finished();
  a.pci_writes = m_pci_writes;
  a.dma_writes = m_dma_writes;
  a.waited = m_waited + (m_in_wait ? sc_core::sc_time_stamp() - m_wait_since : sc_core::SC_ZERO_TIME);
  return a;
}

void HostCpu::result(const std::string& key, int64_t value) { m_run.record_result(name(), key, value); }

void HostCpu::abort_run(int code, const std::string& why) {
  sync();
  console.flush();
  m_exit_code = code;
  m_doing = "aborted the run";
  m_run.aborted(name(), code, std::string(name()) + ": " + why);
  // The run stops at the end of this delta cycle; this thread stays parked.
  for (;;) sc_core::wait(m_never);
}

void HostCpu::set_output_dir(const std::string& dir) { g_output_dir = dir; }
const std::string& HostCpu::output_dir() { return g_output_dir; }

namespace {
std::set<std::string>& output_file_set() {
  static std::set<std::string> files;
  return files;
}

std::function<void(const std::string&)>& output_file_listener() {
  static std::function<void(const std::string&)> listener;
  return listener;
}
}  // namespace

void HostCpu::add_output_file(const std::string& name) {
  if (output_file_set().insert(name).second && output_file_listener()) output_file_listener()(name);
}
void HostCpu::set_output_file_listener(std::function<void(const std::string&)> listener) {
  output_file_listener() = std::move(listener);
}
const std::set<std::string>& HostCpu::output_files() { return output_file_set(); }

std::string HostCpu::state() const {
  if (!m_app && !m_program) return std::string(name()) + ": no application";
  // Composed here, not on every access: the host's hot paths only set a pointer.
  std::string what = m_program ? m_program->state() : "running " + app.get();
  // The call a built-in application waits in (an outside program's state names its own).
  const std::string& in = !m_activity[1].empty() ? m_activity[1] : m_activity[0];
  if (!m_program && m_doing != kExited && !in.empty()) what += ", in " + in;
  char at[48];
  std::snprintf(at, sizeof at, " at %.3f us", (m_doing == kExited ? m_exit_time : now()).to_seconds() * 1e6);
  std::string doing = m_doing == kRunning  ? what
                      : m_doing == kExited ? "exited with " + std::to_string(m_exit_code)
                      : m_doing == kFailed ? what
                                           : std::string(m_doing);
  // The pending call (an outside program's, or the one a built-in
  // application's library named), and what the library is doing in it.
  if ((m_program || !in.empty()) && m_doing != kRunning && m_doing != kExited && m_doing != kFailed)
    doing = what + ": " + doing;
  return std::string(name()) + ": " + doing + at;
}

}  // namespace m2
