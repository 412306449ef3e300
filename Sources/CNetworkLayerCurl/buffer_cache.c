#include "CNetworkLayerCurl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// The usable size of a block of the C library, to skip the lock for blocks too small to be a
// receive buffer; where the C library cannot tell, every block is looked up.
#if defined(__APPLE__)
#include <malloc/malloc.h>
#define nl_block_size(block) malloc_size(block)
#elif defined(__linux__)
#include <malloc.h>
#define nl_block_size(block) malloc_usable_size(block)
#elif defined(__FreeBSD__)
#include <malloc_np.h>
#define nl_block_size(block) malloc_usable_size(block)
#else
#define nl_block_size(block) SIZE_MAX
#endif

// libcurl 7.88 allocates a transfer's receive buffer (CURLOPT_BUFFERSIZE + 1 bytes) when the
// transfer starts and frees it when the transfer ends. A stream's is 512 KB: above glibc's mmap
// threshold at first, then carved from the engine thread's arena, whose top glibc trims with
// madvise whenever such a buffer comes free there; the next buffer faults its pages in afresh,
// a cost that grows with the number of streams, not their size (Benchmarks/RESULTS.md, scenario 9).
// This cache keeps freed receive buffers and hands them back for the next transfer, so the engine
// reuses the same resident pages; the engine empties it once no transfer has run for a second.
//
// What must stay true:
// - only receive buffers are kept: blocks this file handed out for a request of exactly the
//   receive buffer's size (libcurl asks for CURLOPT_BUFFERSIZE + 1), remembered while they are
//   out. Any other block, however large, is freed at once: libcurl's other large blocks (a paused
//   transfer's held data) grow through realloc and must never pile up here;
// - every pointer handed out is a block of the C library's malloc, so realloc and free of any of
//   them are the C library's, and a block libcurl allocated before these functions were installed
//   is freed correctly;
// - at most NL_CACHE_SLOTS blocks are kept and NL_CACHE_SLOTS remembered as out, behind one
//   mutex (libcurl allocates on any thread that sets an option; the engine thread does most of
//   it). 64: more streams than that rarely start in one round of the engine, and a kept block is
//   resident only where a stream wrote. A block handed out while 64 are out is not remembered,
//   and is freed when it comes back;
// - a free while no receive buffer is out costs one relaxed load more than free itself (most
//   of libcurl's frees, and every one of a small request's): `nl_outstanding` is atomic, written
//   under the mutex. A block handed out was counted before its pointer left nl_malloc, and its
//   free comes after that (libcurl hands a transfer between threads under locks of its own), so
//   the count seen is never 0 while it is out.

#define NL_CACHE_SLOTS 64

static pthread_mutex_t nl_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static void *nl_cache[NL_CACHE_SLOTS];
static int nl_cached = 0;
static void *nl_out[NL_CACHE_SLOTS];
static atomic_int nl_outstanding = 0;
static size_t nl_large = 0;
static long nl_hits = 0;
// Set by the first allocation function here that libcurl calls: they are the ones it uses.
// Atomic, as libcurl allocates on several threads; read before it is written, so that once set,
// allocations only read its cache line instead of writing it from every thread.
static atomic_int nl_in_use = 0;

static inline void nl_note_use(void) {
    if (!atomic_load_explicit(&nl_in_use, memory_order_relaxed)) atomic_store_explicit(&nl_in_use, 1, memory_order_relaxed);
}

static void *nl_malloc(size_t size) {
    nl_note_use();
    if (size != nl_large) return malloc(size);
    pthread_mutex_lock(&nl_cache_lock);
    void *block = NULL;
    if (nl_cached > 0) {
        block = nl_cache[--nl_cached];
        nl_hits += 1;
    } else {
        block = malloc(size);
    }
    int out = atomic_load_explicit(&nl_outstanding, memory_order_relaxed);
    if (block && out < NL_CACHE_SLOTS) {
        nl_out[out] = block;
        atomic_store_explicit(&nl_outstanding, out + 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&nl_cache_lock);
    return block;
}

/// Forgets `block` as out (under the lock); whether it was.
static int nl_forget(void *block) {
    int out = atomic_load_explicit(&nl_outstanding, memory_order_relaxed);
    for (int i = 0; i < out; i++) {
        if (nl_out[i] != block) continue;
        nl_out[i] = nl_out[out - 1];
        atomic_store_explicit(&nl_outstanding, out - 1, memory_order_relaxed);
        return 1;
    }
    return 0;
}

static void nl_free(void *block) {
    // Only while a receive buffer is out, and only a block at least as large as one, can this be
    // one: the rest skip the lock.
    if (atomic_load_explicit(&nl_outstanding, memory_order_relaxed) > 0 && block && nl_block_size(block) >= nl_large) {
        pthread_mutex_lock(&nl_cache_lock);
        int kept = 0;
        if (nl_forget(block)) {
            if (nl_cached < NL_CACHE_SLOTS) {
                nl_cache[nl_cached++] = block;
                kept = 1;
            }
        }
        pthread_mutex_unlock(&nl_cache_lock);
        if (kept) return;
    }
    free(block);
}

static void *nl_realloc(void *block, size_t size) {
    nl_note_use();
    // A receive buffer resized (libcurl does it when CURLOPT_BUFFERSIZE changes) is one no longer:
    // forgotten, so that the slot is free and its old address, once reused, is not taken for one.
    if (block && atomic_load_explicit(&nl_outstanding, memory_order_relaxed) > 0 && nl_block_size(block) >= nl_large) {
        pthread_mutex_lock(&nl_cache_lock);
        nl_forget(block);
        pthread_mutex_unlock(&nl_cache_lock);
    }
    return realloc(block, size);
}
static char *nl_strdup(const char *text) {
    nl_note_use();
    return strdup(text);
}
static void *nl_calloc(size_t count, size_t size) {
    nl_note_use();
    return calloc(count, size);
}

CURLcode nl_global_init_caching_buffers(size_t receive_buffer_size, int *installed) {
    nl_large = receive_buffer_size + 1;  // libcurl asks for the buffer size and a NUL
    // libcurl takes allocation functions only from the call that initialises it; a later call
    // (or one after curl_easy_init, which initialises it with the C library's) leaves them as
    // they are, and says nothing. One allocation through libcurl tells which functions it uses.
    CURLcode code = curl_global_init_mem(CURL_GLOBAL_DEFAULT, nl_malloc, nl_free, nl_realloc, nl_strdup, nl_calloc);
    if (code != CURLE_OK) return code;
    char *probe = curl_easy_escape(NULL, "probe", 5);
    curl_free(probe);
    *installed = atomic_load_explicit(&nl_in_use, memory_order_relaxed);
    return CURLE_OK;
}

void nl_release_cached_buffers(void) {
    void *blocks[NL_CACHE_SLOTS];
    pthread_mutex_lock(&nl_cache_lock);
    int count = nl_cached;
    memcpy(blocks, nl_cache, sizeof(void *) * (size_t)count);
    nl_cached = 0;
    pthread_mutex_unlock(&nl_cache_lock);
    for (int i = 0; i < count; i++) free(blocks[i]);
}

int nl_cached_buffer_count(void) {
    pthread_mutex_lock(&nl_cache_lock);
    int count = nl_cached;
    pthread_mutex_unlock(&nl_cache_lock);
    return count;
}

long nl_cached_buffer_hits(void) {
    pthread_mutex_lock(&nl_cache_lock);
    long hits = nl_hits;
    pthread_mutex_unlock(&nl_cache_lock);
    return hits;
}
