/* Routing tables of a switch box in its manager's SDRAM: written by the
 * simulator (the platform's topology, SwitchBox::set_routes) before the
 * firmware starts, read by the SB routing firmware. All words big-endian.
 *
 *   SB_ROUTES_BASE + ...
 *   0x0000  MAGIC             SB_ROUTES_MAGIC when the tables are valid
 *   0x0004  VERSION           SB_ROUTES_VERSION
 *   0x0008  PORTS             ports of this switch box
 *   0x000C  GROUPS            multicast entries in use (0..SB_ROUTES_MAX_GROUPS)
 *   0x0010  UP_PORTS          ports cabled towards the root of the up / down
 *                             routing tree (bit p = port p; 0 for the root or
 *                             a lone switch box): the firmware writes it to
 *                             SB_UP_PORTS (ip/sb_regs.h)
 *   0x0040  BCAST(in)         broadcast: output port mask for a message that came
 *                             in on port `in` (in < SB_MAX_PORTS)
 *   0x0100  MCAST(g)          multicast entry g (g < GROUPS), 0x80 bytes each:
 *             +0x00  group id (the message header's destination)
 *             +0x04 + 4*in  output port mask for input port `in`
 *   0x8000  UNICAST(addr)     one byte per 16-bit node address: output port + 1,
 *                             0 = no route (the message is discarded)
 * The input port is always taken out of a broadcast or multicast mask by the
 * firmware: a message never goes back where it came from (unicast may, when
 * a node sends to itself). */
#ifndef M2_IP_SB_ROUTES_H
#define M2_IP_SB_ROUTES_H

#include "sb_memory_map.h"

/* 1 MB below the 64 KB stack at the top of the 32 MB SDRAM. */
#define SB_ROUTES_BASE 0x01F00000u
#define SB_ROUTES_SIZE 0x00018000u

#define SB_ROUTES_MAGIC 0x53425254u /* "SBRT" */
#define SB_ROUTES_VERSION 1u
#define SB_ROUTES_MAX_GROUPS 128u

#define SB_ROUTES_MAGIC_OFF 0x0000u
#define SB_ROUTES_VERSION_OFF 0x0004u
#define SB_ROUTES_PORTS_OFF 0x0008u
#define SB_ROUTES_GROUPS_OFF 0x000Cu
#define SB_ROUTES_UP_PORTS_OFF 0x0010u
#define SB_ROUTES_BCAST_OFF(in) (0x0040u + 4u * (unsigned)(in))
#define SB_ROUTES_MCAST_OFF(g) (0x0100u + 0x80u * (unsigned)(g))
#define SB_ROUTES_MCAST_GROUP 0x00u
#define SB_ROUTES_MCAST_MASK(in) (0x04u + 4u * (unsigned)(in))
#define SB_ROUTES_UNICAST_OFF(addr) (0x8000u + ((unsigned)(addr)&0xFFFFu))

#endif
