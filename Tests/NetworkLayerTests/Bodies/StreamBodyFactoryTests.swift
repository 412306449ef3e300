import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A factory of body sequences that counts how many it made.
private final class ChunkFactory: Sendable {
    let made = Counter()
    static let chunks = ["first chunk, ", "second chunk, ", "the end"]
    static let body = chunks.joined()

    func make() -> AsyncStream<Data> {
        _ = made.increment()
        return AsyncStream { continuation in
            for chunk in Self.chunks { continuation.yield(Data(chunk.utf8)) }
            continuation.finish()
        }
    }
}

@Suite("Streamed bodies made by a factory", .sharing)
struct StreamBodyFactoryTests {
    @Test("A 307 and a 308 send the body again, from a new sequence", arguments: [307, 308])
    func redirectSendsItAgain(status: Int) async throws {
        try await withTestServer { server in
            let factory = ChunkFactory()
            let request = BodyRequest<Echo>(server.provider(), "/redirect-to?url=/echo&status=\(status)", method: .put,
                                            body: .stream(length: ChunkFactory.body.utf8.count) { factory.make() })
            let echo = try await makeManager().perform(request)
            #expect(echo.path == "/echo" && echo.method == "PUT")
            #expect(echo.body == ChunkFactory.body)
            #expect(factory.made.value == 2)
        }
    }

    @Test("A retry sends the body again; so does the retry after a token refresh")
    func retriesSendItAgain() async throws {
        try await withTestServer { server in
            let factory = ChunkFactory()
            var provider = RetryingProvider(port: server.port, retryPolicy: RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(10)))
            provider.host = "127.0.0.1"
            let retried = BodyRequest<FlakyAttempt>(provider, "/flaky/factory-body?fail=1&status=503", method: .put,
                                                    body: .stream(length: nil) { factory.make() })
            let answer = try await makeManager().perform(retried)
            #expect(answer.attempt == 2)
            #expect(factory.made.value == 2)

            let tokens = BearerTokenSource(token: { "stale" }, refresh: { "fresh" })
            let refreshed = BodyRequest<AuthorizedAnswer>(AuthProvider(port: server.port, authentication: .bearer(tokens)),
                                                          "/auth/bearer?valid=fresh", body: .stream(length: nil) { factory.make() })
            let authorized = try await makeManager().perform(refreshed)
            #expect(authorized.authorized)
            #expect(factory.made.value == 4)
        }
    }

    @Test("A sequence given as it is still fails a 307 clearly, sending nothing twice")
    func plainStreamStillOnce() async throws {
        try await withTestServer { server in
            let factory = ChunkFactory()
            let request = BodyRequest<Echo>(server.provider(), "/redirect-to?url=/echo&status=307", method: .put,
                                            body: .stream(factory.make(), length: nil))
            let error = await networkError { try await makeManager().perform(request) }
            #expect(error?.errorDescription?.contains("a streamed body is read only once") == true, "\(String(describing: error))")
        }
    }

    @Test("A negative length is refused with a clear error")
    func negativeLength() async throws {
        try await withTestServer { server in
            let error = await networkError {
                try await makeManager().perform(BodyRequest<Echo>(server.provider(), "/echo", body: .stream(length: -1) { ChunkFactory().make() }))
            }
            guard case .invalidRequest = error else { Issue.record("got \(String(describing: error))"); return }
        }
    }
}

/// What `/flaky/<key>` answers once it lets a request through.
struct FlakyAttempt: Decodable, Sendable {
    let attempt: Int
}

/// What `/auth/bearer` answers.
struct AuthorizedAnswer: Decodable, Sendable {
    let authorized: Bool
}
