// Public-key pinning inside the TLS handshake, for libcurl built on OpenSSL.
#define _DEFAULT_SOURCE  // timegm
#include "CNetworkLayerCurl.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

struct nl_pin_check {
    unsigned char *pins;
    int pin_count;
    /// The host the pins belong to, or NULL: then every handshake of the transfer must match.
    char *host;
    nl_pin_outcome outcome;
    /// 0: a mismatch is recorded and the handshake goes on (report-only rules).
    int enforced;
    nl_pin_hook hook;
    void *hook_context;
    unsigned char presented[NL_PIN_MAX_PRESENTED][NL_PIN_LENGTH];
    int presented_count;
};

/// SHA-256 of the DER encoding of the certificate's SubjectPublicKeyInfo.
static int spki_sha256(X509 *certificate, unsigned char out[NL_PIN_LENGTH]) {
    unsigned char *der = NULL;
    int length = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(certificate), &der);
    if (length <= 0) return 0;
    unsigned int digest_length = 0;
    int ok = EVP_Digest(der, (size_t)length, out, &digest_length, EVP_sha256(), NULL);
    OPENSSL_free(der);
    return ok == 1 && digest_length == NL_PIN_LENGTH;
}

int nl_spki_sha256_of_certificates(const unsigned char *data, size_t length, unsigned char *out, int capacity) {
    if (data == NULL || length == 0 || length > INT32_MAX) return 0;
    // One DER certificate, and nothing after it.
    const unsigned char *cursor = data;
    X509 *der = d2i_X509(NULL, &cursor, (long)length);
    if (der != NULL) {
        int found = 0;
        if (cursor == data + length && capacity > 0 && spki_sha256(der, out)) found = 1;
        X509_free(der);
        if (found) return 1;
    }
    // Otherwise any number of PEM certificates.
    BIO *bio = BIO_new_mem_buf(data, (int)length);
    if (bio == NULL) return 0;
    int found = 0;
    X509 *certificate;
    while ((certificate = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        if (found < capacity && spki_sha256(certificate, out + (size_t)found * NL_PIN_LENGTH)) found++;
        X509_free(certificate);
    }
    BIO_free(bio);
    return found;
}

nl_pin_check *nl_pin_check_create(void) {
    nl_pin_check *check = calloc(1, sizeof(nl_pin_check));
    if (check != NULL) check->enforced = 1;
    return check;
}

void nl_pin_check_set_enforced(nl_pin_check *check, int enforced) { check->enforced = enforced != 0; }

void nl_pin_check_set_hook(nl_pin_check *check, nl_pin_hook hook, void *context) {
    check->hook = hook;
    check->hook_context = context;
}

void nl_pin_check_free(nl_pin_check *check) {
    if (check == NULL) return;
    free(check->pins);
    free(check->host);
    free(check);
}

int nl_pin_check_set_host(nl_pin_check *check, const char *host) {
    char *copy = NULL;
    if (host != NULL) {
        copy = strdup(host);
        if (copy == NULL) return 0;
    }
    free(check->host);
    check->host = copy;
    return 1;
}

/// Whether the verified leaf certificate is valid for `host` (a name, or an IP address).
static int leaf_is_for_host(X509_STORE_CTX *store, const char *host) {
    X509 *leaf = X509_STORE_CTX_get0_cert(store);
    if (leaf == NULL) return 0;
    unsigned char address[16];
    if (inet_pton(AF_INET, host, address) == 1 || inet_pton(AF_INET6, host, address) == 1) {
        return X509_check_ip_asc(leaf, host, 0) == 1;
    }
    return X509_check_host(leaf, host, strlen(host), 0, NULL) == 1;
}

int nl_pin_check_set_pins(nl_pin_check *check, const unsigned char *pins, int count) {
    unsigned char *copy = count > 0 ? malloc((size_t)count * NL_PIN_LENGTH) : NULL;
    if (count > 0 && copy == NULL) return 0;
    if (count > 0) memcpy(copy, pins, (size_t)count * NL_PIN_LENGTH);
    free(check->pins);
    check->pins = copy;
    check->pin_count = count;
    check->outcome = NL_PIN_NOT_CHECKED;
    check->presented_count = 0;
    return 1;
}

nl_pin_outcome nl_pin_check_outcome(const nl_pin_check *check) { return check->outcome; }
int nl_pin_check_presented_count(const nl_pin_check *check) { return check->presented_count; }
const unsigned char *nl_pin_check_presented(const nl_pin_check *check, int index) {
    return index >= 0 && index < check->presented_count ? check->presented[index] : NULL;
}

/// Replaces OpenSSL's X509_verify_cert for the handshake: verify as usual, then match the pins.
static int verify_chain_then_pins(X509_STORE_CTX *store, void *argument) {
    nl_pin_check *check = argument;
    check->presented_count = 0;
    if (X509_verify_cert(store) <= 0) {
        check->outcome = NL_PIN_CHAIN_INVALID;
        return 0;
    }
    if (check->host != NULL && !leaf_is_for_host(store, check->host)) {
        // Another peer of the same transfer: an HTTPS proxy, whose own handshake libcurl runs
        // with the same SSL_CTX callback. Its chain verified; libcurl checks its name. The
        // origin's handshake comes next, through the tunnel, and that one must match the pins.
        // (A certificate for neither fails libcurl's host name check after this.)
        check->outcome = NL_PIN_OTHER_PEER;
        return 1;
    }
    STACK_OF(X509) *chain = X509_STORE_CTX_get0_chain(store);
    int matched = 0;
    for (int i = 0; chain != NULL && i < sk_X509_num(chain); i++) {
        unsigned char digest[NL_PIN_LENGTH];
        if (!spki_sha256(sk_X509_value(chain, i), digest)) continue;
        if (check->presented_count < NL_PIN_MAX_PRESENTED) {
            memcpy(check->presented[check->presented_count++], digest, NL_PIN_LENGTH);
        }
        for (int p = 0; p < check->pin_count && !matched; p++) {
            matched = memcmp(check->pins + (size_t)p * NL_PIN_LENGTH, digest, NL_PIN_LENGTH) == 0;
        }
    }
    int allowed;
    if (check->pin_count == 0) {
        check->outcome = NL_PIN_UNPINNED;
        allowed = 1;
    } else if (matched) {
        check->outcome = NL_PIN_MATCHED;
        allowed = 1;
    } else {
        check->outcome = check->enforced ? NL_PIN_MISMATCH : NL_PIN_MISMATCH_ALLOWED;
        allowed = !check->enforced;
    }
    if (check->hook != NULL) {
        int proceed = check->hook(check->hook_context, store, allowed);
        if (allowed && !proceed) check->outcome = NL_PIN_HOOK_REJECTED;
        allowed = allowed && proceed;
    }
    if (!allowed) X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
    return allowed;
}

void nl_ssl_ctx_require_pins(void *ssl_ctx, nl_pin_check *check) {
    SSL_CTX_set_options((SSL_CTX *)ssl_ctx, SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_cert_verify_callback((SSL_CTX *)ssl_ctx, verify_chain_then_pins, check);
}

static void summarize(X509 *certificate, nl_certificate_summary *out) {
    memset(out, 0, sizeof(*out));
    if (!spki_sha256(certificate, out->spki_sha256)) memset(out->spki_sha256, 0, NL_PIN_LENGTH);
    out->not_after = INT64_MIN;
    const ASN1_TIME *not_after = X509_get0_notAfter(certificate);
    struct tm parts;
    if (not_after != NULL && ASN1_TIME_to_tm(not_after, &parts) == 1) out->not_after = (int64_t)timegm(&parts);
    // X509_NAME_oneline writes at most the buffer's size, NUL included, and escapes control bytes.
    if (X509_NAME_oneline(X509_get_subject_name(certificate), out->subject, sizeof(out->subject)) == NULL) out->subject[0] = 0;
    if (X509_NAME_oneline(X509_get_issuer_name(certificate), out->issuer, sizeof(out->issuer)) == NULL) out->issuer[0] = 0;
}

int nl_chain_count(const void *chain) {
    STACK_OF(X509) *certificates = X509_STORE_CTX_get0_chain((X509_STORE_CTX *)chain);
    return certificates == NULL ? 0 : sk_X509_num(certificates);
}

int nl_chain_certificate(const void *chain, int index, nl_certificate_summary *out) {
    STACK_OF(X509) *certificates = X509_STORE_CTX_get0_chain((X509_STORE_CTX *)chain);
    if (certificates == NULL || index < 0 || index >= sk_X509_num(certificates)) return 0;
    summarize(sk_X509_value(certificates, index), out);
    return 1;
}

unsigned char *nl_chain_der(const void *chain, int index, int *length) {
    *length = 0;
    STACK_OF(X509) *certificates = X509_STORE_CTX_get0_chain((X509_STORE_CTX *)chain);
    if (certificates == NULL || index < 0 || index >= sk_X509_num(certificates)) return NULL;
    X509 *certificate = sk_X509_value(certificates, index);
    int size = i2d_X509(certificate, NULL);
    if (size <= 0) return NULL;
    unsigned char *der = malloc((size_t)size);
    if (der == NULL) return NULL;
    unsigned char *cursor = der;
    if (i2d_X509(certificate, &cursor) != size) {
        free(der);
        return NULL;
    }
    *length = size;
    return der;
}

int nl_certificates_summarize(const unsigned char *data, size_t length, nl_certificate_summary *out, int capacity) {
    if (data == NULL || length == 0 || length > INT32_MAX) return 0;
    const unsigned char *cursor = data;
    X509 *der = d2i_X509(NULL, &cursor, (long)length);
    if (der != NULL) {
        int found = cursor == data + length && capacity > 0;
        if (found) summarize(der, out);
        X509_free(der);
        if (found) return 1;
    }
    BIO *bio = BIO_new_mem_buf(data, (int)length);
    if (bio == NULL) return 0;
    int found = 0;
    X509 *certificate;
    while (found < capacity && (certificate = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        summarize(certificate, out + found++);
        X509_free(certificate);
    }
    BIO_free(bio);
    return found;
}

unsigned long nl_openssl_header_version(void) { return OPENSSL_VERSION_NUMBER; }
unsigned long nl_openssl_runtime_version(void) { return OpenSSL_version_num(); }
