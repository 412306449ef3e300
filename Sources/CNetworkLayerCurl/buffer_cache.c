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
//
// The quarantine (libcurl before 8.1.0, curl#11101): libcurl keeps, from one transfer of a handle
// to the next, a pointer to the last header it stored, frees that header as the next transfer
// starts, and reallocs it for a continuation line right after the next status line. The engine
// quarantines that block when a transfer ends: nl_free only marks it freed, nl_realloc takes it
// out and reallocs it as any block, and the engine frees it once the handle's next transfer
// stored headers of its own, or after curl_easy_cleanup. What must stay true:
// - an entry (a block, its low bit set once libcurl freed it, and its handle) sits in one of the
//   NL_Q_PROBES slots from the block's home and never moves; `nl_q_homes` counts the entries of
//   each home: a free reads that one byte, nearly always 0;
// - a block in an entry stays allocated; the engine frees it only once libcurl freed it (a handle
//   idle in the pool still lists it), after removing the entry;
// - entries are made and removed under `nl_q_lock` by the thread using their handle, which also
//   marks one freed, without the lock (a CAS: the others write only empty slots). Relaxed reads
//   suffice: the one free that must see an entry is libcurl's of its block, with its handle; the
//   entry was made when the handle's previous transfer ended, before the pool's lock (then the
//   inbox's, or the handle's last release) handed the handle on. Any other free is of a block in
//   no entry (malloc orders a free before the allocation returning the same address): a stale
//   view of the table at worst makes it scan the slots, and find nothing.

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

#define NL_Q_SLOTS 4096
#define NL_Q_PROBES 4
#define NL_Q_FREED ((uintptr_t)1)

static pthread_mutex_t nl_q_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(uintptr_t) nl_q_blocks[NL_Q_SLOTS];
static const void *nl_q_owners[NL_Q_SLOTS];
static _Atomic(unsigned char) nl_q_homes[NL_Q_SLOTS];
static atomic_int nl_q_count = 0;
static atomic_long nl_q_reallocations = 0;

static inline size_t nl_q_home(const void *block) {
    return ((uintptr_t)block >> 4) & (NL_Q_SLOTS - 1);
}

/// The slot whose entry is `block` (its value `block | mark`), or -1.
static long nl_q_find(const void *block, uintptr_t mark) {
    size_t home = nl_q_home(block);
    for (size_t probe = 0; probe < NL_Q_PROBES; probe++) {
        size_t slot = (home + probe) & (NL_Q_SLOTS - 1);
        if (atomic_load_explicit(&nl_q_blocks[slot], memory_order_relaxed) == ((uintptr_t)block | mark)) return (long)slot;
    }
    return -1;
}

static void nl_q_remove_locked(long slot) {
    uintptr_t value = atomic_load_explicit(&nl_q_blocks[slot], memory_order_relaxed);
    size_t home = nl_q_home((const void *)(value & ~NL_Q_FREED));
    atomic_store_explicit(&nl_q_blocks[slot], 0, memory_order_relaxed);
    nl_q_owners[slot] = NULL;
    atomic_store_explicit(&nl_q_homes[home], atomic_load_explicit(&nl_q_homes[home], memory_order_relaxed) - 1, memory_order_relaxed);
    atomic_store_explicit(&nl_q_count, atomic_load_explicit(&nl_q_count, memory_order_relaxed) - 1, memory_order_relaxed);
}

/// libcurl frees `block`: whether it is quarantined, then marked freed and kept.
static int nl_q_keep(void *block) {
    if (!block) return 0;  // an empty slot's value is NULL
    long slot = nl_q_find(block, 0);
    uintptr_t expected = (uintptr_t)block;
    return slot >= 0 && atomic_compare_exchange_strong_explicit(&nl_q_blocks[slot], &expected, (uintptr_t)block | NL_Q_FREED,
                                                                 memory_order_relaxed, memory_order_relaxed);
}

