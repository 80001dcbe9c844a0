/* The MMP host library's pinned memory (mmp_host.h): pinned allocations
 * within the host's limit, the regions applications pin down
 * (MMP_Pindown_*), and where an operation's data goes: a pinned region, the
 * buffer pinned for one message, or a copy through the bounce pool. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_env.h"
#include "m2drv.h"
#include "mmp_host.h"

size_t mmp_round_up(size_t v, size_t unit) { return (v + unit - 1) / unit * unit; }

int mmp_pin_alloc(struct host *H, size_t bytes, m2drv_buffer *out) {
  const size_t rounded = mmp_round_up(bytes, 4096);
  if (bytes == 0 || H->pinned_bytes + rounded > H->opt.pinned_limit) return MMP_ENOMEM;
  if (m2drv_alloc_pinned(H->drv, bytes, out) != 0) return MMP_ENOMEM;
  H->pinned_bytes += rounded;
  return MMP_OK;
}

void mmp_pin_free(struct host *H, m2drv_buffer *b) {
  if (!b->addr) return;
  H->pinned_bytes -= mmp_round_up(b->bytes, 4096);
  m2drv_free_pinned(H->drv, b);
}

/* NI address of [p, p + len) when it lies inside one pinned region. */
static int pinned_nia(const struct host *H, const void *p, size_t len, uint32_t *nia) {
  const uintptr_t a = (uintptr_t)p;
  for (size_t i = 0; i < H->n_regions; i++) {
    const uintptr_t r = (uintptr_t)H->regions[i].addr;
    if (a >= r && a - r <= H->regions[i].bytes && len <= H->regions[i].bytes - (a - r)) {
      *nia = H->regions[i].nia + (uint32_t)(a - r);
      return 1;
    }
  }
  return 0;
}

/* Pins `bytes` of new memory and enters it into the NI's table. */
static int pin_alloc_mapped(struct host *H, size_t bytes, m2drv_buffer *out, uint32_t *nia) {
  if (mmp_pin_alloc(H, bytes, out) != MMP_OK) return MMP_ENOMEM;
  const int rc = mmp_xlate_map(H, out->bus, bytes, nia);
  if (rc != MMP_OK) mmp_pin_free(H, out);
  return rc;
}

static void pin_free_mapped(struct host *H, m2drv_buffer *b, uint32_t nia) {
  if (!b->addr) return;
  mmp_xlate_unmap(H, nia, b->bytes);
  mmp_pin_free(H, b);
}

static void *pool_alloc(struct pool *P, size_t bytes) {
  const size_t n = mmp_round_up(bytes ? bytes : 1, POOL_BLOCK) / POOL_BLOCK;
  size_t run = 0;
  for (size_t b = 0; b < P->blocks; b++) {
    run = P->used[b] ? 0 : run + 1;
    if (run == n) {
      memset(P->used + b + 1 - n, 1, n);
      return (uint8_t *)P->buf.addr + (b + 1 - n) * POOL_BLOCK;
    }
  }
  return NULL;
}

static void pool_free(struct pool *P, void *p, size_t bytes) {
  const size_t first = (size_t)((uint8_t *)p - (uint8_t *)P->buf.addr) / POOL_BLOCK;
  const size_t n = mmp_round_up(bytes ? bytes : 1, POOL_BLOCK) / POOL_BLOCK;
  memset(P->used + first, 0, n);
}

/* Where the NI reads or writes an operation's data; sets o->mode and its
 * resources. MMP_OK or MMP_ENOMEM. */
int mmp_place_buffer(struct host *H, struct op *o, void *buf, size_t len, int is_send, uint32_t *nia) {
  *nia = 0;
  o->mode = BUF_NONE;
  if (len == 0) return MMP_OK;
  if (pinned_nia(H, buf, len, nia)) {
    o->mode = BUF_PINNED;
    return MMP_OK;
  }
  uint64_t bus = 0;
  if (m2drv_pin(H->drv, buf, len, &bus) == 0) {
    /* Host physical memory, pinned for this message. */
    if (mmp_xlate_map(H, bus, len, nia) != MMP_OK) {
      m2drv_unpin(H->drv, buf, len);
      return MMP_ENOMEM;
    }
    o->mode = BUF_PIN_MESSAGE;
    o->nia = *nia;
    return MMP_OK;
  }
  /* Heap or stack: copy through pinned memory. */
  if (!H->bounce.buf.addr && H->opt.bounce_bytes >= POOL_BLOCK) {
    m2drv_buffer b;
    uint32_t pool_nia = 0;
    if (pin_alloc_mapped(H, H->opt.bounce_bytes, &b, &pool_nia) == MMP_OK) {
      H->bounce.buf = b;
      H->bounce.nia = pool_nia;
      H->bounce.blocks = b.bytes / POOL_BLOCK;
      H->bounce.used = calloc(H->bounce.blocks, 1);
      if (!H->bounce.used) pin_free_mapped(H, &H->bounce.buf, pool_nia);
    }
  }
  void *p = H->bounce.buf.addr ? pool_alloc(&H->bounce, len) : NULL;
  if (p) {
    o->mode = BUF_BOUNCE_POOL;
    o->bounce = p;
    *nia = H->bounce.nia + (uint32_t)((uint8_t *)p - (uint8_t *)H->bounce.buf.addr);
  } else {
    if (pin_alloc_mapped(H, len, &o->temp, &o->nia) != MMP_OK) return MMP_ENOMEM;
    o->mode = BUF_BOUNCE_TEMP;
    o->bounce = o->temp.addr;
    *nia = o->nia;
  }
  if (is_send) m2host_memcpy(o->bounce, buf, len);
  return MMP_OK;
}

