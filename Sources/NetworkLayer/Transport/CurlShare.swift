internal import CCurl

/// Owns a libcurl share handle holding a connection cache, TLS sessions and resolved names;
/// freed in `deinit`, which closes its connections. Used only by the engine thread.
final class CurlShare {
    let raw: UnsafeMutableRawPointer

    init() throws(NetworkError) {
        guard let raw = curl_share_init() else {
            throw .transport(.init(reason: "libcurl could not create a connection cache (curl_share_init failed)"))
        }
        self.raw = raw
        for data in [CURL_LOCK_DATA_CONNECT, CURL_LOCK_DATA_SSL_SESSION, CURL_LOCK_DATA_DNS] {
            let code = nl_share_setopt_long(raw, CURLSHOPT_SHARE, Int(data.rawValue))
            guard code == CURLSHE_OK else {
                curl_share_cleanup(raw)
                throw .transport(.init(reason: "libcurl could not share data \(data.rawValue): "
                                       + String(cString: curl_share_strerror(code))))
            }
        }
    }

    deinit {
        // Fails only while a handle still uses the share; the engine detaches every handle first.
        _ = curl_share_cleanup(raw)
    }
}
