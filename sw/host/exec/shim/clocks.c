/* The program's clocks read its host's simulated time: gettimeofday, time,
 * clock_gettime on the wall and monotonic clocks. Each read costs what the
 * system call cost the real host (hostN.syscall_ns, Linux 2.4 had no vDSO),
 * charged at the next call; so a loop that waits for the clock to move
 * does move it. Sleeps pass in simulated time at once (once the program
 * has connected: a sleep before its first call is a real one). Process and thread
 * CPU-time clocks stay the real ones. Outside the simulator every clock is
 * the real one. */
#include <errno.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"

#include <stdint.h>

static int simulated(clockid_t id) {
  switch (id) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
      return m2s_connected();
    default:
      return 0;
  }
}

static int is_wall(clockid_t id) { return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE; }

int clock_gettime(clockid_t id, struct timespec *ts) {
  if (!simulated(id)) return (int)syscall(SYS_clock_gettime, id, ts);
  const uint64_t ns = m2s_clock_read_ns();
  ts->tv_sec = (time_t)(ns / 1000000000u + (is_wall(id) ? m2s_epoch_s() : 0));
  ts->tv_nsec = (long)(ns % 1000000000u);
  return 0;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
  if (!m2s_connected()) return (int)syscall(SYS_gettimeofday, tv, tz);
  const uint64_t ns = m2s_clock_read_ns();
  tv->tv_sec = (time_t)(ns / 1000000000u + m2s_epoch_s());
  tv->tv_usec = (suseconds_t)(ns % 1000000000u / 1000u);
  return 0;
}

time_t time(time_t *t) {
  if (!m2s_connected()) return (time_t)syscall(SYS_time, t);
  const time_t now = (time_t)(m2s_clock_read_ns() / 1000000000u + m2s_epoch_s());
  if (t) *t = now;
  return now;
}

int nanosleep(const struct timespec *req, struct timespec *rem) {
  if (!m2s_line_open()) return (int)syscall(SYS_nanosleep, req, rem);
  if (!req || req->tv_nsec < 0 || req->tv_nsec >= 1000000000 || req->tv_sec < 0) {
    errno = EINVAL;
    return -1;
  }
  /* Saturated: a tv_sec beyond 2^64 ns would wrap to a short sleep (the
   * simulator caps what it charges far below this anyway). */
  const uint64_t max_s = UINT64_MAX / 1000000000u - 1;
  const uint64_t s = (uint64_t)req->tv_sec > max_s ? max_s : (uint64_t)req->tv_sec;
  m2s_charge_ns(s * 1000000000u + (uint64_t)req->tv_nsec);
  if (rem) rem->tv_sec = 0, rem->tv_nsec = 0;
  return 0;
}

int usleep(useconds_t us) {
  const struct timespec ts = {(time_t)(us / 1000000u), (long)(us % 1000000u) * 1000};
  return nanosleep(&ts, NULL);
}

unsigned int sleep(unsigned int seconds) {
  const struct timespec ts = {(time_t)seconds, 0};
  nanosleep(&ts, NULL);
  return 0;
}
