import Foundation

/// How a request's connection is made (the IP family, the DNS cache, Happy Eyeballs and the
/// network interface), checked when the request is prepared.
extension Settings.Table {
    /// The most either duration may be: longer is a mistake, not a policy (a DNS answer cached for
    /// a day outlives any record's TTL; a connection attempt held back a minute is a hang).
    static let dnsCacheCeiling = Duration.seconds(86_400)
    static let happyEyeballsCeiling = Duration.seconds(60)

    /// Whether connections are made as libcurl makes them by default.
    var connectsByDefault: Bool {
        ipFamily == .any && dnsCacheTimeout == nil && happyEyeballsTimeout == nil && networkInterface == nil
    }

    var dnsCacheSeconds: Int? { dnsCacheTimeout.map { Int($0.components.seconds) } }
    var happyEyeballsMilliseconds: Int? {
        happyEyeballsTimeout.map { Int($0.components.seconds) * 1000 + Int(($0.components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000) }
    }

    /// Why the connection settings cannot be used, or `nil`.
    var connectingProblem: String? {
        if let timeout = dnsCacheTimeout, timeout < .zero || timeout > Self.dnsCacheCeiling {
            return "the DNS cache timeout must be between 0 and 1 day, not \(timeout)"
        }
        if let timeout = happyEyeballsTimeout, timeout < .zero || timeout > Self.happyEyeballsCeiling {
            return "the Happy Eyeballs timeout must be between 0 and 60 seconds, not \(timeout)"
        }
        if let name = networkInterface {
            guard !name.isEmpty, name.utf8.count <= 255, name.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                return "the network interface \"\(HeaderFields.printable(name))\" is not a name: give an interface (\"eth1\"), "
                    + "an address, or a host name, in printable ASCII without spaces"
            }
        }
        return nil
    }
}
