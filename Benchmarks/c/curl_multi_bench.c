/*
 * curl_multi_bench: the ceiling for any libcurl-based client.
 *
 * Plain C on libcurl's multi interface, the way libcurl is meant to be driven at speed:
 *   - one thread, one multi handle, curl_multi_perform + curl_multi_poll;
 *   - C easy handles, each reused for request after request (connections stay in the multi
 *     handle's cache and are reused), keeping exactly C transfers in flight until the tail;
 *   - each body is appended to a buffer owned by its easy handle and reused (pre-sized from
 *     Content-Length when the server sends it), or written straight to a file with --output;
 *   - --http2 (over https): HTTP/2 negotiated by ALPN, with CURLPIPE_MULTIPLEX and CURLOPT_PIPEWAIT,
 *     so all transfers share one connection as streams;
 *   - every response is checked (status 200, --expect-bytes) and failures counted;
 *   - --stream (scenario 7): the write callback only counts the body's bytes, keeping none;
 *   - --events (scenario 6): the write callback counts the server-sent events of a text/event-stream
 *     body as it arrives, keeping none: lines split at LF (carried across chunk edges), an event
 *     ends at a blank line and counts when it had a data line; the `data:` values' size (one space
 *     after the colon dropped, multi-line data joined with one byte) is the checksum the Swift clients
 *     add up (--expect-items is the event count, --expect-data that size). LF line ends only, like
 *     the AsyncHTTPClient client's splitter; it makes no strings, the ceiling again.
 * It does not parse JSON: --decode and --decode-object are accepted and only transfer the body.
 *
 * Same command line and result line as the Swift clients (see Sources/BenchSupport/Options.swift):
 *   curl-multi-bench --url URL --requests N --concurrency C [--decode] [--output FILE]
 *                    [--stream] [--events] [--cacert FILE] [--http2] [--label NAME] [--expect-bytes N]
 *                    [--expect-items N] [--expect-data N]
 * Built by Benchmarks/run.py:  cc -O2 -o .build/curl-multi-bench c/curl_multi_bench.c -lcurl
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One easy handle and the body it is receiving. */
struct transfer {
    CURL *easy;
    char *body;          /* in-memory body (not used with --output) */
    size_t length;       /* bytes received for the current request */
    size_t capacity;
    FILE *file;          /* --output: the file the current body goes to */
    int write_failed;
    /* --events: the parse state, carried from one chunk to the next */
    size_t line_length;  /* bytes of the current line so far */
    char head[6];        /* its first bytes (enough to see "data: ") */
    long data_lines;     /* data lines in the current event */
    long events;         /* events dispatched */
    long long data_bytes; /* the size of their data */
};

static struct {
    const char *url, *output, *cacert, *label;
    long requests, concurrency, expect_bytes, expect_items, expect_data;
    int http2, decode, stream, events;
} options = { .requests = 1, .concurrency = 1, .label = "adhoc" };

static int failures_printed;

static void failure(const char *why, long detail) {
    if (failures_printed++ < 5) fprintf(stderr, "request failed: %s %ld\n", why, detail);
}

static void usage(const char *problem) {
    fprintf(stderr, "error: %s\nusage: curl-multi-bench --url URL [--requests N] [--concurrency C] [--decode]\n"
                    "       [--output FILE] [--stream] [--events] [--cacert FILE] [--http2] [--label NAME]\n"
                    "       [--expect-bytes N] [--expect-items N] [--expect-data N]\n",
            problem);
    exit(2);
}

static long positive(const char *text) {
    char *end;
    long value = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || value <= 0) usage("a count must be a positive integer");
    return value;
}

static void parse(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        int has_value = i + 1 < argc;
#define VALUE() (has_value ? argv[++i] : (usage("a flag needs a value"), ""))
        if (!strcmp(flag, "--url")) options.url = VALUE();
        else if (!strcmp(flag, "--requests")) options.requests = positive(VALUE());
        else if (!strcmp(flag, "--concurrency")) options.concurrency = positive(VALUE());
        else if (!strcmp(flag, "--output")) options.output = VALUE();
        else if (!strcmp(flag, "--cacert")) options.cacert = VALUE();
        else if (!strcmp(flag, "--label")) options.label = VALUE();
        else if (!strcmp(flag, "--expect-bytes")) options.expect_bytes = positive(VALUE());
        else if (!strcmp(flag, "--expect-items")) options.expect_items = positive(VALUE()); /* --events only */
        else if (!strcmp(flag, "--expect-data")) options.expect_data = positive(VALUE());
        else if (!strcmp(flag, "--stream")) options.stream = 1;
        else if (!strcmp(flag, "--events")) options.events = 1;
        else if (!strcmp(flag, "--http2")) options.http2 = 1;
        else if (!strcmp(flag, "--decode") || !strcmp(flag, "--decode-object")) options.decode = 1;
        else usage("unknown argument");
#undef VALUE
    }
    if (!options.url) usage("--url is required");
    if (options.concurrency > options.requests) options.concurrency = options.requests;
}

