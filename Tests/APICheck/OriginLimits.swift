import Foundation
import NetworkLayer

// Issue 53: per-origin limits, the queue's priorities and the adaptive limit.
struct ThrottledBackend: ServiceProvider {
    var host: String { "api.example.com" }
    var httpScheme: HTTPScheme { .https }
    var maximumRequestsPerOrigin: OriginLimit? { .adaptive(minimum: 2, maximum: 64, initial: 8) }
    func createHTTPHeaders() -> [String: String] { [:] }
}

func checkOriginLimits<Response>(net: NetworkManager, request: BaseRequest<Response>, response: HTTPResponse) {
    net.maximumRequestsPerOrigin = 8
    net.maximumRequestsPerOrigin = .fixed(16)
    net.maximumRequestsPerOrigin = .adaptive
    let limit: OriginLimit? = net.maximumRequestsPerOrigin
    request.priority = .high
    request.priority = .low
    request.priority = RequestPriority(5)
    let priority: RequestPriority = 7
    let state: TrafficState? = net.trafficState(for: ThrottledBackend())
    let counts: (Int, Int, Int)? = state.map { ($0.limit, $0.inFlight, $0.queued) }
    let queued: Duration? = response.metrics?.queueTime
    let current: Int? = response.metrics?.originLimit ?? nil
    print(limit?.description ?? "none", priority.value, priority > .normal, RequestPriority.normal, counts ?? (0, 0, 0), queued ?? .zero,
          current ?? 0, ThrottledBackend().maximumRequestsPerOrigin == OriginLimit.adaptive)
}
