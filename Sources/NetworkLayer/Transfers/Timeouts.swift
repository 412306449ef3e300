import Foundation

/// How long the parts of a request may take; `nil` leaves a part to the next level:
/// ``NetworkManager/timeouts``, then ``ServiceProvider/timeouts``, each part on its own; a
/// request's ``BaseRequest/requestTimeout`` wins for the whole request. Zero or negative is refused
/// with ``NetworkError/invalidRequest(_:)``; beyond 10⁹ s (`.seconds(Int64.max)`, say) means no limit.
public struct Timeouts: Sendable, Equatable {
    /// Until the connection and its TLS handshake are done (``NetworkError/timeOut(_:)`` saying
    /// "connect"). `nil`: libcurl's 300 s.
    public var connect: Duration?
    /// The whole request, every attempt and redirect included. `nil`: 60 s.
    public var request: Duration?
    /// How long a response may send nothing (not a stream: the request timeout bounds its silence).
    /// `nil`: no limit beyond the request's.
    public var idle: Duration?

    public init(connect: Duration? = nil, request: Duration? = nil, idle: Duration? = nil) {
        self.connect = connect
        self.request = request
        self.idle = idle
    }

    /// The default request timeout, when no level sets one.
    public static let defaultRequest: Duration = .seconds(60)
    /// ``defaultRequest`` as the pipeline keeps it, read without a conversion.
    static let defaultRequestSeconds: TimeInterval = 60
}
