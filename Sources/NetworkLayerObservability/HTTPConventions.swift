#if Observability
import NetworkLayer

/// OpenTelemetry's HTTP client conventions, as the spans and metrics of this module name things.
/// Every value here has a bounded set of forms: never a full URL, an identifier or server text.
enum HTTPConventions {
    /// The method, or `_OTHER` for one that is not among the methods the conventions know.
    static func method(_ method: HTTPMethod) -> String {
        switch method.rawValue {
        case "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH": method.rawValue
        default: "_OTHER"
        }
    }

    /// The span's name: the method, or `HTTP` for a method the conventions do not know.
    static func spanName(_ method: HTTPMethod) -> String {
        let name = self.method(method)
        return name == "_OTHER" ? "HTTP" : name
    }


    /// `http.response.status_code` as a label: the status, or `_OTHER` outside 100…599.
    static func statusLabel(_ status: Int) -> String {
        (100...599).contains(status) ? String(status) : "_OTHER"
    }

    /// `error.type` of a failed call: the error's stable case name (``NetworkError/code``).
    static func errorType(_ error: NetworkError) -> String {
        error.code
    }

    /// `error.type` of a response: its status for a 4xx or 5xx (client spans count both as errors), else `nil`.
    static func errorType(status: Int) -> String? {
        status >= 400 ? statusLabel(status) : nil
    }

    /// `network.protocol.version` from libcurl's `HTTP/2`: `2`, `1.1`.
    static func protocolVersion(_ response: HTTPResponse) -> String? {
        guard let version = response.metrics?.httpVersion else { return nil }
        return version.hasPrefix("HTTP/") ? String(version.dropFirst(5)) : version
    }

    /// How a cache answered, for `networklayer.cache.status`.
    static func cacheStatus(_ status: CacheStatus) -> String {
        switch status {
        case .miss: "miss"
        case .hit: "hit"
        case .revalidated: "revalidated"
        case .stale: "stale"
        }
    }
}
#endif
