// The engine's event loop on libcurl's multi-socket API: epoll tells which sockets are ready, and
// libcurl runs only the transfers on those sockets (or whose timer expired).
//
// Why not curl_multi_perform + curl_multi_poll: libcurl 7.88 then checks every running transfer's
// socket with its own poll() in every round, ready or not: a cost per round that grows with every
// running transfer, an open stream that stays quiet included.
//
// Linux only (epoll, eventfd), as the whole library is today; a port puts kqueue behind the same
// functions.
#define _GNU_SOURCE  // pthread_setname_np
#include "CNetworkLayerCurl.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

/// The epoll event data of the wake-up eventfd: no socket has this number.
#define NL_WAKE_TAG UINT64_MAX

struct nl_event_loop {
    CURLM *multi;
    int epoll;
    int wake;
    /// When libcurl wants curl_multi_socket_action(CURL_SOCKET_TIMEOUT), CLOCK_MONOTONIC ns; -1: never.
    int64_t timer_due;
    int ready;
    /// Socket states by number (NL_IN_SET…), `state_count` of them.
    unsigned char *states;
    size_t state_count;
    struct epoll_event events[NL_EVENT_LOOP_BATCH];
};

static int64_t now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/// What the loop knows of a socket number (one byte each, by number).
///
/// Every socket is in the epoll set with EPOLLONESHOT: an event disarms it until the loop arms it
/// again. So a socket libcurl stopped watching (a connection back in its cache) can stay in the set
/// — its next transfer then costs one epoll_ctl, not an ADD and a DEL per request — and still
/// never report more than once. That also holds for an entry closed while another process shares
/// the socket (epoll keeps it, and no DEL can reach it any more).
enum {
    /// In the epoll set under this number (a socket closed since has left it by itself).
    NL_IN_SET = 1,
    /// libcurl no longer watches it: an event for it is dropped.
    NL_PARKED = 2,
    /// Armed: the next readiness is reported.
    NL_ARMED = 4,
    NL_WANTS_IN = 8,
    NL_WANTS_OUT = 16,
};

/// The state byte of `socket`, the table grown to hold it; NULL if memory ran out.
static unsigned char *socket_state(nl_event_loop *loop, curl_socket_t socket) {
    if (socket < 0) return NULL;
    size_t index = (size_t)socket;
    if (index >= loop->state_count) {
        size_t count = loop->state_count ? loop->state_count : 256;
        while (count <= index) count *= 2;
        unsigned char *grown = realloc(loop->states, count);
        if (!grown) return NULL;
        memset(grown + loop->state_count, 0, count - loop->state_count);
        loop->states = grown;
        loop->state_count = count;
    }
    return &loop->states[index];
}

/// Puts `socket` in the set, armed for what `wants` (NL_WANTS_IN, NL_WANTS_OUT) says. `state` is
/// its byte, or NULL when the table could not grow: then the socket is level-triggered, never
/// parked (removed when libcurl lets go of it), and needs no arming again.
static void arm(nl_event_loop *loop, curl_socket_t socket, unsigned char *state, unsigned char wants) {
    struct epoll_event event = { .events = state ? EPOLLONESHOT : 0, .data.u64 = (uint64_t)(uint32_t)socket };
    if (wants & NL_WANTS_IN) event.events |= EPOLLIN;
    if (wants & NL_WANTS_OUT) event.events |= EPOLLOUT;
    // MOD first for a number in the set; ENOENT: libcurl closed that socket and this is a new one.
    bool armed = (!state || (*state & NL_IN_SET)) && epoll_ctl(loop->epoll, EPOLL_CTL_MOD, socket, &event) == 0;
    if (!armed && epoll_ctl(loop->epoll, EPOLL_CTL_ADD, socket, &event) != 0 && errno == EEXIST) {
        epoll_ctl(loop->epoll, EPOLL_CTL_MOD, socket, &event);
    }
    if (state) *state = NL_IN_SET | NL_ARMED | wants;
}

/// CURLMOPT_SOCKETFUNCTION: arms each socket libcurl waits on for the events it waits for.
static int on_socket(CURL *easy, curl_socket_t socket, int what, void *userp, void *socketp) {
    (void)easy; (void)socketp;
    nl_event_loop *loop = userp;
    unsigned char *state = socket_state(loop, socket);
    if (what == CURL_POLL_REMOVE) {
        if (state && (*state & NL_IN_SET)) {
            *state = (*state & NL_IN_SET) | (*state & NL_ARMED) | NL_PARKED;
        } else {
            // Fails with EBADF when libcurl closed the socket already, which took it out of the set.
            epoll_ctl(loop->epoll, EPOLL_CTL_DEL, socket, NULL);
        }
        return 0;
    }
    unsigned char wants = ((what & CURL_POLL_IN) ? NL_WANTS_IN : 0) | ((what & CURL_POLL_OUT) ? NL_WANTS_OUT : 0);
    arm(loop, socket, state, wants);
    return 0;
}

