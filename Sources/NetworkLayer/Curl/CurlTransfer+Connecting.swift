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
    }
}

extension CurlCommand {
    /// `-4` or `-6`, `--happy-eyeballs-timeout-ms` and `--interface` (curl has no flag for the
    /// DNS cache's timeout: a command resolves once).
    static func connectingArguments(_ connecting: Settings.Table) -> [String] {
        guard !connecting.connectsByDefault else { return [] }
        var parts: [String] = []
        switch connecting.ipFamily {
        case .any: break
        case .ipv4Only: parts.append("-4")
        case .ipv6Only: parts.append("-6")
        }
        if let milliseconds = connecting.happyEyeballsMilliseconds { parts += ["--happy-eyeballs-timeout-ms", String(milliseconds)] }
        if let name = connecting.networkInterface { parts += ["--interface", quote(name)] }
        return parts
    }
}