/* Adds `length` bytes of the current line: its size, and its first bytes into `head`. */
static void line_bytes(struct transfer *t, const char *bytes, size_t length) {
    for (size_t i = 0; i < length && t->line_length + i < sizeof t->head; i++) t->head[t->line_length + i] = bytes[i];
    t->line_length += length;
}

/* --events: counts the events a chunk completes (see the top of the file). */
static void count_events(struct transfer *t, const char *data, size_t bytes) {
    const char *p = data, *end = data + bytes, *line_end;
    while ((line_end = memchr(p, '\n', (size_t)(end - p)))) {
        line_bytes(t, p, (size_t)(line_end - p));
        if (t->line_length == 0) {                  /* a blank line: the event ends */
            if (t->data_lines) {
                t->events++;
                t->data_bytes += t->data_lines - 1; /* the line ends joining its data lines */
            }
            t->data_lines = 0;
        } else if (t->line_length >= 5 && !memcmp(t->head, "data:", 5)) {
            int space = t->line_length > 5 && t->head[5] == ' ';
            t->data_bytes += (long long)(t->line_length - 5 - (size_t)space);
            t->data_lines++;
        }
        t->line_length = 0;
        p = line_end + 1;
    }
    line_bytes(t, p, (size_t)(end - p));
}

/* CURLOPT_WRITEFUNCTION: count (--stream, --events), append to the reused buffer, or write to the file. */
static size_t on_body(char *data, size_t size, size_t count, void *context) {
    struct transfer *t = context;
    size_t bytes = size * count;
    if (options.events) count_events(t, data, bytes);
    if (options.stream || options.events) {
        t->length += bytes;
        return bytes;
    }
    if (t->file) {
        if (fwrite(data, 1, bytes, t->file) != bytes) {
            t->write_failed = 1;
            return 0;
        }
        t->length += bytes;
        return bytes;
    }
    if (t->length + bytes > t->capacity) {
        curl_off_t announced = -1;
        curl_easy_getinfo(t->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced);
        size_t wanted = t->capacity ? t->capacity * 2 : 16384;
        if (announced > 0 && (size_t)announced > wanted) wanted = (size_t)announced;
        while (wanted < t->length + bytes) wanted *= 2;
        char *grown = realloc(t->body, wanted);
        if (!grown) return 0;
        t->body = grown;
        t->capacity = wanted;
    }
    memcpy(t->body + t->length, data, bytes);
    t->length += bytes;
    return bytes;
}

static void check(CURLcode code, const char *what) {
    if (code != CURLE_OK) {
        fprintf(stderr, "%s: %s\n", what, curl_easy_strerror(code));
        exit(1);
    }
}

static void setup(struct transfer *t) {
    t->easy = curl_easy_init();
    if (!t->easy) {
        fprintf(stderr, "curl_easy_init failed\n");
        exit(1);
    }
    check(curl_easy_setopt(t->easy, CURLOPT_URL, options.url), "CURLOPT_URL");
    check(curl_easy_setopt(t->easy, CURLOPT_WRITEFUNCTION, on_body), "CURLOPT_WRITEFUNCTION");
    check(curl_easy_setopt(t->easy, CURLOPT_WRITEDATA, t), "CURLOPT_WRITEDATA");
    check(curl_easy_setopt(t->easy, CURLOPT_PRIVATE, t), "CURLOPT_PRIVATE");
    check(curl_easy_setopt(t->easy, CURLOPT_NOSIGNAL, 1L), "CURLOPT_NOSIGNAL");
    check(curl_easy_setopt(t->easy, CURLOPT_HTTP_VERSION,
                           options.http2 ? (long)CURL_HTTP_VERSION_2TLS : (long)CURL_HTTP_VERSION_1_1),
          "CURLOPT_HTTP_VERSION");
    if (options.http2) check(curl_easy_setopt(t->easy, CURLOPT_PIPEWAIT, 1L), "CURLOPT_PIPEWAIT");
    /* Streams: the receive buffer NetworkLayer gives a stream (CurlTransfer.streamBufferSize, 512 KB,
       libcurl's default is 16 KB), so both read the socket in the same sizes. */
    if (options.stream || options.events) check(curl_easy_setopt(t->easy, CURLOPT_BUFFERSIZE, 524288L), "CURLOPT_BUFFERSIZE");
    if (options.cacert) check(curl_easy_setopt(t->easy, CURLOPT_CAINFO, options.cacert), "CURLOPT_CAINFO");
}