/// CURLMOPT_TIMERFUNCTION: libcurl's one timer, as a deadline the loop waits for.
static int on_timer(CURLM *multi, long timeout_ms, void *userp) {
    (void)multi;
    nl_event_loop *loop = userp;
    // A timer in the future gets one more millisecond: libcurl rounds its remaining time down, and
    // a deadline before its own would make the loop ask again and again until it is due.
    loop->timer_due = timeout_ms < 0 ? -1 : now_ns() + (timeout_ms == 0 ? 0 : ((int64_t)timeout_ms + 1) * 1000000);
    return 0;
}

nl_event_loop *nl_event_loop_create(CURLM *multi) {
    nl_event_loop *loop = calloc(1, sizeof *loop);
    if (!loop) return NULL;
    loop->multi = multi;
    loop->timer_due = -1;
    loop->epoll = epoll_create1(EPOLL_CLOEXEC);
    loop->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event wake = { .events = EPOLLIN, .data.u64 = NL_WAKE_TAG };
    if (loop->epoll < 0 || loop->wake < 0 || epoll_ctl(loop->epoll, EPOLL_CTL_ADD, loop->wake, &wake) != 0
        || curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, on_socket) != CURLM_OK
        || curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, loop) != CURLM_OK
        || curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, on_timer) != CURLM_OK
        || curl_multi_setopt(multi, CURLMOPT_TIMERDATA, loop) != CURLM_OK) {
        curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, NULL);
        curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, NULL);
        if (loop->epoll >= 0) close(loop->epoll);
        if (loop->wake >= 0) close(loop->wake);
        free(loop);
        return NULL;
    }
    return loop;
}

void nl_event_loop_wake(nl_event_loop *loop) {
    uint64_t one = 1;
    // EAGAIN only when the counter is full, and then a wake-up is pending anyway.
    ssize_t written = write(loop->wake, &one, sizeof one);
    (void)written;
}

void nl_event_loop_run_timers(nl_event_loop *loop) {
    if (loop->timer_due < 0 || loop->timer_due > now_ns()) return;
    // A timer that fired is used up: libcurl forgets the timeout it last announced when it runs its
    // timers, and calls on_timer again for any it still has — but not when it has none left.
    loop->timer_due = -1;
    int running = 0;
    curl_multi_socket_action(loop->multi, CURL_SOCKET_TIMEOUT, 0, &running);
}

int nl_event_loop_wait(nl_event_loop *loop, int timeout_ms) {
    if (loop->timer_due >= 0) {
        int64_t left = loop->timer_due - now_ns();
        // Rounded up: waking before the timer is due would only wait again.
        int64_t timer_ms = left <= 0 ? 0 : (left + 999999) / 1000000;
        if (timer_ms < timeout_ms) timeout_ms = (int)timer_ms;
    }
    int ready = epoll_wait(loop->epoll, loop->events, NL_EVENT_LOOP_BATCH, timeout_ms);
    loop->ready = ready < 0 ? 0 : ready;  // EINTR: the caller looks again
    return loop->ready;
}

void nl_event_loop_dispatch(nl_event_loop *loop, int index) {
    if (index < 0 || index >= loop->ready) return;
    struct epoll_event event = loop->events[index];
    if (event.data.u64 == NL_WAKE_TAG) {
        uint64_t count;
        ssize_t drained = read(loop->wake, &count, sizeof count);
        (void)drained;
        return;
    }
    curl_socket_t socket = (curl_socket_t)(uint32_t)event.data.u64;
    unsigned char *state = socket_state(loop, socket);
    // The event disarmed the socket. A parked one (an idle connection whose server closed it, most
    // likely) stays so: libcurl finds out when it next takes the connection.
    if (state) {
        *state &= (unsigned char)~NL_ARMED;
        if (*state & NL_PARKED) return;
    }
    int action = 0;
    if (event.events & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)) action |= CURL_CSELECT_IN;
    if (event.events & EPOLLOUT) action |= CURL_CSELECT_OUT;
    if (event.events & EPOLLERR) action |= CURL_CSELECT_ERR;
    int running = 0;
    curl_multi_socket_action(loop->multi, socket, action, &running);
    // Still watched and not armed again by on_socket (libcurl calls it only when what it waits for
    // changes): armed for the same events. Looked up again: the callbacks may have grown the table.
    state = socket_state(loop, socket);
    if (state && (*state & NL_IN_SET) && !(*state & (NL_PARKED | NL_ARMED))) {
        arm(loop, socket, state, *state & (NL_WANTS_IN | NL_WANTS_OUT));
    }
}

void nl_name_this_thread(const char *name) {
    // Fails only for a name over 15 bytes, which then stays as it was.
    pthread_setname_np(pthread_self(), name);
}
