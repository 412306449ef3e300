/// libcurl's version text, e.g. "libcurl/7.88.1 OpenSSL/3.0.15 ...".
const char *consumer_curl_version(void);
