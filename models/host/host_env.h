/* The host environment: what native host software (driver, MMP library,
 * applications in sw/) may call. It stands for the host's CPU, its kernel and
 * its chipset: every call that costs host time on the real system charges it
 * to the calling host's simulated time, and the only way to reach the NI is
 * programmed I/O through the host bridge (PCI addresses, ip/pci_map.h).
 *
 * Host software runs as one SystemC thread per host; these functions act on
 * the host whose thread is running (m2host_self()). Plain C so that C
 * libraries and applications use it directly. */
#ifndef M2_HOST_ENV_H
#define M2_HOST_ENV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- identity and time -------------------------------------------------- */
int m2host_id(void);           /* 0 for host0, 1 for host1, ...            */
int m2host_count(void);        /* hosts in the platform                     */
const char* m2host_name(void); /* "host0"                                   */
double m2host_now_us(void);    /* this host's simulated time               */

/* ---- CPU time annotation ------------------------------------------------ */
void m2host_compute_ns(double ns);           /* time spent computing          */
void m2host_compute_cycles(uint64_t cycles); /* at the host clock            */
/* memcpy that also charges its cost (host memory bandwidth). */
void* m2host_memcpy(void* dst, const void* src, size_t bytes);
void m2host_syscall(void); /* one system call's overhead    */

/* ---- physical memory (the kernel's allocator) --------------------------- */
/* Page-aligned memory inside the host's physical memory, which the NI can
 * reach by DMA at *bus_addr. Not yet pinned: see m2host_pin_pages. NULL when
 * the host memory is exhausted. Costs one system call. */
void* m2host_phys_alloc(size_t bytes, uint64_t* bus_addr);
void m2host_phys_free(void* p);
/* Bus address of a pointer into host physical memory; -1 if p is elsewhere
 * (ordinary heap or stack of the native program, which no DMA can reach). */
int m2host_bus_address(const void* p, uint64_t* bus_addr);
/* Charges pinning (or unpinning) `pages` 4 KB pages: kernel calls and
 * handing the addresses to the NI (about 130 us per page on the real system). */
void m2host_pin_pages(size_t pages);
void m2host_unpin_pages(size_t pages);

/* ---- programmed I/O over PCI (through the host bridge) ------------------ */
/* PCI is little-endian: 32-bit values are exchanged in the host's order.
 * A write is posted (cheap); a read stalls for the PCI round trip.
 * Return 0, or -1 on a PCI error (master abort: nothing at that address). */
int m2host_pci_read32(uint64_t pci_addr, uint32_t* value);
int m2host_pci_write32(uint64_t pci_addr, uint32_t value);
int m2host_pci_read(uint64_t pci_addr, void* dst, size_t bytes);
int m2host_pci_write(uint64_t pci_addr, const void* src, size_t bytes);

/* ---- waiting ------------------------------------------------------------ */
/* Polls a 32-bit word in host physical memory until (*word & mask) == value,
 * charging one poll per DMA write seen; returns 0, or -1 after timeout_us
 * (< 0: no timeout). */
int m2host_poll32(const volatile uint32_t* word, uint32_t mask, uint32_t value, double timeout_us);
/* Sleeps in the kernel until the NI's PCI interrupt line is asserted (it may
 * already be); returns 0, or -1 after timeout_us (< 0: no timeout). Costs the
 * interrupt-to-process wake-up latency. */
int m2host_wait_interrupt(double timeout_us);

/* ---- TCP/IP: the host's own stack (docs/tcpip.md) ------------------------
 * Sockets of the host's TCP/IP stack for host software (MPI's TCP device).
 * A host has a stack when its NI runs the Ethernet-emulation firmware
 * (node*.ni.firmware: eth); without one, a call ends the run naming itself.
 * Each call costs one system call (syscall_ns) besides what the stack
 * charges (the copy between user and kernel, protocol work). Results: >= 0,
 * or -errno (Linux values: -ECONNREFUSED, -EAGAIN, -ECONNRESET, ...). */