/* Prepares the transfer for its next request. */
static void restart(struct transfer *t) {
    t->length = 0;
    t->write_failed = 0;
    t->line_length = 0;
    t->data_lines = 0;
    t->events = 0;
    t->data_bytes = 0;
    if (options.output) {
        t->file = fopen(options.output, "wb");
        if (!t->file) {
            perror(options.output);
            exit(1);
        }
    }
}

/* Checks a finished request; returns 1 when it passed. */
static int finish(struct transfer *t, CURLcode result) {
    if (t->file) {
        if (fclose(t->file) != 0) t->write_failed = 1;
        t->file = NULL;
    }
    long status = 0;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    if (result != CURLE_OK) failure(curl_easy_strerror(result), (long)result);
    else if (t->write_failed) failure("cannot write the output file, bytes", (long)t->length);
    else if (status != 200) failure("status", status);
    else if (options.expect_bytes && (long)t->length != options.expect_bytes) failure("body bytes", (long)t->length);
    else if (options.events && options.expect_items && t->events != options.expect_items) failure("events", t->events);
    else if (options.events && options.expect_data && t->data_bytes != options.expect_data)
        failure("bytes of event data", (long)t->data_bytes);
    else return 1;
    return 0;
}

static void add(CURLM *multi, CURL *easy) {
    CURLMcode code = curl_multi_add_handle(multi, easy);
    if (code != CURLM_OK) {
        fprintf(stderr, "curl_multi_add_handle: %s\n", curl_multi_strerror(code));
        exit(1);
    }
}

static double seconds_of(clockid_t clock) {
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0) return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void) { return seconds_of(CLOCK_MONOTONIC); }

int main(int argc, char **argv) {
    parse(argc, argv);
    check(curl_global_init(CURL_GLOBAL_DEFAULT), "curl_global_init");
    CURLM *multi = curl_multi_init();
    if (!multi) {
        fprintf(stderr, "curl_multi_init failed\n");
        return 1;
    }
    if (curl_multi_setopt(multi, CURLMOPT_PIPELINING, options.http2 ? CURLPIPE_MULTIPLEX : CURLPIPE_NOTHING) != CURLM_OK) {
        fprintf(stderr, "CURLMOPT_PIPELINING failed\n");
        return 1;
    }

    struct transfer *transfers = calloc((size_t)options.concurrency, sizeof *transfers);
    if (!transfers) return 1;
    for (long i = 0; i < options.concurrency; i++) setup(&transfers[i]);

    long started = 0, finished = 0, ok = 0;
    long long bytes = 0;
    double start = now(), cpu_start = seconds_of(CLOCK_PROCESS_CPUTIME_ID);
    for (long i = 0; i < options.concurrency; i++, started++) {
        restart(&transfers[i]);
        add(multi, transfers[i].easy);
    }
    while (finished < options.requests) {
        int running = 0;
        CURLMcode code = curl_multi_perform(multi, &running);
        if (code != CURLM_OK) {
            fprintf(stderr, "curl_multi_perform: %s\n", curl_multi_strerror(code));
            return 1;
        }
        CURLMsg *message;
        int left;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            CURLcode result = message->data.result;
            char *context = NULL;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, &context);
            struct transfer *t = (struct transfer *)context;
            curl_multi_remove_handle(multi, easy);
            finished++;
            ok += finish(t, result);
            bytes += (long long)t->length;
            if (started < options.requests) {   /* reuse the handle for the next request */
                restart(t);
                add(multi, easy);
                started++;
            }
        }
        if (finished < options.requests) {
            code = curl_multi_poll(multi, NULL, 0, 1000, NULL);
            if (code != CURLM_OK) {
                fprintf(stderr, "curl_multi_poll: %s\n", curl_multi_strerror(code));
                return 1;
            }
        }
    }
    double seconds = now() - start, cpu = seconds_of(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;

    printf("{\"client\":\"curl-multi\",\"scenario\":\"%s\",\"requests\":%ld,\"ok\":%ld,\"bytes\":%lld,"
           "\"seconds\":%.6f,\"rps\":%.2f,\"cpu\":%.6f%s}\n",
           options.label, options.requests, ok, bytes, seconds, seconds > 0 ? (double)ok / seconds : 0.0, cpu,
           options.decode ? ",\"note\":\"transfer only, no JSON decoding\"" : "");

    for (long i = 0; i < options.concurrency; i++) {
        curl_easy_cleanup(transfers[i].easy);
        free(transfers[i].body);
    }
    free(transfers);
    curl_multi_cleanup(multi);
    curl_global_cleanup();
    return ok == options.requests ? 0 : 1;
}
