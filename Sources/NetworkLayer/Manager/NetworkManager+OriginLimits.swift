import Foundation

extension NetworkManager {
    /// How many requests may be in flight at once to one origin (scheme, host and port); the rest
    /// wait in its queue by ``BaseRequest/priority``, then in order of arrival, and a cancelled one
    /// leaves it at once. Default `nil`: no limit, no queue. A provider's
    /// ``ServiceProvider/maximumRequestsPerOrigin`` wins; mocked requests are never held.
    ///
    /// ```swift
    /// Net.maximumRequestsPerOrigin = 8            // or .adaptive
    /// ```
    public var maximumRequestsPerOrigin: OriginLimit? {
        get { settings.withLock { $0.maximumRequestsPerOrigin } }
        set { settings.withLock { $0.maximumRequestsPerOrigin = newValue } }
    }

    /// The limit, in-flight and queued counts at `provider`'s origin now, or `nil` when no limit
    /// applies to it. An adaptive limit reads its current value.
    public func trafficState(for provider: any ServiceProvider) -> TrafficState? {
        let (limit, queues) = settings.withLock { (provider.maximumRequestsPerOrigin ?? $0.maximumRequestsPerOrigin, $0.originQueues) }
        guard let limit else { return nil }
        let port = provider.portNumber.map { ":\($0)" } ?? ""
        guard let url = URL(string: "\(provider.httpScheme.rawValue)://\(provider.host)\(port)/"), let origin = Origin(url) else { return nil }
        if let state = queues.state(of: origin) { return state }
        return TrafficState(limit: OriginQueues.Queue(limit).currentLimit, inFlight: 0, queued: 0)
    }
}
