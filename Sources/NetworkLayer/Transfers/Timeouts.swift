import Foundation

/// How long the parts of a request may take, in seconds; `nil` leaves a part to the next level:
/// ``NetworkManager/timeouts``, then ``ServiceProvider/timeouts``, each part on its own; a
/// request's ``BaseRequest/timeout`` wins for the whole request. Zero, negative or NaN is refused
/// with ``NetworkError/invalidRequest(_:)``; `.infinity` (or beyond 10⁹ s) means no limit.
public struct Timeouts: Sendable, Equatable {
    /// Until the connection and its TLS handshake are done (``NetworkError/timeOut(_:)`` saying
    /// "connect"). `nil`: libcurl's 300 s.
    public var connect: TimeInterval?
    /// The whole request, every attempt and redirect included. `nil`: 60 s.
    public var request: TimeInterval?
    /// How long a response may send nothing (not a stream: the request timeout bounds its silence).
    /// `nil`: no limit beyond the request's.
    public var idle: TimeInterval?

    public init(connect: TimeInterval? = nil, request: TimeInterval? = nil, idle: TimeInterval? = nil) {
        self.connect = connect
        self.request = request
        self.idle = idle
    }

    /// The default request timeout, when no level sets one.
    public static let defaultRequest: TimeInterval = 60
}
