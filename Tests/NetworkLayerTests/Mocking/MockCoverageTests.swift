import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `Net.mocks.coverage`: after a run in mock mode, which mocks were never used and which requests
/// found none (issue 52).
@Suite("Mock coverage", .sharing)
struct MockCoverageTests {
    let offline = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try! closedPort())

    /// A mock directory: `profile.json` and `GET/users.json` will be read; `dead.json` and its
    /// sidecar, and `old/GET/gone.json`, never.
    func mockDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coverage-\(UUID().uuidString)", isDirectory: true)
        for (name, text) in [("profile.json", #"{"name":"from a file"}"#), ("GET/users.json", "[]"), ("dead.json", "{}"),
                             ("dead.meta.json", #"{"statusCode": 201}"#), ("old/GET/gone.json", "{}")] {
            let file = directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        return directory
    }

    @Test("Unused registrations and files, and requests that found no mock (failed or answered by the fallback), are reported")
    func coverageAfterARun() async throws {
        let directory = try mockDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let net = makeManager(mocks: directory)
        net.mocks.register(.get, "/registered", .json(Profile(name: "registered")))
        net.mocks.register(.get, "/never", .json(Profile(name: "never")))
        net.mocks.register(operationID: "neverCalled", .status(204))
        net.mocks.register(AdminProfileRequest.self) { _ in .json(Profile(name: "admin")) }
        net.mocks.registerFallback { request in request.url.path == "/fallback" ? .json(Profile(name: "fallback")) : nil }

        _ = try await net.perform(MockedRequest<Profile>(offline, "/anything", mock: "profile"))
        _ = try await net.perform(TestRequest<[Profile]>(offline, "/users"))
        _ = try await net.perform(TestRequest<Profile>(offline, "/registered"))
        _ = try await net.perform(TestRequest<Profile>(offline, "/fallback"))
        for _ in 0..<2 {
            let error = await networkError { try await net.perform(TestRequest<Profile>(offline, "/missing")) }
            guard case .mockNotFound = error else { Issue.record("got \(String(describing: error))"); return }
        }

        let coverage = net.mocks.coverage
        #expect(coverage.unusedRegistrations == ["AdminProfileRequest", "GET /never", "operation neverCalled"])
        #expect(coverage.unusedFiles == ["dead.json", "dead.meta.json", "old/GET/gone.json"])
        #expect(coverage.unmockedRequests == [.init(method: .get, path: "/fallback", answeredByFallback: true),
                                              .init(method: .get, path: "/missing", answeredByFallback: false)])
        #expect(coverage.description.contains("mock files never read: dead.json"), "\(coverage)")

        net.mocks.removeAll()
        #expect(net.mocks.coverage == MockCoverage(unusedRegistrations: [], unusedFiles: [], unmockedRequests: []))
    }

    @Test("A sidecar read with its body counts as used; a run that used everything says so")
    func everythingUsed() async throws {
        let directory = try mockDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.removeItem(at: directory.appendingPathComponent("old"))
        try FileManager.default.removeItem(at: directory.appendingPathComponent("GET"))
        try FileManager.default.removeItem(at: directory.appendingPathComponent("profile.json"))
        let net = makeManager(mocks: directory)
        let (_, response) = try await net.performWithResponse(MockedRequest<JSONValue>(offline, "/x", mock: "dead"))
        #expect(response.statusCode == 201)
        #expect(net.mocks.coverage.unusedFiles.isEmpty)
        #expect(net.mocks.coverage.description == "every mock was used and every request had one")
    }
}
