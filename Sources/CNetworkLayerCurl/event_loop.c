// The engine's event loop on libcurl's multi-socket API: the OS says which sockets are ready
// (event_poller.h: epoll, or poll() where there is none), and libcurl runs only the transfers on
// those sockets (or whose timer expired). This file is the libcurl side, the same on every system.
//
// Why not curl_multi_perform + curl_multi_poll: libcurl 7.88 then checks every running transfer's
// socket with its own poll() in every round, ready or not: a cost per round that grows with every
// running transfer, an open stream that stays quiet included.
//
// What must stay true: every socket libcurl watches is armed oneshot for what it waits for, and
// armed again after each event (by on_socket, or by dispatch when libcurl's wish did not change);
// a socket libcurl stops watching while open is parked, and its events are dropped; an idle engine
// is woken only by its timer, a wake-up or a watched socket. A socket that is not libcurl's
// (nl_event_loop_watch) goes through the same states, marked foreign: its events go back to the
// caller, and libcurl's callbacks leave it alone until the caller unwatches it.
#ifdef __linux__
#define _GNU_SOURCE  // pthread_setname_np
#endif
#include "CNetworkLayerCurl.h"
#include "event_poller.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct nl_event_loop {
    CURLM *multi;
    nl_poller *poller;
    /// When libcurl wants curl_multi_socket_action(CURL_SOCKET_TIMEOUT), CLOCK_MONOTONIC ns; -1: never.
    int64_t timer_due;
    int ready;
    /// Socket states by number (NL_IN_SET…), `state_count` of them.
    unsigned char *states;
    size_t state_count;
    nl_poller_event events[NL_EVENT_LOOP_BATCH];
};

static int64_t now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/// What the loop knows of a socket number (one byte each, by number).
enum {
    /// In the poller's set under this number (as far as the loop knows: it may have closed since).
    NL_IN_SET = 1,
    /// libcurl no longer watches it: an event for it is dropped.
    NL_PARKED = 2,
    /// Armed: the next readiness is reported.
    NL_ARMED = 4,
    NL_WANTS_IN = 8,
    NL_WANTS_OUT = 16,
    /// Watched for the caller, not for libcurl.
    NL_FOREIGN = 32,
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

/// Arms `socket` for what `wants` (NL_WANTS_IN, NL_WANTS_OUT) says. `state` is its byte, or NULL
/// when the table could not grow: then the socket is level-triggered, never parked (removed when
/// libcurl lets go of it), and needs no arming again.
static void arm(nl_event_loop *loop, curl_socket_t socket, unsigned char *state, unsigned char wants) {
    int how = ((wants & NL_WANTS_IN) ? NL_POLLER_IN : 0) | ((wants & NL_WANTS_OUT) ? NL_POLLER_OUT : 0);
    if (!state || (*state & NL_IN_SET)) how |= NL_POLLER_KNOWN;
    if (state) how |= NL_POLLER_ONESHOT;
    nl_poller_arm(loop->poller, socket, how);
    if (state) *state = NL_IN_SET | NL_ARMED | wants;
}

/// CURLMOPT_SOCKETFUNCTION: arms each socket libcurl waits on for the events it waits for.
static int on_socket(CURL *easy, curl_socket_t socket, int what, void *userp, void *socketp) {
    (void)easy; (void)socketp;
    nl_event_loop *loop = userp;
    unsigned char *state = socket_state(loop, socket);
    // A connection libcurl let go of (CONNECT_ONLY) whose socket the caller watches now.
    if (what == CURL_POLL_REMOVE && state && (*state & NL_FOREIGN)) return 0;
    if (what == CURL_POLL_REMOVE) {
        if (state && (*state & NL_IN_SET)) {
            *state = (*state & NL_IN_SET) | (*state & NL_ARMED) | NL_PARKED;
            nl_poller_park(loop->poller, socket);
        } else {
            nl_poller_remove(loop->poller, socket);
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
    loop->poller = nl_poller_create();
    if (!loop->poller
        || curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, on_socket) != CURLM_OK
        || curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, loop) != CURLM_OK
        || curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, on_timer) != CURLM_OK
        || curl_multi_setopt(multi, CURLMOPT_TIMERDATA, loop) != CURLM_OK) {
        curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, NULL);
        curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, NULL);
        if (loop->poller) nl_poller_free(loop->poller);
        free(loop);
        return NULL;
    }
    return loop;
}

void nl_event_loop_wake(nl_event_loop *loop) {
    nl_poller_wake(loop->poller);
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
    loop->ready = nl_poller_wait(loop->poller, loop->events, NL_EVENT_LOOP_BATCH, timeout_ms);
    return loop->ready;
}

curl_socket_t nl_event_loop_dispatch(nl_event_loop *loop, int index) {
    if (index < 0 || index >= loop->ready) return CURL_SOCKET_BAD;
    curl_socket_t socket = loop->events[index].socket;
    unsigned char *state = socket_state(loop, socket);
    // The event disarmed the socket. A parked one (an idle connection whose server closed it, most
    // likely) stays so: libcurl finds out when it next takes the connection.
    if (state) {
        *state &= (unsigned char)~NL_ARMED;
        if (*state & NL_PARKED) return CURL_SOCKET_BAD;
        if (*state & NL_FOREIGN) return socket;
    }
    int running = 0;
    curl_multi_socket_action(loop->multi, socket, loop->events[index].action, &running);
    // Still watched and not armed again by on_socket (libcurl calls it only when what it waits for
    // changes): armed for the same events. Looked up again: the callbacks may have grown the table.
    state = socket_state(loop, socket);
    if (state && (*state & NL_IN_SET) && !(*state & (NL_PARKED | NL_ARMED))) {
        arm(loop, socket, state, *state & (NL_WANTS_IN | NL_WANTS_OUT));
    }
    return CURL_SOCKET_BAD;
}

int nl_event_loop_watch(nl_event_loop *loop, curl_socket_t socket, int reading, int writing) {
    // Without its state byte an event could not be told from libcurl's.
    unsigned char *state = socket_state(loop, socket);
    if (!state) return -1;
    unsigned char wants = (reading ? NL_WANTS_IN : 0) | (writing ? NL_WANTS_OUT : 0);
    if (wants) {
        arm(loop, socket, state, wants);
        *state |= NL_FOREIGN;
    } else if (*state & NL_IN_SET) {
        // Parked as libcurl's idle sockets are: an event already armed is dropped by dispatch.
        *state = (*state & (NL_IN_SET | NL_ARMED)) | NL_PARKED | NL_FOREIGN;
        nl_poller_park(loop->poller, socket);
    } else {
        *state = NL_FOREIGN;
    }
    return 0;
}

void nl_event_loop_unwatch(nl_event_loop *loop, curl_socket_t socket) {
    unsigned char *state = socket_state(loop, socket);
    if (state) *state = 0;
    nl_poller_remove(loop->poller, socket);
}

void nl_name_this_thread(const char *name) {
    // Fails only for a name over 15 bytes (Linux), which then stays as it was.
#if defined(__APPLE__)
    pthread_setname_np(name);
#elif defined(__linux__) || defined(__FreeBSD__) || defined(__OpenBSD__)
    pthread_setname_np(pthread_self(), name);
#else
    (void)name;
#endif
}
