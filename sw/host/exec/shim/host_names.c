/* The simulated hosts' names: "nodeN" is 10.0.0.(N+1) for N below the
 * number of hosts (models/host/tcpip/ip_node_address.h, docs/tcpip.md), for
 * gethostbyname, getaddrinfo, inet_addr and inet_aton; "tcp" for
 * getprotobyname (a machine without /etc/protocols still finds it). Any
 * other name goes to the C library untouched, as does everything outside
 * the simulator. */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "shim.h"

/* The node a name stands for, or -1. Exactly "node" and decimal digits. */
static int node_of(const char *name) {
  if (!m2s_connected() || !name || strncmp(name, "node", 4) != 0 || name[4] == '\0') return -1;
  int n = 0;
  for (const char *p = name + 4; *p; ++p) {
    if (*p < '0' || *p > '9' || n > 100000) return -1;
    n = n * 10 + (*p - '0');
  }
  return n < m2s_world_size() ? n : -1;
}

/* Network byte order: 10.0.0.(N+1). */
static in_addr_t node_address(int node) { return htonl(0x0A000000u + (uint32_t)node + 1u); }

struct hostent *gethostbyname(const char *name) {
  const int node = node_of(name);
  if (node < 0) {
    static struct hostent *(*real)(const char *);
    if (!real) real = dlsym(RTLD_NEXT, "gethostbyname");
    return real(name);
  }
  /* One static entry, as the C library's own (not reentrant either). */
  static char host[32];
  static struct in_addr addr;
  static char *addrs[2], *aliases[1];
  static struct hostent h;
  strncpy(host, name, sizeof host - 1);
  addr.s_addr = node_address(node);
  addrs[0] = (char *)&addr;
  h.h_name = host;
  h.h_aliases = aliases;
  h.h_addrtype = AF_INET;
  h.h_length = sizeof addr;
  h.h_addr_list = addrs;
  return &h;
}

struct protoent *getprotobyname(const char *name) {
  static char tcp[] = "tcp", tcp_alias[] = "TCP";
  static char *aliases[] = {tcp_alias, NULL};
  static struct protoent p = {tcp, aliases, IPPROTO_TCP};
  if (m2s_connected() && name && strcmp(name, "tcp") == 0) return &p;
  static struct protoent *(*real)(const char *);
  if (!real) real = dlsym(RTLD_NEXT, "getprotobyname");
  return real(name);
}

in_addr_t inet_addr(const char *text) {
  const int node = node_of(text);
  if (node >= 0) return node_address(node);
  static in_addr_t (*real)(const char *);
  if (!real) real = dlsym(RTLD_NEXT, "inet_addr");
  return real(text);
}

int inet_aton(const char *text, struct in_addr *out) {
  const int node = node_of(text);
  if (node >= 0) {
    if (out) out->s_addr = node_address(node);
    return 1;
  }
  static int (*real)(const char *, struct in_addr *);
  if (!real) real = dlsym(RTLD_NEXT, "inet_aton");
  return real(text, out);
}

/* getaddrinfo for a node's name: one IPv4 stream address in one block;
 * freeaddrinfo tells ours from the C library's by the list of ours. */
struct node_addrinfo {
  struct addrinfo ai;
  struct sockaddr_in sin;
  struct node_addrinfo *next;
};
static struct node_addrinfo *g_ours;
static pthread_mutex_t g_ours_lock = PTHREAD_MUTEX_INITIALIZER;

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res) {
  static int (*real)(const char *, const char *, const struct addrinfo *, struct addrinfo **);
  if (!real) real = dlsym(RTLD_NEXT, "getaddrinfo");
  const int n = node_of(node);
  if (n < 0) return real(node, service, hints, res);
  if (hints && hints->ai_family != AF_UNSPEC && hints->ai_family != AF_INET) return EAI_FAMILY;
  if (hints && hints->ai_socktype != 0 && hints->ai_socktype != SOCK_STREAM) return EAI_SOCKTYPE;
  long port = 0;
  if (service) {
    char *end;
    port = strtol(service, &end, 10);
    if (*end != '\0' || port < 0 || port > 65535) return EAI_SERVICE; /* numeric services only */
  }
  struct node_addrinfo *b = calloc(1, sizeof *b);
  if (!b) return EAI_MEMORY;
  b->sin.sin_family = AF_INET;
  b->sin.sin_port = htons((uint16_t)port);
  b->sin.sin_addr.s_addr = node_address(n);
  b->ai.ai_family = AF_INET;
  b->ai.ai_socktype = SOCK_STREAM;
  b->ai.ai_protocol = IPPROTO_TCP;
  b->ai.ai_addrlen = sizeof b->sin;
  b->ai.ai_addr = (struct sockaddr *)&b->sin;
  pthread_mutex_lock(&g_ours_lock);
  b->next = g_ours;
  g_ours = b;
  pthread_mutex_unlock(&g_ours_lock);
  *res = &b->ai;
  return 0;
}

void freeaddrinfo(struct addrinfo *ai) {
  pthread_mutex_lock(&g_ours_lock);
  for (struct node_addrinfo **p = &g_ours; *p; p = &(*p)->next)
    if (&(*p)->ai == ai) {
      struct node_addrinfo *b = *p;
      *p = b->next;
      pthread_mutex_unlock(&g_ours_lock);
      free(b);
      return;
    }
  pthread_mutex_unlock(&g_ours_lock);
  static void (*real)(struct addrinfo *);
  if (!real) real = dlsym(RTLD_NEXT, "freeaddrinfo");
  real(ai);
}
