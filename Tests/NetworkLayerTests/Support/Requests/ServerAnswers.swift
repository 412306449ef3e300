import Foundation

// What the test servers (Tests/Servers/test_server.py) answer, as the tests decode it.

/// What `/echo` reports about the request it received.
struct Echo: Decodable, Sendable {
    let method: String
    let path: String
    let query: String
    let args: [String: [String]]
    let headers: [String: String]
    let headerList: [[String]]
    let body: String
    let bodyBase64: String
    let bodyLength: Int

    /// A received header, ignoring case.
    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// What `/status/<code>` answers with by default.
struct StatusBody: Decodable, Sendable {
    let status: Int
}

/// What `/count` answers with.
struct RequestCount: Decodable, Sendable {
    let count: Int
}

/// What `/delay/<seconds>` answers with.
struct DelayBody: Decodable, Sendable {
    let delayed: Double
}

/// What `/multipart` reports about a multipart body it parsed.
struct MultipartEcho: Decodable, Sendable {
    struct File: Decodable, Sendable {
        let filename: String
        let contentType: String
        let size: Int
        let sha256: String
    }
    let fields: [String: String]
    let files: [String: File]
    let order: [String]
    let boundary: String
    let contentType: String
}

/// What `/upload-stats` reports about a body it read in pieces.
struct UploadStats: Decodable, Sendable {
    struct Part: Decodable, Sendable {
        let headers: String
        let size: Int
        let sha256: String
    }
    let size: Int
    let sha256: String
    let parts: [Part]?
}

/// What `/headers` answers with.
struct HeadersEcho: Decodable, Sendable {
    let headers: [String: String]
}

/// What `/flaky/<key>` and `/flaky-count/<key>` answer with: the attempt's number.
struct Attempt: Decodable, Sendable { let attempt: Int }

/// The pattern `/bytes/<n>` and `/slow-bytes/<n>` send.
func bytePattern(_ count: Int) -> Data { Data((0..<count).map { UInt8($0 % 256) }) }

/// What `/echo-credential` answers: the secret of the credential it received, as it is and in base64.
struct CredentialEcho: Decodable, Sendable {
    let user: String
    let p: String
    let base64: [String]
    let embedded: [String]
}