/// libcurl reallocates `block`: out of the quarantine if it is in, freed by libcurl or not.
__attribute__((noinline)) static void nl_q_take(void *block) {
    if (nl_q_find(block, NL_Q_FREED) < 0 && nl_q_find(block, 0) < 0) return;
    pthread_mutex_lock(&nl_q_lock);
    long slot = nl_q_find(block, NL_Q_FREED);
    if (slot < 0) slot = nl_q_find(block, 0);
    if (slot >= 0) {
        nl_q_remove_locked(slot);
        atomic_fetch_add_explicit(&nl_q_reallocations, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&nl_q_lock);
}

/// A free that may be of a quarantined block or of a receive buffer.
__attribute__((noinline)) static void nl_free_kept(void *block) {
    if (nl_q_keep(block)) return;
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

static void nl_free(void *block) {
    if (atomic_load_explicit(&nl_q_homes[nl_q_home(block)], memory_order_relaxed) |
        (atomic_load_explicit(&nl_outstanding, memory_order_relaxed) > 0)) {
        nl_free_kept(block);
        return;
    }
    free(block);
}

static void *nl_realloc(void *block, size_t size) {
    nl_note_use();
    if (block && atomic_load_explicit(&nl_q_homes[nl_q_home(block)], memory_order_relaxed)) nl_q_take(block);
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

#define NL_HEADER_ORIGINS (CURLH_HEADER | CURLH_TRAILER | CURLH_CONNECT | CURLH_1XX | CURLH_PSEUDO)

/// The header libcurl stored last on `easy`, named `name`: its last occurrence, if no header follows it.
static void *nl_last_stored_header(CURL *easy, const char *name, int *built_in) {
    struct curl_header *header = NULL;
    CURLHcode code = curl_easy_header(easy, name, 0, NL_HEADER_ORIGINS, -1, &header);
    if (code == CURLHE_OK && header->amount > 1) {
        code = curl_easy_header(easy, name, header->amount - 1, NL_HEADER_ORIGINS, -1, &header);
    }
    if (code == CURLHE_NOT_BUILT_IN) *built_in = 0;
    if (code != CURLHE_OK || !header->anchor) return NULL;
    // The anchor is the list node, the first member of 7.83-8.0's struct Curl_header_store: the
    // block. It is the last stored if no header follows it (any would be of the last request).
    void *block = header->anchor;
    return curl_easy_nextheader(easy, NL_HEADER_ORIGINS, -1, header) ? NULL : block;
}

/// The slot of `block`'s entry for `easy`, freed by libcurl or not, or -1.
static long nl_q_find_owned(const void *block, const void *easy) {
    long slot = nl_q_find(block, 0);
    if (slot < 0) slot = nl_q_find(block, NL_Q_FREED);
    return slot >= 0 && nl_q_owners[slot] == easy ? slot : -1;
}

void *nl_quarantine_last_header(CURL *easy, const char *name, size_t length, void *previous, int *built_in) {
    *built_in = 1;
    char small[128];
    char *copy = length < sizeof small ? small : malloc(length + 1);
    if (!copy) return NULL;
    if (length) memcpy(copy, name, length);
    copy[length] = 0;
    void *block = nl_last_stored_header(easy, copy, built_in);
    if (copy != small) free(copy);
    if (!block) return NULL;

    void *freed = NULL;
    int kept = 0;
    pthread_mutex_lock(&nl_q_lock);
    long old = previous ? nl_q_find_owned(previous, easy) : -1;
    if (block == previous && old >= 0) {
        atomic_store_explicit(&nl_q_blocks[old], (uintptr_t)block, memory_order_relaxed);  // libcurl holds it
        kept = 1;
    } else {
        size_t home = nl_q_home(block);
        for (size_t probe = 0; probe < NL_Q_PROBES && !kept; probe++) {
            size_t slot = (home + probe) & (NL_Q_SLOTS - 1);
            if (atomic_load_explicit(&nl_q_blocks[slot], memory_order_relaxed) != 0) continue;
            nl_q_owners[slot] = easy;
            atomic_store_explicit(&nl_q_blocks[slot], (uintptr_t)block, memory_order_relaxed);
            atomic_store_explicit(&nl_q_homes[home], atomic_load_explicit(&nl_q_homes[home], memory_order_relaxed) + 1, memory_order_relaxed);
            atomic_store_explicit(&nl_q_count, atomic_load_explicit(&nl_q_count, memory_order_relaxed) + 1, memory_order_relaxed);
            kept = 1;
        }
        if (kept && old >= 0) {
            if (atomic_load_explicit(&nl_q_blocks[old], memory_order_relaxed) & NL_Q_FREED) freed = previous;
            nl_q_remove_locked(old);
        }
    }
    pthread_mutex_unlock(&nl_q_lock);
    free(freed);
    return kept ? block : NULL;
}

int nl_holds_stored_headers(CURL *easy) {
    struct curl_header *header = NULL;
    CURLHcode code = curl_easy_header(easy, "", 0, NL_HEADER_ORIGINS, -1, &header);
    return code != CURLHE_NOHEADERS && code != CURLHE_NOT_BUILT_IN;
}

void nl_release_quarantined_header(CURL *easy, void *block) {
    int freed = 0;
    pthread_mutex_lock(&nl_q_lock);
    long slot = nl_q_find_owned(block, easy);
    if (slot >= 0) {
        freed = (atomic_load_explicit(&nl_q_blocks[slot], memory_order_relaxed) & NL_Q_FREED) != 0;
        nl_q_remove_locked(slot);
    }
    pthread_mutex_unlock(&nl_q_lock);
    if (freed) free(block);
}

int nl_quarantined_header_count(void) {
    return atomic_load_explicit(&nl_q_count, memory_order_relaxed);
}

long nl_quarantined_header_reallocations(void) {
    return atomic_load_explicit(&nl_q_reallocations, memory_order_relaxed);
}
