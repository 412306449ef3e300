@testable import NetworkLayer

/// The outcome of a request as a value: the error, or that it succeeded (and with what).
enum FaultOutcome<Value: Sendable>: Sendable {
    case success(Value)
    case failure(NetworkError)

    init(_ body: () async throws(NetworkError) -> Value) async {
        do throws(NetworkError) {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }

    var error: NetworkError? {
        if case .failure(let error) = self { return error }
        return nil
    }

    /// The value, when it succeeded.
    var value: Value? {
        if case .success(let value) = self { return value }
        return nil
    }
}
