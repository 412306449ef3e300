import Foundation

extension HTTPResponse {
    /// A stored response as the pipeline hands it on for `hop`: its stored status, headers (with
    /// `Age`) and body, marked with where it came from. Validation and decoding then treat it as
    /// they treat a response from the network; a stored redirect carries its `Location` for the
    /// redirect policy to follow.
    ///
    /// - Parameter metrics: the transfer's, when one took place (the `304` that revalidated it);
    ///   `nil` for a response served without the network.
    init(cached: CachedResponse, status: CacheStatus, for hop: PreparedRequest, metrics: TransferMetrics? = nil) {
        let location = Call.isRedirect(cached.statusCode) ? cached.storedValue(named: "location") : nil
        self.init(statusCode: cached.statusCode, headers: ResponseHeaders(raw: cached.headerBlock), body: cached.body,
                  isMocked: false, origin: hop.origin, expectations: hop.resolved.expectations, metrics: metrics,
                  redirectLocation: location)
        cacheStatus = status
    }

    /// The header lines as received, for the cache.
    var headerLines: CacheHeaderLines { headerBlock.lines }
}
