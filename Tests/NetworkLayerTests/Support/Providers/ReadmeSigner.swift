import Foundation
import NetworkLayer

/// README.md's signing interceptor, word for word ("The README's signer is the one tested"
/// compares the two), so that the tests run the code a reader copies.
enum ReadmeSigner {
struct Signer: RequestInterceptor {
    let keyID: String
    let key: String
    func adapt(_ request: inout OutgoingRequest) async throws {
        let timestamp = String(Int(Date().timeIntervalSince1970))
        let body = String(decoding: request.body ?? Data(), as: UTF8.self)
        let payload = [request.method.rawValue, request.url.path, timestamp, body].joined(separator: "\n")
        let signature = try Signing.hmacSHA256(key: key, message: payload)   // OpenSSL's: no package to add
        request.setHeader("X-Key-ID", keyID, secret: false, identifiesCaller: true)     // whose: keys the cache
        request.setHeader("X-Timestamp", timestamp, secret: false)
        request.setHeader("X-Signature", Signing.hex(signature), secret: true, identifiesCaller: false)  // redacted
    }
}
}

extension ReadmeSigner {
    /// The first `struct Signer: RequestInterceptor { … }` of `text`: from that line to the first
    /// `}` alone on a line after it.
    static func signerDeclaration(in text: String) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("struct Signer: RequestInterceptor {") }),
              let end = lines[start...].firstIndex(where: { $0 == "}" }) else { return nil }
        return lines[start...end].joined(separator: "\n")
    }
}
