// The OS side of the engine's event loop: a set of sockets each armed for reading, writing or
// both, a wait that reports the ready ones, a wake-up from any thread. event_loop.c holds the
// libcurl side, written once. One implementation is built: event_poller_poll.c (poll() and a
// self-pipe, POSIX) off Linux or with NL_EVENT_LOOP_POLL defined, else event_poller_epoll.c.
//
// What each must keep true, as event_loop.c relies on it:
// - a oneshot socket is reported at most once per arming: the report disarms it;
// - a socket the wait did not report (more were ready than `capacity`) stays armed for the next;
// - a parked or removed socket never wakes the loop more than once, whatever becomes of it;
// - a wait ends by its timeout, or at once after nl_poller_wake from any thread; the wake-up is
//   consumed there, and no socket event stands for it;
// - everything but nl_poller_wake runs on the loop's one thread.
#ifndef NETWORKLAYER_EVENT_POLLER_H
#define NETWORKLAYER_EVENT_POLLER_H

#include <curl/curl.h>

#if defined(NL_EVENT_LOOP_POLL) || !defined(__linux__)
#define NL_POLLER_USES_POLL 1
#endif

/// What a socket is armed for, and how.
enum {
    NL_POLLER_IN = 1,
    NL_POLLER_OUT = 2,
    /// The socket may be in the set under this number already (epoll tries a MOD before an ADD).
    NL_POLLER_KNOWN = 4,
    /// Disarmed by its report; without it the socket is level-triggered and reported while ready.
    NL_POLLER_ONESHOT = 8,
};

typedef struct nl_poller nl_poller;

/// A ready socket: `action` is what curl_multi_socket_action takes (CURL_CSELECT_IN, _OUT, _ERR).
typedef struct {
    curl_socket_t socket;
    int action;
} nl_poller_event;

/// NULL when the system refused (no descriptors or memory left).
nl_poller *nl_poller_create(void);
void nl_poller_free(nl_poller *poller);
/// Arms `socket` for what `how` says (NL_POLLER_IN, _OUT, _KNOWN, _ONESHOT), replacing its
/// arming. Out of memory, a socket stays unwatched: its transfer ends by its own timeout.
void nl_poller_arm(nl_poller *poller, curl_socket_t socket, int how);
/// libcurl stopped watching `socket`, which may stay open (a cached connection) or be closed
/// later without a word: an armed one may still be reported once.
void nl_poller_park(nl_poller *poller, curl_socket_t socket);
/// Takes `socket` out of the set (it may be closed already).
void nl_poller_remove(nl_poller *poller, curl_socket_t socket);
/// Waits up to `timeout_ms` and writes up to `capacity` ready sockets to `events`; returns how
/// many (0 after a timeout, a wake-up or EINTR).
int nl_poller_wait(nl_poller *poller, nl_poller_event *events, int capacity, int timeout_ms);
/// Ends the current or next wait. Safe from any thread.
void nl_poller_wake(nl_poller *poller);

#endif
