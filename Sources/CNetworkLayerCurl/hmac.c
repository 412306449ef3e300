// HMAC-SHA256 for requests an interceptor signs (OpenSSL's, not a copy of the algorithm).
#include "CNetworkLayerCurl.h"

#include <limits.h>
#include <string.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

int nl_hmac_sha256(const void *key, size_t key_length, const void *data, size_t length, unsigned char *out) {
    static const unsigned char empty = 0;
    unsigned int out_length = 0;
    // OpenSSL reads neither pointer when its length is 0, but a NULL key means "reuse the
    // previous one" to some of its HMAC entry points: never pass one.
    const void *key_bytes = key_length > 0 ? key : &empty;
    const unsigned char *input = length > 0 ? data : &empty;
    if (key_length > INT_MAX
        || HMAC(EVP_sha256(), key_bytes, (int)key_length, input, length, out, &out_length) == NULL
        || out_length != NL_PIN_LENGTH) {
        memset(out, 0, NL_PIN_LENGTH);
        return 0;
    }
    return 1;
}
