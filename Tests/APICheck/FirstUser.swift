// Issue 38's block: what the second first-time user reached for (signing without another
// package, errors a service logs by name, a signer the cache serves).

import Foundation
import NetworkLayer

struct KeyedSigner: RequestInterceptor {
    let key: String
    func adapt(_ request: inout OutgoingRequest) async throws {
        let mac: Data = try Signing.hmacSHA256(key: key, message: request.method.rawValue + request.url.path)
        let raw: Data = try Signing.hmacSHA256(key: Data(key.utf8), message: [UInt8](request.body ?? Data()))
        request.setHeader("X-Signature", Signing.hex(mac), secret: true)
        request.setHeader("X-Body-Signature", raw.base64EncodedString(), secret: true)
    }
}

// A signed request the cache serves: the key id identifies the caller, the signature does not.
struct CachedSigner: RequestInterceptor {
    let keyID: String, key: String
    func adapt(_ request: inout OutgoingRequest) async throws {
        let signature = Signing.hex(try Signing.hmacSHA256(key: key, message: request.url.path))
        request.setHeader("X-Key-ID", keyID, secret: false, identifiesCaller: true)
        request.setHeader("X-Signature", signature, secret: true, identifiesCaller: false)
        request.addHeader("X-Nonce", UUID().uuidString, secret: true, identifiesCaller: false)
    }
}

// Errors a service logs by name.
func logFailure(_ error: NetworkError) {
    let code: String = error.code                      // "timeOut", "invalidCertificate"…
    let line: String = error.logfmtDescription          // error=timeOut request="GET …" reason="…"
    let described: any CustomStringConvertible & CustomDebugStringConvertible = error
    print(code, line, described.description, described.debugDescription)
}

// Issue 48: which reachability failure it was, without parsing libcurl's text.
func alertName(_ error: NetworkError) -> String? {
    let reason: NetworkError.ReachabilityReason? = error.reachabilityReason
    switch reason {
    case .hostNotFound?: return "dns"
    case .connectionRefused?: return "down"
    case .networkUnreachable?: return "offline"
    case nil: return nil
    default: return reason?.rawValue ?? NetworkError.ReachabilityReason.other.description
    }
}

func rehearsedOutage() -> NetworkError {
    var context = NetworkError.Context(reason: "a rehearsed DNS outage")
    context.reachabilityReason = .hostNotFound
    let kept: NetworkError.ReachabilityReason? = context.reachabilityReason
    print(kept.map(\.rawValue) ?? "", NetworkError.ReachabilityReason(rawValue: "hostNotFound") == .hostNotFound)
    return .reachability(context)
}

func checkFirstUserAPI() {
    print(KeyedSigner(key: "k"), CachedSigner(keyID: "id", key: "k"))
    // Issue 48: a nested literal in a mock, as the mocking article writes it.
    Net.mocks.register(.get, "/me", .json(["user": ["name": "Ada", "age": 36], "roles": ["admin"]] as JSONValue))
    logFailure(.timeOut)
    print(alertName(rehearsedOutage()) ?? "")
    Net.logEntryHandler = { entry in
        if let code: String = entry.errorCode { print(code, entry.errorDescription ?? "") }
    }
}
