import Foundation
@testable import NetworkLayer

/// The whole ``HTTPResponse``, returned as is by ``RawResponseProvider``: for a response without
/// a JSON body (HEAD, 204) and to look at what the default validation hides (the final URL).
struct RawResponse: Decodable, Sendable {
    let statusCode: Int
    let headers: [String: String]
    let body: Data
    let url: URL
    let contentType: String?
    /// Whether the answer came from a mock file.
    let isMocked: Bool

    init(_ response: HTTPResponse) {
        statusCode = response.statusCode
        headers = response.headers
        body = response.body
        url = response.url
        contentType = response.value(forHeader: "content-type")
        isMocked = response.isMocked
    }

    /// A received header, ignoring case.
    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Never decoded from JSON: only ``RawResponseProvider`` builds one.
    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "RawResponse is not decodable"))
    }
}

/// A loopback provider that overrides `parseAndValidate`: asked for a ``RawResponse`` it returns
/// the response whatever its status; asked for anything else it runs the default steps, which a
/// custom provider reuses through `validateStatus()` and `decode(_:)`.
struct RawResponseProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme = HTTPScheme.http
    var port: Int?
    var headers: [String: String] = [:]

    func createHTTPHeaders() -> [String: String] { headers }

    func parseAndValidate<Response: Decodable>(_ response: HTTPResponse, as type: Response.Type) throws -> Response {
        if let raw = RawResponse(response) as? Response { return raw }
        try response.validateStatus()
        return try response.decode(type)
    }
}
