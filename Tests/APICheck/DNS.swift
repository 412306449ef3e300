// Issue 53's DNS part: DNS over HTTPS and resolve entries, on the manager and per provider.

import Foundation
import NetworkLayer

struct PrivateResolving: ServiceProvider {
    var host: String { "api.example.com" }
    var httpScheme: HTTPScheme { .https }
    var dnsOverHTTPS: URL? { URL(string: "https://dns.example/dns-query") }
    var resolve: [ResolveEntry]? { [ResolveEntry(host: "api.example.com", port: 443, addresses: ["10.0.0.7", "fd00::7"])] }
}

func checkIssue53DNSAPI() {
    Net.dnsOverHTTPS = URL(string: "https://dns.example/dns-query")   // curl's --doh-url; nil: the system's resolver
    Net.resolve = [ResolveEntry(host: "api.example.com", port: 443, addresses: ["10.0.0.7"])]   // curl's --resolve
    var entry = Net.resolve[0]
    entry.addresses.append("[fd00::7]")
    _ = (entry.host, entry.port, entry.addresses, entry == entry, entry.hashValue)
    Net.resolve = []
    Net.dnsOverHTTPS = nil
    _ = PrivateResolving()
}
