/* Small helpers shared by the host applications: option values with k/M
 * suffixes, comma-separated size lists, letting the NI go on early exits.
 * Header-only (static) so that each application stays one file in the OBJECT
 * library. */
#ifndef M2_APP_ARGS_H
#define M2_APP_ARGS_H

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "host/host_env.h"
#include "mmp.h"

/* Larger than any simulated host memory (512 MB): a size beyond it is a typo,
 * and limiting it keeps the k/M multiplication from overflowing. */
#define APP_MAX_SIZE (1LL << 30)

/* "64", "2k", "8M" (k = 1024); -1 when malformed, out of range or above
 * APP_MAX_SIZE (strtoll saturates at LLONG_MAX, so it is checked). */
static inline long long app_parse_size(const char *s, const char **end) {
  char *e = NULL;
  errno = 0;
  long long v = strtoll(s, &e, 0);
  if (e == s || v < 0 || errno == ERANGE || v > APP_MAX_SIZE) return -1;
  if (*e == 'k' || *e == 'K') v *= 1024, e++;
  else if (*e == 'm' || *e == 'M') v *= 1024 * 1024, e++;
  if (v > APP_MAX_SIZE) return -1;
  if (end) *end = e;
  return v;
}

/* Parses "1,3,2k" into sizes[]; the count, or -1 when malformed or more than max. */
static inline int app_parse_sizes(const char *s, size_t *sizes, int max) {
  int n = 0;
  while (*s) {
    const char *e = NULL;
    const long long v = app_parse_size(s, &e);
    if (v < 0 || n >= max) return -1;
    sizes[n++] = (size_t)v;
    if (*e == ',') e++;
    else if (*e) return -1;
    s = e;
  }
  return n;
}

/* An application that gives up before it used MMP: the NI's MMP firmware
 * waits for a host until MMP_finalize, so let it go (else the run would end
 * as a stall instead of with the application's exit code). */
static inline void app_release_ni(void) {
  struct MMP_connect *me = MMP_initialize(MMP_Make_connect(0, 0), NULL);
  if (me) MMP_finalize(me);
}

/* The peer of a two-host application (--peer, or the other of nodes 0 and
 * 1): 0 when it is a host other than this one, else the reason is printed
 * (a one-node platform, a --peer beyond the platform's hosts) and the NI let
 * go; the application returns 2. */
static inline int app_check_peer(const char *app, int me, int peer) {
  const int hosts = m2host_count();
  if (peer >= 0 && peer < hosts && peer != me) return 0;
  if (hosts < 2) m2host_printf("%s: needs two hosts, this platform has %d (topology.nodes: 2 or more)\n", app, hosts);
  else m2host_printf("%s: --peer %d: expected another host, 0 to %d except %d\n", app, peer, hosts - 1, me);
  app_release_ni();
  return -1;
}

#endif
