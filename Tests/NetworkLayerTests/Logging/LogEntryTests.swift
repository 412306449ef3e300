import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The structured log (`logEntryHandler`): one `NetworkLogEntry` per event, summaries at info,
/// bodies at debug, failures at error, redacted exactly as the text log, and nothing built when
/// both logs are off.
@Suite("Structured log entries", .sharing)
struct LogEntryTests {
    @Test("A live request gives a request and a response entry at info, and their bodies at debug, under one request id")
    func liveRequest() async throws {
        let entries = LogEntryCollector()
        try await withTestServer { server in
            _ = try await makeManager(entries: entries).perform(TestRequest<Echo>(server.provider(headers: ["Accept": "application/json"]),
                                                                                  "/echo", method: .post, params: ["name": "Ada"]))
            let all = entries.all
            #expect(all.map(\.phase) == [.request, .request, .response, .response])
            #expect(all.map(\.level) == [.info, .debug, .info, .debug])
            #expect(Set(all.map(\.requestID)).count == 1)
            #expect(all.allSatisfy { $0.method == .post && $0.url == "http://127.0.0.1:\(server.port)/echo" && !$0.isMocked })

            let request = all[0]
            #expect(request.message == "→ POST http://127.0.0.1:\(server.port)/echo")
            #expect(request.headers.contains(.init(name: "Accept", value: "application/json")))
            #expect(request.bytesSent == 14)  // {"name":"Ada"}
            #expect(request.body == nil && request.curlCommand == nil, "no body at info")
            #expect(all[1].body?.contains("\"name\" : \"Ada\"") == true)
            #expect(all[1].curlCommand?.hasPrefix("curl -sS 'http://127.0.0.1:\(server.port)/echo'") == true)

            let response = all[2]
            #expect(response.statusCode == 200)
            #expect(response.message.hasPrefix("← 200 POST http://127.0.0.1:\(server.port)/echo in "))
            #expect((response.elapsed ?? .zero) > .zero)
            #expect(response.metrics?.httpVersion == "HTTP/1.1")
            #expect(response.bytesReceived == response.metrics?.bytesReceived)
            #expect(response.headers.map(\.name) == response.headers.map(\.name).sorted())
            #expect(response.body == nil)
            #expect(all[3].body?.contains("\"method\" : \"POST\"") == true)
            #expect(request.description == "[NetworkLayer #\(request.requestID)] \(request.message)")
        }
    }

    @Test("With isVerbose off the entries still arrive and no text is written")
    func entriesWithoutText() async throws {
        let log = LogCollector()
        let entries = LogEntryCollector()
        try await withTestServer { server in
            let net = makeManager(log: log, entries: entries)
            net.isVerbose = false
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
            #expect(log.all.isEmpty)
            #expect(entries.all.map(\.phase) == [.request, .request, .response, .response])
        }
    }

