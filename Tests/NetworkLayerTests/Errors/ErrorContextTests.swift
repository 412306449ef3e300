import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Errors keep what failed: the failing response (status, headers, body up to 64 KB) for every
/// error a response caused, and the application's own error as `underlyingError`.
@Suite("Errors keep what failed", .sharing)
struct ErrorContextTests {
    @Test("A 401's WWW-Authenticate header is reachable from the error (httpbin)")
    func unauthorizedKeepsTheChallenge() async throws {
        let httpbin = try await HTTPBinServer.shared()
        let error = await networkError { try await makeManager().perform(TestRequest<EmptyResponse>(httpbin.provider(), "/status/401")) }
        guard case .unauthorizedAccess? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(error?.context?.response?.value(forHeader: "WWW-Authenticate") == #"Basic realm="Fake Realm""#)
        #expect(error?.context?.response?.statusCode == 401)
        #expect(error?.context?.statusCode == 401)
    }

    @Test("Every status with a case of its own carries the failing response: status, headers and body",
          arguments: [(401, "unauthorizedAccess"), (403, "unauthorizedAccess"), (404, "notFound"), (408, "timeOut"), (504, "timeOut")])
    func mappedStatusesCarryTheResponse(status: Int, caseName: String) async throws {
        let server = try await TestServer.shared()
        let body = #"{"detail": "status \#(status) explained"}"#
        let error = await networkError {
            try await makeManager().perform(TestRequest<StatusBody>(server.provider(), bodyEndpoint(status: status, body)))
        }
        #expect(error?.caseName == caseName)
        let response = try #require(error?.context?.response)
        #expect(response.statusCode == status)
        #expect(response.value(forHeader: "content-type") == "application/json")
        #expect(String(decoding: response.body, as: UTF8.self) == body)
    }

    @Test("An error body decoded as the errorBodyType comes with the response it was decoded from")
    func apiErrorCarriesTheResponse() async throws {
        let server = try await TestServer.shared()
        let body = #"{"code": 42, "message": "Out of stock"}"#
        let error = await networkError {
            try await makeManager().perform(TestRequest<Item>(ShopProvider(port: server.port), bodyEndpoint(status: 422, body)))
        }
        guard case .apiError? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(error?.serverError(as: ShopError.self)?.code == 42)
        #expect(error?.context?.response?.statusCode == 422)
        #expect(error?.context?.response?.body == Data(body.utf8))
    }

    @Test("A status without a case of its own and without an error body carries the failing response: a 503's Retry-After")
    func otherStatusCarriesTheResponse() async throws {
        try await withTestServer { server in
            let error = await networkError {
                try await makeManager().perform(TestRequest<Attempt>(server.provider(), "/flaky/ctx?fail=1&status=503&retryAfter=7"))
            }
            guard case .apiError(let context)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(context.statusCode == 503)
            #expect(context.serverError == nil)
            #expect(context.response?.statusCode == 503)
            #expect(context.response?.value(forHeader: "Retry-After") == "7")
            #expect(error?.statusCode == 503)
        }
    }

    @Test(".generic(code:) keeps the original design's shape: your own, without a context; its code is statusCode")
    func genericIsTheCallersOwn() {
        #expect(NetworkError.generic(code: 418).context == nil)
        #expect(NetworkError.generic(code: 418).statusCode == 418)
        #expect(NetworkError.generic().statusCode == nil)
    }

    @Test("A body that does not decode keeps the response, its body cut at 64 KB")
    func serializationKeepsTheResponseBounded() async throws {
        let server = try await TestServer.shared()
        let error = await networkError { try await makeManager().perform(TestRequest<StatusBody>(server.provider(), "/bytes/100000")) }
        guard case .serialization? = error else { Issue.record("got \(String(describing: error))"); return }
        let response = try #require(error?.context?.response)
        #expect(HTTPResponse.errorBodyLimit == 65_536)
        #expect(response.statusCode == 200)
        #expect(response.body == Data((0..<65_536).map { UInt8($0 % 256) }))
        #expect(response.value(forHeader: "Content-Length") == "100000")
    }

    @Test("An error of the app's own type thrown by parseAndValidate is underlyingError, with the response it refused")
    func parseAndValidateErrorIsKept() async throws {
        let server = try await TestServer.shared()
        var provider = HookProvider(port: server.port)
        provider.inspect = { response in
            throw AppRejection(status: response.statusCode, marker: response.value(forHeader: "X-Test-Header"))
        }
        let error = await networkError { try await makeManager().perform(TestRequest<StatusBody>(provider, "/headers")) }
        guard case .validation? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(error?.underlyingError as? AppRejection == AppRejection(status: 200, marker: "value1"))
        #expect(error?.context?.response?.value(forHeader: "X-Test-Header") == "value1")
        #expect(error?.context?.statusCode == 200)
        #expect(error?.errorDescription?.contains("parseAndValidate") == true)
        #expect(error?.errorDescription?.contains("GET http://127.0.0.1:\(server.port)/headers") == true)
    }

    @Test("A NetworkError thrown by parseAndValidate without a context gets the response filled in")
    func bareNetworkErrorGetsTheResponse() async throws {
        let server = try await TestServer.shared()
        var provider = HookProvider(port: server.port)
        provider.inspect = { _ in throw NetworkError.unauthorizedAccess }
        let error = await networkError { try await makeManager().perform(TestRequest<StatusBody>(provider, "/headers")) }
        guard case .unauthorizedAccess(let context)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(context.response?.value(forHeader: "X-Test-Header") == "value1")
        #expect(context.statusCode == 200)
        #expect(context.request == "GET http://127.0.0.1:\(server.port)/headers")
    }

    @Test("The original design's errors thrown by parseAndValidate reach the caller as they were")
    func seedErrorsPassThrough() async throws {
        let server = try await TestServer.shared()
        for thrown in [NetworkError.customUser(description: "User deleted", code: 666), .generic()] {
            var provider = HookProvider(port: server.port)
            provider.inspect = { _ in throw thrown }
            let error = await networkError { try await makeManager().perform(TestRequest<StatusBody>(provider, "/status/200")) }
            switch error {
            case .customUser(let description, let recovery, let code)?:
                #expect(description == "User deleted" && recovery == "" && code == 666)
            case .generic(let code)?:
                #expect(code == nil)
            default:
                Issue.record("got \(String(describing: error))")
            }
        }
    }

    @Test("An error of the app's own type thrown by createHTTPHeaders is underlyingError, and nothing is sent")
    func headerErrorIsKept() async throws {
        try await withTestServer { server in
            var provider = HookProvider(port: server.port)
            provider.headers = { throw AppHookFailure(step: "keychain locked") }
            let error = await networkError { try await makeManager().perform(TestRequest<StatusBody>(provider, "/status/200")) }
            guard case .invalidRequest? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(error?.underlyingError as? AppHookFailure == AppHookFailure(step: "keychain locked"))
            #expect(error?.context?.response == nil)
            #expect(error?.errorDescription?.contains("createHTTPHeaders()") == true)
            #expect(error?.context?.request == "GET /status/200")
            let received = try await server.receivedRequestCount()
            #expect(received == 0)
        }
    }

    @Test("A CancellationError thrown by createHTTPHeaders is .cancelled, and nothing is sent")
    func headerCancellationIsCancelled() async throws {
        try await withTestServer { server in
            var provider = HookProvider(port: server.port)
            provider.headers = { throw CancellationError() }
            let error = await networkError { try await makeManager().perform(TestRequest<StatusBody>(provider, "/status/200")) }
            guard case .cancelled? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(error?.underlyingError is CancellationError)
            let received = try await server.receivedRequestCount()
            #expect(received == 0)
        }
    }

    @Test("A CancellationError thrown by parseAndValidate is .cancelled")
    func parseCancellationIsCancelled() async throws {
        let server = try await TestServer.shared()
        var provider = HookProvider(port: server.port)
        provider.inspect = { _ in throw CancellationError() }
        let error = await networkError { try await makeManager().perform(TestRequest<StatusBody>(provider, "/status/200")) }
        guard case .cancelled? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(error?.context?.response?.statusCode == 200)
    }

    @Test("Printing an error that carries a response shows neither the response's headers nor its body")
    func printedErrorsHideTheResponse() async throws {
        let server = try await TestServer.shared()
        let canary = "nlCanaryEchoedSession7f3a"
        let queryCanary = "nlCanaryQueryKey5e1d"
        // /headers echoes the request's headers in its body and sets `Set-Cookie: session=abc123`;
        // the response's URL carries the secret query item.
        let error = await networkError {
            try await makeManager().perform(TestRequest<StatusBody>(server.provider(), "/headers?api_key=\(queryCanary)",
                                                                    headers: ["X-Session-Token": canary]))
        }
        guard case .serialization? = error, let error else { Issue.record("got \(String(describing: error))"); return }
        #expect(String(decoding: try #require(error.context?.response).body, as: UTF8.self).contains(canary))
        for text in ["\(error)", String(reflecting: error), error.errorDescription ?? "", error.failureReason ?? "",
                     "\(error.context?.response as Any)"] {
            #expect(!text.contains(canary), "\(text)")
            #expect(!text.contains(queryCanary), "\(text)")
            #expect(!text.contains("abc123"), "\(text)")
        }
        #expect("\(try #require(error.context?.response))".contains("status 200"))
    }
}

/// An error's response describes its request without holding it: a middleware that keeps the
/// last failure it saw (a circuit breaker, a recorder) would otherwise hold, through the error's
/// response, the request, whose middlewares hold that middleware: a cycle nothing frees.
@Suite("A kept error keeps no call alive", .sharing)
struct KeptErrorTests {
    /// Remembers the last error a call through it threw.
    final class LastFailure: RequestMiddleware, @unchecked Sendable {
        // @unchecked Sendable: the test's calls run one at a time, and only they write `error`.
        var error: NetworkError?
        func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
            do throws(NetworkError) {
                let response = try await next(request)
                try response.validateStatus()
                return response
            } catch {
                self.error = error
                throw error
            }
        }
    }

    @Test("A middleware that keeps the error of a 500 (with its response) is freed with its manager")
    func keptErrorFreesTheCall() async throws {
        let server = try await TestServer.shared()
        weak var weakMiddleware: LastFailure?
        do {
            let middleware = LastFailure()
            weakMiddleware = middleware
            let net = makeManager()
            net.middlewares = [middleware]
            let error = await networkError {
                try await net.perform(TestRequest<JSONValue>(server.provider(), "/status/500?api_key=s3cr3t-value"))
            }
            #expect(error?.statusCode == 500)
            let kept = try #require(middleware.error?.context?.response)
            #expect(kept.statusCode == 500)
            // Described as before: the secret query value redacted, the raw URL still there.
            #expect(kept.description.contains("/status/500"))
            #expect(!kept.description.contains("s3cr3t-value"))
            #expect(kept.url.query?.contains("s3cr3t-value") == true)
        }
        // The call's last references go on the engine's thread just after the result is delivered.
        for _ in 0..<100 where weakMiddleware != nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(weakMiddleware == nil, "the middleware (and the request it kept through the error) was never freed")
    }
}
