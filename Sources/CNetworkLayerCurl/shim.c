#include "CNetworkLayerCurl.h"

#include <pthread.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

void nl_trim_heap(void) {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

CURLcode nl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode nl_easy_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode nl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode nl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode nl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode nl_easy_setopt_data_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode nl_easy_setopt_xferinfo_callback(CURL *handle, curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}
CURLcode nl_easy_setopt_ssl_ctx_callback(CURL *handle, curl_ssl_ctx_callback value) {
    return curl_easy_setopt(handle, CURLOPT_SSL_CTX_FUNCTION, value);
}
CURLcode nl_easy_setopt_seek_callback(CURL *handle, curl_seek_callback value) {
    return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, value);
}
CURLcode nl_easy_setopt_prereq_callback(CURL *handle, curl_prereq_callback value) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, value);
}
int nl_count_request(void *counter, char *primary_ip, char *local_ip, int primary_port, int local_port) {
    (void)primary_ip; (void)local_ip; (void)primary_port; (void)local_port;
    if (counter) ++*(long *)counter;
    return CURL_PREREQFUNC_OK;
}

CURLcode nl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
CURLcode nl_easy_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
CURLcode nl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}
CURLcode nl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode nl_easy_getinfo_slist(CURL *handle, CURLINFO info, struct curl_slist **value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode nl_easy_getinfo_socket(CURL *handle, CURLINFO info, curl_socket_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLMcode nl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

CURLSHcode nl_share_setopt_long(CURLSH *handle, CURLSHoption option, long value) {
    return curl_share_setopt(handle, option, value);
}

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NL_TSAN 1
#endif
#endif

#ifdef NL_TSAN
void __tsan_acquire(void *address);
void __tsan_release(void *address);
void nl_tsan_release(void *address) { __tsan_release(address); }
void nl_tsan_acquire(void *address) { __tsan_acquire(address); }
#else
void nl_tsan_release(void *address) { (void)address; }
void nl_tsan_acquire(void *address) { (void)address; }
#endif

struct nl_share_locks {
    pthread_mutex_t mutexes[CURL_LOCK_DATA_LAST];
};

// pthread_mutex_lock and _unlock on a default mutex cannot fail unless the mutex is invalid or
// not held by the caller, which libcurl's pairing of lock and unlock rules out.
static void nl_share_lock(CURL *handle, curl_lock_data data, curl_lock_access access, void *userptr) {
    (void)handle;
    (void)access;
    struct nl_share_locks *locks = userptr;
    if (data >= 0 && data < CURL_LOCK_DATA_LAST) (void)pthread_mutex_lock(&locks->mutexes[data]);
}

static void nl_share_unlock(CURL *handle, curl_lock_data data, void *userptr) {
    (void)handle;
    struct nl_share_locks *locks = userptr;
    if (data >= 0 && data < CURL_LOCK_DATA_LAST) (void)pthread_mutex_unlock(&locks->mutexes[data]);
}

nl_share_locks *nl_share_install_locks(CURLSH *share) {
    struct nl_share_locks *locks = malloc(sizeof(struct nl_share_locks));
    if (locks == NULL) return NULL;
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) {
        if (pthread_mutex_init(&locks->mutexes[i], NULL) != 0) {
            for (int j = 0; j < i; j++) pthread_mutex_destroy(&locks->mutexes[j]);
            free(locks);
            return NULL;
        }
    }
    if (curl_share_setopt(share, CURLSHOPT_USERDATA, (void *)locks) != CURLSHE_OK
        || curl_share_setopt(share, CURLSHOPT_LOCKFUNC, nl_share_lock) != CURLSHE_OK
        || curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, nl_share_unlock) != CURLSHE_OK) {
        // Leave the share without locks rather than with a half-installed pair.
        (void)curl_share_setopt(share, CURLSHOPT_LOCKFUNC, (curl_lock_function)NULL);
        (void)curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, (curl_unlock_function)NULL);
        nl_share_locks_free(locks);
        return NULL;
    }
    return locks;
}

void nl_share_locks_free(nl_share_locks *locks) {
    if (locks == NULL) return;
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&locks->mutexes[i]);
    free(locks);
}
