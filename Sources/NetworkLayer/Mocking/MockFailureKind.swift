import Foundation

/// The failures a mock sidecar can name in its `error` field, each the ``NetworkError`` case a
/// live request gets for the same trouble:
///
///     {"error": "timeOut", "delay": 0.5}
///
/// The names are the error cases' own: `reachability`, `timeOut`, `invalidCertificate`,
/// `transport`, `cancelled`.
enum MockFailureKind: String, CaseIterable, Sendable {
    case reachability
    case timeOut
    case invalidCertificate
    case transport
    case cancelled

    /// The error a live request would get, its reason saying where the mock came from (`source`,
    /// e.g. "the sidecar /path/Profile.meta.json").
    func error(request: String, source: String) -> NetworkError {
        let context = NetworkError.Context(reason: liveReason)
        let error: NetworkError = switch self {
        case .reachability: .reachability(context)
        case .timeOut: .timeOut(context)
        case .invalidCertificate: .invalidCertificate(context)
        case .transport: .transport(context)
        case .cancelled: .cancelled(context)
        }
        return error.mocked(from: source, request: request)
    }

    /// What the live failure's reason says, in the library's words.
    private var liveReason: String {
        switch self {
        case .reachability: "the connection was refused or the network is unreachable"
        case .timeOut: "no complete answer within the timeout"
        case .invalidCertificate: "the server's certificate failed verification"
        case .transport: "the connection broke (reset by the server or the network)"
        case .cancelled: "it was cancelled"
        }
    }
}
