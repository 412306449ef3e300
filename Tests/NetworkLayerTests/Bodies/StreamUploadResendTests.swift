import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A sequence is read once, so a request with a streamed body is sent once: the retry policy
/// does not apply to it, a 307 or 308 redirect (which keeps the body) and a 401 after which the
/// token was refreshed fail with a clear error instead of sending an empty or partial body. A
/// 303 (which drops the body) is followed.
@Suite("Streamed upload bodies are sent once", .sharing)
struct StreamUploadResendTests {
    @Test("A 307 or 308 redirect fails with .transport naming the status, keeping the redirect response; the target gets nothing")
    func bodyKeepingRedirect() async throws {
        try await withSSEServer { server in
            for status in [307, 308] {
                let id = "redirected-\(status)"
                let outcome = await FaultOutcome { () throws(NetworkError) in
                    try await makeManager().perform(StreamUploadRequest<UploadReport>(
                        server.provider(), "/upload/redirect?status=\(status)&to=/upload%3Fid%3D\(id)",
                        body: .stream(PatternChunks(total: 100_000), length: 100_000)))
                }
                #expect(outcome.error?.caseName == "transport")
                #expect(outcome.error?.context?.reason?.contains("redirected with \(status)") == true)
                #expect(outcome.error?.context?.reason?.contains("streamed body is read only once") == true)
                #expect(outcome.error?.context?.response?.statusCode == status)
                #expect(outcome.error?.context?.response?.value(forHeader: "Location") == "/upload?id=\(id)")
                let target = try await server.uploadProgress(id: id)
                #expect(target.attempts == 0, "the redirect was followed")
            }
        }
    }

    @Test("A 303 redirect, which turns the request into a GET without body, is followed")
    func seeOther() async throws {
        try await withSSEServer { server in
            let response = try await makeManager().perform(StreamUploadRequest<SSEServer.Stats>(
                server.provider(), "/upload/redirect?status=303&to=/stats", body: .stream(PatternChunks(total: 10_000))))
            #expect(response.open >= 0)
        }
    }

    @Test("The retry policy does not repeat a request with a streamed body (it does one with bytes)")
    func notRetried() async throws {
        try await withSSEServer { server in
            let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(5), retriesNonIdempotentMethods: true)
            let provider = RetryingProvider(port: server.port, retryPolicy: policy)
            let net = makeManager()
            let streamed = await FaultOutcome { () throws(NetworkError) in
                try await net.perform(StreamUploadRequest<UploadReport>(provider, "/upload/status?code=503&id=streamed",
                                                                        body: .stream(PatternChunks(total: 5000))))
            }
            #expect(streamed.error?.statusCode == 503, "\(streamed)")
            let streamedAttempts = try await server.uploadProgress(id: "streamed")
            #expect(streamedAttempts.attempts == 1)
            // The same policy repeats a request whose body can be sent again.
            _ = await FaultOutcome { () throws(NetworkError) in
                try await net.perform(StreamUploadRequest<UploadReport>(provider, "/upload/status?code=503&id=bytes",
                                                                        body: .data(Data(PatternChunks(total: 5000).bytes))))
            }
            let bytesAttempts = try await server.uploadProgress(id: "bytes")
            #expect(bytesAttempts.attempts == 3)
        }
    }

    @Test("A 401 refreshes the token (for the next request) but fails with .unauthorizedAccess saying the body cannot go again")
    func unauthorizedThenRefresh() async throws {
        try await withSSEServer { server in
            let refreshes = Counter()
            let source = BearerTokenSource(token: { "stale" }, refresh: { refreshes.increment(); return "fresh" })
            let provider = AuthProvider(port: server.port, authentication: .bearer(source))
            let net = makeManager()
            let outcome = await FaultOutcome { () throws(NetworkError) in
                try await net.perform(StreamUploadRequest<UploadReport>(provider, "/upload/auth?valid=fresh&id=auth",
                                                                        body: .stream(PatternChunks(total: 20_000), length: 20_000)))
            }
            #expect(outcome.error?.caseName == "unauthorizedAccess")
            #expect(outcome.error?.context?.reason?.contains("the token was refreshed") == true)
            #expect(outcome.error?.context?.response?.statusCode == 401)
            #expect(refreshes.value == 1)
            let authAttempts = try await server.uploadProgress(id: "auth")
            #expect(authAttempts.attempts == 1)
            // Performed again with a new sequence, it goes with the fresh token.
            let report = try await net.perform(StreamUploadRequest<UploadReport>(
                provider, "/upload/auth?valid=fresh&id=auth2", body: .stream(PatternChunks(total: 20_000), length: 20_000)))
            #expect(report.size == 20_000)
            #expect(refreshes.value == 1)
        }
    }
}
