@testable import NetworkLayer

/// The order in which the hooks of a request ran, from any thread.
final class HookOrder: Sendable {
    private let steps = Protected<[String]>([])
    func append(_ step: String) { steps.withLock { $0.append(step) } }
    var all: [String] { steps.withLock { $0 } }
}
