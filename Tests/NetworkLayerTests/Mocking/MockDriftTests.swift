import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `MockDrift.check(against:requests:)`: each request's live answer, from a real server whose
/// answer the test changes after recording, compared with the mock mock mode would answer it with
/// (issue 52).
@Suite("Mock drift", .sharing)
struct MockDriftTests {
    struct Owner: Codable, Sendable { let login: String }
    struct Item: Codable, Sendable { let id: Int; let owner: Owner }
    struct Page: Codable, Sendable { let items: [Item]; let total: Int }

    static let recorded = #"{"items": [{"id": 1, "owner": {"login": "ada"}}], "total": 1}"#

    /// A mock directory of the test's own, removed by the caller.
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("drift-\(UUID().uuidString)", isDirectory: true)
    }

    /// Records `/page` answering `recorded` (record mode writes `GET/page.json` and its sidecar), then
    /// changes the server's answer to `live` and checks the mock against it.
    func recordThenCheck(live: String, liveHeaders: [String: String] = [:]) async throws -> MockDriftReport {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await withServer({ try DriftServer() }) { server in
            try await server.set("/page", Self.recorded, headers: ["X-Total-Count": "1"])
            let recorder = makeManager()
            recorder.mockRecordingDirectory = directory
            _ = try await recorder.perform(TestRequest<Page>(server.provider, "/page"))
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("GET/page.json").path))

            try await server.set("/page", live, headers: liveHeaders)
            let net = makeManager()
            net.mockResponsesDirectory = directory
            let offline = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
            return try await MockDrift.check(against: server.provider, requests: [TestRequest<Page>(offline, "/page")], manager: net)
        }
    }

    @Test("A field removed live is drift, named by its path, with the decoding error's path")
    func removedField() async throws {
        let report = try await recordThenCheck(live: #"{"items": [{"id": 1, "owner": {}}], "total": 1}"#, liveHeaders: ["X-Total-Count": "1"])
        let entry = try #require(report.drifted.first, "\(report)")
        #expect(entry.request == "GET /page")
        #expect(entry.mock == "the mock file GET/page")
        #expect(entry.differences.contains("items[].owner.login: string in the mock, missing live"), "\(report)")
        #expect(entry.differences.contains { $0.hasPrefix("live: does not decode as Page:") && $0.contains("items[0].owner") }, "\(report)")
        #expect(report.description.contains("DRIFTED GET /page"), "\(report)")
    }

    @Test("A type changed live is drift")
    func changedType() async throws {
        let report = try await recordThenCheck(live: #"{"items": [{"id": 1, "owner": {"login": "ada"}}], "total": "1"}"#,
                                               liveHeaders: ["X-Total-Count": "1"])
        #expect(report.drifted.first?.differences.contains("total: number in the mock, string live") == true, "\(report)")
    }

    @Test("An array's element changed live is drift")
    func changedElement() async throws {
        let report = try await recordThenCheck(live: #"{"items": [7, 8], "total": 2}"#, liveHeaders: ["X-Total-Count": "2"])
        #expect(report.drifted.first?.differences.contains("items[]: object in the mock, number live") == true, "\(report)")
    }

    @Test("A header the mock's sidecar declares, missing live, is drift")
    func missingHeader() async throws {
        let report = try await recordThenCheck(live: Self.recorded)
        #expect(report.drifted.first?.differences == ["header X-Total-Count: in the mock, missing live"], "\(report)")
    }

    @Test("A new live field is an addition, not drift; an unchanged answer is neither")
    func newField() async throws {
        let report = try await recordThenCheck(live: #"{"items": [{"id": 1, "owner": {"login": "ada", "site": null}}], "total": 1, "next": "/page?2"}"#,
                                               liveHeaders: ["X-Total-Count": "1"])
        #expect(report.drifted.isEmpty, "\(report)")
        #expect(report.additions.first?.additions == ["items[].owner.site: null live, not in the mock", "next: string live, not in the mock"],
                "\(report)")
        let same = try await recordThenCheck(live: Self.recorded, liveHeaders: ["X-Total-Count": "1"])
        #expect(same.drifted.isEmpty && same.additions.isEmpty && same.skipped.isEmpty, "\(same)")
        #expect(same.description.contains("OK GET /page"), "\(same)")
    }

    @Test("Mocks registered as a value and as a closure are compared like files, and named")
    func valueAndClosureMocks() async throws {
        try await withServer({ try DriftServer() }) { server in
            try await server.set("/value", #"{"name": 5}"#)
            try await server.set("/closure", #"{"name": "live", "age": 3}"#)
            let net = makeManager()
            net.mockResponsesDirectory = Self.temporaryDirectory()
            net.mocks.register(.get, "/value", .json(Profile(name: "mocked")))
            net.mocks.register(.get, "/closure") { _ in .json(Profile(name: "mocked")) }
            let offline = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
            let report = try await MockDrift.check(against: server.provider, requests: [TestRequest<Profile>(offline, "/value"),
                                                                                          TestRequest<Profile>(offline, "/closure")],
                                                   manager: net)
            #expect(report.entries.map(\.mock) == ["the mock registered for GET /value", "the mock registered for GET /closure"])
            #expect(report.entries[0].differences.contains("name: string in the mock, number live"), "\(report)")
            #expect(report.entries[1].differences.isEmpty && report.entries[1].additions == ["age: number live, not in the mock"], "\(report)")
        }
    }

    @Test("A POST is skipped unless the call allows sending it")
    func nonIdempotentSkipped() async throws {
        try await withServer({ try DriftServer() }) { server in
            try await server.set("/login", #"{"value": 1}"#)
            let net = makeManager()
            net.mocks.register(.post, "/login", .json(Token(value: "t")))
            let offline = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
            let skipped = try await MockDrift.check(against: server.provider, requests: [TestRequest<Token>(offline, "/login", method: .post)],
                                                    manager: net)
            #expect(skipped.drifted.isEmpty, "\(skipped)")
            #expect(skipped.skipped.first?.skipped?.contains("sendingNonIdempotent: true") == true, "\(skipped)")
            let sent = try await MockDrift.check(against: server.provider, requests: [TestRequest<Token>(offline, "/login", method: .post)],
                                                 sendingNonIdempotent: true, manager: net)
            #expect(sent.skipped.isEmpty)
            #expect(sent.drifted.first?.differences.contains("value: string in the mock, number live") == true, "\(sent)")
        }
    }

    @Test("Secrets the request carries never reach the report, in text or JSON, even where the server echoes them")
    func secretsScrubbed() async throws {
        let secret = "tok-\(UUID().uuidString.prefix(12))"
        try await withServer({ try DriftServer() }) { server in
            let net = makeManager()
            net.mocks.register(.get, "/echo", .json(["headers": [String: String](), "seen": [:]], headers: ["X-Leak-\(secret)": "1"]))
            let offline = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
            let request = TestRequest<JSONValue>(offline, "/echo?token=\(secret)", headers: ["X-Custom": secret])
            request.secretHeaderNames = ["X-Custom"]
            request.secretQueryItemNames = ["token"]
            let report = try await MockDrift.check(against: server.provider, requests: [request], manager: net)
            let entry = try #require(report.entries.first)
            #expect(!entry.additions.isEmpty && !entry.differences.isEmpty, "\(report)")
            #expect(!report.description.contains(secret), "\(report)")
            #expect(!String(decoding: report.json, as: UTF8.self).contains(secret))
            #expect(report.description.contains("<redacted>"), "\(report)")
        }
    }

    @Test("The report reads back from its JSON")
    func jsonRoundTrip() async throws {
        let report = try await recordThenCheck(live: #"{"items": [], "total": "none"}"#)
        #expect(try JSONDecoder().decode(MockDriftReport.self, from: report.json) == report)
        #expect(!report.drifted.isEmpty)
    }

    @Test("A call without requests, or with a provider that mocks itself, throws")
    func badCalls() async throws {
        let empty = await networkError { try await MockDrift.check(against: TestProvider(host: "127.0.0.1", httpScheme: .http, port: 1), requests: []) }
        guard case .invalidRequest(let context)? = empty else { Issue.record("got \(String(describing: empty))"); return }
        #expect(context.reason?.contains("no request") == true)
        let mocking = await networkError {
            try await MockDrift.check(against: MockingProvider(), requests: [TestRequest<Profile>(MockingProvider(), "/")])
        }
        guard case .invalidRequest? = mocking else { Issue.record("got \(String(describing: mocking))"); return }
    }

    struct MockingProvider: ServiceProvider {
        var host = "127.0.0.1"
        var httpScheme = HTTPScheme.http
        var areMocksEnabled: Bool? { true }
    }
}
