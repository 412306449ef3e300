// The event loop's OS side on poll() and a self-pipe: POSIX only, for the systems without epoll
// (event_poller.h), and on Linux when built with NL_EVENT_LOOP_POLL.
//
// What must stay true:
// - `fds` holds the wake-up pipe at 0, then exactly the armed sockets, packed; `slots` maps a
//   socket number to its index there (0: not armed). poll() reports POLLHUP, POLLERR and POLLNVAL
//   whatever the events asked, so a disarmed socket must leave the array, not keep `events` 0;
// - a oneshot socket leaves the array when reported, and a parked one at once: a socket libcurl
//   no longer watches is never polled, even once closed and its number reused;
// - the pipe is non-blocking at both ends: a wake-up never blocks its thread, and draining stops
//   when the pipe is empty.
#include "event_poller.h"
#include "CNetworkLayerCurl.h"

#ifdef NL_POLLER_USES_POLL

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct nl_poller {
    struct pollfd *fds;
    /// Whether the socket at the same index in `fds` leaves it when reported.
    unsigned char *oneshot;
    size_t count;
    size_t capacity;
    size_t *slots;
    size_t slot_count;
    int wake_write;
};

const char *nl_event_loop_kind(void) { return "poll"; }

static int set_flags(int descriptor) {
    int status = fcntl(descriptor, F_GETFL);
    int flags = fcntl(descriptor, F_GETFD);
    return status >= 0 && flags >= 0 && fcntl(descriptor, F_SETFL, status | O_NONBLOCK) == 0
        && fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) == 0 ? 0 : -1;
}

nl_poller *nl_poller_create(void) {
    nl_poller *poller = calloc(1, sizeof *poller);
    int pipe_ends[2];
    if (poller) {
        poller->capacity = 16;
        poller->fds = malloc(poller->capacity * sizeof *poller->fds);
        poller->oneshot = malloc(poller->capacity);
    }
    if (!poller || !poller->fds || !poller->oneshot || pipe(pipe_ends) != 0) {
        if (poller) {
            free(poller->fds);
            free(poller->oneshot);
            free(poller);
        }
        return NULL;
    }
    poller->fds[0] = (struct pollfd){ .fd = pipe_ends[0], .events = POLLIN };
    poller->count = 1;
    poller->wake_write = pipe_ends[1];
    if (set_flags(pipe_ends[0]) != 0 || set_flags(pipe_ends[1]) != 0) {
        nl_poller_free(poller);
        return NULL;
    }
    return poller;
}

void nl_poller_free(nl_poller *poller) {
    close(poller->fds[0].fd);
    close(poller->wake_write);
    free(poller->fds);
    free(poller->oneshot);
    free(poller->slots);
    free(poller);
}

/// The index of `socket` in `fds`, 0 when it is not armed.
static size_t slot_of(const nl_poller *poller, curl_socket_t socket) {
    return socket >= 0 && (size_t)socket < poller->slot_count ? poller->slots[socket] : 0;
}

static void forget_at(nl_poller *poller, size_t index) {
    poller->slots[poller->fds[index].fd] = 0;
    size_t last = --poller->count;
    if (index == last) return;
    poller->fds[index] = poller->fds[last];
    poller->oneshot[index] = poller->oneshot[last];
    poller->slots[poller->fds[index].fd] = index;
}

/// Room for one more socket in `fds` and for `socket`'s number in `slots`; 0 if memory ran out.
static int make_room(nl_poller *poller, curl_socket_t socket) {
    if ((size_t)socket >= poller->slot_count) {
        size_t count = poller->slot_count ? poller->slot_count : 256;
        while (count <= (size_t)socket) count *= 2;
        size_t *grown = realloc(poller->slots, count * sizeof *grown);
        if (!grown) return 0;
        memset(grown + poller->slot_count, 0, (count - poller->slot_count) * sizeof *grown);
        poller->slots = grown;
        poller->slot_count = count;
    }
    if (poller->count == poller->capacity) {
        size_t capacity = poller->capacity * 2;
        struct pollfd *fds = realloc(poller->fds, capacity * sizeof *fds);
        if (fds) poller->fds = fds;
        unsigned char *oneshot = fds ? realloc(poller->oneshot, capacity) : NULL;
        if (!oneshot) return 0;
        poller->oneshot = oneshot;
        poller->capacity = capacity;
    }
    return 1;
}

void nl_poller_arm(nl_poller *poller, curl_socket_t socket, int how) {
    if (socket < 0) return;
    size_t index = slot_of(poller, socket);
    if (index == 0) {
        if (!make_room(poller, socket)) return;
        index = poller->count++;
        poller->slots[socket] = index;
    }
    short events = (short)(((how & NL_POLLER_IN) ? POLLIN : 0) | ((how & NL_POLLER_OUT) ? POLLOUT : 0));
    poller->fds[index] = (struct pollfd){ .fd = socket, .events = events };
    poller->oneshot[index] = (how & NL_POLLER_ONESHOT) != 0;
}

void nl_poller_park(nl_poller *poller, curl_socket_t socket) {
    nl_poller_remove(poller, socket);
}

void nl_poller_remove(nl_poller *poller, curl_socket_t socket) {
    size_t index = slot_of(poller, socket);
    if (index != 0) forget_at(poller, index);
}

int nl_poller_wait(nl_poller *poller, nl_poller_event *events, int capacity, int timeout_ms) {
    int ready = poll(poller->fds, (nfds_t)poller->count, timeout_ms);
    if (ready <= 0) return 0;  // EINTR: the caller looks again
    if (poller->fds[0].revents) {
        ready -= 1;
        char drained[64];
        while (read(poller->fds[0].fd, drained, sizeof drained) > 0) {}
    }
    int reported = 0;
    // A reported oneshot socket leaves its index to the last one, which this round polled too.
    for (size_t index = 1; index < poller->count && ready > 0 && reported < capacity;) {
        short revents = poller->fds[index].revents;
        if (!revents) {
            index += 1;
            continue;
        }
        ready -= 1;
        int action = 0;
        if (revents & (POLLIN | POLLHUP)) action |= CURL_CSELECT_IN;
        if (revents & POLLOUT) action |= CURL_CSELECT_OUT;
        if (revents & (POLLERR | POLLNVAL)) action |= CURL_CSELECT_ERR;
        events[reported++] = (nl_poller_event){ .socket = poller->fds[index].fd, .action = action };
        if (poller->oneshot[index]) {
            forget_at(poller, index);
        } else {
            index += 1;
        }
    }
    return reported;
}

void nl_poller_wake(nl_poller *poller) {
    // EAGAIN only when the pipe is full, and then a wake-up is pending anyway.
    ssize_t written = write(poller->wake_write, "", 1);
    (void)written;
}

#endif
