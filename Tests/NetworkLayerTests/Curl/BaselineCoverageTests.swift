import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A pooled handle skips configuring a plain GET whose options match the last one's
/// (`CurlTransfer.Baseline`). A field of `TransferOptions` the baseline does not compare would let
/// a handle keep another request's option; this fails as soon as a field is added to
/// `TransferOptions` without deciding where it goes.
@Suite("The handle baseline covers every transfer option", .sharing)
struct BaselineCoverageTests {
    /// Fields a baseline holds under another name.
    static let heldAs = ["cookieJar": "usesCookies", "clientCertificate": "clientIdentity"]
    /// Fields a baseline need not hold, each for the reason given: a request with it is not plain
    /// (its handle is configured in full), or the option is set again on every transfer.
    static let perTransfer: [String: String] = [
        "pinning": "a pinned request is not plain",
        "tlsBackendProblem": "read only when pins are checked, and a pinned request is not plain",
    ]

    @Test("Every stored field of TransferOptions is compared by the baseline, or is set per transfer")
    func everyFieldIsDecided() {
        let options = TransferOptions()
        let baseline = CurlTransfer.Baseline(options, isHTTPS: false, streams: false, events: false, clientIdentity: 0)
        let optionFields = Mirror(reflecting: options).children.compactMap(\.label)
        let baselineFields = Set(Mirror(reflecting: baseline).children.compactMap(\.label))
        #expect(optionFields.count >= 11, "Mirror found \(optionFields.count) fields: the check would check nothing")
        for field in optionFields where Self.perTransfer[field] == nil {
            #expect(baselineFields.contains(Self.heldAs[field] ?? field),
                    "TransferOptions.\(field) is neither in CurlTransfer.Baseline (compared in matches) nor set per transfer")
        }
        for (field, held) in Self.heldAs {
            #expect(optionFields.contains(field) && baselineFields.contains(held), "\(field) → \(held) names a field that is gone")
        }
        for field in Self.perTransfer.keys {
            #expect(optionFields.contains(field), "\(field) is listed as per-transfer but TransferOptions has no such field")
        }
    }

    @Test("A baseline matches the options it was made from, and no longer when any compared field differs")
    func matchesComparesEveryHeldField() throws {
        let options = TransferOptions()
        let baseline = CurlTransfer.Baseline(options, isHTTPS: true, streams: false, events: false, clientIdentity: 0)
        #expect(baseline.matches(options, isHTTPS: true, streams: false, events: false, clientIdentity: 0))
        #expect(!baseline.matches(options, isHTTPS: false, streams: false, events: false, clientIdentity: 0))
        #expect(!baseline.matches(options, isHTTPS: true, streams: false, events: false, clientIdentity: 7))
        #expect(!baseline.matches(options, isHTTPS: true, streams: true, events: false, clientIdentity: 0), "a stream kept a plain GET's options")
        #expect(!baseline.matches(options, isHTTPS: true, streams: false, events: true, clientIdentity: 0), "a call's events kept a plain GET's options")
        let different: [String: TransferOptions] = [
            "customCABundle": TransferOptions(customCABundle: URL(fileURLWithPath: "/tmp/ca.pem")),
            "connectTimeout": TransferOptions(connectTimeout: 3),
            "idleTimeout": TransferOptions(idleTimeout: 3),
            "hostOverrides": TransferOptions(hostOverrides: HostOverrides([:])),
            "unixSocketPath": TransferOptions(unixSocketPath: "/tmp/socket"),
            "cookieJar": TransferOptions(cookieJar: try CookieJar(file: nil)),
            "tls": TransferOptions(tls: TLSOptions(minimumVersion: .v1_3)),
            "table": TransferOptions(table: Settings.Table(httpVersion: .http1_1)),
        ]
        for (field, options) in different {
            #expect(!baseline.matches(options, isHTTPS: true, streams: false, events: false, clientIdentity: 0), "a different \(field) still matched")
        }
        // The table is compared whole: a change to any of its settings, the last one included.
        let tables = [Settings.Table(keepAlive: nil), Settings.Table(proxy: .none), Settings.Table(ipFamily: .ipv6Only),
                      Settings.Table(dnsCacheTimeout: .seconds(1)), Settings.Table(happyEyeballsTimeout: .seconds(1)),
                      Settings.Table(networkInterface: "lo"), Settings.Table(dnsOverHTTPS: URL(string: "https://127.0.0.1/dns-query")),
                      Settings.Table(resolve: [ResolveEntry(host: "a.test", port: 80, addresses: ["127.0.0.1"])])]
        for table in tables {
            #expect(!baseline.matches(TransferOptions(table: table), isHTTPS: true, streams: false, events: false, clientIdentity: 0), "\(table) still matched")
        }
        let compared = Set(different.keys).union(["clientCertificate"])
        let held = Set(Mirror(reflecting: TransferOptions()).children.compactMap(\.label)).subtracting(Self.perTransfer.keys)
        #expect(compared == held, "fields compared here: \(compared.sorted()); fields the baseline holds: \(held.sorted())")
    }
}
