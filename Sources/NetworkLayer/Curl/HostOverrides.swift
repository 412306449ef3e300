internal import CNetworkLayerCurl
import Foundation

/// The manager's host overrides, checked once when they are set: each `host:port` a request names
/// is connected to another `host:port`, while the URL, the `Host` header, TLS (SNI and certificate
/// verification), pins and cookies keep the name (libcurl's `CURLOPT_CONNECT_TO`).
final class HostOverrides: Sendable, Equatable {
    /// One override, checked.
    struct Entry: Sendable, Equatable {
        let host: String
        let port: Int
        let targetHost: String
        let targetPort: Int

        /// `host:port:target-host:target-port`, libcurl's (and curl's `--connect-to`) syntax.
        var line: String { "\(host):\(port):\(targetHost):\(targetPort)" }
    }

    /// The overrides, sorted by name: their order does not matter, and a stable one keeps
    /// copy-as-curl the same from run to run.
    let entries: [Entry]
    /// Why an override cannot be used, reported by every request while it stands; `nil` when all are fine.
    let problem: String?
    /// The `curl_slist` for `CURLOPT_CONNECT_TO`, built on first use and shared by every transfer
    /// (libcurl only reads it; it lives as long as the settings that hold it).
    private let list = Protected<CurlHeaderList?>(nil)

    init(_ overrides: [String: String]) {
        var entries: [Entry] = []
        var problem: String?
        for (name, target) in overrides.sorted(by: { $0.key < $1.key }) {
            guard let from = Self.hostAndPort(name), let to = Self.hostAndPort(target) else {
                problem = "the host override \"\(HeaderFields.printable(name))\": \"\(HeaderFields.printable(target))\" is not "
                    + "\"host:port\": \"host:port\" (a name or an IP address, IPv6 in brackets, and a port in 1...65535)"
                break
            }
            entries.append(Entry(host: from.host, port: from.port, targetHost: to.host, targetPort: to.port))
        }
        self.entries = problem == nil ? entries : []
        self.problem = problem
    }

    /// One set of overrides is the same as another only if it is that set: its list is what
    /// libcurl holds.
    static func == (lhs: HostOverrides, rhs: HostOverrides) -> Bool { lhs === rhs }

    /// The override for a URL's host and port, if any. An IPv6 address matches with or without
    /// its brackets (`URL.host` leaves them out).
    func target(host: String, port: Int) -> Entry? {
        let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return entries.first { $0.port == port && $0.host.lowercased() == name.lowercased() }
    }

    /// The list for libcurl.
    func curlList() throws(NetworkError) -> CurlHeaderList {
        try list.withLock { (list: inout CurlHeaderList?) throws(NetworkError) -> CurlHeaderList in
            if let list { return list }
            let built = try CurlHeaderList(lines: entries.map(\.line))
            list = built
            return built
        }
    }

    /// `host:port` split and checked: a host of letters, digits, `-` and `.` (or an IPv6 address
    /// in brackets) and a port in 1...65535.
    private static func hostAndPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (1...65535).contains(port) else { return nil }
        let host = String(text[..<colon])
        let isIPv6 = host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2
        let allowed = isIPv6 ? "0123456789abcdefABCDEF:.[]" : "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-."
        guard !host.isEmpty, host.unicodeScalars.allSatisfy({ allowed.unicodeScalars.contains($0) }) else { return nil }
        return (host, port)
    }
}
