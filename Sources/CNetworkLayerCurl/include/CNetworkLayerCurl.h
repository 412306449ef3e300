// libcurl's setopt/getinfo are variadic, which Swift cannot call: one fixed-arity forwarder per
// argument kind. Then the OpenSSL helpers that pinning and client-certificate checks need.
#ifndef NETWORKLAYER_CCURL_H
#define NETWORKLAYER_CCURL_H

#include <curl/curl.h>
#include <stdint.h>

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
CURLcode nl_easy_setopt_seek_callback(CURL *handle, curl_seek_callback value);
CURLcode nl_easy_setopt_prereq_callback(CURL *handle, curl_prereq_callback value);
/// A CURLOPT_PREREQFUNCTION whose CURLOPT_PREREQDATA is a `long`: adds one each time libcurl is
/// about to send the request (more than once when it retries on a fresh connection).
int nl_count_request(void *counter, char *primary_ip, char *local_ip, int primary_port, int local_port);

// MARK: - Easy handle information

CURLcode nl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode nl_easy_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode nl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value);
CURLcode nl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);
/// For CURLINFO_COOKIELIST: the list is the caller's, freed with curl_slist_free_all.
CURLcode nl_easy_getinfo_slist(CURL *handle, CURLINFO info, struct curl_slist **value);
/// For CURLINFO_ACTIVESOCKET: the socket of a CURLOPT_CONNECT_ONLY transfer (a WebSocket's).
CURLcode nl_easy_getinfo_socket(CURL *handle, CURLINFO info, curl_socket_t *value);

// MARK: - ThreadSanitizer annotations

/// Tell ThreadSanitizer that what this thread wrote before `nl_tsan_release(address)` happens
/// before what another thread does after `nl_tsan_acquire(address)`, for hand-offs TSan cannot
/// see (a continuation resumed by Swift's runtime). No-ops unless built with `-fsanitize=thread`.
void nl_tsan_release(void *address);
void nl_tsan_acquire(void *address);

// MARK: - Global initialisation

/// curl_global_init with allocation functions that keep up to 64 freed blocks of exactly
/// `receive_buffer_size + 1` bytes (a stream's receive buffer) for the next transfer, instead of
/// returning them to the C library (buffer_cache.c says why). Everything else is malloc's.
/// If libcurl was initialised already, its allocation functions stay as they were: `installed`
/// is set to 1 when libcurl uses these, 0 when it does not.
CURLcode nl_global_init_caching_buffers(size_t receive_buffer_size, int *installed);
/// Frees the blocks the cache holds (the engine calls it once it has been idle for a while).
void nl_release_cached_buffers(void);
/// Gives the C library's free heap memory back to the system (glibc's malloc_trim; nothing
/// elsewhere): after a burst of transfers, glibc keeps what they freed in its arenas.
void nl_trim_heap(void);
/// How many blocks the cache holds now.
int nl_cached_buffer_count(void);
/// How many allocations the cache has answered with a kept block, since the process started.
long nl_cached_buffer_hits(void);

/// After a transfer on `easy`: quarantines the header libcurl (before 8.1.0) stored last, found by
/// its name (`length` bytes) and checked to be the last, in place of `previous` (buffer_cache.c).
/// NULL when it cannot (`previous` stays): `*built_in` is 0 when libcurl lacks the headers API.
void *nl_quarantine_last_header(CURL *easy, const char *name, size_t length, void *previous, int *built_in);
/// Whether `easy` holds stored headers.
int nl_holds_stored_headers(CURL *easy);
/// Ends `block`'s quarantine for `easy`, freeing it if libcurl did; nothing if not quarantined.
void nl_release_quarantined_header(CURL *easy, void *block);
/// How many blocks are quarantined now; how many libcurl reallocated since the process started.
int nl_quarantined_header_count(void);
long nl_quarantined_header_reallocations(void);

// MARK: - Multi handle options

CURLMcode nl_multi_setopt_long(CURLM *handle, CURLMoption option, long value);

// MARK: - The engine's event loop (event_loop.c)