void mmp_release_buffer(struct host *H, struct op *o) {
  switch (o->mode) {
    case BUF_PIN_MESSAGE:
      mmp_xlate_unmap(H, o->nia, o->len);
      m2drv_unpin(H->drv, o->user, o->len);
      break;
    case BUF_BOUNCE_POOL:
      pool_free(&H->bounce, o->bounce, o->len);
      break;
    case BUF_BOUNCE_TEMP:
      pin_free_mapped(H, &o->temp, o->nia);
      break;
    default:
      break;
  }
  o->mode = BUF_NONE;
}

/* ---- pinned allocations --------------------------------------------------------- */

/* Room for one more entry in the host's table of pinned regions; 0 when
 * memory runs out. */
static int region_room(struct host *H) {
  if (H->n_regions < H->cap_regions) return 1;
  const size_t cap = H->cap_regions ? 2 * H->cap_regions : 16;
  struct region *r = realloc(H->regions, cap * sizeof *r);
  if (!r) return 0;
  H->regions = r;
  H->cap_regions = cap;
  return 1;
}

/* A send or receive still outstanding in region r: the NI may still move its
 * data, so the region must not be unpinned (its pages could be reused). */
static int region_busy(const struct host *H, const struct region *r) {
  const uintptr_t a = (uintptr_t)r->addr;
  for (int i = 0; i < 2 * MMP_MAX_SENDS; i++) {
    const struct op *o = &H->sends[i].op;
    if (o->in_use && o->mode == BUF_PINNED && (uintptr_t)o->user - a < r->bytes) return 1;
  }
  for (int i = 0; i < 2 * MMP_MAX_RECVS; i++) {
    const struct op *o = &H->recvs[i].op;
    if (o->in_use && o->mode == BUF_PINNED && (uintptr_t)o->user - a < r->bytes) return 1;
  }
  return 0;
}

void *MMP_Pindown_malloc(size_t bytes, struct MMP_connect *me) {
  struct host *H = mmp_self();
  if (!mmp_local_ok(H, me)) return mmp_fail_null(H, MMP_ENOTINIT);
  if (bytes == 0 || bytes > 0x40000000u) return mmp_fail_null(H, bytes ? MMP_ENOMEM : MMP_EINVAL);
  if (!region_room(H)) return mmp_fail_null(H, MMP_ENOMEM);
  m2drv_buffer b;
  uint32_t nia = 0;
  if (pin_alloc_mapped(H, bytes, &b, &nia) != MMP_OK) return mmp_fail_null(H, MMP_ENOMEM);
  H->regions[H->n_regions++] = (struct region){b.addr, nia, bytes, b};
  mmp_fail(H, MMP_OK);
  return b.addr;
}

void MMP_Pindown_free(void *p, struct MMP_connect *me) {
  struct host *H = mmp_self();
  if (!mmp_local_ok(H, me) || !p) {
    mmp_fail(H, !p ? MMP_EINVAL : MMP_ENOTINIT);
    return;
  }
  for (size_t i = 0; i < H->n_regions; i++) {
    if (H->regions[i].addr != p || !H->regions[i].buf.addr) continue;
    if (region_busy(H, &H->regions[i])) {
      mmp_fail(H, MMP_EBUSY);
      return;
    }
    pin_free_mapped(H, &H->regions[i].buf, H->regions[i].nia);
    H->regions[i] = H->regions[--H->n_regions];
    mmp_fail(H, MMP_OK);
    return;
  }
  mmp_fail(H, MMP_EINVAL);
}

/* Memory the caller already has in host physical memory, pinned in place
 * (the kernel pins its pages: m2drv_pin charges them) and kept pinned until
 * MMP_Pindown_unregister (which charges the unpinning). */
int MMP_Pindown_register(void *p, size_t bytes, struct MMP_connect *me) {
  struct host *H = mmp_self();
  if (!mmp_local_ok(H, me)) return mmp_fail(H, MMP_ENOTINIT);
  if (!p || bytes == 0 || bytes > 0x40000000u) return mmp_fail(H, MMP_EINVAL);
  if (H->pinned_bytes + mmp_round_up(bytes, 4096) > H->opt.pinned_limit) return mmp_fail(H, MMP_ENOMEM);
  if (!region_room(H)) return mmp_fail(H, MMP_ENOMEM);
  uint64_t bus = 0;
  if (m2drv_pin(H->drv, p, bytes, &bus) != 0) return mmp_fail(H, MMP_EINVAL); /* not host physical memory */
  uint32_t nia = 0;
  if (mmp_xlate_map(H, bus, bytes, &nia) != MMP_OK) {
    m2drv_unpin(H->drv, p, bytes);
    return mmp_fail(H, MMP_ENOMEM);
  }
  H->pinned_bytes += mmp_round_up(bytes, 4096);
  H->regions[H->n_regions++] = (struct region){p, nia, bytes, {0}};
  return mmp_fail(H, MMP_OK);
}

int MMP_Pindown_unregister(void *p, struct MMP_connect *me) {
  struct host *H = mmp_self();
  if (!mmp_local_ok(H, me)) return mmp_fail(H, MMP_ENOTINIT);
  for (size_t i = 0; i < H->n_regions; i++) {
    if (H->regions[i].addr != p || H->regions[i].buf.addr) continue;
    if (region_busy(H, &H->regions[i])) return mmp_fail(H, MMP_EBUSY);
    mmp_xlate_unmap(H, H->regions[i].nia, H->regions[i].bytes);
    m2drv_unpin(H->drv, p, H->regions[i].bytes);
    H->pinned_bytes -= mmp_round_up(H->regions[i].bytes, 4096);
    H->regions[i] = H->regions[--H->n_regions];
    return mmp_fail(H, MMP_OK);
  }
  return mmp_fail(H, MMP_EINVAL);
}