int m2host_tcp_socket(void);
int m2host_tcp_listen(int sd, uint16_t port, int backlog); /* binds to any address, then listens */
int m2host_tcp_accept(int sd, int* peer_node);             /* blocks for a connection */
int m2host_tcp_connect(int sd, int node, uint16_t port);   /* blocks until connected */
long m2host_tcp_send(int sd, const void* data, size_t bytes, int nonblocking);
long m2host_tcp_recv(int sd, void* data, size_t bytes, int nonblocking); /* 0: end of file */
int m2host_tcp_setopt(int sd, int level, int name, int value);           /* setsockopt with an int value */
int m2host_tcp_close(int sd);
/* As poll(2): revents[i] gets the bits of events[i] (POLLIN, POLLOUT) that
 * hold for sds[i], and POLLERR / POLLHUP; waits up to timeout_us (< 0: no
 * limit) until one does. Returns how many sockets are ready; with n = 0 it
 * sleeps timeout_us. */
int m2host_tcp_poll(const int* sds, const short* events, short* revents, int n, double timeout_us);

/* ---- output and results ------------------------------------------------- */
/* Prints to the host's console (lines prefixed with the host's name). */
void m2host_printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
/* Records a named result for the run report and results.tsv. */
void m2host_result(const char* key, int64_t value);
/* Path of a file called `name` in the run's output folder (where run.log
 * goes), written into buf (n bytes) for the application to create with
 * fopen. Returns 0, or -1 when the run has no output folder, name is not a
 * plain file name (empty, ".", "..", or with a '/') or buf is too small. */
int m2host_output_path(const char* name, char* buf, size_t n);

/* ---- ending the run and host software parameters ------------------------ */
/* Ends the whole run now with exit code `code` (1..63) and the message, as
 * MPI_Abort does; never returns. */
void m2host_abort(int code, const char* fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
/* The value of this host's parameter `name` (relative to the host, e.g.
 * "mpi.eager_limit" for node0.host.mpi.eager_limit); booleans read 0 / 1.
 * Returns 0, or -1 when the platform has no such parameter. */
int m2host_param(const char* name, double* value);
/* The same for a text parameter: its value into buf (n bytes, terminated).
 * Returns 0, or -1 when there is no such parameter or buf is too small. */
int m2host_param_text(const char* name, char* buf, size_t n);

/* ---- message tracing (virtual platform only) ------------------------------
 * Where only software knows a message's boundaries, the MMP library reports
 * them to the run's message ledger (sim.messages; docs/models/
 * message-breakdown.md). Free: no simulated time; nothing happens when the
 * ledger is off. A message is named by its sender's node and the number the
 * sender's library gave it (the wire header's SEQ, ip/mmp_protocol.h). */
/* The library was called to send message `seq` of node `src_node` (at entry,
 * before it charges any time). */
void m2host_msg_send(int src_node, uint32_t seq, int dst_node, uint64_t bytes, uint32_t tag);
#define M2HOST_MSG_POSTED 1 /* the send request is posted to the NI             */
#define M2HOST_MSG_DONE                                                          \
  2                            /* the receiver's library has the message, as its \
                                  caller will see it (data in the user's buffer)   */
#define M2HOST_MSG_CANCELLED 3 /* the send failed before it reached the NI         */
void m2host_msg_event(int event, int src_node, uint32_t seq);
/* The application's phase for the messages this host sends from now on, in
 * messages.csv's `phase` column: "warmup" and "timed" for a benchmark's
 * untimed and timed rounds (./m2vp plot's breakdown then keeps the timed
 * ones), or any short name; NULL or "" for none. Free, like the above. At most
 * 31 characters of letters, digits, '_' and '-' are kept. */
void m2host_msg_phase(const char* phase);

/* What the host's software is waiting in, for the stall and deadlock reports
 * ("node0.host: running mmp_pingpong, in MMP_Wait_recv (a 4-byte receive):
 * polling host memory"). Layer 0 is the MMP library, layer 1 the one above it
 * (MPI); the report names the upper one when both are set. NULL or "" clears
 * the layer. Free: no simulated time. */
#define M2HOST_LAYER_MMP 0
#define M2HOST_LAYER_MPI 1
void m2host_activity(int layer, const char* what);

/* ---- applications ------------------------------------------------------- */
typedef int (*m2host_app_main)(int argc, char** argv);
/* Registers an application by name (configs choose it with hostN.app). */
void m2host_register_app(const char* name, m2host_app_main main, const char* description);
#define M2HOST_APP(name, main, description)                               \
  static void __attribute__((constructor)) m2host_register_##name(void) { \
    m2host_register_app(#name, main, description);                        \
  }

#ifdef __cplusplus
}
#endif

#endif
