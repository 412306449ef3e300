// SHA-256 for the response cache's keys and entry checksums (OpenSSL's, not a copy of the algorithm);
// SHA-1 and random bytes for WebSocket.
#include "CNetworkLayerCurl.h"

#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

// A cache lookup digests a short key: what costs is OpenSSL's machinery around it, not the
// algorithm. So the algorithm is fetched once (OpenSSL 3 otherwise looks it up in its providers on
// every call: a lock and a name lookup), and each thread keeps one digest context, reset for each
// use instead of allocated and freed (freed when the thread ends). Both are thread-safe to do.
static EVP_MD *nl_sha256_md;
static pthread_key_t nl_sha256_context_key;
static int nl_sha256_has_key;
static pthread_once_t nl_sha256_once = PTHREAD_ONCE_INIT;

static void nl_sha256_free_context(void *context) {
    EVP_MD_CTX_free(context);
}

static void nl_sha256_setup(void) {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
    nl_sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
#endif
    nl_sha256_has_key = pthread_key_create(&nl_sha256_context_key, nl_sha256_free_context) == 0;
}

/// This thread's digest context, made on first use; NULL when none can be made.
static EVP_MD_CTX *nl_sha256_context(void) {
    if (!nl_sha256_has_key) return NULL;
    EVP_MD_CTX *context = pthread_getspecific(nl_sha256_context_key);
    if (context != NULL) return context;
    context = EVP_MD_CTX_new();
    if (context != NULL && pthread_setspecific(nl_sha256_context_key, context) != 0) {
        EVP_MD_CTX_free(context);
        return NULL;
    }
    return context;
}

int nl_sha256(const void *data, size_t length, unsigned char *out) {
    static const unsigned char empty = 0;
    unsigned int digest_length = 0;
    pthread_once(&nl_sha256_once, nl_sha256_setup);
    const EVP_MD *md = nl_sha256_md != NULL ? nl_sha256_md : EVP_sha256();
    const void *input = length > 0 ? data : &empty;
    EVP_MD_CTX *context = nl_sha256_context();
    int ok;
    if (context != NULL) {
        ok = EVP_DigestInit_ex(context, md, NULL) == 1 && EVP_DigestUpdate(context, input, length) == 1
            && EVP_DigestFinal_ex(context, out, &digest_length) == 1;
    } else {
        ok = EVP_Digest(input, length, out, &digest_length, md, NULL) == 1;
    }
    if (!ok || digest_length != NL_PIN_LENGTH) {
        memset(out, 0, NL_PIN_LENGTH);
        return 0;
    }
    return 1;
}

int nl_sha1(const void *data, size_t length, unsigned char *out) {
    static const unsigned char empty = 0;
    unsigned int digest_length = 0;
    if (EVP_Digest(length > 0 ? data : &empty, length, out, &digest_length, EVP_sha1(), NULL) != 1
        || digest_length != NL_SHA1_LENGTH) {
        memset(out, 0, NL_SHA1_LENGTH);
        return 0;
    }
    return 1;
}

int nl_random_bytes(void *out, size_t length) {
    if (length > INT_MAX || RAND_bytes(out, (int)length) != 1) {
        memset(out, 0, length);
        return 0;
    }
    return 1;
}
