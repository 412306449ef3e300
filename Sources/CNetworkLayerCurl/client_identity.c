// Client certificates (mutual TLS): the checks made before a request is sent, so that a wrong
// password, a key that is not the certificate's or a file that holds neither fails with a precise
// error instead of a handshake that cannot say why. Every OpenSSL call's result is checked, every
// object freed on every path, and the thread's OpenSSL error queue left empty (libcurl reads that
// queue to word its own errors).
#include "CNetworkLayerCurl.h"

#include <limits.h>
#include <string.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>

/// The password handed to a PEM decryption, and whether OpenSSL asked for it.
struct password_request {
    const char *password;
    int asked;
};

/// OpenSSL's password callback: the given password, or none (0: OpenSSL then fails to decrypt).
/// Never NULL as a callback, so OpenSSL never prompts on a terminal.
static int give_password(char *buffer, int size, int rwflag, void *context) {
    (void)rwflag;
    struct password_request *request = context;
    if (request == NULL) return 0;
    request->asked = 1;
    if (request->password == NULL || buffer == NULL || size <= 0) return 0;
    size_t length = strlen(request->password);
    if (length > (size_t)size) return 0;  // longer than OpenSSL takes: not this key's password
    memcpy(buffer, request->password, length);
    return (int)length;
}

/// A read-only memory BIO over `data`, or NULL (also for a length an int cannot hold).
static BIO *memory_bio(const unsigned char *data, size_t length) {
    if (data == NULL || length == 0 || length > INT_MAX) return NULL;
    return BIO_new_mem_buf(data, (int)length);
}

/// Whether `name` is a PEM block name of a private key (`PRIVATE KEY`, `RSA PRIVATE KEY`,
/// `EC PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`…).
static int is_private_key_block(const char *name) {
    static const char suffix[] = "PRIVATE KEY";
    size_t length = strlen(name), suffix_length = sizeof(suffix) - 1;
    return length >= suffix_length && strcmp(name + length - suffix_length, suffix) == 0;
}

/// Finds the first private key block of a PEM text: 1 when found (`*encrypted` says whether it
/// is encrypted, PKCS#8 or the traditional `Proc-Type: 4,ENCRYPTED`), 0 when there is none, -1
/// when memory ran out.
static int find_private_key_block(const unsigned char *data, size_t length, int *encrypted) {
    BIO *bio = memory_bio(data, length);
    if (bio == NULL) return length == 0 || length > INT_MAX ? 0 : -1;
    int found = 0;
    char *name = NULL, *header = NULL;
    unsigned char *body = NULL;
    long body_length = 0;
    while (!found && PEM_read_bio(bio, &name, &header, &body, &body_length) == 1) {
        if (is_private_key_block(name)) {
            found = 1;
            *encrypted = strcmp(name, "ENCRYPTED PRIVATE KEY") == 0 || (header != NULL && strstr(header, "ENCRYPTED") != NULL);
        }
        OPENSSL_free(name);
        OPENSSL_free(header);
        OPENSSL_free(body);
        name = NULL;
        header = NULL;
        body = NULL;
    }
    BIO_free(bio);
    ERR_clear_error();  // the read that ends the loop leaves "no start line"
    return found;
}

/// SHA-256 of the certificate's DER encoding.
static int certificate_sha256(X509 *certificate, unsigned char out[NL_PIN_LENGTH]) {
    unsigned char *der = NULL;
    int length = i2d_X509(certificate, &der);
    if (length <= 0) return 0;
    unsigned int digest_length = 0;
    int ok = EVP_Digest(der, (size_t)length, out, &digest_length, EVP_sha256(), NULL);
    OPENSSL_free(der);
    return ok == 1 && digest_length == NL_PIN_LENGTH;
}

/// Copies OpenSSL's reason for the oldest queued error into `out` (empty when none).
static void copy_reason(char *out, size_t capacity) {
    if (out == NULL || capacity == 0) return;
    out[0] = '\0';
    unsigned long error = ERR_peek_error();
    if (error == 0) return;
    const char *reason = ERR_reason_error_string(error);
    if (reason == NULL) return;
    strncpy(out, reason, capacity - 1);
    out[capacity - 1] = '\0';
}

