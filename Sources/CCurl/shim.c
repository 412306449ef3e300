#include "CCurl.h"

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
