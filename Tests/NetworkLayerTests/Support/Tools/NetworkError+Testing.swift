import Testing
@testable import NetworkLayer

extension NetworkError {
    /// The case's name, for `#expect(error?.caseName == "reachability")`: a failed expectation
    /// then prints which case came instead.
    var caseName: String { code }

    /// libcurl's code, when the underlying error is a ``CurlError``.
    var curlCode: Int? { (underlyingError as? CurlError)?.code }
}

/// The ``NetworkError`` `body` throws, or `nil` if it returns (recorded as a test issue).
func networkError<T>(_ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async -> NetworkError? {
    do {
        _ = try await body()
        Issue.record("expected a NetworkError, but the request succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as NetworkError {
        return error
    } catch {
        Issue.record("expected a NetworkError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
