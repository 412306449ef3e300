import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Signs each attempt in the query string, as presigned-URL APIs want: `X-Expires`, then
/// `X-Signature` = HMAC-SHA256 (hex) of method, path, the sorted query without the signature,
/// and the body, one per line. `test_server.py`'s `/hmac` recomputes it and refuses a wrong one.
struct QuerySigner: RequestInterceptor {
    var key = HMACServer.key
    let calls: CallRecorder<String>

    func adapt(_ request: inout OutgoingRequest) async throws {
        calls.record("signer")
        request.setQueryItem("X-Expires", "300")
        let body = request.body.map { String(decoding: $0, as: UTF8.self) } ?? ""
        request.setQueryItem("X-Signature", HMACServer.signature(key: key, method: request.method.rawValue, url: request.url, body: body),
                             secret: true)
    }
}

/// What `/hmac` answers when the signature is right.
struct HMACVerdict: Decodable, Sendable {
    let verified: Bool
    let method: String
    let signed: String
}

/// The text `/hmac` signs, computed the same way on this side.
enum HMACServer {
    static let key = "pipeline-hmac-key"

    static func signature(key: String, method: String, url: URL, body: String) -> String {
        let items = (URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQueryItems ?? [])
            .filter { $0.name != "X-Signature" }
            .map { "\($0.name)=\($0.value ?? "")" }
            .sorted()
        let text = [method, url.path(percentEncoded: true), items.joined(separator: "&"), body].joined(separator: "\n")
        return HMACSHA256.hex(key: key, message: text)
    }
}

/// Records its adapt and retry calls under a name.
struct NamedInterceptor: RequestInterceptor {
    let name: String
    let calls: CallRecorder<String>
    var decision: RetryDecision = .doNotRetry

    func adapt(_ request: inout OutgoingRequest) async throws {
        calls.record("adapt \(name)")
        request.addHeader("X-Seen-By", name, secret: false)
    }

    func retry(_ request: OutgoingRequest, after outcome: RequestOutcome, attempt: Int) async -> RetryDecision {
        calls.record("retry \(name)")
        return decision
    }
}

/// A provider with interceptors of its own, and a recorded `adapt(_:)`.
struct InterceptingProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme = HTTPScheme.http
    var port: Int?
    var interceptors: [any RequestInterceptor] = []
    var authentication: Authentication?
    var headers: [String: String] = [:]
    var secretHeaderNames: Set<String> = []
    var redirectPolicy: RedirectPolicy?
    var retryPolicy: RetryPolicy?
    var areMocksEnabled: Bool?
    var calls = CallRecorder<String>()

    func createHTTPHeaders() -> [String: String] { headers }

    func adapt(_ request: inout OutgoingRequest) async throws {
        calls.record("adapt provider.adapt")
    }
}

/// Retries a 409 once, after the wait it chose.
struct RetryConflictOnce: RequestInterceptor {
    let wait: Duration
    func retry(_ request: OutgoingRequest, after outcome: RequestOutcome, attempt: Int) async -> RetryDecision {
        guard case .response(let response) = outcome, response.statusCode == 409, attempt == 1 else { return .doNotRetry }
        return .retryAfter(wait)
    }
}

struct ThrowingInterceptor: RequestInterceptor {
    struct SigningKeyMissing: Error {}
    func adapt(_ request: inout OutgoingRequest) async throws { throw SigningKeyMissing() }
}

/// Changes what the attempt is as a test needs.
struct Rewriter: RequestInterceptor {
    let change: @Sendable (inout OutgoingRequest) -> Void
    func adapt(_ request: inout OutgoingRequest) async throws { change(&request) }
}

