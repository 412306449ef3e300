import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `TLSOptions.requiresOCSPStapling` against `openssl s_server` stapling a response `openssl ocsp`
/// made for the test leaf: good, revoked, or none at all.
@Suite("OCSP stapling required per provider", .sharing)
struct OCSPStaplingTests {
    @Test("A server stapling a good OCSP response serves a provider that requires stapling")
    func goodResponse() async throws {
        try await withOCSPStaplingServer(.good) { server in
            let answer = try await makeManager().perform(TestRequest<StaplingAnswer>(server.provider(requiresOCSPStapling: true),
                                                                                      "/stapling.json"))
            #expect(answer.stapling == "good")
        }
    }

    @Test("A server stapling a response that says its certificate is revoked is refused, saying so")
    func revokedResponse() async throws {
        try await withOCSPStaplingServer(.revoked) { server in
            let error = await networkError {
                try await makeManager().perform(TestRequest<StaplingAnswer>(server.provider(requiresOCSPStapling: true), "/stapling.json"))
            }
            guard case .invalidCertificate = error else { Issue.record("got \(String(describing: error))"); return }
            let description = error?.errorDescription ?? ""
            #expect(description.contains("says its certificate is revoked"), "\(description)")
            #expect(description.contains("needs a new certificate"), "\(description)")
            #expect(!description.contains("stapled no OCSP response"), "\(description)")
        }
    }

    @Test("A server stapling no OCSP response is refused, saying none was stapled and how to staple one")
    func noResponse() async throws {
        try await withOCSPStaplingServer(.none) { server in
            let error = await networkError {
                try await makeManager().perform(TestRequest<StaplingAnswer>(server.provider(requiresOCSPStapling: true), "/stapling.json"))
            }
            guard case .invalidCertificate = error else { Issue.record("got \(String(describing: error))"); return }
            let description = error?.errorDescription ?? ""
            #expect(description.contains("stapled no OCSP response"), "\(description)")
            #expect(description.contains("ssl_stapling on"), "\(description)")
            #expect(!description.contains("revoked"), "\(description)")
        }
    }

    @Test("Without the option stapling is not checked: good, revoked and missing responses all serve", arguments: OCSPServer.Stapling.allCases)
    func notRequired(_ stapling: OCSPServer.Stapling) async throws {
        try await withOCSPStaplingServer(stapling) { server in
            let answer = try await makeManager().perform(TestRequest<StaplingAnswer>(server.provider(requiresOCSPStapling: false),
                                                                                      "/stapling.json"))
            #expect(answer.stapling == stapling.rawValue)
        }
    }

    @Test("A refused response sends nothing: the request never reaches the server", arguments: [OCSPServer.Stapling.revoked, .none])
    func nothingSent(_ stapling: OCSPServer.Stapling) async throws {
        try await withOCSPStaplingServer(stapling, record: true) { server in
            let net = makeManager()
            let error = await networkError {
                try await net.perform(TestRequest<StaplingAnswer>(server.provider(requiresOCSPStapling: true), "/secret"))
            }
            guard case .invalidCertificate = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(error?.errorDescription?.contains("nothing was sent") == true, "\(error?.errorDescription ?? "")")
            // The recording server answers nothing: a request that reaches it times out, and is recorded.
            _ = await networkError {
                try await net.perform(TestRequest<StaplingAnswer>(server.provider(requiresOCSPStapling: false), "/reached", timeout: 1))
            }
            let recorded = server.recordedBytes()
            #expect(recorded.contains("GET /reached".utf8), "the recording sees requests")
            #expect(!recorded.contains("/secret".utf8), "nothing was sent")
        }
    }

    @Test("Each new connection of a provider requiring stapling is checked: none resumes a session without its stapled response")
    func everyConnectionStapled() async throws {
        // s_server answers one request per connection, so each request makes a new connection,
        // and one that resumed an earlier TLS session would come without a stapled response.
        try await withOCSPStaplingServer(.good) { server in
            let net = makeManager()
            _ = try await net.perform(TestRequest<StaplingAnswer>(server.provider(requiresOCSPStapling: false), "/stapling.json"))
            for _ in 0..<2 {
                let answer = try await net.perform(TestRequest<StaplingAnswer>(server.provider(requiresOCSPStapling: true), "/stapling.json"))
                #expect(answer.stapling == "good")
            }
        }
    }

    @Test("A response cached without the stapling check never answers a provider that requires it")
    func cachedResponseNotShared() async throws {
        try await withOCSPStaplingServer(.revoked) { server in
            let net = makeManager()
            net.cache = .memory(limit: 1 << 20)
            _ = try await net.perform(TestRequest<StaplingAnswer>(server.provider(requiresOCSPStapling: false), "/stapling.json"))
            func offline(_ requiresOCSPStapling: Bool) -> TestRequest<StaplingAnswer> {
                let request = TestRequest<StaplingAnswer>(server.provider(requiresOCSPStapling: requiresOCSPStapling), "/stapling.json")
                request.cachePolicy = .returnCacheDontLoad
                return request
            }
            #expect(try await net.perform(offline(false)).stapling == "revoked", "stored under the rules it was fetched with")
            let error = await networkError { try await net.perform(offline(true)) }
            #expect(error?.isCacheUnavailable == true, "the revoked server's answer came from the cache: \(String(describing: error))")
        }
    }
}
