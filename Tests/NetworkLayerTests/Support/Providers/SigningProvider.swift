import Foundation
@testable import NetworkLayer

/// A loopback provider that signs every attempt in `adapt(_:)`, as a webhook or HMAC API wants:
/// `X-Nonce` is the attempt's number, `X-Signature` the HMAC-SHA256 (hex) of
/// ``signedText(method:path:nonce:body:)`` under ``key``. `extra` then changes the request
/// further, as a test needs.
struct SigningProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme = HTTPScheme.http
    var port: Int?
    var basePath = ""
    var headers: [String: String] = [:]
    var authentication: Authentication?
    var retryPolicy: RetryPolicy?
    var key = "test-signing-key"
    let calls: AdaptCalls
    var extra: @Sendable (inout OutgoingRequest, Int) throws -> Void = { _, _ in }

    func createHTTPHeaders() -> [String: String] { headers }

    func adapt(_ request: inout OutgoingRequest) async throws {
        let attempt = calls.record(request)
        let nonce = String(attempt)
        request.setHeader("X-Nonce", nonce, secret: false)
        let text = Self.signedText(method: request.method.rawValue, path: request.url.path(percentEncoded: true), nonce: nonce,
                                   body: request.body.map { String(decoding: $0, as: UTF8.self) } ?? "")
        request.setHeader("X-Signature", HMACSHA256.hex(key: key, message: text))
        try extra(&request, attempt)
    }

    /// What is signed: method, path, nonce and body, one per line.
    static func signedText(method: String, path: String, nonce: String, body: String) -> String {
        "\(method)\n\(path)\n\(nonce)\n\(body)"
    }
}

