import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Which mock answers a request: the request's `mockedResponseFilename`, then the `METHOD/path`
/// file; none is `.mockNotFound` naming every place looked in.
@Suite("Mock lookup", .sharing)
struct MockLookupTests {
    /// A provider whose port has nothing listening: any network attempt fails with `.reachability`.
    let offline = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try! closedPort())

    @Test("A request whose named mock file is missing is answered by its METHOD/path file")
    func missingNamedFileFallsBackToMethodAndPath() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("GET/users/7", body: #"{"id": 7, "name": "from METHOD/path"}"#)
        let net = makeManager(mocks: mocks.url)
        let user = try await net.perform(MockedRequest<User>(offline, "/users/7", mock: "Missing"))
        #expect(user.name == "from METHOD/path")

        // The named file, once it exists, comes first.
        try mocks.write("Missing", body: #"{"id": 7, "name": "named"}"#)
        #expect(try await net.perform(MockedRequest<User>(offline, "/users/7", mock: "Missing")).name == "named")
    }

    @Test("A named mock that would leave the mock directory is refused, not skipped for the METHOD/path file")
    func refusedNameIsNotSkipped() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("GET/users/7", body: #"{"id": 7, "name": "Ada"}"#)
        let error = await networkError {
            try await makeManager(mocks: mocks.url).perform(MockedRequest<User>(offline, "/users/7", mock: "../escape"))
        }
        guard case .invalidRequest(let context) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(context.reason?.contains("refused") == true)
    }
}