nl_identity_status nl_check_pem_identity(const unsigned char *certificate, size_t certificate_length,
                                         const unsigned char *key, size_t key_length, const char *password,
                                         unsigned char *fingerprint) {
    ERR_clear_error();
    nl_identity_status status = NL_IDENTITY_OK;
    X509 *leaf = NULL;
    EVP_PKEY *private_key = NULL;

    BIO *certificate_bio = memory_bio(certificate, certificate_length);
    if (certificate_bio == NULL) {
        status = certificate_length == 0 || certificate_length > INT_MAX ? NL_IDENTITY_CERTIFICATE_INVALID : NL_IDENTITY_NO_MEMORY;
        goto done;
    }
    // The first certificate is the leaf, the one whose key must match; any after it are its chain.
    leaf = PEM_read_bio_X509(certificate_bio, NULL, NULL, NULL);
    BIO_free(certificate_bio);
    if (leaf == NULL) {
        status = NL_IDENTITY_CERTIFICATE_INVALID;
        goto done;
    }

    int encrypted = 0;
    int found = find_private_key_block(key, key_length, &encrypted);
    if (found < 0) {
        status = NL_IDENTITY_NO_MEMORY;
        goto done;
    }
    if (found == 0) {
        status = NL_IDENTITY_KEY_INVALID;
        goto done;
    }
    BIO *key_bio = memory_bio(key, key_length);
    if (key_bio == NULL) {
        status = NL_IDENTITY_NO_MEMORY;
        goto done;
    }
    struct password_request request = { password, 0 };
    private_key = PEM_read_bio_PrivateKey(key_bio, NULL, give_password, &request);
    BIO_free(key_bio);
    if (private_key == NULL) {
        if (encrypted || request.asked) status = password == NULL ? NL_IDENTITY_KEY_NEEDS_PASSWORD : NL_IDENTITY_KEY_WRONG_PASSWORD;
        else status = NL_IDENTITY_KEY_INVALID;
        goto done;
    }
    if (X509_check_private_key(leaf, private_key) != 1) {
        status = NL_IDENTITY_KEY_MISMATCH;
        goto done;
    }
    if (fingerprint != NULL && !certificate_sha256(leaf, fingerprint)) status = NL_IDENTITY_NO_MEMORY;

done:
    EVP_PKEY_free(private_key);
    X509_free(leaf);
    ERR_clear_error();
    return status;
}

nl_identity_status nl_check_pkcs12_identity(const unsigned char *data, size_t length, const char *password,
                                            unsigned char *fingerprint, char *reason, size_t reason_capacity) {
    ERR_clear_error();
    if (reason != NULL && reason_capacity > 0) reason[0] = '\0';
    nl_identity_status status = NL_IDENTITY_OK;
    PKCS12 *archive = NULL;
    EVP_PKEY *private_key = NULL;
    X509 *leaf = NULL;
    STACK_OF(X509) *chain = NULL;

    BIO *bio = memory_bio(data, length);
    if (bio == NULL) {
        status = length == 0 || length > INT_MAX ? NL_IDENTITY_PKCS12_INVALID : NL_IDENTITY_NO_MEMORY;
        goto done;
    }
    archive = d2i_PKCS12_bio(bio, NULL);
    BIO_free(bio);
    if (archive == NULL) {
        status = NL_IDENTITY_PKCS12_INVALID;
        goto done;
    }
    // The password, as libcurl will hand it to PKCS12_parse: a missing one may be none or "".
    const char *used = password;
    if (PKCS12_mac_present(archive)) {
        if (password != NULL && *password != '\0') {
            if (PKCS12_verify_mac(archive, password, -1) != 1) {
                status = NL_IDENTITY_PKCS12_WRONG_PASSWORD;
                goto done;
            }
        } else if (PKCS12_verify_mac(archive, NULL, 0) == 1) {
            used = NULL;
        } else if (PKCS12_verify_mac(archive, "", 0) == 1) {
            used = "";
        } else {
            status = password == NULL ? NL_IDENTITY_PKCS12_NEEDS_PASSWORD : NL_IDENTITY_PKCS12_WRONG_PASSWORD;
            goto done;
        }
    }
    if (PKCS12_parse(archive, used, &private_key, &leaf, &chain) != 1) {
        // The password opened the archive, yet its contents cannot be read: an encryption this
        // OpenSSL does not offer (RC2 and 3DES need its legacy provider), or damage.
        copy_reason(reason, reason_capacity);
        status = NL_IDENTITY_PKCS12_UNREADABLE;
        goto done;
    }
    if (private_key == NULL) {
        status = NL_IDENTITY_PKCS12_NO_KEY;
        goto done;
    }
    if (leaf == NULL) {
        status = NL_IDENTITY_PKCS12_NO_CERTIFICATE;
        goto done;
    }
    if (X509_check_private_key(leaf, private_key) != 1) {
        status = NL_IDENTITY_KEY_MISMATCH;
        goto done;
    }
    if (fingerprint != NULL && !certificate_sha256(leaf, fingerprint)) status = NL_IDENTITY_NO_MEMORY;

done:
    sk_X509_pop_free(chain, X509_free);
    X509_free(leaf);
    EVP_PKEY_free(private_key);
    PKCS12_free(archive);
    ERR_clear_error();
    return status;
}

