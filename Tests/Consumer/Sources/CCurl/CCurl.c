#include "CCurl.h"
#include <curl/curl.h>

const char *consumer_curl_version(void) {
    return curl_version();
}
