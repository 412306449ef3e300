import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// One page of `/pages/<n>`.
struct Page: Decodable, Sendable {
    let page: Int
    let items: [Int]
}

/// A page of a list, by the absolute URL a `Link` header named.
final class NextPage: BaseRequest<Page> {}

/// The `rel="next"` URL of a `Link` header, if any.
func nextLink(in response: HTTPResponse) -> URL? {
    for value in response.value(forHeader: "Link")?.split(separator: ",") ?? [] {
        let parts = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.dropFirst().contains("rel=\"next\""), let target = parts.first,
              target.hasPrefix("<"), target.hasSuffix(">") else { continue }
        return URL(string: String(target.dropFirst().dropLast()))
    }
    return nil
}

@Suite("Requests for a full URL", .sharing)
struct AbsoluteURLTests {
    @Test("A Link-header pagination walk: each next page is requested by its absolute URL, with the provider's credentials")
    func paginationWalk() async throws {
        let server = try await TestServer.shared()
        let provider = InterceptingProvider(port: server.port, authentication: .bearer("walk-token"))
        let net = makeManager()
        var (page, response) = try await net.performWithResponse(TestRequest<Page>(provider, "/pages/1?last=4&per=3"))
        var items = page.items
        var urls: [String] = []
        while let next = nextLink(in: response) {
            urls.append(next.absoluteString)
            (page, response) = try await net.performWithResponse(NextPage(serviceProvider: provider, url: next))
        }
        #expect(page.page == 4)
        #expect(items + [] == [1, 2, 3])
        items = []
        #expect(urls == (2...4).map { "http://127.0.0.1:\(server.port)/pages/\($0)?last=4&per=3" })
        // The same origin as the provider's: its adapt and credentials go with it.
        #expect(provider.calls.values.count == 4)
    }

    @Test("A full URL at the provider's origin gets its credentials, secret headers and adapt; params join its query")
    func homeOrigin() async throws {
        let server = try await TestServer.shared()
        let provider = InterceptingProvider(port: server.port, authentication: .apiKey("k-1", queryItem: "api_key"),
                                            headers: ["X-Tenant": "t-1"], secretHeaderNames: ["X-Tenant"])
        let request = BaseRequest<Echo>(serviceProvider: provider, url: URL(string: "http://127.0.0.1:\(server.port)/echo?a=1")!)
        request.params = ["b": 2]
        let echo = try await makeManager().perform(request)
        #expect(echo.args["a"] == ["1"])
        #expect(echo.args["b"] == ["2"])
        #expect(echo.args["api_key"] == ["k-1"])
        #expect(echo.header("X-Tenant") == "t-1")
        #expect(provider.calls.values == ["adapt provider.adapt"])
    }

    @Test("A full URL of another origin (another port) gets neither credentials nor secret headers nor the provider's adapt; public headers go")
    func otherOrigin() async throws {
        let server = try await TestServer.shared()
        try await withTestServer { other in
            let provider = InterceptingProvider(port: server.port, authentication: .bearer("home-only"),
                                                headers: ["X-Tenant": "t-1", "Accept": "application/json", "X-Session-Token": "s"],
                                                secretHeaderNames: ["X-Tenant"])
            let log = LogCollector()
            let echo = try await makeManager(log: log).perform(
                BaseRequest<Echo>(serviceProvider: provider, url: URL(string: "http://127.0.0.1:\(other.port)/echo/presigned?X-Amz-Signature=abcd1234")!))
            #expect(echo.path == "/echo/presigned")
            #expect(echo.header("Authorization") == nil)
            #expect(echo.header("X-Tenant") == nil)
            #expect(echo.header("X-Session-Token") == nil)
            #expect(echo.header("Accept") == "application/json")
            #expect(provider.calls.values.isEmpty)
            #expect(!log.text.contains("home-only"))
            // A signature-looking query item is redacted wherever the URL is shown.
            #expect(!log.text.contains("abcd1234"))
        }
    }

    @Test("A scheme other than http or https is .invalidRequest before anything is sent", arguments: ["ftp://127.0.0.1/x", "file:///etc/passwd", "gopher://h/x", "ws://127.0.0.1/x"])
    func otherSchemes(url: String) async throws {
        let server = try await TestServer.shared()
        let outcome = await FaultOutcome { () throws(NetworkError) in
            try await makeManager().perform(BaseRequest<Echo>(serviceProvider: server.provider(), url: URL(string: url)!))
        }
        #expect(outcome.error?.caseName == "invalidRequest", "\(outcome)")
        #expect(outcome.error?.context?.reason?.contains("only http and https") == true)
    }
}
