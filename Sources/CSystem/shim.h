#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <pthread.h>
#include <time.h>
#include <sched.h>

// Glibc declares accept4 only under _GNU_SOURCE, which Swift's Glibc module is not built with; the symbol is in libc.
extern int accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);
extern int pthread_setname_np(pthread_t thread, const char *name);

/// accept(2) returning a non-blocking, close-on-exec socket in one call.
static inline int csystem_accept_nonblocking(int fd, struct sockaddr *addr, socklen_t *addrlen) {
    return accept4(fd, addr, addrlen, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

/// The data word of an epoll event (a union member, awkward to reach from Swift across the packed struct).
static inline unsigned long long csystem_epoll_event_data(const struct epoll_event *event) {
    return event->data.u64;
}

/// Builds an epoll event with the given mask and data word.
static inline struct epoll_event csystem_epoll_event_make(unsigned int events, unsigned long long data) {
    struct epoll_event event;
    event.events = events;
    event.data.u64 = data;
    return event;
}

/// Moves the calling thread to SCHED_BATCH (Linux, any user): a thread woken does not preempt the running one, so
/// the server's threads hand each other the cores at the end of a slice instead of at every wake-up.
static inline int csystem_schedule_calling_thread_as_batch(void) {
#ifndef SCHED_BATCH
#define SCHED_BATCH 3
#endif
    struct sched_param parameters = { 0 };
    return sched_setscheduler(0, SCHED_BATCH, &parameters);
}
