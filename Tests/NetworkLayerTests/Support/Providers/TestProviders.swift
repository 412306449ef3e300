import Foundation
@testable import NetworkLayer

/// A provider for a loopback server, with fixed headers (and a base path, if set).
struct TestProvider: ServiceProvider {
    var host: String
    var httpScheme: HTTPScheme
    var port: Int?
    var headers: [String: String] = [:]
    var basePath = ""

    func createHTTPHeaders() -> [String: String] { headers }
}

/// A provider with an authentication and fixed headers.
struct AuthProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme = .http
    var port: Int?
    var authentication: Authentication?
    var headers: [String: String] = [:]
    func createHTTPHeaders() -> [String: String] { headers }
}

/// A loopback provider with a retry policy.
struct RetryingProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme = .http
    var port: Int?
    var retryPolicy: RetryPolicy?
}

/// A backend that answers 404 for "no results" and wants it treated as an empty list:
/// it widens the acceptable statuses and reuses the default decoding.
struct LenientProvider: ServiceProvider {
    let port: Int?
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }

    func parseAndValidate<Response: Decodable>(_ response: HTTPResponse, as type: Response.Type) throws -> Response {
        try response.validateStatus(acceptable: 200..<405)
        return try response.decode(type)
    }
}

/// A backend that reports failures inside a 200 body.
struct EnvelopeProvider: ServiceProvider {
    struct Envelope: Decodable { let status: Int }
    let port: Int?
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }

    func parseAndValidate<Response: Decodable>(_ response: HTTPResponse, as type: Response.Type) throws -> Response {
        let envelope = try response.decode(Envelope.self)
        if envelope.status == 299 {
            throw NetworkError.customUser(description: "The backend said no.", recovery: "Ask nicely.", code: 299)
        }
        if envelope.status == 298 { throw CocoaError(.featureUnsupported) }
        return try response.decode(type)
    }
}

/// A provider whose headers really are asynchronous: it suspends before answering.
struct AsyncTokenProvider: ServiceProvider {
    let port: Int?
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }

    func createHTTPHeaders() async throws -> [String: String] {
        try await Task.sleep(for: .milliseconds(20))
        return ["Authorization": "Bearer fresh-token"]
    }
}

/// A provider whose `createHTTPHeaders()` takes 300 ms and ignores cancellation on purpose, so a
/// task can be cancelled while its headers are being created and the call still returns normally.
struct SlowHeadersProvider: ServiceProvider {
    let port: Int?
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }

    func createHTTPHeaders() async throws -> [String: String] {
        try? await Task.sleep(for: .milliseconds(300))  // ignores cancellation on purpose
        return [:]
    }
}

/// A provider whose JSON encoder writes snake_case keys, ISO 8601 dates and sorted keys.
struct SnakeCaseEncodingProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme = .http
    var port: Int?
    var jsonEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}

/// A provider with rules of its own: after the default status check, it refuses the user named
/// Ada with `.customUser(code: 777)`, in mock mode and live alike.
struct PickyProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme = .http
    var port: Int?

    func parseAndValidate<Response: Decodable>(_ response: HTTPResponse, as type: Response.Type) throws -> Response {
        try response.validateStatus()
        let user = try response.decode(User.self)
        if user.name == "Ada" {
            throw NetworkError.customUser(description: "Ada is not allowed here", recovery: "Pick another user", code: 777)
        }
        return try response.decode(type)
    }
}

/// A provider whose encoder and decoder agree on snake_case keys and ISO 8601 dates, as a
/// backend's would: a value a mock encodes with its encoder decodes with its decoder.
struct SnakeCaseProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme = .http
    var port: Int?
    var jsonEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
    var jsonDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