/// How many ready sockets one wait reports at most; the rest are reported by the next.
#define NL_EVENT_LOOP_BATCH 64
/// libcurl's multi-socket API on the system's readiness calls: epoll and an eventfd on Linux,
/// poll() and a self-pipe elsewhere or when built with NL_EVENT_LOOP_POLL defined.
typedef struct nl_event_loop nl_event_loop;
/// Which of the two was built: "epoll" or "poll".
const char *nl_event_loop_kind(void);
/// Installs the socket and timer callbacks on `multi`; NULL when the system or libcurl refused.
/// Everything but nl_event_loop_wake must be called on the one thread that drives `multi`.
nl_event_loop *nl_event_loop_create(CURLM *multi);
/// Wakes the thread waiting in nl_event_loop_wait. Safe from any thread.
void nl_event_loop_wake(nl_event_loop *loop);
/// Runs the transfers whose libcurl timer is due: just added or resumed ones, and timeouts.
void nl_event_loop_run_timers(nl_event_loop *loop);
/// Waits until a socket is ready, a wake-up came, libcurl's timer is due or `timeout_ms` passed;
/// returns how many ready sockets nl_event_loop_dispatch may take (0 for the others, or EINTR).
int nl_event_loop_wait(nl_event_loop *loop, int timeout_ms);
/// Hands the `index`th ready socket of the last wait to libcurl; returns a watched socket that is
/// not libcurl's (nl_event_loop_watch) for the caller to handle, else CURL_SOCKET_BAD.
curl_socket_t nl_event_loop_dispatch(nl_event_loop *loop, int index);
/// Watches `socket`, which libcurl does not (a WebSocket's once connected), for reading and/or
/// writing: its next readiness is reported once by nl_event_loop_dispatch; neither: not reported.
/// Returns -1 when memory ran out (not watched).
int nl_event_loop_watch(nl_event_loop *loop, curl_socket_t socket, int reading, int writing);
/// Stops watching `socket` for good; called before it is closed.
void nl_event_loop_unwatch(nl_event_loop *loop, curl_socket_t socket);
/// Names the calling thread for `top -H`, debuggers and /proc (at most 15 bytes on Linux).
void nl_name_this_thread(const char *name);

// MARK: - Share handle options

CURLSHcode nl_share_setopt_long(CURLSH *handle, CURLSHoption option, long value);

/// One mutex per kind of data a share holds, so that several threads may use the share: the
/// engine's transfers and a manager reading or clearing its cookies.
typedef struct nl_share_locks nl_share_locks;
/// Creates the mutexes and installs them as `share`'s lock and unlock functions. Returns NULL
/// when memory ran out or libcurl refused (then nothing is installed).
nl_share_locks *nl_share_install_locks(CURLSH *share);
/// Frees the mutexes; call after curl_share_cleanup succeeded.
void nl_share_locks_free(nl_share_locks *locks);

// MARK: - Public-key pinning (OpenSSL)

#define NL_PIN_LENGTH 32
/// The most certificates of one chain whose pins a failed check reports.
#define NL_PIN_MAX_PRESENTED 10

/// Computes the SHA-256 of the SubjectPublicKeyInfo of each certificate in `data`, which is one
/// DER certificate or any number of PEM certificates. Writes up to `capacity` digests to `out`
/// (NL_PIN_LENGTH bytes each) and returns how many certificates it found: 0 when `data` holds no
/// certificate.
int nl_spki_sha256_of_certificates(const unsigned char *data, size_t length, unsigned char *out, int capacity);

typedef enum {
    NL_PIN_NOT_CHECKED = 0,   // no handshake has consulted the pins (yet)
    NL_PIN_MATCHED = 1,       // the chain verified and one of its keys matched a pin
    NL_PIN_MISMATCH = 2,      // the chain verified but no key matched: the handshake was refused
    NL_PIN_CHAIN_INVALID = 3, // normal verification failed: the handshake was refused
    NL_PIN_OTHER_PEER = 4,    // the chain verified and is not for the pinned host (an HTTPS proxy)
    NL_PIN_UNPINNED = 5,      // the chain verified; no pins to compare (only observed, or a trust hook)
    NL_PIN_MISMATCH_ALLOWED = 6, // no key matched, and the pins are not enforced: the handshake went on
    NL_PIN_HOOK_REJECTED = 7, // the pins allowed the chain and the transfer's hook refused it
} nl_pin_outcome;

