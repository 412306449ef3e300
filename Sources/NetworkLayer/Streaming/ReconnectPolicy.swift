import Foundation

/// When and how an ``EventStream`` connects again after its connection ends, as a browser's
/// `EventSource` does. Opt-in, per request: ``BaseRequest/reconnectPolicy``.
///
/// ```swift
/// let request = PriceFeed()
/// request.reconnectPolicy = .eventSource(maximumAttempts: 10)
/// for try await event in try await Net.perform(request) { … }   // goes on across reconnections
/// ```
///
/// A stream reconnects when its connection breaks, the server is silent for longer than the
/// request's `timeout`, or the body simply ends. The new request carries `Last-Event-ID` with the
/// last `id:` the stream gave, so a server that resumes after that id gives the loop no duplicate
/// and no gap; the loop itself never sees the reconnection, only the events.
///
/// The stream ends instead, as `EventSource` does, when a reconnection is answered with
/// `204 No Content` (the loop ends normally: the server's way of saying "done"), with a status
/// outside 200–299 (the error the status maps to, as for a first request), or with a
/// `Content-Type` other than `text/event-stream` (``NetworkError/serialization(_:)``); and when
/// ``maximumAttempts`` reconnections in a row brought no event (the last failure).
///
/// The wait before a reconnection starts at the stream's own `retry:` (else ``delay``), doubles
/// for each reconnection in a row that brought no event, with jitter (a random share between half
/// and all of it), up to ``maximumDelay``; whatever the server or the policy asks, it is at least
/// 100 ms and at most a minute. Cancelling the task that reads ends the wait at once.
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
    ///
    /// - Parameters:
    ///   - maximumAttempts: reconnections in a row without an event before the stream ends; see
    ///     ``maximumAttempts``.
    ///   - reconnectsNonIdempotentMethods: whether a `POST` or `PATCH` stream reconnects too; see
    ///     ``reconnectsNonIdempotentMethods``.
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
