import Synchronization
@testable import NetworkLayer

/// What a run of the secret canaries produced: every error, and every text the library printed or returned.
final class SecretFindings: Sendable {
    private let texts = Protected<[String]>([])
    private let errorCount = Atomic<Int>(0)

    func add(_ text: String) { texts.withLock { $0.append(text) } }

    func add(_ error: NetworkError) {
        errorCount.add(1, ordering: .relaxed)
        add(error.errorDescription ?? "")
        add(error.recoverySuggestion ?? "")
        add(error.failureReason ?? "")
        add("\(error)")
        add(String(reflecting: error))
        add(error.context?.request ?? "")
        add(error.context?.reason ?? "")
        if let curl = error.underlyingError as? CurlError { add(curl.message) }
    }

    var all: [String] { texts.withLock { $0 } }
    var errors: Int { errorCount.load(ordering: .relaxed) }
}
