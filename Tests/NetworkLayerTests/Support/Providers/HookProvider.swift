import Foundation
@testable import NetworkLayer

/// A loopback provider whose hooks are closures, so a test can make each of them do what it
/// checks: fail, count its calls, look at what it is given.
struct HookProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme = HTTPScheme.http
    var port: Int?
    /// What `createHTTPHeaders()` does.
    var headers: @Sendable () async throws -> [String: String] = { [:] }
    /// Runs first in `parseAndValidate`, before the default steps (status check, decoding).
    var inspect: (@Sendable (HTTPResponse) throws -> Void)?
    /// What `adapt(_:)` does to each outgoing request (nothing by default).
    var adaptRequest: (@Sendable (inout OutgoingRequest) async throws -> Void)?

    func createHTTPHeaders() async throws -> [String: String] { try await headers() }

    func adapt(_ request: inout OutgoingRequest) async throws { try await adaptRequest?(&request) }

    func parseAndValidate<Response: Decodable>(_ response: HTTPResponse, as type: Response.Type) throws -> Response {
        try inspect?(response)
        try response.validateStatus()
        return try response.decode(type)
    }
}

