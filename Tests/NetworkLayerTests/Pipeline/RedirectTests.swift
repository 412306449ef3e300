import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Redirects are followed, at most 10, and only to http or https, as URLSession does.
/// `/redirect/<n>` redirects n+1 times: through /redirect/n-1 ... /redirect/0, then to /echo.
@Suite("Redirects", .sharing)
struct RedirectTests {
    @Test("A chain of redirects is followed to the end; the response's URL is the final one")
    func followed() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/redirect/3"))
        #expect(echo.path == "/echo")
        #expect(echo.method == "GET")

        let response = try await Net.perform(TestRequest<RawResponse>(server.rawProvider(), "/redirect/3"))
        #expect(response.statusCode == 200)
        #expect(response.url.absoluteString == "http://127.0.0.1:\(server.port)/echo")
    }

    @Test("Exactly 10 redirects are followed")
    func tenFollowed() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/redirect/9"))
        #expect(echo.path == "/echo")
    }

    @Test("An 11th redirect is refused with .transport", arguments: [10, 11, 30])
    func tooMany(_ start: Int) async throws {
        try await withTestServer { server in
            let error = await networkError { try await Net.perform(TestRequest<Echo>(server.provider(), "/redirect/\(start)")) }
            guard case .transport(let context)? = error else {
                Issue.record("expected .transport, got \(String(describing: error))")
                return
            }
            #expect(context.reason?.contains("redirected more than 10 times") == true, "\(String(describing: context.reason))")
            // The 12th request was never made: /redirect/(start-10) was the last one answered.
            let requestsReceived = try await server.receivedRequestCount()
            #expect(requestsReceived == 11)
        }
    }

    @Test("A redirect to another server is followed")
    func crossServer() async throws {
        let first = try await TestServer.shared()
        try await withTestServer { second in
            let target = "http://127.0.0.1:\(second.port)/echo/moved"
            let response = try await Net.perform(TestRequest<RawResponse>(first.rawProvider(), "/redirect-to",
                                                                         params: ["url": target, "status": 301]))
            #expect(response.statusCode == 200)
            #expect(response.url.absoluteString == target)
            let requestsReceived = try await second.receivedRequestCount()
            #expect(requestsReceived == 1)
        }
    }

    @Test("Redirects with 301, 302, 303, 307 and 308 are all followed", arguments: [301, 302, 303, 307, 308])
    func everyRedirectStatus(_ status: Int) async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/redirect-to",
                                                           params: ["url": "/echo/target", "status": status]))
        #expect(echo.path == "/echo/target")
    }

    @Test("A redirect to a file: (or any non-HTTP) URL is refused with .transport, and nothing of the file is read",
          arguments: ["file:///etc/passwd", "ftp://127.0.0.1/", "gopher://127.0.0.1/", "dict://127.0.0.1/"])
    func nonHTTPRedirectRefused(_ target: String) async throws {
        let server = try await TestServer.shared()
        let error = await networkError {
            try await Net.perform(TestRequest<RawResponse>(server.rawProvider(), "/redirect-to", params: ["url": target]))
        }
        guard case .transport(let context)? = error else {
            Issue.record("expected .transport, got \(String(describing: error))")
            return
        }
        // The reason says what was refused: a redirect, to that scheme.
        let scheme = String(target.prefix { $0 != ":" })
        #expect(context.reason?.contains("redirected") == true, "\(String(describing: context.reason))")
        #expect(context.reason?.contains(scheme) == true, "\(String(describing: context.reason))")
        #expect(error?.errorDescription?.contains("root:") == false)
    }
}
