/* lwIP's build options for the simulated hosts' TCP/IP stack (docs/tcpip.md,
 * "Options"): the core only (IPv4, TCP, pbufs, timeouts), no operating
 * system (NO_SYS, raw API), sized to model Linux 2.4 over Maestro2's
 * 65000-byte MTU. */
#ifndef M2_LWIPOPTS_H
#define M2_LWIPOPTS_H

/* No OS: the simulator drives the stack from one SystemC context at a time. */
#define NO_SYS 1
#define SYS_LIGHTWEIGHT_PROT 0
#define LWIP_SOCKET 0
#define LWIP_NETCONN 0
#define LWIP_TIMERS 1

/* Memory from malloc: no fixed pools to size, nothing large per loaded copy. */
#define MEM_LIBC_MALLOC 1
#define MEMP_MEM_MALLOC 1
#define MEM_ALIGNMENT 8
#define PBUF_POOL_SIZE 0

/* IPv4 and TCP only; addresses map to nodes statically (no ARP, no ICMP). */
#define LWIP_IPV4 1
#define LWIP_IPV6 0
#define LWIP_ARP 0
#define LWIP_ETHERNET 0
#define LWIP_ICMP 0
#define LWIP_RAW 0
#define LWIP_UDP 0
#define LWIP_DHCP 0
#define LWIP_AUTOIP 0
#define LWIP_IGMP 0
#define LWIP_DNS 0
#define LWIP_TCP 1
#define IP_FORWARD 0
/* Packets never exceed the MTU (the MSS keeps TCP below it). */
#define IP_REASSEMBLY 0
#define IP_FRAG 0
#define LWIP_NETIF_LOOPBACK 0
#define LWIP_HAVE_LOOPIF 0

/* Linux 2.4 over Maestro2: MTU 65000 (spec/maestro2.md), so MSS = 65000 - 40. */
#define TCP_MSS 64960
/* 64 KB window without window scaling: Linux 2.4's default receive buffer
 * (tcp_rmem[1] = 87380) announces 3/4 of it, 65535 bytes, and needs no scale. */
#define LWIP_WND_SCALE 0
#define TCP_WND 65535
/* The send queue of one socket (docs/tcpip.md, "Send buffer"). */
#define TCP_SND_BUF 65535
#define TCP_SND_QUEUELEN 512
#define TCP_SNDLOWAT 16384
#define TCP_SNDQUEUELOWAT 64
#define MEMP_NUM_TCP_SEG 512
#define MEMP_NUM_TCP_PCB 256
#define MEMP_NUM_TCP_PCB_LISTEN 64
#define TCP_LISTEN_BACKLOG 0
#define TCP_OVERSIZE TCP_MSS
/* A 64960-byte MSS trips lwIP's checks meant for small embedded buffers. */
#define LWIP_DISABLE_TCP_SANITY_CHECKS 1
#define TCP_QUEUE_OOSEQ 1
#define SO_REUSE 1
#define LWIP_TCP_KEEPALIVE 1

/* Timers. Delayed ACKs are flushed by tcp_fasttmr every TCP_TMR_INTERVAL:
 * 40 ms is Linux 2.4's minimum delayed-ACK timeout (TCP_DELACK_MIN = HZ/25,
 * include/net/tcp.h). The slow timer (retransmission, 2 ticks) follows. */
#define TCP_TMR_INTERVAL 40
/* TIME-WAIT lasts 2 * MSL: Linux 2.4 keeps it 60 s (TCP_TIMEWAIT_LEN). */
#define TCP_MSL 30000UL

/* The NI computes no checksums: the stack does (their cost is charged). */
#define CHECKSUM_GEN_IP 1
#define CHECKSUM_GEN_TCP 1
#define CHECKSUM_CHECK_IP 1
#define CHECKSUM_CHECK_TCP 1

#define LWIP_STATS 0
#define LWIP_NETIF_STATUS_CALLBACK 0
#define LWIP_NETIF_LINK_CALLBACK 0
#define LWIP_SINGLE_NETIF 1
#define LWIP_CALLBACK_API 1

#endif
