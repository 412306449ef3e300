import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What the cache stores when it sits in the pipeline, proved by the server's counts: a response
/// served from the cache is a request the server never saw.
@Suite("The response cache stores what RFC 9111 allows", .sharing)
struct LiveCacheStoringTests {
    @Test("A fresh 200 answers the next request without the network: MISS, then HIT with the same body")
    func freshResponseIsServedFromCache() async throws {
        try await withCacheServer { server in
            try await server.configure("/fresh", ["headers": [["Cache-Control", "max-age=60"]], "body": "fresh {count}"])
            let net = makeCachingManager()
            let first = try await net.text(server, "/fresh")
            let second = try await net.text(server, "/fresh")
            #expect(first.text == "fresh 1" && first.status == .miss)
            #expect(second.text == "fresh 1" && second.status == .hit)
            #expect(try await server.hits("/fresh") == 1)
        }
    }

    @Test("Without a cache every request reaches the server and cacheStatus is nil")
    func noCacheNoStatus() async throws {
        try await withCacheServer { server in
            let net = makeManager()
            let first = try await net.text(server, "/plain")
            let second = try await net.text(server, "/plain")
            #expect(first.status == nil && second.status == nil)
            #expect(try await server.hits("/plain") == 2)
        }
    }

    @Test("Statuses cacheable by default are stored with heuristic freshness; others, and 206, are not")
    func statusList() async throws {
        try await withCacheServer { server in
            let net = makeCachingManager()
            // Last-Modified ten days ago: a heuristic lifetime of a day where the status allows one.
            let heuristic = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]
            let never = [201, 202, 302, 303, 307, 400, 403, 500, 503]
            for status in heuristic + never {
                try await server.configure("/status/\(status)", ["status": status, "headers": [] as [[String]], "lastModified": -864_000,
                                                                 "body": "s"])
                _ = try await net.response(server, "/status/\(status)")
                let second = try await net.response(server, "/status/\(status)")
                let stored = heuristic.contains(status)
                #expect(second.statusCode == status)
                #expect(try await server.hits("/status/\(status)") == (stored ? 1 : 2), "status \(status)")
                #expect(second.cacheStatus == (stored ? .hit : .miss), "status \(status)")
            }
            // Explicit freshness makes any final status storable; 206 never is.
            try await server.configure("/explicit302", ["status": 302, "headers": [["Cache-Control", "max-age=60"]], "body": "s"])
            try await server.configure("/partial", ["status": 206, "headers": [["Cache-Control", "max-age=60"], ["Content-Range", "bytes 0-0/10"]],
                                                    "body": "s"])
            for path in ["/explicit302", "/partial"] {
                _ = try await net.response(server, path)
                _ = try await net.response(server, path)
            }
            #expect(try await server.hits("/explicit302") == 1)
            #expect(try await server.hits("/partial") == 2)
        }
    }

    @Test("no-store in the response stores nothing; private is stored (a private cache)")
    func noStoreAndPrivate() async throws {
        try await withCacheServer { server in
            try await server.configure("/no-store", ["headers": [["Cache-Control", "no-store, max-age=60"]]])
            try await server.configure("/private", ["headers": [["Cache-Control", "private, max-age=60"]]])
            let net = makeCachingManager()
            for path in ["/no-store", "/private"] {
                _ = try await net.text(server, path)
                _ = try await net.text(server, path)
            }
            #expect(try await server.hits("/no-store") == 2)
            #expect(try await server.hits("/private") == 1)
        }
    }

    @Test("A HEAD is never answered from the cache; its 200 updates the stored GET's headers")
    func headUpdatesGet() async throws {
        try await withCacheServer { server in
            try await server.configure("/doc", ["headers": [["Cache-Control", "max-age=60"], ["X-Version", "1"]], "etag": "\"a\""])
            let net = makeCachingManager()
            _ = try await net.text(server, "/doc")
            try await server.configure("/doc", ["headers": [["Cache-Control", "max-age=60"], ["X-Version", "2"]], "etag": "\"a\""])
            let head = try await net.response(server, "/doc", method: .head)
            let get = try await net.response(server, "/doc")
            #expect(head.cacheStatus == .miss && head.value(forHeader: "X-Version") == "2")
            #expect(get.cacheStatus == .hit && get.value(forHeader: "X-Version") == "2")
            #expect(try await server.count("/doc").methods == ["GET": 1, "HEAD": 1])
        }
    }

    @Test("A response to a request with credentials is kept in memory only; the provider's opt-in puts it on disk, without a secret")
    func authorizedResponsesStayInMemory() async throws {
        try await withCacheServer { server in
            try await server.configure("/me", ["headers": [["Cache-Control", "max-age=60"], ["X-Tenant-Key", "tenant-secret-value"],
                                                           ["Set-Cookie", "sid=cookie-secret-value"]], "body": "me {count}"])
            // Authorization (a bearer token), or an API key in a header of its own: credentials either way.
            let authentications: [Authentication] = [.bearer("bearer-secret-value"), .apiKey("bearer-secret-value", header: "X-Key")]
            for (optIn, authentication) in [false, true].flatMap({ optIn in authentications.map { (optIn, $0) } }) {
                let directory = temporaryCacheDirectory("authorized\(optIn)")
                defer { try? FileManager.default.removeItem(at: directory) }
                let net = makeCachingManager(.disk(directory: directory, limit: 4 << 20))
                var provider = CachingAuthProvider(port: server.port, token: "bearer-secret-value", onDisk: optIn)
                provider.authenticationOverride = authentication
                let first = try await net.performWithResponse(CachedText(server, "/me", provider: provider)).response
                let second = try await net.performWithResponse(CachedText(server, "/me", provider: provider)).response
                #expect(first.cacheStatus == .miss && second.cacheStatus == .hit, "served from the cache either way (opt-in \(optIn))")
                let files = try cacheFiles(in: directory)
                #expect(files.contains { $0.name.hasSuffix(".nlc") } == optIn, "an entry on disk only with the opt-in")
                for file in files {
                    for secret in ["bearer-secret-value", "tenant-secret-value", "cookie-secret-value"] {
                        #expect(!file.bytes.containsBytes(Array(secret.utf8)), "\(secret) in \(file.name)")
                    }
                }
            }
            #expect(try await server.hits("/me") == 4)
        }
    }

    @Test("A stored response is served only to a request with the same credentials")
    func credentialsPartitionTheCache() async throws {
        try await withCacheServer { server in
            try await server.configure("/account", ["headers": [["Cache-Control", "max-age=60"]], "body": "account {count}"])
            let net = makeCachingManager()
            let ada = CachingAuthProvider(port: server.port, token: "ada-token")
            let bob = CachingAuthProvider(port: server.port, token: "bob-token")
            let first = try await net.perform(CachedText(server, "/account", provider: ada))
            let other = try await net.perform(CachedText(server, "/account", provider: bob))
            let again = try await net.perform(CachedText(server, "/account", provider: ada))
            #expect(first == "account 1" && other == "account 2" && again == "account 1")
            #expect(try await server.hits("/account") == 2)
        }
    }
}

/// A loopback provider with a bearer token, declaring `X-Tenant-Key` secret.
struct CachingAuthProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme = .http
    var port: Int?
    var token: String
    var onDisk = false
    var authenticationOverride: Authentication?
    var authentication: Authentication? { authenticationOverride ?? .bearer(token) }
    var secretHeaderNames: Set<String> { ["X-Tenant-Key"] }
    var cachesAuthorizedResponsesOnDisk: Bool { onDisk }
    func createHTTPHeaders() -> [String: String] { ["X-Tenant-Key": "tenant-secret-value"] }

    init(port: Int, token: String, onDisk: Bool = false) {
        self.port = port
        self.token = token
        self.onDisk = onDisk
    }
}

/// Every regular file of a cache directory, with its bytes.
func cacheFiles(in directory: URL) throws -> [(name: String, bytes: [UInt8])] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).compactMap { name in
        let url = directory.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        return (name, [UInt8](data))
    }
}
