import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

@Suite("Redirect policies", .sharing)
struct RedirectPolicyTests {
    static let statuses = [301, 302, 303, 307, 308]

    /// `/redirect-to` on `server`, answering `status` with a Location on `target`'s `/echo`.
    static func endpoint(_ status: Int, to target: TestServer) -> String {
        let url = "http://127.0.0.1:\(target.port)/echo?hop=1"
        return "/redirect-to?status=\(status)&url=\(url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
    }

    /// A POST with a small JSON body, which 301/302/303 turn into a GET without it.
    static func post<Response>(_ provider: any ServiceProvider, _ endpoint: String, policy: RedirectPolicy?,
                               as type: Response.Type = Echo.self) -> BodyRequest<Response> {
        let request = BodyRequest<Response>(provider, endpoint, body: .json(["n": 1]))
        request.redirectPolicy = policy
        request.acceptableStatusCodes = 200..<400
        return request
    }

    @Test(".follow() follows 301, 302, 303, 307 and 308 to another port; 301/302/303 turn the POST into a GET, 307/308 keep it",
          arguments: statuses)
    func follow(status: Int) async throws {
        let server = try await TestServer.shared()
        try await withTestServer { other in
            let (echo, response) = try await makeManager().performWithResponse(
                Self.post(server.provider(), Self.endpoint(status, to: other), policy: .follow()))
            #expect(response.statusCode == 200)
            #expect(echo.path == "/echo")
            #expect(echo.args["hop"] == ["1"])
            #expect(echo.method == (status == 307 || status == 308 ? "POST" : "GET"))
            #expect(echo.bodyLength == (status == 307 || status == 308 ? 7 : 0))
        }
    }

    @Test(".none: the 3xx is the response, with its Location; validation decides", arguments: statuses)
    func none(status: Int) async throws {
        let server = try await TestServer.shared()
        try await withTestServer { other in
            let request = TestRequest<EmptyResponse>(server.provider(), Self.endpoint(status, to: other))
            request.redirectPolicy = RedirectPolicy.none
            request.acceptableStatusCodes = 200..<400
            let (_, response) = try await makeManager().performWithResponse(request)
            #expect(response.statusCode == status)
            #expect(response.value(forHeader: "Location")?.hasPrefix("http://127.0.0.1:\(other.port)/echo") == true)
            let value1 = try await other.receivedRequestCount()
            #expect(value1 == 0)

            // Under the default statuses the 3xx fails validation, keeping the response.
            let strict = TestRequest<EmptyResponse>(server.provider(), Self.endpoint(status, to: other))
            strict.redirectPolicy = RedirectPolicy.none
            let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(strict) }
            #expect(outcome.error?.statusCode == status)
            #expect(outcome.error?.context?.response?.value(forHeader: "Location") != nil)
        }
    }

    @Test(".sameOrigin follows a redirect within the origin; a hop to another port ends with that 3xx", arguments: statuses)
    func sameOrigin(status: Int) async throws {
        let server = try await TestServer.shared()
        try await withTestServer { other in
            let inside = "/redirect-to?status=\(status)&url=%2Fecho%3Finside%3D1"
            let echo = try await makeManager().perform(Self.post(server.provider(), inside, policy: .sameOrigin))
            #expect(echo.args["inside"] == ["1"])
            let (_, response) = try await makeManager().performWithResponse(
                Self.post(server.provider(), Self.endpoint(status, to: other), policy: .sameOrigin, as: EmptyResponse.self))
            #expect(response.statusCode == status)
            let value2 = try await other.receivedRequestCount()
            #expect(value2 == 0)
        }
    }

    @Test(".custom sees from, to and the status; false makes the 3xx the response", arguments: statuses)
    func custom(status: Int) async throws {
        let server = try await TestServer.shared()
        try await withTestServer { other in
            let seen = CallRecorder<Redirect>()
            let follows = RedirectPolicy.custom { redirect in
                seen.record(redirect)
                return redirect.to.port == other.port
            }
            let echo = try await makeManager().perform(Self.post(server.provider(), Self.endpoint(status, to: other), policy: follows))
            #expect(echo.path == "/echo")
            let redirect = try #require(seen.values.first)
            #expect(redirect.statusCode == status)
            #expect(redirect.from.port == server.port)
            #expect(redirect.to.absoluteString == "http://127.0.0.1:\(other.port)/echo?hop=1")

            let refuses = RedirectPolicy.custom { _ in false }
            let (_, response) = try await makeManager().performWithResponse(
                Self.post(server.provider(), Self.endpoint(status, to: other), policy: refuses, as: EmptyResponse.self))
            #expect(response.statusCode == status)
            let value3 = try await other.receivedRequestCount()
            #expect(value3 == 1)
        }
    }

    @Test("A custom closure is called at most 10 times per request; the 11th redirect fails as too many")
    func customCalledAtMostTenTimes() async throws {
        let server = try await TestServer.shared()
        let calls = Counter()
        let request = TestRequest<Echo>(server.provider(), "/redirect/20")
        request.redirectPolicy = .custom { _ in calls.increment(); return true }
        let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(request) }
        #expect(outcome.error?.caseName == "transport")
        #expect(outcome.error?.context?.reason?.contains("redirected more than 10 times") == true)
        #expect(calls.value == 10)
    }

    @Test(".follow(maximum:) stops after its maximum; more than 10 is 10; a negative maximum follows none")
    func maximum() async throws {
        let server = try await TestServer.shared()
        // /redirect/2 → /redirect/1 → /redirect/0 → /echo: three redirects.
        let three = TestRequest<Echo>(server.provider(), "/redirect/2")
        three.redirectPolicy = .follow(maximum: 3)
        let value4 = try await makeManager().perform(three).path
        #expect(value4 == "/echo")

        let two = TestRequest<Echo>(server.provider(), "/redirect/2")
        two.redirectPolicy = .follow(maximum: 2)
        let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(two) }
        #expect(outcome.error?.context?.reason?.contains("redirected more than 2 times") == true)

        #expect(RedirectPolicy.follow(maximum: 1_000).limit == 10)
        #expect(RedirectPolicy.follow(maximum: -4).limit == 0)
    }

    @Test("The request's policy wins over the provider's, the provider's over the manager's")
    func precedence() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        net.redirectPolicy = RedirectPolicy.none
        var provider = InterceptingProvider(port: server.port)
        let plain = TestRequest<EmptyResponse>(provider, "/redirect/1")
        plain.acceptableStatusCodes = 200..<400
        let value5 = try await net.performWithResponse(plain).response.statusCode
        #expect(value5 == 302)

        provider.redirectPolicy = .follow()
        let value6 = try await net.performWithResponse(TestRequest<Echo>(provider, "/redirect/1")).response.statusCode
        #expect(value6 == 200)

        let request = TestRequest<EmptyResponse>(provider, "/redirect/1")
        request.redirectPolicy = RedirectPolicy.none
        request.acceptableStatusCodes = 200..<400
        let value7 = try await net.performWithResponse(request).response.statusCode
        #expect(value7 == 302)
    }
}
