import Foundation

/// When and how a failed request is tried again. Opt-in, per provider or per request.
///
/// ```swift
/// struct FlakyProvider: ServiceProvider {
///     ...
///     var retryPolicy: RetryPolicy? { RetryPolicy(maximumAttempts: 4) }
/// }
/// ```
///
/// The delay before attempt `n + 1` is `baseDelay × 2^(n-1)`, capped at `maximumDelay`, with
/// "full jitter" (a random share between half and all of it) so that clients that failed together
/// do not come back together. A `Retry-After` header (seconds or an HTTP date) replaces the
/// computed delay, capped at `maximumDelay`. Cancelling the request stops the loop at once.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included. `1` means no retry.
    public var maximumAttempts: Int
    /// The delay before the first retry.
    public var baseDelay: Duration
    /// No delay is longer than this, `Retry-After` included.
    public var maximumDelay: Duration
    /// The statuses that are retried. Default: 408, 429, 500, 502, 503, 504.
    public var retryableStatuses: Set<Int>
    /// Whether transport failures (unreachable host, timeout, connection reset) are retried. Default `true`.
    public var retriesTransportErrors: Bool
    /// Whether `POST` and `PATCH`, which are not idempotent, are retried too. Default `false`:
    /// repeating them could, say, place an order twice.
    public var retriesNonIdempotentMethods: Bool

    public init(maximumAttempts: Int = 3, baseDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(30),
                retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504], retriesTransportErrors: Bool = true,
                retriesNonIdempotentMethods: Bool = false) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.retryableStatuses = retryableStatuses
        self.retriesTransportErrors = retriesTransportErrors
        self.retriesNonIdempotentMethods = retriesNonIdempotentMethods
    }

    /// Whether `method` may be retried under this policy.
    func allows(_ method: HTTPMethod) -> Bool {
        switch method {
        case .get, .head, .options, .put, .delete: true
        case .post, .patch: retriesNonIdempotentMethods
        }
    }

    /// Whether a transport failure is worth another attempt.
    func retries(_ error: NetworkError) -> Bool {
        guard retriesTransportErrors else { return false }
        switch error {
        case .reachability, .timeOut, .transport: return true
        default: return false
        }
    }

    /// The wait before attempt `attempt + 1` (`attempt` ≥ 1), honouring `Retry-After` when given.
    func delay(after attempt: Int, retryAfter: String?) -> Duration {
        if let retryAfter, let seconds = Self.seconds(fromRetryAfter: retryAfter) {
            return min(.milliseconds(Int64((seconds * 1000).rounded())), maximumDelay)
        }
        let exponential = baseDelay * Int(truncatingIfNeeded: 1 << min(attempt - 1, 30))
        let capped = min(exponential, maximumDelay)
        return capped * Double.random(in: 0.5...1.0)
    }

    /// `Retry-After` as seconds: either a number of seconds or an HTTP date (RFC 9110).
    static func seconds(fromRetryAfter value: String, now: Date = Date()) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds.isFinite, seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
