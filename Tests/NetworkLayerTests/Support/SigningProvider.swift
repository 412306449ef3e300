import Foundation
@testable import NetworkLayer

/// What one call of a provider's `adapt(_:)` saw.
struct AdaptCall: Sendable {
    let method: HTTPMethod
    let url: URL
    let headers: [String: String]
    let body: Data?
    let bodyLength: Int?
}

/// Every call of a provider's `adapt(_:)`, from any thread.
final class AdaptCalls: Sendable {
    private let calls = Protected<[AdaptCall]>([])

    /// Records a call and returns its number, counting from 1.
    func record(_ request: OutgoingRequest) -> Int {
        calls.withLock {
            $0.append(AdaptCall(method: request.method, url: request.url, headers: request.headers, body: request.body,
                                bodyLength: request.bodyLength))
            return $0.count
        }
    }

    var all: [AdaptCall] { calls.withLock { $0 } }
    var count: Int { calls.withLock { $0.count } }
}

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

/// The values of every `name:` header line in raw HTTP requests (as a recording server saw them), in order.
func headerValues(_ name: String, in recorded: Data) -> [String] {
    String(decoding: recorded, as: UTF8.self).components(separatedBy: "\r\n").compactMap { line in
        guard let colon = line.firstIndex(of: ":"), line[..<colon].caseInsensitiveCompare(name) == .orderedSame else { return nil }
        return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
}
