import Foundation

/// The tests' generous request timeouts: the ones that bound a request that should succeed, never
/// one a test expects to fire (those stay literal). A sanitizer run multiplies them by
/// `NETWORKLAYER_TEST_TIMEOUT_SCALE` (scripts/sanitize.sh sets 4): under ThreadSanitizer, beside
/// CI's fuzzers, a TLS redirect chain has outlasted 10 s while nothing was wrong.
enum TestTimeout {
    /// The environment's factor, from 1 to 20; 1 when unset or not a number.
    static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["NETWORKLAYER_TEST_TIMEOUT_SCALE"],
              let factor = Double(text), factor.isFinite else { return 1 }
        return min(max(factor, 1), 20)
    }()

    /// `seconds`, scaled.
    static func seconds(_ seconds: TimeInterval) -> TimeInterval { seconds * scale }
}
