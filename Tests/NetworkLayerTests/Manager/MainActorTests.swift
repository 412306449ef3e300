import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A request built on the main actor, by a subclass written as a user would write it, is
/// performed without blocking the main actor.

@Suite("Requests built on the main actor", .sharing)
struct MainActorTests {
    @Test("A subclass built in a @MainActor function is performed")
    @MainActor
    func builtOnMainActor() async throws {
        let server = try await TestServer.shared()
        let request = SearchRequest(provider: server.provider(), term: "Dream Theater", limit: 3)
        let echo = try await Net.perform(request)
        #expect(echo.path == "/echo/search")
        #expect(echo.args == ["term": ["Dream Theater"], "limit": ["3"]])
        #expect(echo.header("X-Screen") == "search")
    }

    @Test("A main-actor object keeps a request and performs it later")
    @MainActor
    func storedOnMainActor() async throws {
        let server = try await TestServer.shared()
        let model = SearchViewModel(provider: server.provider())
        model.prepare(term: "Opeth")
        try await model.load()
        #expect(model.results == ["Opeth"])
    }

    @Test("A request built on the main actor can use the completion handler")
    @MainActor
    func completionFromMainActor() async throws {
        let server = try await TestServer.shared()
        let calls = CallRecorder<Result<Echo, NetworkError>>()
        Net.performRequest(request: SearchRequest(provider: server.provider(), term: "Rush", limit: 1)) {
            calls.record($0)
        }
        let results = await calls.waitForCalls()
        #expect(results.count == 1)
        #expect((try? results.first?.get())?.args["term"] == ["Rush"])
    }

    @Test("Changing a request after it started does not change the request in flight")
    @MainActor
    func snapshotAtStart() async throws {
        let server = try await TestServer.shared()
        let request = SearchRequest(provider: server.provider(), term: "before", limit: 1)
        let calls = CallRecorder<Result<Echo, NetworkError>>()
        Net.performRequest(request: request) { calls.record($0) }
        request.params["term"] = "after"
        request.endpoint = "/status/500"
        let results = await calls.waitForCalls()
        #expect((try? results.first?.get())?.args["term"] == ["before"])
    }

    @Test("The main actor stays free while a request it started is in flight")
    @MainActor
    func mainActorNotBlocked() async throws {
        let server = try await TestServer.shared()
        let clock = ContinuousClock()
        // The request lasts long enough that the 50 ms sleep below wakes before it ends even on a
        // loaded machine under a sanitizer.
        let request = TestRequest<DelayBody>(server.provider(), "/delay/3")
        let slow = Task { @MainActor in
            _ = try await Net.perform(request)
            return clock.now
        }
        // The task above starts the request on the main actor. Coming back here needs the main
        // actor too: if the request held it, this could only happen once the request ended.
        try await Task.sleep(for: .milliseconds(50))
        let mainActorFreeAt = clock.now
        let finishedAt = try await slow.value
        #expect(mainActorFreeAt < finishedAt, "\(mainActorFreeAt.duration(to: finishedAt))")
    }
}
