import Foundation

/// When and how a failed request is tried again. Opt-in, per provider or per request.
///
/// The delay before attempt `n + 1` is `baseDelay × 2^(n-1)` capped at `maximumDelay`, times a
/// random share between half and all of it, so that clients that failed together do not come back
/// together; a `Retry-After` replaces it (capped too). Cancelling the request stops the loop at once.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included. `1` means no retry.
    public var maximumAttempts: Int
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

    /// Whether `method` may be retried: an idempotent one, or any with ``retriesNonIdempotentMethods``.
    func allows(_ method: HTTPMethod) -> Bool {
        method.isIdempotent || retriesNonIdempotentMethods
    }

    /// Whether a transport failure is worth another attempt.
    func retries(_ error: NetworkError) -> Bool {
        guard retriesTransportErrors else { return false }
        switch error {
        case .reachability, .timeOut, .transport: return true
        default: return false
        }
    }

    /// No retry waits longer than a day, whatever ``maximumDelay`` or a server's `Retry-After` says.
    public static let delayCeiling: Duration = .seconds(24 * 60 * 60)

    static func clamped(_ wanted: Duration) -> Duration {
        min(max(wanted, .zero), delayCeiling)
    }

    /// The wait before attempt `attempt + 1` (`attempt` ≥ 1), honouring `Retry-After` when given.
    /// Every input is bounded before it becomes a `Duration`: never traps.
    func delay(after attempt: Int, retryAfter: String?) -> Duration {
        let cap = min(max(maximumDelay, .zero), Self.delayCeiling)
        if let retryAfter, let seconds = Self.seconds(fromRetryAfter: retryAfter) {
            return Self.duration(seconds: seconds, cappedAt: cap)
        }
        let base = min(max(baseDelay, .zero), cap).seconds
        let doublings = attempt > 63 ? 62 : max(attempt, 1) - 1  // no `attempt - 1` overflow for Int.min
        let exponential = base * pow(2, Double(doublings))
        return Self.duration(seconds: min(exponential, cap.seconds) * Double.random(in: 0.5...1.0), cappedAt: cap)
    }

    /// `seconds` as a duration within `0...cap`; NaN and negative values are zero.
    static func duration(seconds: Double, cappedAt cap: Duration) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return seconds == .infinity ? cap : .zero }
        guard seconds < cap.seconds else { return cap }
        // Below the cap, which is at most a day: the nanoseconds fit an Int64 by far.
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    /// `Retry-After` as seconds: `1*DIGIT` or an HTTP date in any form RFC 9110 requires a recipient
    /// to accept; `nil` for anything else (the policy's own backoff then applies). A past date is
    /// zero; a huge number is returned as it is, for the caller to cap.
    static func seconds(fromRetryAfter value: String, now: Date = Date()) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        if trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return Double(trimmed)
        }
        // This text is a server's: it never reaches a DateFormatter, which traps on some non-ASCII
        // text ("Incorrect range CFRange"). HTTPDate reads bytes and refuses what is not a date.
        guard let date = HTTPDate.seconds(from: trimmed, now: now.timeIntervalSince1970) else { return nil }
        let seconds = Double(date) - now.timeIntervalSince1970
        return seconds.isFinite ? max(0, seconds) : nil
    }
}
