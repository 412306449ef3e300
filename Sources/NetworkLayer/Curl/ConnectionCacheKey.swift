import Foundation

/// Which connection cache a transfer uses: its pin configuration (0 for none), its client
/// certificate's identity (0 for none) and the cache epoch. Transfers under different pins never
/// share connections (nor TLS sessions), so a connection verified under older pins, or none, never
/// serves a pinned request; nor do transfers presenting different client certificates, or one and
/// none (libcurl 7.88 compares the certificate but not the key). A new epoch (``NetworkManager/closeIdleConnections()``) starts
/// every cache afresh. A TLS options' trust callback (its number, 0 for none) has caches of its
/// own too: a connection its callback accepted serves only requests with that callback. So do
/// transfers resolving names otherwise (a DNS over HTTPS resolver, resolve entries): the share holds
/// the names they resolved, which no transfer resolving another way may use.
struct ConnectionCacheKey: Equatable {
    let pinGeneration: Int
    let epoch: Int
    var clientIdentity = 0
    var serverTrust = 0
    var resolving: Resolving?

    /// How a transfer resolves names when not as libcurl does by default.
    struct Resolving: Equatable {
        let dnsOverHTTPS: URL?
        let resolve: [ResolveEntry]

        init?(_ table: Settings.Table) {
            guard !table.resolvesByDefault else { return nil }
            dnsOverHTTPS = table.dnsOverHTTPS
            resolve = table.resolve
        }
    }
}
