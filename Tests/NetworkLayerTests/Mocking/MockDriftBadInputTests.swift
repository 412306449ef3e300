import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `MockDrift.check` given bad input from either side: each is a clear entry of the report, never a
/// crash, a hang past the request's timeout, or memory growing with the body (issue 52).
@Suite("Mock drift, bad input", .sharing)
struct MockDriftBadInputTests {
    struct Item: Codable, Sendable { let id: Int; let name: String; let tags: [String] }

    /// Runs `body` with a server, a manager reading mocks from a directory of its own, and a provider
    /// for requests that mock mode answers without a connection.
    func checking(_ body: (DriftServer, NetworkManager, URL, TestProvider) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("drift-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("GET"), withIntermediateDirectories: true)
        let net = makeManager()
        net.mockResponsesDirectory = directory
        let offline = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
        try await withServer({ try DriftServer() }) { server in try await body(server, net, directory, offline) }
    }

    @Test("A live server answering HTML is drift: its media type, its decoding and its lack of JSON")
    func htmlAnswer() async throws {
        try await checking { server, net, _, offline in
            try await server.set("/profile", "<html><body>\u{1B}[31mmaintenance</body></html>", contentType: "text/html")
            net.mocks.register(.get, "/profile", .json(Profile(name: "a")))
            let report = try await MockDrift.check(against: server.provider, requests: [TestRequest<Profile>(offline, "/profile")], manager: net)
            let differences = try #require(report.drifted.first?.differences, "\(report)")
            #expect(differences.contains("Content-Type: application/json in the mock, text/html live"))
            #expect(differences.contains { $0.hasPrefix("live: does not decode as Profile") })
            #expect(differences.contains { $0.hasPrefix("live: the body has no JSON shape to compare: it is not JSON") })
            #expect(!report.description.contains("\u{1B}"))
        }
    }

    @Test("A 10 MB live body is compared by its shape; with the request's maximumResponseSize below it, the failure is the entry")
    func largeBody() async throws {
        try await checking { server, net, directory, offline in
            try await server.setBig("/items", count: 180_000)
            try Data(#"[{"id": 1, "name": "x", "tags": []}]"#.utf8).write(to: directory.appendingPathComponent("GET/items.json"))
            let report = try await MockDrift.check(against: server.provider, requests: [TestRequest<[Item]>(offline, "/items")], manager: net)
            #expect(report.drifted.isEmpty && report.additions.isEmpty, "\(report)")

            let limited = TestRequest<[Item]>(offline, "/items")
            limited.maximumResponseSize = 1 << 20
            let refused = try await MockDrift.check(against: server.provider, requests: [limited], manager: net)
            #expect(refused.drifted.first?.differences.first?.hasPrefix("live: the request failed:") == true, "\(refused)")
        }
    }

    @Test("A live JSON shape 200 levels deep is a clear entry, not a crash")
    func deepJSON() async throws {
        try await checking { server, net, _, offline in
            try await server.set("/deep", String(repeating: "[", count: 200) + "1" + String(repeating: "]", count: 200))
            net.mocks.register(.get, "/deep", .json([[1]]))
            let report = try await MockDrift.check(against: server.provider, requests: [TestRequest<JSONValue>(offline, "/deep")], manager: net)
            #expect(report.drifted.first?.differences.contains { $0.contains("nests deeper than 64 levels, at []") } == true, "\(report)")
        }
    }

    @Test("A mock file that is not JSON is reported as a broken mock")
    func brokenMockFile() async throws {
        try await checking { server, net, directory, offline in
            try await server.set("/broken", #"{"name": "live"}"#)
            try Data("{not json".utf8).write(to: directory.appendingPathComponent("GET/broken.json"))
            let report = try await MockDrift.check(against: server.provider, requests: [TestRequest<Profile>(offline, "/broken")], manager: net)
            let differences = try #require(report.drifted.first?.differences, "\(report)")
            #expect(differences.contains { $0.hasPrefix("the mock itself does not decode as Profile") }, "\(report)")
            #expect(differences.contains { $0.hasPrefix("the mock's body has no JSON shape to compare") }, "\(report)")
        }
    }

    @Test("Two requests answered by the same mock are both compared, the second noting it")
    func sameMock() async throws {
        try await checking { server, net, directory, offline in
            try await server.set("/search", #"{"name": "live"}"#)
            try Data(#"{"name": "mocked"}"#.utf8).write(to: directory.appendingPathComponent("GET/search.json"))
            let report = try await MockDrift.check(against: server.provider, requests: [TestRequest<Profile>(offline, "/search?term=a"),
                                                                                          TestRequest<Profile>(offline, "/search?term=b")],
                                                   manager: net)
            #expect(report.entries.count == 2 && report.drifted.isEmpty, "\(report)")
            #expect(report.entries[1].notes == ["answered by the same mock as GET /search?term=a"], "\(report)")
        }
    }

    @Test("A staging server that never answers is an entry once the request's timeout passes")
    func hangingServer() async throws {
        try await checking { server, net, _, offline in
            net.mocks.register(.get, "/hang", .json(Profile(name: "a")))
            let started = ContinuousClock.now
            let report = try await MockDrift.check(against: server.provider, requests: [TestRequest<Profile>(offline, "/hang", timeout: 1)],
                                                   manager: net)
            #expect(ContinuousClock.now - started < .seconds(8))
            #expect(report.drifted.first?.differences.first?.hasPrefix("live: the request failed:") == true, "\(report)")
        }
    }
}
