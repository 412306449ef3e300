import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A successful unsafe request forgets what it may have changed (RFC 9111 section 4.4): its URL,
/// and its same-origin `Location` and `Content-Location`.
@Suite("POST, PUT, PATCH and DELETE invalidate what they change", .sharing)
struct LiveCacheInvalidationTests {
    @Test("A successful POST, PUT, PATCH or DELETE to a URL makes its next GET go to the server", arguments: [
        HTTPMethod.post, .put, .patch, .delete,
    ])
    func unsafeMethodInvalidatesItsURL(_ method: HTTPMethod) async throws {
        try await withCacheServer { server in
            try await server.configure("/resource", ["headers": [["Cache-Control", "max-age=600"]], "body": "resource {count}"])
            try await server.configure("/resource", method: method.rawValue, ["status": 204, "headers": [] as [[String]]])
            let net = makeCachingManager()
            _ = try await net.text(server, "/resource")
            let hit = try await net.text(server, "/resource")
            let change = try await net.response(server, "/resource", method: method)
            let after = try await net.text(server, "/resource")
            #expect(hit.status == .hit && change.cacheStatus == .miss)
            #expect(after.status == .miss && after.text == "resource 3")
            #expect(try await server.count("/resource").methods == ["GET": 2, method.rawValue: 1])
        }
    }

    @Test("Its same-origin Location and Content-Location are invalidated too; another origin's and other URLs are not")
    func locations() async throws {
        try await withCacheServer { server in
            for path in ["/items/7", "/items/7/view", "/items/other", "/elsewhere"] {
                try await server.configure(path, ["headers": [["Cache-Control", "max-age=600"]]])
            }
            try await server.configure("/items", method: "POST", ["status": 201, "headers": [
                ["Location", "/items/7"], ["Content-Location", "view"],
            ]])
            try await server.configure("/items/7/view", method: "POST", ["status": 201, "headers": [
                ["Location", "http://localhost:\(server.port)/elsewhere"],
            ]])
            let net = makeCachingManager()
            let localhost = TestProvider(host: "localhost", httpScheme: .http, port: server.port)
            let cached = ["/items/7", "/items/7/view", "/items/other"]
            for path in cached { _ = try await net.text(server, path) }
            _ = try await net.perform(CachedText(server, "/elsewhere", provider: localhost))
            _ = try await net.response(server, "/items", method: .post)
            // Content-Location "view" resolves against /items to /items/view: not stored, nothing to do.
            _ = try await net.response(server, "/items/7/view", method: .post)
            var statuses: [String: CacheStatus?] = [:]
            for path in cached { statuses[path] = try await net.text(server, path).status }
            let elsewhere = try await net.performWithResponse(CachedText(server, "/elsewhere", provider: localhost)).response
            #expect(statuses == ["/items/7": .miss, "/items/7/view": .miss, "/items/other": .hit])
            #expect(elsewhere.cacheStatus == .hit, "http://localhost is another origin than http://127.0.0.1")
        }
    }

    @Test("A failed POST invalidates nothing")
    func failureInvalidatesNothing() async throws {
        try await withCacheServer { server in
            try await server.configure("/kept", ["headers": [["Cache-Control", "max-age=600"]]])
            try await server.configure("/kept", method: "POST", ["status": 500, "headers": [] as [[String]]])
            let net = makeCachingManager()
            _ = try await net.text(server, "/kept")
            let failed = try await net.response(server, "/kept", method: .post)
            let after = try await net.text(server, "/kept")
            #expect(failed.statusCode == 500 && after.status == .hit)
        }
    }

    @Test("An upload goes around the cache but still invalidates the URL it changed")
    func uploadInvalidates() async throws {
        try await withCacheServer { server in
            try await server.configure("/avatar", ["headers": [["Cache-Control", "max-age=600"]], "body": "avatar {count}"])
            try await server.configure("/avatar", method: "PUT", ["status": 204, "headers": [] as [[String]]])
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("nl-cache-upload-\(UUID().uuidString)")
            try Data("new picture".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let net = makeCachingManager()
            _ = try await net.text(server, "/avatar")
            let upload = try await net.performWithResponse(
                BodyRequest<EmptyResponse>(server.provider(), "/avatar", method: .put, body: .file(file, contentType: "image/png"))).response
            let after = try await net.text(server, "/avatar")
            #expect(upload.cacheStatus == .miss)
            #expect(after.status == .miss && after.text == "avatar 3")
        }
    }
}
