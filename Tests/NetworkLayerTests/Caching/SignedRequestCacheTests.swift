import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A signed request and the response cache: the README's own signer (a timestamped HMAC in
/// `X-Signature`, its key id in `X-Key-ID`) is served from the cache the second time, and two
/// keys never share a response. The cache server records what it received, and the signature is
/// checked against the test support's own HMAC.
@Suite("Signed requests and the cache key", .sharing)
struct SignedRequestCacheTests {
    @Test("The README's signer is the one tested")
    func readmeSignerIsTheTestedOne() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let support = try String(contentsOf: testsDirectory.appendingPathComponent("NetworkLayerTests/Support/Providers/ReadmeSigner.swift"),
                                 encoding: .utf8)
        let fromReadme = try #require(ReadmeSigner.signerDeclaration(in: readme))
        #expect(fromReadme == ReadmeSigner.signerDeclaration(in: support), "copy README.md's Signer into ReadmeSigner.swift")
    }

    /// Waits until the clock's second changes, so that the next signature differs from the last.
    private func nextSecond() async throws {
        let now = Int(Date().timeIntervalSince1970)
        while Int(Date().timeIntervalSince1970) == now { try await Task.sleep(for: .milliseconds(20)) }
    }

    @Test("A signed request is served from the cache the second time, though its signature changed; the server got a valid one")
    func signedRequestIsServedFromTheCache() async throws {
        try await withCacheServer { server in
            try await server.configure("/signed", ["headers": [["Cache-Control", "max-age=60"]], "body": "signed #{count}"])
            let net = makeCachingManager()
            net.interceptors = [ReadmeSigner.Signer(keyID: "shop-1", key: "key-one")]
            let (first, firstResponse) = try await net.performWithResponse(CachedText(server, "/signed"))
            try await nextSecond()
            let (second, secondResponse) = try await net.performWithResponse(CachedText(server, "/signed"))
            #expect(first == "signed #1" && second == "signed #1")
            #expect(firstResponse.cacheStatus == .miss && secondResponse.cacheStatus == .hit)
            let count = try await server.count("/signed")
            #expect(count.count == 1, "the second request reached the server")
            let received = try #require(count.requests.first?.headers)
            let timestamp = try #require(received["X-Timestamp"])
            #expect(received["X-Key-ID"] == "shop-1")
            #expect(received["X-Signature"] == HMACSHA256.hex(key: "key-one", message: "GET\n/signed\n\(timestamp)\n"))
        }
    }

    @Test("Two keys never share a cached response; each is served its own")
    func twoOwnersNeverShare() async throws {
        try await withCacheServer { server in
            try await server.configure("/account", ["headers": [["Cache-Control", "max-age=60"]], "body": "account #{count}"])
            let net = makeCachingManager()
            let one = ReadmeSigner.Signer(keyID: "shop-1", key: "key-one"), two = ReadmeSigner.Signer(keyID: "shop-2", key: "key-two")
            func fetch(_ signer: ReadmeSigner.Signer) async throws -> (String, CacheStatus?) {
                let request = CachedText(server, "/account")
                request.interceptors = [signer]
                let (text, response) = try await net.performWithResponse(request)
                return (text, response.cacheStatus)
            }
            #expect(try await fetch(one) == ("account #1", .miss))
            #expect(try await fetch(two) == ("account #2", .miss), "the second key was served the first key's response")
            #expect(try await fetch(one) == ("account #1", .hit))
            #expect(try await fetch(two) == ("account #2", .hit))
            #expect(try await server.hits("/account") == 2)
        }
    }

    /// An interceptor that sets one header as told.
    struct SetsHeader: RequestInterceptor {
        let name: String
        let value: @Sendable () -> String
        let secret: Bool?
        var identifiesCaller: Bool?
        func adapt(_ request: inout OutgoingRequest) async throws {
            switch (secret, identifiesCaller) {
            case (let secret?, let identifies?): request.setHeader(name, value(), secret: secret, identifiesCaller: identifies)
            case (let secret?, nil): request.setHeader(name, value(), secret: secret)
            default: request.setHeader(name, value())
            }
        }
    }

    @Test("A secret header still keys the cache unless declared per attempt: a new value is a new owner")
    func secretHeadersKeyTheCacheByDefault() async throws {
        try await withCacheServer { server in
            let counter = Counter()
            let nonce: @Sendable () -> String = { "nonce-\(counter.increment())" }
            for (secret, identifies, served) in [(Bool?.none, Bool?.none, false), (true, nil, false), (true, false, true)] {
                try await server.reset()
                try await server.configure("/nonce", ["headers": [["Cache-Control", "max-age=60"]], "body": "nonce #{count}"])
                let net = makeCachingManager()
                net.interceptors = [SetsHeader(name: "X-Request-Token", value: nonce, secret: secret, identifiesCaller: identifies)]
                _ = try await net.performWithResponse(CachedText(server, "/nonce"))
                let second = try await net.performWithResponse(CachedText(server, "/nonce")).response
                #expect((second.cacheStatus == .hit) == served, "secret: \(String(describing: secret)), identifiesCaller: \(String(describing: identifies))")
            }
        }
    }

    @Test("A signature in Authorization declared per attempt leaves the key (still redacted); a key id declared identifying keys it")
    func authorizationPerAttempt() async throws {
        try await withCacheServer { server in
            try await server.configure("/signed-auth", ["headers": [["Cache-Control", "max-age=60"]], "body": "auth #{count}"])
            let log = LogCollector()
            let net = makeCachingManager(log: log)
            let counter = Counter()
            func fetch(keyID: String) async throws -> (String, CacheStatus?) {
                let request = CachedText(server, "/signed-auth")
                request.interceptors = [
                    SetsHeader(name: "Authorization", value: { "HMAC key=\(keyID), signature=sig-canary-\(counter.increment())" },
                               secret: true, identifiesCaller: false),
                    SetsHeader(name: "X-Key-ID", value: { keyID }, secret: false, identifiesCaller: true),
                ]
                let (text, response) = try await net.performWithResponse(request)
                return (text, response.cacheStatus)
            }
            #expect(try await fetch(keyID: "a") == ("auth #1", .miss))
            #expect(try await fetch(keyID: "a") == ("auth #1", .hit))
            #expect(try await fetch(keyID: "b") == ("auth #2", .miss))
            #expect(!log.text.contains("sig-canary"), "the Authorization value was shown")
        }
    }

    @Test("secret: false means what it says: a secret-looking name is shown and leaves the key; Authorization stays secret")
    func secretFalseMeansPublic() async throws {
        try await withCacheServer { server in
            try await server.configure("/public", ["headers": [["Cache-Control", "max-age=60"]], "body": "public #{count}"])
            let log = LogCollector()
            let net = makeCachingManager(log: log)
            let counter = Counter()
            net.interceptors = [
                SetsHeader(name: "X-Signature", value: { "visible-signature-\(counter.increment())" }, secret: false),
                SetsHeader(name: "Authorization", value: { "Bearer hidden-token-42" }, secret: false),
            ]
            let first = try await net.performWithResponse(CachedText(server, "/public")).response
            let second = try await net.performWithResponse(CachedText(server, "/public")).response
            #expect(first.cacheStatus == .miss && second.cacheStatus == .hit, "a public header changed the key")
            #expect(log.text.contains("X-Signature: visible-signature-1"), "\(log.text)")
            #expect(!log.text.contains("hidden-token-42"), "Authorization was shown")
            let curl = try await net.curlCommand(for: CachedText(server, "/public"))
            #expect(curl.contains("X-Signature: visible-signature-3") && !curl.contains("hidden-token-42"), "\(curl)")
        }
    }

    @Test("A name declared secret elsewhere stays secret, whatever an interceptor says")
    func declaredSecretWins() async throws {
        try await withCacheServer { server in
            let log = LogCollector()
            let net = makeCachingManager(log: log)
            net.redactedHeaderNames = ["X-Tenant-Proof"]
            net.interceptors = [SetsHeader(name: "X-Tenant-Proof", value: { "tenant-proof-canary" }, secret: false)]
            _ = try await net.performWithResponse(CachedText(server, "/declared"))
            #expect(!log.text.contains("tenant-proof-canary"), "\(log.text)")
        }
    }
}
