import Foundation
@testable import NetworkLayer

/// A loopback provider that carries secrets every way a backend can: an authentication, fixed
/// headers, names it declares secret, and optionally an error body type (so a server's message
/// reaches the error's description).
struct SecretProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme = .http
    var port: Int?
    var authentication: Authentication?
    var headers: [String: String] = [:]
    var secretHeaderNames: Set<String> = []
    var secretQueryItemNames: Set<String> = []
    var errorBodyType: (any ServerErrorBody.Type)?

    func createHTTPHeaders() -> [String: String] { headers }
}

extension TestServer {
    /// A ``SecretProvider`` for this server (`https` when it speaks TLS).
    func secretProvider(authentication: Authentication? = nil, headers: [String: String] = [:],
                        secretHeaderNames: Set<String> = [], secretQueryItemNames: Set<String> = []) -> SecretProvider {
        SecretProvider(httpScheme: isTLS ? .https : .http, port: port, authentication: authentication, headers: headers,
                       secretHeaderNames: secretHeaderNames, secretQueryItemNames: secretQueryItemNames)
    }

    /// The base URL of this server, `http(s)://127.0.0.1:<port>`.
    var baseURL: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)" }
}

/// An error body whose `message` the error's description shows: a server that quotes the
/// request back can put a credential in it.
struct MessageErrorBody: ServerErrorBody {
    let message: String
    var serverMessage: String? { message }
}
