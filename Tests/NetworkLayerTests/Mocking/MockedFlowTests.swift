import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Whole flows run against mocks exactly as against a server: a token refresh after a mocked
/// 401, a retry policy after mocked 503s, the provider's `adapt(_:)` on each attempt.
@Suite("Flows against mocks", .sharing)
struct MockedFlowTests {
    /// A provider whose port has nothing listening: any network attempt fails with `.reachability`.
    let port = try! closedPort()

    /// A manager of the test's own in mock mode, with no mock files.
    func mockManager(log: LogCollector? = nil) -> NetworkManager {
        makeManager(mocks: URL(fileURLWithPath: "/nonexistent-mock-directory"), log: log)
    }

    @Test("A mocked 401 then 200 runs the token refresh: one refresh, one retry with the new token")
    func tokenRefreshAgainstASequence() async throws {
        let refreshes = Counter()
        let source = BearerTokenSource(token: { "stale-token" }, refresh: {
            refreshes.increment()
            return "fresh-token"
        })
        let net = mockManager()
        net.mocks.register(.post, "/login", [.status(401), .json(Token(value: "t"))])
        let provider = AuthProvider(port: port, authentication: .bearer(source))

        let token = try await net.perform(LoginRequest(provider, user: "ada", password: "pw"))
        #expect(token == Token(value: "t"))
        #expect(refreshes.value == 1)
        let sent = net.mocks.requests
        #expect(sent.map { $0.value(forHeader: "Authorization") } == ["Bearer stale-token", "Bearer fresh-token"])
        #expect(sent.allSatisfy { $0.method == .post && $0.url.path == "/login" })

        // The sequence now repeats its last answer, and the refreshed token is kept.
        #expect(try await net.perform(LoginRequest(provider, user: "ada", password: "pw")) == Token(value: "t"))
        #expect(net.mocks.requests.last?.value(forHeader: "Authorization") == "Bearer fresh-token")
        #expect(refreshes.value == 1)
    }

    @Test("A second mocked 401 after the refresh is .unauthorizedAccess, after exactly two attempts")
    func secondUnauthorizedIsFinal() async throws {
        let source = BearerTokenSource(token: { "stale-token" }, refresh: { "fresh-token" })
        let net = mockManager()
        net.mocks.register(.get, "/profile", .status(401, body: Data(#"{"error": "expired"}"#.utf8)))
        let error = await networkError { try await net.perform(ProfileRequest(AuthProvider(port: port, authentication: .bearer(source)))) }
        #expect(error?.caseName == "unauthorizedAccess")
        #expect(error?.context?.response?.isMocked == true)
        #expect(net.mocks.requests.count == 2)
    }

    @Test("A retry policy retries mocked 503s with its delays, then succeeds")
    func retryPolicyAgainstMocked503s() async throws {
        let log = LogCollector()
        let net = mockManager(log: log)
        net.mocks.register(.get, "/users/7", [.status(503), .status(503), .json(User(id: 7, name: "Ada"))])
        let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(40))
        let (user, elapsed) = try await measure {
            try await net.perform(TestRequest<User>(RetryingProvider(port: port, retryPolicy: policy), "/users/7"))
        }
        #expect(user.name == "Ada")
        #expect(net.mocks.requests.count == 3)
        // Jittered delays: at least half of 40 ms, then half of 80 ms.
        #expect(elapsed >= .milliseconds(60))
        #expect(log.text.contains("attempt 1 of 3 failed (status 503)"))
        #expect(log.text.contains("attempt 2 of 3 failed (status 503)"))
    }

    @Test("A mocked Retry-After sets the retry's delay, and retries end in the last failure")
    func retryAfterFromAMock() async throws {
        let net = mockManager()
        net.mocks.register(.get, "/busy", .data(Data(), status: 503, headers: ["Retry-After": "1"]))
        let policy = RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(300))
        let (error, elapsed) = await measure {
            await networkError { try await net.perform(TestRequest<User>(RetryingProvider(port: port, retryPolicy: policy), "/busy")) }
        }
        guard case .apiError(let context) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(context.statusCode == 503)
        #expect(context.response?.value(forHeader: "Retry-After") == "1")
        #expect(net.mocks.requests.count == 2)
        #expect(elapsed >= .milliseconds(300))  // Retry-After: 1 s, capped at the policy's 300 ms
    }

    @Test("Mocked failures the policy retries are retried; a mocked cancellation is not")
    func mockedFailuresAndRetries() async throws {
        let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(5))
        for (failure, attempts) in [(NetworkError.reachability, 3), (.timeOut, 3), (.transport, 3), (.cancelled, 1), (.invalidCertificate, 1)] {
            let net = mockManager()
            net.mocks.register(.get, "/flaky", .failure(failure))
            let error = await networkError { try await net.perform(TestRequest<User>(RetryingProvider(port: port, retryPolicy: policy), "/flaky")) }
            #expect(error?.caseName == failure.caseName)
            #expect(net.mocks.requests.count == attempts, "\(failure.caseName)")
        }
        // A failure on the first attempts, then an answer.
        let net = mockManager()
        net.mocks.register(.get, "/flaky", [.failure(.reachability), .failure(.timeOut), .json(User(id: 1, name: "at last"))])
        #expect(try await net.perform(TestRequest<User>(RetryingProvider(port: port, retryPolicy: policy), "/flaky")).name == "at last")
    }

    @Test("The provider's adapt(_:) runs on every mocked attempt, and each attempt is recorded as adapted")
    func adaptRunsOnEveryMockedAttempt() async throws {
        let calls = AdaptCalls()
        let provider = SigningProvider(port: port, retryPolicy: RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(5)), calls: calls)
        let net = mockManager()
        net.mocks.register(.get, "/orders", [.status(500), .json(User(id: 1, name: "signed"))])
        _ = try await net.perform(TestRequest<User>(provider, "/orders"))
        #expect(calls.count == 2)
        let sent = net.mocks.requests
        #expect(sent.map { $0.value(forHeader: "X-Nonce") } == ["1", "2"])
        let signature = HMACSHA256.hex(key: provider.key, message: SigningProvider.signedText(method: "GET", path: "/orders", nonce: "2", body: ""))
        #expect(sent.last?.value(forHeader: "X-Signature") == signature)
        #expect(sent.last?.description.contains(signature) == false)
    }
}
