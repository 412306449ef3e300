internal import CNetworkLayerCurl
import Foundation

/// Where a transfer's connection goes (a Unix socket, a proxy, or direct), set per request from
/// ``TransferOptions``: the provider's socket and proxy, else the manager's proxy.
extension CurlTransfer {
    /// Longest path a Unix socket address holds (`sun_path` is 108 bytes with its NUL).
    static let unixSocketPathLimit = 107

    func configureRouting(_ options: TransferOptions) throws(NetworkError) {
        if let path = options.unixSocketPath {
            try Self.checkUnixSocketPath(path, request: plan.redactedDescription)
            try handle.set(CURLOPT_UNIX_SOCKET_PATH, path)
            // A socket is a local peer: never through a proxy, whatever the environment says.
            try handle.set(CURLOPT_PROXY, "")
            return
        }
        if let bundle = options.customCABundle {
            // An HTTPS proxy's own certificate is verified with the same CA settings as servers'
            // (libcurl verifies it, peer and name, by default; the version floor is stated here).
            try handle.set(CURLOPT_PROXY_CAINFO, bundle.path)
        }
        try handle.set(CURLOPT_PROXY_SSLVERSION, CURL_SSLVERSION_TLSv1_2)
        switch options.table.proxy {
        case .environment:
            break  // libcurl reads http_proxy, https_proxy, all_proxy and no_proxy itself, as curl does
        case .none:
            try handle.set(CURLOPT_PROXY, "")  // an empty proxy turns the environment's off
        case .http, .socks5:
            guard let proxy = try options.table.proxy.curlProxy(request: plan.redactedDescription) else { return }
            try handle.set(CURLOPT_PROXY, proxy.url)
            if let username = proxy.username { try handle.set(CURLOPT_PROXYUSERNAME, username) }
            if let password = proxy.password { try handle.set(CURLOPT_PROXYPASSWORD, password) }
            if let noProxy = proxy.noProxy { try handle.set(CURLOPT_NOPROXY, noProxy) }
        }
    }

    /// A path libcurl can connect to: not empty, no control character (a NUL would cut it short),
    /// short enough for a socket address.
    static func checkUnixSocketPath(_ path: String, request: String) throws(NetworkError) {
        let shown = HeaderFields.printable(path)
        guard !path.isEmpty else {
            throw .invalidRequest(.init(request: request, reason: "the provider's unixSocketPath is empty"))
        }
        guard !path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .invalidRequest(.init(request: request, reason: "the Unix socket path \(shown) holds a control character"))
        }
        guard path.utf8.count <= unixSocketPathLimit else {
            throw .invalidRequest(.init(request: request, reason: "the Unix socket path \(shown) is longer than the "
                                        + "\(unixSocketPathLimit) bytes a socket address holds"))
        }
    }

    /// What the routing tells about a failure: the socket or the proxy, and what they answered.
    func addRoutingFacts(to facts: inout CurlErrorMapping.Facts, for code: CURLcode) {
        if code == CURLE_COULDNT_CONNECT || options.unixSocketPath != nil {
            facts.osErrno = Int32(clamping: handle.long(CURLINFO_OS_ERRNO) ?? 0)
        }
        if let path = options.unixSocketPath {
            facts.unixSocketPath = path
            return
        }
        facts.proxy = options.table.proxy.proxyDescription(for: plan.origin.url)
        guard facts.proxy != nil else { return }
        facts.proxyConnectStatus = handle.long(CURLINFO_HTTP_CONNECTCODE) ?? 0
        facts.proxyCertificateFailed = (handle.long(CURLINFO_PROXY_SSL_VERIFYRESULT) ?? 0) != 0
    }

    /// The failure for a `407` a proxy answered a request it forwards (plain `http`; for `https`
    /// the tunnel's CONNECT fails instead), or `nil` for any other response.
    func proxyAuthenticationFailure(status: Int) -> NetworkError? {
        guard status == 407, options.unixSocketPath == nil, let proxy = options.table.proxy.proxyDescription(for: plan.origin.url) else { return nil }
        return CurlErrorMapping.proxyAuthenticationRequired(proxy: proxy, status: status, plan: plan)
    }
}