/// The pins one transfer requires, and what its last handshake presented. Owned by the transfer.
typedef struct nl_pin_check nl_pin_check;

nl_pin_check *nl_pin_check_create(void);
void nl_pin_check_free(nl_pin_check *check);
/// Replaces the required pins (`count` digests of NL_PIN_LENGTH bytes) and clears the outcome.
int nl_pin_check_set_pins(nl_pin_check *check, const unsigned char *pins, int count);
/// Restricts the pins to handshakes whose verified leaf certificate is valid for `host` (a name or
/// an IP address; NULL lifts it): through an HTTPS proxy the proxy's handshake comes first with the
/// same callback, and only the origin's chain must match the pins. Returns 0 when out of memory.
int nl_pin_check_set_host(nl_pin_check *check, const char *host);
nl_pin_outcome nl_pin_check_outcome(const nl_pin_check *check);
/// Whether a mismatch refuses the handshake (1, the default) or is only recorded (0).
void nl_pin_check_set_enforced(nl_pin_check *check, int enforced);
/// Called in the handshake after the pins, for the origin's verified chain only, with whether the
/// pins allow it (1) or not (0); answers whether the handshake goes on. `chain` is the
/// `X509_STORE_CTX *`, readable with nl_chain_count, nl_chain_certificate and nl_chain_der while the
/// hook runs and never after.
typedef int (*nl_pin_hook)(void *context, const void *chain, int allowed);
void nl_pin_check_set_hook(nl_pin_check *check, nl_pin_hook hook, void *context);
/// How many chain certificates the last check saw, and the digest of the one at `index`.
int nl_pin_check_presented_count(const nl_pin_check *check);
const unsigned char *nl_pin_check_presented(const nl_pin_check *check, int index);

/// Called from CURLOPT_SSL_CTX_FUNCTION with the connection's SSL_CTX: the handshake will first
/// run OpenSSL's normal chain verification, then require that the public key of some certificate
/// of the verified chain (leaf, intermediate or root) matches a pin of `check`. On a mismatch the
/// handshake fails, before any request byte is sent. Renegotiation is turned off, so the check
/// only ever runs during the handshake, while `check`'s transfer is alive.
void nl_ssl_ctx_require_pins(void *ssl_ctx, nl_pin_check *check);

/// One certificate of a verified chain, as reports and the pins tool show it. The names are
/// OpenSSL's one-line form, cut to fit; they come from the server, so print them escaped.
typedef struct {
    unsigned char spki_sha256[NL_PIN_LENGTH];
    int64_t not_after;   // seconds since 1970 (UTC); INT64_MIN when unreadable
    char subject[256];
    char issuer[256];
} nl_certificate_summary;

/// The number of certificates in the verified chain of the `X509_STORE_CTX *` a hook was given.
int nl_chain_count(const void *chain);
/// Fills `out` for certificate `index` (0: the leaf). Returns 0 when there is none.
int nl_chain_certificate(const void *chain, int index, nl_certificate_summary *out);
/// The DER encoding of certificate `index`, allocated with malloc (free it with free), or NULL.
unsigned char *nl_chain_der(const void *chain, int index, int *length);
/// Summaries of the certificates in `data` (one DER certificate or any number of PEM ones), up to
/// `capacity`; returns how many were found.
int nl_certificates_summarize(const unsigned char *data, size_t length, nl_certificate_summary *out, int capacity);
// MARK: - Client certificates (OpenSSL)

