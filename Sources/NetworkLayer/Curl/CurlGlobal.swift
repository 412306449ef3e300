internal import CNetworkLayerCurl

/// libcurl's process-wide initialisation, done once, before NetworkLayer's first handle of any kind.
///
/// What must stay true: every way into libcurl that can initialise it (an easy handle, a share,
/// the engine's multi handle, a parsed URL) calls ``initialise()`` first. libcurl takes its allocation functions
/// only from the call that initialises it, and `curl_easy_init` initialises it, with the C
/// library's, when nothing did before: a cookie store or a WebSocket created before the first
/// request would otherwise leave the engine without the receive-buffer cache (buffer_cache.c)
/// for the life of the process.
enum CurlGlobal {
    /// The error libcurl's initialisation failed with (every later handle fails with it), and
    /// whether libcurl allocates through the buffer cache. The cache is off when something else in
    /// the process initialised libcurl first (FoundationNetworking's URLSession does, when first
    /// used): its allocation functions stay in place. Requests work either way; streams then
    /// allocate their receive buffers afresh.
    private static let outcome: (failure: NetworkError?, cachesReceiveBuffers: Bool) = {
        var installed: Int32 = 0
        let code = nl_global_init_caching_buffers(CurlTransfer.streamBufferSize, &installed)
        guard code == CURLE_OK else {
            return (.transport(.init(reason: "libcurl could not initialise (curl_global_init returned \(code.rawValue))")), false)
        }
        return (nil, installed != 0)
    }()

    static var cachesReceiveBuffers: Bool { outcome.cachesReceiveBuffers }

    static func initialise() throws(NetworkError) {
        if let failure = outcome.failure { throw failure }
    }
}
