// The event loop's OS side on epoll and an eventfd (Linux, the default; event_poller.h).
//
// What must stay true: every armed socket is in the epoll set with EPOLLONESHOT, so an event
// disarms it in the kernel until the next arming. A parked socket (a connection back in libcurl's
// cache) therefore stays in the set: its next transfer costs one epoll_ctl, not an ADD and a DEL
// per request, and it still reports at most once, even once closed while another process shares
// it (epoll keeps such an entry, and no DEL can reach it any more).
#include "event_poller.h"
#include "CNetworkLayerCurl.h"

#ifndef NL_POLLER_USES_POLL

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

/// The epoll event data of the wake-up eventfd: no socket has this number.
#define NL_WAKE_TAG UINT64_MAX

struct nl_poller {
    int epoll;
    int wake;
    struct epoll_event events[NL_EVENT_LOOP_BATCH];
};

const char *nl_event_loop_kind(void) { return "epoll"; }

nl_poller *nl_poller_create(void) {
    nl_poller *poller = calloc(1, sizeof *poller);
    if (!poller) return NULL;
    poller->epoll = epoll_create1(EPOLL_CLOEXEC);
    poller->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event wake = { .events = EPOLLIN, .data.u64 = NL_WAKE_TAG };
    if (poller->epoll < 0 || poller->wake < 0 || epoll_ctl(poller->epoll, EPOLL_CTL_ADD, poller->wake, &wake) != 0) {
        nl_poller_free(poller);
        return NULL;
    }
    return poller;
}

void nl_poller_free(nl_poller *poller) {
    if (poller->epoll >= 0) close(poller->epoll);
    if (poller->wake >= 0) close(poller->wake);
    free(poller);
}

void nl_poller_arm(nl_poller *poller, curl_socket_t socket, int how) {
    struct epoll_event event = { .events = (how & NL_POLLER_ONESHOT) ? EPOLLONESHOT : 0, .data.u64 = (uint64_t)(uint32_t)socket };
    if (how & NL_POLLER_IN) event.events |= EPOLLIN;
    if (how & NL_POLLER_OUT) event.events |= EPOLLOUT;
    // MOD first for a number in the set; ENOENT: libcurl closed that socket and this is a new one.
    bool armed = (how & NL_POLLER_KNOWN) && epoll_ctl(poller->epoll, EPOLL_CTL_MOD, socket, &event) == 0;
    if (!armed && epoll_ctl(poller->epoll, EPOLL_CTL_ADD, socket, &event) != 0 && errno == EEXIST) {
        epoll_ctl(poller->epoll, EPOLL_CTL_MOD, socket, &event);
    }
}

void nl_poller_park(nl_poller *poller, curl_socket_t socket) {
    (void)poller; (void)socket;  // stays in the set, disarmed by its next event if armed
}

void nl_poller_remove(nl_poller *poller, curl_socket_t socket) {
    // Fails with EBADF when libcurl closed the socket already, which took it out of the set.
    epoll_ctl(poller->epoll, EPOLL_CTL_DEL, socket, NULL);
}

int nl_poller_wait(nl_poller *poller, nl_poller_event *events, int capacity, int timeout_ms) {
    if (capacity > NL_EVENT_LOOP_BATCH) capacity = NL_EVENT_LOOP_BATCH;
    int ready = epoll_wait(poller->epoll, poller->events, capacity, timeout_ms);
    int reported = 0;
    for (int index = 0; index < ready; index++) {  // none on EINTR: the caller looks again
        struct epoll_event event = poller->events[index];
        if (event.data.u64 == NL_WAKE_TAG) {
            uint64_t count;
            ssize_t drained = read(poller->wake, &count, sizeof count);
            (void)drained;
            continue;
        }
        int action = 0;
        if (event.events & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)) action |= CURL_CSELECT_IN;
        if (event.events & EPOLLOUT) action |= CURL_CSELECT_OUT;
        if (event.events & EPOLLERR) action |= CURL_CSELECT_ERR;
        events[reported++] = (nl_poller_event){ .socket = (curl_socket_t)(uint32_t)event.data.u64, .action = action };
    }
    return reported;
}

void nl_poller_wake(nl_poller *poller) {
    uint64_t one = 1;
    // EAGAIN only when the counter is full, and then a wake-up is pending anyway.
    ssize_t written = write(poller->wake, &one, sizeof one);
    (void)written;
}

#endif
