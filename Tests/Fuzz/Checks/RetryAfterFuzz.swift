import Foundation
@testable import NetworkLayer

/// `Retry-After` parsing and the retry delay: a header value (any bytes, a number written many
/// ways, or an HTTP date near or far from now) with a retry policy and an attempt number.
///
/// Checked: the parsed value is nil or a number of seconds ≥ 0; a plain count of seconds
/// reads as itself; a well-formed HTTP date reads as its distance from now (0 when past); the delay
/// never traps and lies between zero and the policy's `maximumDelay`, and equals the header's
/// seconds (capped) when there is a value, else the backoff with jitter.
enum RetryAfterFuzz {
    /// A fixed "now", so that an input means the same on every run.
    private static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        let attempt = 1 + bytes.choice(40)
        let baseDelay = Duration.milliseconds(bytes.choice(65_536))
        let maximumDelay = Duration.seconds(bytes.choice(86_401))
        let policy = RetryPolicy(maximumAttempts: 5, baseDelay: baseDelay, maximumDelay: maximumDelay)
        let (value, exactSeconds) = header(from: &bytes)

        let seconds = RetryPolicy.seconds(fromRetryAfter: value, now: now)
        if let seconds {
            // Infinite only for more digits than a Double holds (over 308), which the delay caps.
            let allDigits = value.trimmingCharacters(in: .whitespaces).utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            try require(seconds >= 0 && (seconds.isFinite || allDigits), "Retry-After \(value.debugDescription) read as \(seconds) seconds")
        }
        if let exactSeconds {
            try require(seconds.map { abs($0 - exactSeconds) < 1e-9 * max(1, exactSeconds) } == true,
                        "Retry-After \(value.debugDescription) read as \(String(describing: seconds)), not \(exactSeconds) seconds")
        }

        // `delay` reads a date against the real clock: so does the expectation, just before.
        let liveSeconds = RetryPolicy.seconds(fromRetryAfter: value)
        let delay = policy.delay(after: attempt, retryAfter: value)
        try require(delay >= .zero && delay <= maximumDelay,
                    "the delay after attempt \(attempt) with Retry-After \(value.debugDescription) is \(delay), outside 0...\(maximumDelay)")
        if let seconds = liveSeconds {
            // Capped (a date: to the second, the clock moved in between).
            let expected = min(seconds, maximumDelay.seconds)
            let isDate = Double(value.trimmingCharacters(in: .whitespaces)) == nil
            let tolerance = isDate ? 1.0 : 0.001
            try require(abs(delay.seconds - expected) <= tolerance + 1e-9 * expected,
                        "the delay with Retry-After \(value.debugDescription) is \(delay), not \(expected) s")
        } else {
            let backoff = min(baseDelay.seconds * Double(1 << min(attempt - 1, 30)), maximumDelay.seconds)
            try require(delay.seconds >= backoff / 2 - 1e-6 && delay.seconds <= backoff + 1e-6,
                        "the delay after attempt \(attempt) without a usable Retry-After is \(delay), not within \(backoff / 2)...\(backoff) s")
        }
    }

    /// A header value, and the seconds it must read as when that is known for sure.
    private static func header(from bytes: inout FuzzBytes) -> (String, Double?) {
        switch bytes.choice(4) {
        case 0:
            // A whole number of seconds, possibly huge, with white space around.
            let digits = String(bytes.take(1 + bytes.choice(40)).map { Character(UnicodeScalar(UInt8(ascii: "0") + $0 % 10)) })
            let padded = String(repeating: " ", count: bytes.choice(3)) + digits + String(repeating: " ", count: bytes.choice(3))
            return (padded, Double(digits))
        case 1:
            // A number-like text: digits, signs, points, exponents, spaces, letters of inf and nan.
            let alphabet = Array("0123456789+-.eE xXaAfFiInN_")
            return (String(bytes.take(bytes.choice(30)).map { alphabet[Int($0) % alphabet.count] }), nil)
        case 2:
            // An HTTP date from about the year 100 to the year 5000 (four-digit years, no era),
            // well formed or with one character changed.
            let offset = Double(bytes.word() % 160_000_000_000) - 60_000_000_000
            let date = now.addingTimeInterval(offset)
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            var text = formatter.string(from: date)
            let breaks = bytes.choice(4)
            if breaks > 0, !text.isEmpty {
                var characters = Array(text)
                let at = bytes.choice(characters.count)
                characters[at] = Character(UnicodeScalar(32 + bytes.choice(95)) ?? " ")
                text = String(characters)
                return (text, nil)
            }
            // Before 15 October 1582 the formatter writes the Julian calendar's date, which an HTTP
            // date (proleptic Gregorian) does not mean: its 29 February 0200 is no date at all.
            guard date.timeIntervalSince1970 >= -12_219_292_800 else { return (text, nil) }
            // Whole seconds: the text has no fraction.
            let whole = date.timeIntervalSince1970.rounded(.down)
            return (text, max(0, whole - now.timeIntervalSince1970))
        default:
            // Any bytes.
            return (String(decoding: bytes.rest(), as: UTF8.self), nil)
        }
    }
}