typedef enum {
    NL_IDENTITY_OK = 0,
    NL_IDENTITY_NO_MEMORY = 1,
    NL_IDENTITY_CERTIFICATE_INVALID = 2,   // the certificate text holds no PEM certificate
    NL_IDENTITY_KEY_INVALID = 3,           // the key text holds no PEM private key OpenSSL can read
    NL_IDENTITY_KEY_NEEDS_PASSWORD = 4,    // the key is encrypted and no password was given
    NL_IDENTITY_KEY_WRONG_PASSWORD = 5,    // the key is encrypted and the password does not decrypt it
    NL_IDENTITY_KEY_MISMATCH = 6,          // the private key is not the certificate's
    NL_IDENTITY_PKCS12_INVALID = 7,        // not a DER PKCS#12 archive
    NL_IDENTITY_PKCS12_NEEDS_PASSWORD = 8, // its integrity needs a password and none was given
    NL_IDENTITY_PKCS12_WRONG_PASSWORD = 9, // the password does not open it
    NL_IDENTITY_PKCS12_UNREADABLE = 10,    // opened, but its contents cannot be read (see `reason`)
    NL_IDENTITY_PKCS12_NO_KEY = 11,        // it holds no private key
    NL_IDENTITY_PKCS12_NO_CERTIFICATE = 12 // it holds no certificate for its key
} nl_identity_status;

/// Checks a PEM client identity: the first certificate of `certificate` (its chain may follow)
/// and the first private key of `key` (decrypted with `password`, NULL for none; OpenSSL never
/// prompts), and that the key is the certificate's. On success writes the SHA-256 of the leaf
/// certificate's DER to `fingerprint` (NL_PIN_LENGTH bytes) when it is not NULL.
nl_identity_status nl_check_pem_identity(const unsigned char *certificate, size_t certificate_length,
                                         const unsigned char *key, size_t key_length, const char *password,
                                         unsigned char *fingerprint);

/// Checks a PKCS#12 (DER) client identity as libcurl will read it: the password (NULL for none,
/// which also tries the empty one, as PKCS12_parse does), a private key, a certificate that is
/// its. For NL_IDENTITY_PKCS12_UNREADABLE, OpenSSL's reason goes to `reason` (NUL-terminated,
/// cut to `reason_capacity`). On success writes the leaf certificate's SHA-256 to `fingerprint`.
nl_identity_status nl_check_pkcs12_identity(const unsigned char *data, size_t length, const char *password,
                                            unsigned char *fingerprint, char *reason, size_t reason_capacity);

/// The version of the OpenSSL this library was compiled against (OPENSSL_VERSION_NUMBER), and of
/// the one loaded at run time (OpenSSL_version_num()): 0xMNN00PP0 for OpenSSL 3, 0xMNNFFPPS before.
unsigned long nl_openssl_header_version(void);
unsigned long nl_openssl_runtime_version(void);

// MARK: - Digests (OpenSSL)

/// Writes the SHA-256 digest of `length` bytes at `data` (NULL when `length` is 0) to `out`
/// (NL_PIN_LENGTH bytes). Returns 1, or 0 when OpenSSL fails (`out` is then zeroed).
int nl_sha256(const void *data, size_t length, unsigned char *out);

/// Writes the HMAC-SHA256 (RFC 2104) of `length` bytes at `data` under `key_length` bytes at `key`
/// to `out` (NL_PIN_LENGTH bytes). Either length may be 0 (its pointer is then not read). Returns
/// 1, or 0 when OpenSSL fails or the key is longer than INT_MAX bytes (`out` is then zeroed).
int nl_hmac_sha256(const void *key, size_t key_length, const void *data, size_t length, unsigned char *out);

// MARK: - TLS options (OpenSSL)

/// Whether OpenSSL knows `name` as a cipher for TLS 1.2 and below (`tls13` 0: one element of a
/// cipher list, which must select at least one cipher) or as a TLS 1.3 cipher suite (`tls13` 1).
/// Returns 1 or 0, and -1 when OpenSSL could not be asked.
int nl_tls_cipher_is_known(const char *name, int tls13);

#define NL_SHA1_LENGTH 20

/// Writes the SHA-1 digest of `length` bytes at `data` to `out` (NL_SHA1_LENGTH bytes), for the
/// WebSocket `Sec-WebSocket-Accept` (RFC 6455 §4.2.2). Returns 1, or 0 when OpenSSL fails (`out` zeroed).
int nl_sha1(const void *data, size_t length, unsigned char *out);

/// Fills `length` bytes at `out` from OpenSSL's CSPRNG (RAND_bytes), for the WebSocket masking keys
/// (RFC 6455 §5.3). Returns 1, or 0 when OpenSSL fails or `length` exceeds INT_MAX (`out` zeroed).
int nl_random_bytes(void *out, size_t length);

#endif
