import Foundation

/// How long the parts of a request may take, in seconds; `nil` leaves a part to the next level.
///
/// Set on the manager (``NetworkManager/timeouts``) and per backend (``ServiceProvider/timeouts``),
/// each part resolved on its own; a request's ``BaseRequest/timeout`` wins for the whole request.
///
/// ```swift
/// Net.timeouts = Timeouts(connect: 5, request: 60, idle: 20)
/// struct Bank: ServiceProvider {
///     ...
///     var timeouts: Timeouts? { Timeouts(connect: 2, request: 30) }
/// }
/// ```
///
/// A value of zero, below zero or NaN is refused with ``NetworkError/invalidRequest(_:)`` when a
/// request starts; `.infinity`, and anything beyond 10⁹ s, means no limit.
public struct Timeouts: Sendable, Equatable {
    /// Until the connection is established (and its TLS handshake done): a server that does not
    /// accept fails with ``NetworkError/timeOut(_:)`` saying "connect". `nil`: libcurl's 300 s.
    public var connect: TimeInterval?
    /// The whole request, from start to the last body byte, every attempt and redirect included.
    /// `nil`: 60 s.
    public var request: TimeInterval?
    /// How long a response may send nothing while it is received (not a stream's, whose silence
    /// the request timeout bounds): ``NetworkError/timeOut(_:)`` saying "no data for N s".
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
