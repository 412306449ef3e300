/// Which connection cache a transfer uses: its pin configuration (0 for none) and the cache
/// epoch. Transfers under different pins never share connections (nor TLS sessions), so a
/// connection verified under older pins, or none, never serves a pinned request; a new epoch
/// (``NetworkManager/closeIdleConnections()``) starts every cache afresh.
struct ConnectionCacheKey: Hashable {
    let pinGeneration: Int
    let epoch: Int
}
