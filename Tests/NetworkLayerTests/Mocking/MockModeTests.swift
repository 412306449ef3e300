import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Mock mode: answers from files, through the same validation as live responses, with no network.
@Suite("Mock mode", .sharing)
struct MockModeTests {
    /// A provider whose port has nothing listening: any network attempt fails with `.reachability`.
    let offline = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try! closedPort())

    @Test("A mock answers without any network connection")
    func mockAnswersWithoutAnyNetworkConnection() async throws {
        let net = makeManager(mocks: fixtureMocks)
        let user = try await net.perform(MockedRequest<User>(offline, "/users/7", mock: "User"))
        #expect(user == User(id: 7, name: "Ada"))

        // The same request live proves the port really is closed.
        net.areMocksEnabled = false
        let error = await networkError { try await net.perform(MockedRequest<User>(offline, "/users/7", mock: "User")) }
        guard case .reachability = error else { Issue.record("expected .reachability live, got \(String(describing: error))"); return }
    }

    @Test("The provider's validation runs on a mock exactly as on a live response")
    func providerValidationRunsOnMocksExactlyAsLive() async throws {
        // Mocked:
        let mocked = await networkError {
            try await makeManager(mocks: fixtureMocks).perform(
                MockedRequest<User>(PickyProvider(port: offline.port), "/users/7", mock: "User"))
        }
        guard case .customUser(_, _, let mockedCode) = mocked else { Issue.record("got \(String(describing: mocked))"); return }
        #expect(mockedCode == 777)

        // Live, with the same body served by a real server:
        try await withTestServer { server in
            let body = #"{"id": 7, "name": "Ada"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let live = await networkError {
                try await makeManager().perform(
                    MockedRequest<User>(PickyProvider(port: server.port), "/status/200?body=\(body)", mock: nil))
            }
            guard case .customUser(_, _, let liveCode) = live else { Issue.record("got \(String(describing: live))"); return }
            #expect(liveCode == mockedCode)
        }
    }

    @Test("A sidecar's status goes through the status mapping",
          arguments: [("Unauthorized", 401), ("NotFound", 404), ("ServerError", 500)])
    func sidecarStatusGoesThroughTheStatusMapping(mock: String, status: Int) async throws {
        let error = await networkError {
            try await makeManager(mocks: fixtureMocks).perform(MockedRequest<User>(offline, "/x", mock: mock))
        }
        switch (status, error) {
        case (401, .unauthorizedAccess(let context)?): #expect(context.statusCode == 401)
        case (404, .notFound?): break
        case (500, .apiError(let context)?): #expect(context.statusCode == 500)
        default: Issue.record("status \(status) gave \(String(describing: error))")
        }
    }

    @Test("A sidecar's status and headers reach the provider, marked as mocked")
    func sidecarHeadersReachTheProvider() async throws {
        let raw = try await makeManager(mocks: fixtureMocks).perform(MockedRequest<RawResponse>(RawResponseProvider(), "/x", mock: "ServerError"))
        #expect(raw.isMocked)
        #expect(raw.statusCode == 500)
        #expect(raw.header("x-trace") == "abc")
    }

    @Test("A sidecar's delay is honoured")
    func sidecarDelayIsHonoured() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        _ = try await makeManager(mocks: fixtureMocks).perform(MockedRequest<User>(offline, "/x", mock: "Slow"))
        #expect(clock.now - start >= .milliseconds(300))
    }

    @Test("A sidecar delay longer than the request's timeout times out")
    func delayLongerThanTheTimeoutTimesOut() async throws {
        let error = await networkError {
            try await makeManager(mocks: fixtureMocks).perform(MockedRequest<User>(offline, "/x", mock: "Slow", timeout: 0.1))
        }
        guard case .timeOut = error else { Issue.record("got \(String(describing: error))"); return }
    }

    @Test("Without a sidecar the status is 200")
    func withoutSidecarStatusIs200() async throws {
        let raw = try await makeManager(mocks: fixtureMocks).perform(MockedRequest<RawResponse>(RawResponseProvider(), "/x", mock: "User"))
        #expect(raw.statusCode == 200)
    }

    @Test("A malformed sidecar is .invalidRequest naming the file")
    func malformedSidecarIsAClearError() async throws {
        let error = await networkError {
            try await makeManager(mocks: fixtureMocks).perform(MockedRequest<User>(offline, "/x", mock: "BadSidecar"))
        }
        guard case .invalidRequest(let context) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(context.reason?.contains("BadSidecar.meta.json") == true)
    }

    @Test("A request without a mock filename is answered from METHOD/path.json")
    func requestWithoutFilenameFallsBackToMethodAndPath() async throws {
        let net = makeManager(mocks: fixtureMocks)
        let user = try await net.perform(MockedRequest<User>(offline, "/users/7", mock: nil))
        #expect(user.name == "Ada")

        let error = await networkError { try await net.perform(MockedRequest<User>(offline, "/users/7", mock: nil, method: .post)) }
        guard case .mockNotFound(let path) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(path.hasPrefix(fixtureMocks.appendingPathComponent("POST/users/7.json").path + " "))
    }

    @Test("A missing mock names the full path of every file it looked for: the named one, then METHOD/path")
    func missingMockNamesTheFullPathItLookedFor() async throws {
        let error = await networkError {
            try await makeManager(mocks: fixtureMocks).perform(MockedRequest<User>(offline, "/x", mock: "NoSuchFile"))
        }
        let expected = fixtureMocks.appendingPathComponent("NoSuchFile.json").path
        guard case .mockNotFound(let path) = error else { Issue.record("got \(String(describing: error))"); return }
        let fallback = fixtureMocks.appendingPathComponent("GET/x.json").path
        let named = try #require(path.range(of: expected))
        let methodAndPath = try #require(path.range(of: fallback))
        #expect(named.lowerBound < methodAndPath.lowerBound)
        #expect(error?.errorDescription?.contains(expected) == true)
        #expect(error?.recoverySuggestion?.isEmpty == false)
    }

    static let escapingNames = [
        "../User", "../../etc/passwd", "/etc/passwd", "~/secret", "GET/../../User", "a/../../b",
        "..", ".", "./User", "a//b", "", "Us\0er", "..\\User", "Use\\r", "%2e%2e/User", "%2e%2e%2fUser",
        "..%2fUser", "%252e%252e/User", "User\n", "User\r\nX: y", "/", "//etc/passwd",
    ]

    @Test("Mock filenames that would leave the mock directory are refused", arguments: escapingNames)
    func filenamesLeavingTheMockDirectoryAreRefused(name: String) async throws {
        let error = await networkError {
            try await makeManager(mocks: fixtureMocks.appendingPathComponent("GET")).perform(MockedRequest<User>(offline, "/x", mock: name))
        }
        guard case .invalidRequest(let context) = error else { Issue.record("\(name.debugDescription) gave \(String(describing: error))"); return }
        #expect(context.reason?.contains("refused") == true)
    }

    @Test("Endpoints that would leave the mock directory are refused, or looked for inside it",
          arguments: ["/../User", "/%2e%2e/User", "/users/%2e%2e/%2e%2e/User", "/a/..%2f..%2fUser"])
    func endpointsLeavingTheMockDirectoryAreRefused(endpoint: String) async throws {
        let error = await networkError {
            try await makeManager(mocks: fixtureMocks).perform(MockedRequest<User>(offline, endpoint, mock: nil))
        }
        switch error {
        case .invalidRequest?, .mockNotFound?: break  // refused, or looked for inside the directory only
        default: Issue.record("\(endpoint) gave \(String(describing: error))")
        }
        if case .mockNotFound(let path)? = error { #expect(path.hasPrefix(fixtureMocks.path + "/")) }
    }

    @Test("A symbolic link pointing out of the mock directory is refused")
    func symlinkPointingOutsideIsRefused() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outside = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: outside) }
        try #"{"id": 1, "name": "outside"}"#.write(to: outside.appendingPathComponent("Secret.json"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("Evil.json"),
                                                   withDestinationURL: outside.appendingPathComponent("Secret.json"))
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("Out"), withDestinationURL: outside)

        for name in ["Evil", "Out/Secret"] {
            let error = await networkError { try await makeManager(mocks: directory).perform(MockedRequest<User>(offline, "/x", mock: name)) }
            guard case .invalidRequest = error else { Issue.record("\(name) gave \(String(describing: error))"); continue }
        }
    }

    @Test("A recorded live response replays to the same value, with the credential it echoed <redacted>; secret headers stay out of its sidecar")
    func recordedLiveResponseReplaysToTheSameValue() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            let live = makeManager()
            live.mockRecordingDirectory = directory
            let request = { MockedRequest<Echo>(server.provider(headers: ["Authorization": "Bearer canary-token-1"]), "/echo", mock: "Recorded") }
            let recorded = try await live.perform(request())
            #expect(recorded.headers["Authorization"] == "Bearer canary-token-1", "the server echoed the credential: the test means something")
            // The body as received, but for the credential: recorded mocks end up in repositories.
            let body = try String(contentsOf: directory.appendingPathComponent("Recorded.json"), encoding: .utf8)
            #expect(!body.contains("canary-token-1"), "\(body)")

            let replayed = try await makeManager(mocks: directory).perform(request())
            #expect(replayed.path == recorded.path)
            var expected = recorded.headers
            expected["Authorization"] = "<redacted>"
            #expect(replayed.headers == expected)
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("Recorded.meta.json").path))

            // A response header whose name quotes the credential (a name that does not look secret,
            // or the header would be left out): its name is scrubbed too.
            _ = try await live.perform(MockedRequest<Data>(server.provider(headers: ["Authorization": "Bearer canary-9f8e7d"]),
                                                           "/response-headers?h=X-Echo-canary-9f8e7d:yes", mock: "Named"))
            let named = try String(contentsOf: directory.appendingPathComponent("Named.meta.json"), encoding: .utf8)
            #expect(!named.contains("canary-9f8e7d") && named.contains("X-Echo-<redacted>"), "\(named)")

            // Without a filename, the METHOD/path layout; secret response headers stay out of the sidecar.
            _ = try await live.perform(MockedRequest<HeadersEcho>(server.provider(), "/headers", mock: nil))
            let sidecar = try String(contentsOf: directory.appendingPathComponent("GET/headers.meta.json"), encoding: .utf8)
            #expect(sidecar.contains("X-Test-Header"))
            #expect(!sidecar.contains("abc123"))
            #expect(!sidecar.localizedCaseInsensitiveContains("set-cookie"))
            let replayedHeaders = try await makeManager(mocks: directory).perform(MockedRequest<HeadersEcho>(server.provider(), "/headers", mock: nil))
            #expect(!replayedHeaders.headers.isEmpty)
        }
    }
}