    @Test("The text log is unchanged by the entry handler, and both describe the same events")
    func textUnchanged() async throws {
        let log = LogCollector()
        let entries = LogEntryCollector()
        try await withTestServer { server in
            _ = try await makeManager(log: log, entries: entries).perform(TestRequest<Echo>(server.provider(), "/echo"))
            #expect(log.all.count == 2)
            let infos = entries.all.filter { $0.level == .info }
            #expect(infos.count == 2)
            for (text, entry) in zip(log.all, infos) {
                #expect(text.hasPrefix(entry.description + "\n"), "\(text)")
                for header in entry.headers { #expect(text.contains("  \(header.name): \(header.value)\n")) }
            }
        }
    }

    @Test("With both logs off no log is created, and setting only the entry handler turns logging on", .measuring)
    func nothingBuiltWhenOff() async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.isVerbose = false
            let before = NetworkLog.created  // .measuring: no other test creates logs meanwhile
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
            #expect(NetworkLog.created == before)
            let entries = LogEntryCollector()
            net.logEntryHandler = { entries.append($0) }
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
            #expect(NetworkLog.created > before)
            #expect(!entries.all.isEmpty)
        }
    }

    @Test("A failure is one error entry with the error's description and the status that caused it")
    func failure() async throws {
        let entries = LogEntryCollector()
        let log = LogCollector()
        try await withTestServer { server in
            let error = await networkError {
                try await makeManager(log: log, entries: entries).perform(TestRequest<Echo>(server.provider(), "/status/404"))
            }
            let failure = try #require(entries.all.last)
            #expect(failure.phase == .failure)
            #expect(failure.level == .error)
            #expect(failure.statusCode == 404)
            #expect(failure.errorDescription == error?.errorDescription)
            #expect(log.all.last == failure.description + "\n")
            #expect(entries.all.filter { $0.level == .error }.count == 1)
        }
    }

    @Test("A request refused before it has a URL fails with its endpoint as written, redacted, as its URL")
    func failureBeforePreparing() async throws {
        let entries = LogEntryCollector()
        let provider = TestProvider(host: "bad host", httpScheme: .http, port: nil)
        _ = await networkError {
            try await makeManager(entries: entries).perform(TestRequest<Echo>(provider, "/search?token=canary-early&q=1"))
        }
        let failure = try #require(entries.all.first)
        #expect(entries.all.count == 1)
        #expect(failure.phase == .failure)
        #expect(failure.url == "/search?token=<redacted>&q=1")
        #expect(failure.method == .get)
    }

    @Test("Each retried attempt is a retry entry of the same request")
    func retries() async throws {
        let entries = LogEntryCollector()
        try await withTestServer { server in
            let provider = RetryingProvider(port: server.port, retryPolicy: RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(10)))
            _ = try await makeManager(entries: entries).perform(TestRequest<Attempt>(provider, "/flaky/r?fail=2&status=503"))
            let retries = entries.all.filter { $0.phase == .retry }
            #expect(retries.map { String($0.message.prefix(30)) } == ["attempt 1 of 3 failed (status ", "attempt 2 of 3 failed (status "])
            #expect(retries.allSatisfy { $0.level == .info })
            #expect(Set(entries.all.map(\.requestID)).count == 1)
            #expect(entries.all.last?.phase == .response)
        }
    }

    @Test("Entries of a mocked request say so")
    func mocked() async throws {
        let entries = LogEntryCollector()
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
        _ = try await makeManager(mocks: fixtureMocks, entries: entries).perform(MockedRequest<User>(provider, "/users/7", mock: "User"))
        #expect(!entries.all.isEmpty)
        #expect(entries.all.allSatisfy { $0.isMocked })
        #expect(entries.all.first { $0.phase == .response }?.metrics == nil)
    }

    @Test("Secrets in headers, query items, bodies, Set-Cookie and echoed responses reach no entry, as in the text log")
    func secretsRedacted() async throws {
        let entries = LogEntryCollector()
        let log = LogCollector()
        try await withTestServer { server in
            let net = makeManager(log: log, entries: entries)
            net.redactedHeaderNames = ["X-Custom-Credential"]
            net.redactedQueryItemNames = ["my_secret_param"]
            let provider = server.provider(headers: [
                "Authorization": "Bearer canary-authorization", "Proxy-Authorization": "Basic canary-proxy",
                "Cookie": "session=canary-cookie", "X-API-Key": "canary-apikey", "Api-Key": "canary-api-key",
                "X-Auth-Token": "canary-auth-token", "X-Client-Secret": "canary-client-secret",
                "X-Custom-Credential": "canary-custom",
            ])
            let query: [String: any Sendable] = ["token": "canary-query-token", "access_token": "canary-access-token",
                                                 "api_key": "canary-api_key", "password": "canary-password",
                                                 "my_secret_param": "canary-custom-query", "visible": "shown"]
            _ = try await net.perform(TestRequest<Echo>(provider, "/echo", params: query))
            _ = try await net.perform(TestRequest<Echo>(provider, "/echo", method: .post,
                                                        params: ["user": "ada", "password": "canary-body-password"]))
            _ = try await net.perform(TestRequest<HeadersEcho>(provider, "/headers"))
            let unreachable = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
            _ = await networkError {
                try await net.perform(TestRequest<Echo>(unreachable, "/echo?token=canary-query-token", params: ["password": "canary-password"]))
            }
            let texts = entries.texts
            for canary in LoggingTests.canaries {
                #expect(!texts.contains { $0.contains(canary) }, "\(canary) leaked into an entry")
            }
            #expect(!texts.contains { $0.contains("abc123") }, "Set-Cookie leaked")
            #expect(texts.contains { $0.contains("<redacted>") })
            #expect(texts.contains { $0.contains("visible=shown") }, "ordinary query items stay readable")
            // The same redaction as the text log: every header an entry shows, the text shows the same way.
            for entry in entries.all where entry.level == .info {
                for header in entry.headers { #expect(log.text.contains("  \(header.name): \(header.value)\n")) }
            }
        }
    }

    @Test("Levels order by severity, so a handler can filter")
    func levels() {
        #expect(NetworkLogEntry.Level.debug < .info)
        #expect(NetworkLogEntry.Level.info < .error)
        #expect(NetworkLogEntry.Level.allCases.sorted() == [.debug, .info, .error])
    }
}
