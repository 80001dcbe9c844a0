/* Host memory for MPI's transfers: the pre-pinned staging buffers of the
 * one-copy path and the pin-down cache of the zero-copy path. Pinning is
 * charged by MMP (MMP_Pindown_malloc, MMP_Pindown_register: pin_us_per_page
 * per 4 KB page; unregistering: unpin_us_per_page). */
#include <stdint.h>
#include <stdlib.h>

#include "host/host_env.h"
#include "mpi_internal.h"

#define PAGE 4096u

/* A free staging buffer of at least `bytes`: the smallest that fits, else a
 * new one (a power of two from 4 KB), pinned once and kept for the run. */
void *mpi_stage_get(struct mpi_host *H, size_t bytes) {
  struct staging *best = NULL;
  for (size_t i = 0; i < H->n_stages; i++) {
    struct staging *s = &H->stages[i];
    if (!s->busy && s->bytes >= bytes && (!best || s->bytes < best->bytes)) best = s;
  }
  if (!best) {
    size_t size = PAGE;
    while (size < bytes) size *= 2;
    struct staging *grown = realloc(H->stages, (H->n_stages + 1) * sizeof *grown);
    if (!grown) mpi_fail(H, "MPI", MPI_ERR_NO_MEM, "out of memory for a staging buffer");
    H->stages = grown;
    void *buf = MMP_Pindown_malloc(size, H->me);
    if (!buf)
      mpi_fail(H, "MPI", MPI_ERR_NO_MEM, "cannot pin a %zu-byte staging buffer: %s", size,
               MMP_strerror(MMP_last_error()));
    best = &H->stages[H->n_stages++];
    *best = (struct staging){buf, size, 0};
  }
  best->busy = 1;
  return best->buf;
}

void mpi_stage_put(struct mpi_host *H, void *buf) {
  for (size_t i = 0; i < H->n_stages; i++)
    if (H->stages[i].buf == buf) H->stages[i].busy = 0;
}

static int in_alloc_mem(const struct mpi_host *H, const uint8_t *p, size_t bytes) {
  for (const struct alloc_mem *a = H->allocs; a; a = a->next)
    if (p >= a->p && p + bytes <= a->p + a->bytes) return 1;
  return 0;
}

/* Unpins least recently used entries nobody uses until `need` more bytes fit. */
static void evict(struct mpi_host *H, size_t need) {
  while (H->pinned_bytes + need > H->p.pin_cache_bytes) {
    struct pin_entry **victim = NULL;
    for (struct pin_entry **e = &H->pins; *e; e = &(*e)->next)
      if (!(*e)->users && (!victim || (*e)->last < (*victim)->last)) victim = e;
    if (!victim) return; /* all in use: the cache goes over its size for now */
    struct pin_entry *v = *victim;
    *victim = v->next;
    MMP_Pindown_unregister(v->start, H->me);
    H->pinned_bytes -= v->bytes;
    free(v);
  }
}

void *mpi_pin_acquire(struct mpi_host *H, void *buf, size_t bytes) {
  uint64_t bus = 0;
  uint8_t *p = buf;
  /* Without the cache MMP pins per message; heap memory (outside the host's
   * physical memory) MMP copies; MPI_Alloc_mem memory is pinned already. */
  if (!H->p.pin_cache || bytes == 0 || m2host_bus_address(p, &bus) != 0 || in_alloc_mem(H, p, bytes)) return NULL;
  for (struct pin_entry *e = H->pins; e; e = e->next) {
    if (p >= e->start && p + bytes <= e->start + e->bytes) {
      e->users++;
      e->last = ++H->pin_clock;
      return e;
    }
  }
  uint8_t *start = (uint8_t *)((uintptr_t)p / PAGE * PAGE);
  uint8_t *end = (uint8_t *)(((uintptr_t)p + bytes + PAGE - 1) / PAGE * PAGE);
  const size_t size = (size_t)(end - start);
  evict(H, size);
  struct pin_entry *e = calloc(1, sizeof *e);
  if (!e || MMP_Pindown_register(start, size, H->me) != MMP_OK) {
    free(e);
    return NULL; /* not pinnable as a whole: MMP pins it per message */
  }
  *e = (struct pin_entry){start, size, 1, ++H->pin_clock, H->pins};
  H->pins = e;
  H->pinned_bytes += size;
  return e;
}

void mpi_pin_release(struct mpi_host *H, void *entry) {
  (void)H;
  struct pin_entry *e = entry;
  if (e && e->users > 0) e->users--;
}

void mpi_buffers_free(struct mpi_host *H) {
  for (size_t i = 0; i < H->n_stages; i++) MMP_Pindown_free(H->stages[i].buf, H->me);
  free(H->stages);
  H->stages = NULL;
  H->n_stages = 0;
  for (struct pin_entry *e = H->pins, *n; e; e = n) {
    n = e->next;
    MMP_Pindown_unregister(e->start, H->me);
    free(e);
  }
  H->pins = NULL;
  H->pinned_bytes = 0;
}
