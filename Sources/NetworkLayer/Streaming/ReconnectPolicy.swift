import Foundation

/// When and how an ``EventStream`` connects again after its connection ends, as a browser's
/// `EventSource` does. Opt-in, per request: ``BaseRequest/reconnectPolicy``.
///
/// A stream reconnects when its connection breaks, the server is silent past the request's
/// `requestTimeout`, or the body ends; the new request carries `Last-Event-ID`, and the loop sees only
/// events. The stream ends instead on `204 No Content` (normally), a status outside 200–299, a
/// `Content-Type` other than `text/event-stream` (``NetworkError/serialization(_:)``), or after
/// ``maximumAttempts`` reconnections in a row without an event (the last failure).
///
/// The wait starts at the stream's `retry:` (else ``delay``) and doubles, jittered, up to
/// ``maximumDelay``, always within ``shortestDelay`` … ``longestDelay``. Cancelling the reading
/// task ends the wait.
public struct ReconnectPolicy: Sendable, Equatable {
    /// Reconnections in a row that bring no event before the stream ends with the last failure;
    /// a reconnection that delivers an event starts the count again. At least 1.
    public var maximumAttempts: Int
    /// The wait before the first reconnection when the stream sent no `retry:`. Default 3 s.
    public var delay: Duration
    /// No wait is longer than this (nor than a minute). Default 60 s.
    public var maximumDelay: Duration
    /// Whether a `POST` or `PATCH` stream (a chat completion, say) reconnects too. Default
    /// `false`: sending such a request again may start the work again.
    public var reconnectsNonIdempotentMethods: Bool

    /// The shortest wait before a reconnection, whatever `retry:` or the policy says: 100 ms.
    public static let shortestDelay = Duration.milliseconds(100)
    /// The longest wait before a reconnection, whatever `retry:` or the policy says: a minute.
    public static let longestDelay = Duration.seconds(60)

    public init(maximumAttempts: Int = 10, delay: Duration = .seconds(3), maximumDelay: Duration = .seconds(60),
                reconnectsNonIdempotentMethods: Bool = false) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.delay = delay
        self.maximumDelay = maximumDelay
        self.reconnectsNonIdempotentMethods = reconnectsNonIdempotentMethods
    }

    /// `EventSource`'s behaviour: reconnect after the stream's `retry:` (else 3 s), at most
    /// `maximumAttempts` times in a row without an event.
    public static func eventSource(maximumAttempts: Int = 10, reconnectsNonIdempotentMethods: Bool = false) -> ReconnectPolicy {
        ReconnectPolicy(maximumAttempts: maximumAttempts, reconnectsNonIdempotentMethods: reconnectsNonIdempotentMethods)
    }

    /// Whether a stream of `method` reconnects under this policy.
    func allows(_ method: HTTPMethod) -> Bool {
        method.isIdempotent || reconnectsNonIdempotentMethods
    }

    /// Whether a stream that ended with `error` (`nil`: the body ended) is worth connecting again:
    /// the connection, not the request or the reader, failed.
    static func reconnects(after error: NetworkError?) -> Bool {
        guard let error else { return true }
        switch error {
        case .reachability, .timeOut, .transport: return true
        default: return false
        }
    }

    /// The wait before reconnection `attempt` (1 for the first in a row): `retry` (the stream's
    /// own, else ``delay``) doubled for each earlier one, jittered from the second on, within
    /// 100 ms … ``maximumDelay`` (and a minute). Every input is bounded before any arithmetic.
    func delay(before attempt: Int, retry: Duration?) -> Duration {
        let cap = max(min(maximumDelay, Self.longestDelay), Self.shortestDelay)
        let base = min(max(retry ?? delay, Self.shortestDelay), cap).seconds
        guard attempt > 1 else { return RetryPolicy.duration(seconds: base, cappedAt: cap) }
        let doublings = Double(min(attempt - 1, 32))
        let grown = min(base * pow(2, doublings), cap.seconds) * Double.random(in: 0.5...1.0)
        return max(RetryPolicy.duration(seconds: grown, cappedAt: cap), Self.shortestDelay)
    }
}
