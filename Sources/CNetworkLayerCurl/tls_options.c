// Checks of a provider's TLS options against the OpenSSL libcurl uses, before a request is sent.
#include "CNetworkLayerCurl.h"

#include <openssl/ssl.h>

int nl_tls_cipher_is_known(const char *name, int tls13) {
    SSL_CTX *context = SSL_CTX_new(TLS_client_method());
    if (context == NULL) return -1;
    // For TLS 1.2 and below, OpenSSL accepts a list when one of its names selects a cipher: asked
    // one name at a time, it says whether that name does.
    int known = tls13 ? SSL_CTX_set_ciphersuites(context, name) : SSL_CTX_set_cipher_list(context, name);
    SSL_CTX_free(context);
    return known == 1 ? 1 : 0;
}
