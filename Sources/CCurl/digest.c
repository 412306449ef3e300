// SHA-256 for the response cache's keys and entry checksums (OpenSSL's, not a copy of the algorithm).
#include "CCurl.h"

#include <string.h>
#include <openssl/evp.h>

int nl_sha256(const void *data, size_t length, unsigned char *out) {
    static const unsigned char empty = 0;
    unsigned int digest_length = 0;
    int ok = EVP_Digest(length > 0 ? data : &empty, length, out, &digest_length, EVP_sha256(), NULL);
    if (ok != 1 || digest_length != NL_PIN_LENGTH) {
        memset(out, 0, NL_PIN_LENGTH);
        return 0;
    }
    return 1;
}
