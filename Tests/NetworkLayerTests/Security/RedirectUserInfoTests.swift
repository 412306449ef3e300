import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A `Location` with user information (`http://user:pass@host/`) names credentials the server
/// chose: libcurl would send them as `Authorization: Basic`. No hop takes them, to another
/// origin or the same one; the servers record every byte they receive.
@Suite("A redirect's user information is dropped", .sharing)
struct RedirectUserInfoTests {
    static let userInfo = "mallory:stolen-Passw0rd"

    static func redirect(to target: String) -> String {
        "/redirect-to?url=" + ParameterValue.percentEncode(target)
    }

    @Test("To another origin and to the same one, the next server receives no Authorization and no user information")
    func noCredentialsFromALocation() async throws {
        try await withTestServer(record: true) { origin in
            try await withTestServer(record: true) { elsewhere in
                let net = makeManager()
                let seen = CallRecorder<URL>()
                let provider = RedirectProvider(port: origin.port, redirectPolicy: .custom { redirect in
                    seen.record(redirect.to)
                    return true
                })
                for server in [elsewhere, origin] {
                    let target = "http://\(Self.userInfo)@127.0.0.1:\(server.port)/echo"
                    let echo = try await net.perform(TestRequest<Echo>(provider, Self.redirect(to: target)))
                    #expect(echo.header("Authorization") == nil, "the server received \(echo.header("Authorization") ?? "")")
                    #expect(echo.path == "/echo")
                }
                // The origin received the Location's text in its query; neither received an Authorization.
                for server in [origin, elsewhere] {
                    #expect(!String(decoding: server.recordedBytes(), as: UTF8.self).lowercased().contains("authorization:"))
                }
                #expect(!Array(elsewhere.recordedBytes()).containsBytes(Array("stolen-Passw0rd".utf8)))
                // The policy is asked about the hop as it is made: without user information.
                #expect(seen.values.count == 2 && seen.values.allSatisfy { $0.user == nil && $0.password == nil }, "\(seen.values)")
            }
        }
    }
}

/// A loopback provider with a redirect policy.
private struct RedirectProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme { .http }
    var port: Int?
    var redirectPolicy: RedirectPolicy?
}
