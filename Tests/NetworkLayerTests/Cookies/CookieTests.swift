import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Cookies through libcurl's cookie engine, shared among one manager's transfers, against httpbin
/// and the Unix-socket server (for a host name that is not localhost).
@Suite("Cookies", .sharing)
struct CookieTests {
    private func manager(_ storage: CookieStorage = .inMemory, log: LogCollector? = nil) -> NetworkManager {
        let net = makeManager(log: log)
        net.cookieStorage = storage
        return net
    }

    @Test("Off by default: a manager stores no cookie and sends none")
    func offByDefault() async throws {
        let httpbin = try await HTTPBinServer.shared()
        let net = makeManager()
        #expect(net.cookieStorage == .none)
        let afterSet = try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies/set", params: ["session": "abc"]))
        #expect(afterSet.cookies.isEmpty)
        #expect(try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies")).cookies.isEmpty)
        #expect(net.cookies(for: URL(string: "http://127.0.0.1:\(httpbin.port)/")!).isEmpty)
    }

    @Test("/cookies/set stores a cookie, applied already on its redirect's next hop; /cookies sends it; /cookies/delete removes it")
    func setSendDelete() async throws {
        let httpbin = try await HTTPBinServer.shared()
        let net = manager()
        // /cookies/set answers 302 to /cookies with Set-Cookie: the next hop already carries it.
        let redirected = try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies/set",
                                                                             params: ["session": "abc", "theme": "dark"]))
        #expect(redirected.cookies == ["session": "abc", "theme": "dark"])
        #expect(try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies")).cookies
                == ["session": "abc", "theme": "dark"])
        let url = URL(string: "http://127.0.0.1:\(httpbin.port)/anything")!
        let stored = net.cookies(for: url).sorted { $0.name < $1.name }
        #expect(stored == [Cookie(name: "session", value: "abc", domain: "127.0.0.1", path: "/"),
                           Cookie(name: "theme", value: "dark", domain: "127.0.0.1", path: "/")], "\(stored)")
        #expect(net.cookies(for: URL(string: "http://localhost:\(httpbin.port)/")!).isEmpty)

        let afterDelete = try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies/delete", params: ["session": ""]))
        #expect(afterDelete.cookies == ["theme": "dark"])
        #expect(net.cookies(for: url).map(\.name) == ["theme"])

        net.removeAllCookies()
        #expect(net.cookies(for: url).isEmpty)
        #expect(try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies")).cookies.isEmpty)
    }

    @Test("An expired cookie is not stored, and a cookie set again with Max-Age=0 is removed")
    func expiredCookies() async throws {
        let httpbin = try await HTTPBinServer.shared()
        let net = manager()
        _ = try await net.perform(TestRequest<JSONValue>(httpbin.provider(), "/response-headers",
                                                         params: ["Set-Cookie": "old=1; Path=/; Expires=Thu, 01 Jan 1970 00:00:01 GMT"]))
        _ = try await net.perform(TestRequest<JSONValue>(httpbin.provider(), "/response-headers",
                                                         params: ["Set-Cookie": "later=2; Path=/; Max-Age=3600"]))
        let url = URL(string: "http://127.0.0.1:\(httpbin.port)/")!
        let stored = net.cookies(for: url)
        #expect(stored.map(\.name) == ["later"], "\(stored)")
        let expires = try #require(stored.first?.expires)
        #expect(abs(expires.timeIntervalSinceNow - 3600) < 120)
        #expect(try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies")).cookies == ["later": "2"])

        _ = try await net.perform(TestRequest<JSONValue>(httpbin.provider(), "/response-headers",
                                                         params: ["Set-Cookie": "later=gone; Path=/; Max-Age=0"]))
        #expect(net.cookies(for: url).isEmpty)
        #expect(try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies")).cookies.isEmpty)
    }

    @Test("A Secure cookie is neither accepted nor sent over plain http to a host that is not localhost")
    func secureCookieNotOverHTTP() async throws {
        let file = temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file) }
        // A store that already holds a Secure and a plain cookie for cookies.test (as if set over https).
        try """
            # Netscape HTTP Cookie File
            cookies.test\tFALSE\t/\tTRUE\t0\tsecure\tover-tls-only
            cookies.test\tFALSE\t/\tFALSE\t0\tplain\tanywhere

            """.write(to: file, atomically: true, encoding: .utf8)
        try await withUnixSocketServer { server in
            let net = manager(.file(file))
            let provider = server.provider(host: "cookies.test")
            let echo = try await net.perform(TestRequest<SocketEcho>(provider, "/echo"))
            #expect(echo.cookie == "plain=anywhere")
            // Over plain http, a server cannot set a Secure cookie either.
            _ = try await net.perform(TestRequest<SocketEcho>(provider, "/set-secure-cookie/sneaky"))
            _ = try await net.perform(TestRequest<SocketEcho>(provider, "/set-cookie/visible"))
            let sent = try await net.perform(TestRequest<SocketEcho>(provider, "/echo")).cookie ?? ""
            #expect(Set(sent.components(separatedBy: "; ")) == ["plain=anywhere", "visible=s3cr3t-visible"], "\(sent)")
            #expect(Set(net.cookies(for: URL(string: "http://cookies.test/")!).map(\.name)) == ["plain", "visible"])
            #expect(Set(net.cookies(for: URL(string: "https://cookies.test/")!).map(\.name)) == ["plain", "secure", "visible"])
        }
    }

    @Test("A file store is written after each response in the Netscape format, loaded by the next manager, and emptied by removeAllCookies")
    func persistence() async throws {
        let httpbin = try await HTTPBinServer.shared()
        let file = temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let first = manager(.file(file))
        _ = try await first.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies/set", params: ["kept": "yes"]))
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("127.0.0.1\tFALSE\t/\tFALSE\t0\tkept\tyes"), "\(text)")

        let second = manager(.file(file))
        let url = URL(string: "http://127.0.0.1:\(httpbin.port)/")!
        #expect(second.cookies(for: url) == [Cookie(name: "kept", value: "yes", domain: "127.0.0.1")])
        #expect(try await second.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies")).cookies == ["kept": "yes"])

        second.removeAllCookies()
        #expect(!(try String(contentsOf: file, encoding: .utf8)).contains("kept"))
        let third = manager(.file(file))
        #expect(third.cookies(for: url).isEmpty)
        #expect(try await third.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies")).cookies.isEmpty)
    }

    @Test("Two managers do not see each other's cookies, and a manager without a store sends none after them")
    func managersAreIsolated() async throws {
        let httpbin = try await HTTPBinServer.shared()
        let alice = manager(), bob = manager()
        _ = try await alice.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies/set", params: ["user": "alice"]))
        _ = try await bob.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies/set", params: ["user": "bob", "bob_only": "1"]))
        #expect(try await alice.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies")).cookies == ["user": "alice"])
        #expect(try await bob.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies")).cookies == ["user": "bob", "bob_only": "1"])
        // Concurrently too: each request carries its own manager's cookies.
        try await withThrowingTaskGroup(of: (String, [String: String]).self) { group in
            for index in 0..<20 {
                let (name, net) = index.isMultiple(of: 2) ? ("alice", alice) : ("bob", bob)
                group.addTask { (name, try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies")).cookies) }
            }
            for try await (name, cookies) in group { #expect(cookies["user"] == name) }
        }
        let none = makeManager()
        #expect(try await none.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies")).cookies.isEmpty)
        alice.removeAllCookies()
        #expect(try await bob.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies")).cookies["user"] == "bob")
    }

    @Test("The store survives closeIdleConnections and a change of pins (which give transfers fresh connection caches)")
    func storeSurvivesNewCaches() async throws {
        let httpbin = try await HTTPBinServer.shared()
        let net = manager()
        _ = try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies/set", params: ["kept": "1"]))
        net.closeIdleConnections()
        #expect(try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies")).cookies == ["kept": "1"])
        try net.configurePinning([PinningRule(hosts: ["pinned.example"], publicKeyHashes: [try pin(of: "localhost.pem")])], isEnabled: true)
        _ = try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies/set", params: ["after": "2"]))
        #expect(try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies")).cookies == ["kept": "1", "after": "2"])
    }

    @Test("A Cookie header set by the user wins: sent alone, and its response's cookies are not stored")
    func userCookieHeaderWins() async throws {
        let httpbin = try await HTTPBinServer.shared()
        let net = manager()
        _ = try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies/set", params: ["stored": "1"]))
        let mine = try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies", headers: ["cookie": "mine=x"]))
        #expect(mine.cookies == ["mine": "x"])
        #expect(try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies")).cookies == ["stored": "1"])
    }

    @Test("Cookie values never reach the log, the structured entries or a recorded sidecar")
    func valuesAreRedacted() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cookie-record-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withUnixSocketServer { server in
            let log = LogCollector()
            let entries = LogEntryCollector()
            let net = makeManager(log: log, entries: entries)
            net.cookieStorage = .inMemory
            net.mockRecordingDirectory = directory
            _ = try await net.perform(TestRequest<SocketEcho>(server.provider(host: "cookies.test"), "/set-cookie/session"))
            let echo = try await net.perform(TestRequest<SocketEcho>(server.provider(host: "cookies.test"), "/echo"))
            #expect(echo.cookie == "session=s3cr3t-session")  // it was stored and sent…
            #expect(log.text.contains("Set-Cookie"))          // …its header was logged…
            #expect(!log.text.contains("s3cr3t-session"))     // …without its value
            #expect(!entries.all.contains { "\($0)".contains("s3cr3t-session") })
            let recorded = try FileManager.default.subpathsOfDirectory(atPath: directory.path)
            #expect(!recorded.isEmpty)
            for path in recorded {
                let data = (try? Data(contentsOf: directory.appendingPathComponent(path))) ?? Data()
                // The sidecar of the /set-cookie answer; the /echo body carries the Cookie header by design.
                guard path.contains("set-cookie") else { continue }
                #expect(!String(decoding: data, as: UTF8.self).contains("s3cr3t-session"), "\(path)")
            }
        }
    }

    @Test("Mock mode does not touch the store: a mocked Set-Cookie is not stored")
    func mockModeLeavesTheStore() async throws {
        let httpbin = try await HTTPBinServer.shared()
        let net = manager()
        _ = try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies/set", params: ["live": "1"]))
        net.areMocksEnabled = true
        net.mocks.register(.get, "/mocked", .data(Data("{\"cookies\": {}}".utf8), headers: ["Set-Cookie": "mocked=1; Path=/"]))
        _ = try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/mocked"))
        let url = URL(string: "http://127.0.0.1:\(httpbin.port)/")!
        #expect(net.cookies(for: url).map(\.name) == ["live"])
        net.areMocksEnabled = false
        #expect(try await net.perform(TestRequest<HTTPBinCookies>(httpbin.provider(), "/cookies")).cookies == ["live": "1"])
    }
}
