import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `Vary` keeps variants apart by the request headers it names (RFC 9111 section 4.1), among
/// them the ones libcurl adds and the cookie store's.
@Suite("Stored variants are selected by the headers Vary names", .sharing)
struct LiveCacheVaryTests {
    @Test("One variant per value of the named header; names ignore case, values white space")
    func variantsByHeader() async throws {
        try await withCacheServer { server in
            try await server.configure("/greeting", ["headers": [["Cache-Control", "max-age=600"], ["Vary", "x-LANG"]],
                                                     "body": "greeting {count}"])
            let net = makeCachingManager()
            let english = try await net.text(server, "/greeting", headers: ["X-Lang": "en, de"])
            let french = try await net.text(server, "/greeting", headers: ["X-Lang": "fr"])
            let none = try await net.text(server, "/greeting")
            let englishAgain = try await net.text(server, "/greeting", headers: ["x-lang": "en ,   de"])
            let frenchAgain = try await net.text(server, "/greeting", headers: ["X-LANG": "fr"])
            let noneAgain = try await net.text(server, "/greeting")
            #expect([english.text, french.text, none.text] == ["greeting 1", "greeting 2", "greeting 3"])
            #expect([englishAgain.text, frenchAgain.text, noneAgain.text] == ["greeting 1", "greeting 2", "greeting 3"])
            #expect([englishAgain.status, frenchAgain.status, noneAgain.status] == [.hit, .hit, .hit])
            #expect(try await server.hits("/greeting") == 3)
        }
    }

    @Test("Vary: * never matches a later request")
    func varyStar() async throws {
        try await withCacheServer { server in
            try await server.configure("/star", ["headers": [["Cache-Control", "max-age=600"], ["Vary", "*"]]])
            let net = makeCachingManager()
            _ = try await net.text(server, "/star")
            let second = try await net.text(server, "/star")
            #expect(second.status == .miss)
            #expect(try await server.hits("/star") == 2)
        }
    }

    @Test("The cache selects on the Accept-Encoding libcurl adds, as the server received it")
    func acceptEncodingLibcurlAdds() async throws {
        try await withCacheServer { server in
            try await server.configure("/encoded", ["headers": [["Cache-Control", "max-age=600"], ["Vary", "Accept-Encoding"]],
                                                    "body": "encoded {count}"])
            let net = makeCachingManager()
            let libcurls = TransferPlan.acceptedEncodings
            // Stored for the request that named libcurl's own value; the next one, which names none,
            // sends that same value (libcurl adds it), so it selects the stored variant.
            let named = try await net.text(server, "/encoded", headers: ["Accept-Encoding": libcurls])
            let added = try await net.text(server, "/encoded")
            let identity = try await net.text(server, "/encoded", headers: ["Accept-Encoding": "identity"])
            #expect(named.status == .miss && added.status == .hit && added.text == "encoded 1")
            #expect(identity.status == .miss && identity.text == "encoded 2")
            let requests = try await server.count("/encoded").requests
            #expect(requests.map { $0.headers["Accept-Encoding"] } == [libcurls, "identity"])
        }
    }

    @Test("A gzip response is stored decoded and served decoded, its Content-Encoding kept as received")
    func compressedBody() async throws {
        try await withCacheServer { server in
            let body = String(repeating: "compressible text ", count: 200) + "{count}"
            try await server.configure("/gzipped", ["headers": [["Cache-Control", "max-age=600"], ["Vary", "Accept-Encoding"]],
                                                    "gzip": true, "body": body])
            let net = makeCachingManager()
            let first = try await net.performWithResponse(CachedText(server, "/gzipped"))
            let second = try await net.performWithResponse(CachedText(server, "/gzipped"))
            #expect(first.response.value(forHeader: "Content-Encoding") == "gzip")
            #expect(second.response.cacheStatus == .hit && second.value == first.value)
            #expect(second.response.value(forHeader: "Content-Encoding") == "gzip")
            #expect(second.value.hasSuffix("compressible text 1"))
            #expect(try await server.hits("/gzipped") == 1)
        }
    }

    @Test("The cookie store's Cookie keys the variant: after the cookies are gone the stored response no longer answers")
    func cookieStoreCookie() async throws {
        try await withCacheServer { server in
            try await server.configure("/login", ["headers": [["Set-Cookie", "sid=session-one; Path=/"], ["Cache-Control", "no-store"]]])
            try await server.configure("/dashboard", ["headers": [["Cache-Control", "max-age=600"], ["Vary", "Cookie"]],
                                                      "body": "dashboard {count}"])
            let net = makeCachingManager()
            net.cookieStorage = .inMemory
            _ = try await net.text(server, "/login")
            let signedIn = try await net.text(server, "/dashboard")
            let again = try await net.text(server, "/dashboard")
            net.removeAllCookies()
            let signedOut = try await net.text(server, "/dashboard")
            #expect(signedIn.text == "dashboard 1" && again.status == .hit)
            #expect(signedOut.status == .miss && signedOut.text == "dashboard 2")
            let requests = try await server.count("/dashboard").requests
            #expect(requests.map { $0.headers["Cookie"] } == ["sid=session-one", nil])
        }
    }
}
