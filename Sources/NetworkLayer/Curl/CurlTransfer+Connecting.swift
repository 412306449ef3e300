internal import CNetworkLayerCurl
import Foundation

/// The request's connection settings (``Settings/Table``) on the transfer. libcurl reuses a kept
/// connection only for a transfer with the same IP family and interface.
extension CurlTransfer {
    func configureConnecting(_ connecting: Settings.Table) throws(NetworkError) {
        switch connecting.ipFamily {
        case .any: break
        case .ipv4Only: try handle.set(CURLOPT_IPRESOLVE, Int(CURL_IPRESOLVE_V4))
        case .ipv6Only: try handle.set(CURLOPT_IPRESOLVE, Int(CURL_IPRESOLVE_V6))
        }
        if let seconds = connecting.dnsCacheSeconds { try handle.set(CURLOPT_DNS_CACHE_TIMEOUT, seconds) }
        if let milliseconds = connecting.happyEyeballsMilliseconds { try handle.set(CURLOPT_HAPPY_EYEBALLS_TIMEOUT_MS, milliseconds) }
        if let name = connecting.networkInterface { try handle.set(CURLOPT_INTERFACE, name) }
        if let resolver = connecting.dnsOverHTTPS {
            // The resolver's lookups inherit the CA file and the SSL_CTX callback (which checks no
            // pins on them: requirePins); their verification is always on, as the origin's is.
            try handle.set(CURLOPT_DOH_URL, resolver.absoluteString)
            try handle.set(CURLOPT_DOH_SSL_VERIFYPEER, true)
            try handle.set(CURLOPT_DOH_SSL_VERIFYHOST, 2)
        }
        if !connecting.resolve.isEmpty {
            let list = try CurlHeaderList(lines: connecting.resolveLines)
            try handle.set(CURLOPT_RESOLVE, headers: list)
            handle.resolveList = list
        }
    }
}

extension CurlCommand {
    /// `-4` or `-6`, `--happy-eyeballs-timeout-ms`, `--interface`, `--doh-url` and `--resolve` (curl
    /// has no flag for the DNS cache's timeout: a command resolves once). Redacting, a resolver's
    /// path other than `/dns-query` and its query are hidden: services put account tokens there.
    static func connectingArguments(_ connecting: Settings.Table, redactingSecrets: Bool) -> [String] {
        guard !connecting.connectsByDefault else { return [] }
        var parts: [String] = []
        switch connecting.ipFamily {
        case .any: break
        case .ipv4Only: parts.append("-4")
        case .ipv6Only: parts.append("-6")
        }
        if let milliseconds = connecting.happyEyeballsMilliseconds { parts += ["--happy-eyeballs-timeout-ms", String(milliseconds)] }
        if let name = connecting.networkInterface { parts += ["--interface", quote(name)] }
        if let resolver = connecting.dnsOverHTTPS { parts += ["--doh-url", quote(redactingSecrets ? shown(resolver) : resolver.absoluteString)] }
        for line in connecting.resolveLines { parts += ["--resolve", quote(line)] }
        return parts
    }

    /// The resolver's origin, then its path only when it is the standard one.
    private static func shown(_ resolver: URL) -> String {
        guard let components = URLComponents(url: resolver, resolvingAgainstBaseURL: false),
              components.percentEncodedPath == "/dns-query" || components.percentEncodedPath.isEmpty,
              components.percentEncodedQuery == nil else {
            return CurlErrorMapping.origin(of: resolver) + "/" + Redactor.placeholder
        }
        return resolver.absoluteString
    }
}