@Suite("Interceptors: adapt each attempt, decide each retry", .sharing)
struct InterceptorTests {
    @Test("A signer in the query (method, path, sorted query, body) passes a server that recomputes the HMAC; a wrong key is refused")
    func querySignature() async throws {
        let server = try await TestServer.shared()
        let calls = CallRecorder<String>()
        let request = BodyRequest<HMACVerdict>(server.provider(), "/hmac?b=2&a=1", method: .put, body: .json(["name": "Ada"]))
        request.interceptors = [QuerySigner(calls: calls)]
        let log = LogCollector()
        let verdict = try await makeManager(log: log).perform(request)
        #expect(verdict.verified)
        #expect(verdict.method == "PUT")
        #expect(verdict.signed.contains("X-Expires=300"))
        // The signature is a secret: redacted in the log and its copy-as-curl.
        #expect(log.text.contains("X-Signature=<redacted>"))
        #expect(!log.text.contains(HMACServer.signature(key: HMACServer.key, method: "PUT", url: URL(string: "http://x/hmac")!, body: "").prefix(16)))

        let forged = BodyRequest<HMACVerdict>(server.provider(), "/hmac?b=2&a=1", method: .put, body: .json(["name": "Ada"]))
        forged.interceptors = [QuerySigner(key: "not-the-key", calls: calls)]
        let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(forged) }
        #expect(outcome.error?.statusCode == 401, "\(outcome)")
    }

    @Test("Each attempt is adapted again: a retried request is signed afresh and the server accepts every attempt's signature")
    func everyAttemptAdapted() async throws {
        try await withTestServer { server in
            let calls = CallRecorder<String>()
            let request = TestRequest<HMACVerdict>(server.provider(), "/hmac?fail=2&key=everyAttempt")
            request.interceptors = [QuerySigner(calls: calls)]
            request.retryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(5))
            let verdict = try await makeManager().perform(request)
            #expect(verdict.verified)
            #expect(calls.values == ["signer", "signer", "signer"])
        }
    }

    @Test("adapt runs manager → provider interceptors → provider's adapt(_:) → request; retry asks request → provider → manager")
    func order() async throws {
        let server = try await TestServer.shared()
        let calls = CallRecorder<String>()
        let net = makeManager()
        net.interceptors = [NamedInterceptor(name: "manager", calls: calls)]
        let provider = InterceptingProvider(port: server.port, interceptors: [NamedInterceptor(name: "provider", calls: calls)], calls: calls)
        let request = TestRequest<Echo>(provider, "/echo")
        request.interceptors = [NamedInterceptor(name: "request", calls: calls)]
        let echo = try await net.perform(request)
        #expect(calls.values == ["adapt manager", "adapt provider", "adapt provider.adapt", "adapt request",
                                 "retry request", "retry provider", "retry manager"])
        // addHeader: one line per interceptor, in order, never joined.
        #expect(echo.headerList.filter { $0.first == "X-Seen-By" }.map { $0[1] } == ["manager", "provider", "request"])
    }

    @Test("A custom retry waits the duration it chose, then the second attempt's response is the result")
    func customRetryWaits() async throws {
        try await withTestServer { server in
            let request = TestRequest<Attempt>(server.provider(), "/flaky/conflict?fail=1&status=409")
            request.interceptors = [RetryConflictOnce(wait: .milliseconds(400))]
            let started = ContinuousClock.now
            let answer = try await makeManager().perform(request)
            let elapsed = started.duration(to: .now)
            #expect(answer.attempt == 2)
            #expect(elapsed >= .milliseconds(400), "retried after \(elapsed)")
        }
    }

    @Test("A retryAfter below zero is clamped to zero; one beyond a day is clamped to a day, which no timeout outlasts: not retried")
    func retryAfterClamped() async throws {
        #expect(RetryPolicy.clamped(.seconds(-5)) == .zero)
        #expect(RetryPolicy.clamped(.seconds(Int64.max)) == .seconds(86_400))
        #expect(RetryPolicy.clamped(.milliseconds(250)) == .milliseconds(250))
        try await withTestServer { server in
            let negative = TestRequest<Attempt>(server.provider(), "/flaky/negative?fail=1&status=409")
            negative.interceptors = [RetryConflictOnce(wait: .seconds(-3600))]
            let value1 = try await makeManager().perform(negative).attempt
            #expect(value1 == 2)

            let log = LogCollector()
            let absurd = TestRequest<Attempt>(server.provider(), "/flaky/absurd?fail=1&status=409", timeout: 5)
            absurd.interceptors = [RetryConflictOnce(wait: .seconds(Int64.max))]
            let started = ContinuousClock.now
            let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager(log: log).perform(absurd) }
            #expect(outcome.error?.statusCode == 409)
            #expect(started.duration(to: .now) < .seconds(4))
            #expect(log.text.contains("not retried: the timeout of 5 s would elapse first"))
        }
    }

    @Test("An interceptor that throws fails the request with its error as underlyingError; nothing is sent")
    func throwingInterceptor() async throws {
        try await withTestServer { server in
            let request = TestRequest<Echo>(server.provider(), "/echo")
            request.interceptors = [ThrowingInterceptor()]
            let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(request) }
            #expect(outcome.error?.caseName == "invalidRequest")
            #expect(outcome.error?.underlyingError is ThrowingInterceptor.SigningKeyMissing)
            #expect(outcome.error?.context?.reason?.contains("ThrowingInterceptor") == true)
            let value2 = try await server.receivedRequestCount()
            #expect(value2 == 0)
        }
    }

    @Test("A header with CR/LF, a URL without a host or not http(s), a method that is not a token, a new body for a streamed one, a zero timeout: .invalidRequest, nothing sent",
          arguments: ["header", "url", "method", "scheme", "streamedBody", "timeout"])
    func invalidChanges(change: String) async throws {
        try await withTestServer { server in
            let request = BodyRequest<Echo>(server.provider(), "/echo", body: change == "streamedBody"
                                             ? .stream(PatternChunks(total: 10), length: 10) : .data(Data("x".utf8)))
            request.interceptors = [Rewriter { outgoing in
                switch change {
                case "header": outgoing.setHeader("X-Injected", "a\r\nHost: evil")
                case "url": outgoing.url = URL(string: "http:///echo")!
                case "method": outgoing.method = HTTPMethod(rawValue: "GET /x HTTP/1.1\r\n")
                case "scheme": outgoing.url = URL(string: "file:///etc/passwd")!
                case "streamedBody": outgoing.setBody(Data("other".utf8))
                default: outgoing.timeout = .zero
                }
            }]
            let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(request) }
            #expect(outcome.error?.caseName == "invalidRequest", "\(change): \(outcome)")
            #expect(outcome.error?.context?.reason?.contains("the interceptor Rewriter") == true, "\(change): \(outcome)")
            #expect(outcome.error?.errorDescription?.contains("\r") == false)
            let value3 = try await server.receivedRequestCount()
            #expect(value3 == 0, "\(change)")
        }
    }

    @Test("A space in a URL an interceptor builds is percent-encoded by Foundation: the request line never carries a raw space")
    func spaceInURL() async throws {
        let server = try await TestServer.shared()
        let request = TestRequest<Echo>(server.provider(), "/echo")
        request.interceptors = [Rewriter { outgoing in outgoing.url = URL(string: "http://127.0.0.1:\(server.port)/echo/a b")! }]
        let echo = try await makeManager().perform(request)
        #expect(echo.path == "/echo/a%20b")
    }

    @Test("An interceptor may change the method, the body and its type, and the query; the server receives exactly that")
    func rewrites() async throws {
        let server = try await TestServer.shared()
        let request = TestRequest<Echo>(server.provider(), "/echo?keep=1")
        request.interceptors = [Rewriter { outgoing in
            outgoing.method = HTTPMethod(rawValue: "PROPFIND")
            outgoing.setBody(Data("<propfind/>".utf8), contentType: "application/xml")
            outgoing.setQueryItem("depth", "1 & more")
            outgoing.setQueryItem("keep", "2")
        }]
        let echo = try await makeManager().perform(request)
        #expect(echo.method == "PROPFIND")
        #expect(echo.body == "<propfind/>")
        #expect(echo.header("Content-Type") == "application/xml")
        #expect(echo.args["depth"] == ["1 & more"])
        #expect(echo.args["keep"] == ["2"])
    }

    @Test("Moving an attempt to another origin drops its credentials and secret headers; a secret set afterwards, knowing the URL, goes")
    func changeOfOriginDropsSecrets() async throws {
        let server = try await TestServer.shared()
        try await withTestServer { other in
            let provider = InterceptingProvider(port: server.port, authentication: .bearer("home-token"),
                                                headers: ["X-Tenant": "t-1", "X-Plain": "p"], secretHeaderNames: ["X-Tenant"])
            let request = TestRequest<Echo>(provider, "/echo?api_key=home-key")
            request.interceptors = [Rewriter { outgoing in
                outgoing.url = URL(string: "http://127.0.0.1:\(other.port)/echo?api_key=home-key&page=2")!
                outgoing.setHeader("X-Other-Key", "for-other", secret: true)
            }]
            let echo = try await makeManager().perform(request)
            #expect(echo.header("Authorization") == nil)
            #expect(echo.header("X-Tenant") == nil)
            #expect(echo.args["api_key"] == nil)
            #expect(echo.header("X-Plain") == "p")
            #expect(echo.args["page"] == ["2"])
            #expect(echo.header("X-Other-Key") == "for-other")
        }
    }
}
