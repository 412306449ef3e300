internal import CNetworkLayerCurl

/// Owns a libcurl share handle holding a connection cache, TLS sessions and resolved names, and
/// for a manager's cookie store its cookies too; freed in `deinit`, which closes its connections.
///
/// A share without cookies stays on the engine thread; one with cookies has lock functions (a
/// mutex per kind of data), as the manager reads and clears cookies from any thread.
// @unchecked Sendable: `raw` is immutable; libcurl serialises every use of a share's data
// through its lock functions when it has them, and a share without them stays on the engine thread.
final class CurlShare: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
    private let locks: OpaquePointer?

    init(sharingCookies: Bool = false) throws(NetworkError) {
        try CurlGlobal.initialise()
        guard let raw = curl_share_init() else {
            throw .transport(.init(reason: "libcurl could not create a connection cache (curl_share_init failed)"))
        }
        var locks: OpaquePointer?
        if sharingCookies {
            locks = nl_share_install_locks(raw)
            guard locks != nil else {
                curl_share_cleanup(raw)
                throw .transport(.init(reason: "libcurl could not create the locks of a cookie store"))
            }
        }
        var shared = [CURL_LOCK_DATA_CONNECT, CURL_LOCK_DATA_SSL_SESSION, CURL_LOCK_DATA_DNS]
        if sharingCookies { shared.append(CURL_LOCK_DATA_COOKIE) }
        for data in shared {
            let code = nl_share_setopt_long(raw, CURLSHOPT_SHARE, Int(data.rawValue))
            guard code == CURLSHE_OK else {
                curl_share_cleanup(raw)
                nl_share_locks_free(locks)
                throw .transport(.init(reason: "libcurl could not share data \(data.rawValue): "
                                       + String(cString: curl_share_strerror(code))))
            }
        }
        self.raw = raw
        self.locks = locks
    }

    deinit {
        // Fails only while a handle still uses the share; every handle is detached first. The
        // locks are freed only when the share is gone (libcurl may still call them before that).
        if curl_share_cleanup(raw) == CURLSHE_OK { nl_share_locks_free(locks) }
    }
}
