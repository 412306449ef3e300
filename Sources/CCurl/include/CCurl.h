// The project's only C. libcurl's setopt/getinfo calls are variadic, which Swift cannot call,
// so each argument kind gets one fixed-arity forwarder here. Everything else lives in Swift.
#ifndef NETWORKLAYER_CCURL_H
#define NETWORKLAYER_CCURL_H

#include <curl/curl.h>

// MARK: - Easy handle options, one forwarder per argument kind

CURLcode nl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode nl_easy_setopt_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode nl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode nl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode nl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
/// For CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION and CURLOPT_READFUNCTION (same signature).
CURLcode nl_easy_setopt_data_callback(CURL *handle, CURLoption option, curl_write_callback value);
CURLcode nl_easy_setopt_xferinfo_callback(CURL *handle, curl_xferinfo_callback value);
CURLcode nl_easy_setopt_ssl_ctx_callback(CURL *handle, curl_ssl_ctx_callback value);

// MARK: - Easy handle information

CURLcode nl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode nl_easy_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode nl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value);
CURLcode nl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);

// MARK: - Multi handle options

CURLMcode nl_multi_setopt_long(CURLM *handle, CURLMoption option, long value);

#endif
