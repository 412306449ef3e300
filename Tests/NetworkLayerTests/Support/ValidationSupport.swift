import Foundation
@testable import NetworkLayer

/// An error a request's validator throws, as an app would define it.
struct OrderHeld: Error, Equatable {
    let reason: String
}

/// A server's error body of another shape than ``ShopError``: `{"error": {"kind": …}}`.
struct NestedShopError: ServerErrorBody {
    struct Detail: Decodable, Sendable { let kind: String }
    let error: Detail
    var serverMessage: String? { error.kind }
}

/// The order in which the hooks of a request ran, from any thread.
final class HookOrder: Sendable {
    private let steps = Protected<[String]>([])
    func append(_ step: String) { steps.withLock { $0.append(step) } }
    var all: [String] { steps.withLock { $0 } }
}
