import Dispatch
import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `performRequest(request:completion:)` calls its completion exactly once, on the manager's
/// `completionQueue`, which needs no run loop.
@Suite("Completion handler", .sharing)
struct CompletionHandlerTests {
    @Test("On success the completion runs exactly once, on Net.completionQueue, with the decoded value")
    func successOnce() async throws {
        let server = try await TestServer.shared()
        let mark = QueueMark(Net.completionQueue)
        let calls = CallRecorder<(result: Result<Echo, NetworkError>, onQueue: Bool)>()
        Net.performRequest(request: TestRequest<Echo>(server.provider(), "/echo", params: ["id": "success"])) { result in
            calls.record((result, mark.isCurrent))
        }
        let results = await calls.waitForCalls()
        #expect(results.count == 1)
        #expect(results.first?.onQueue == true)
        #expect((try? results.first?.result.get())?.args == ["id": ["success"]])
    }

    @Test("On failure the completion runs exactly once, on Net.completionQueue, with the mapped error")
    func failureOnce() async throws {
        let server = try await TestServer.shared()
        let mark = QueueMark(Net.completionQueue)
        let calls = CallRecorder<(result: Result<StatusBody, NetworkError>, onQueue: Bool)>()
        Net.performRequest(request: TestRequest<StatusBody>(server.provider(), "/status/404")) { result in
            calls.record((result, mark.isCurrent))
        }
        let results = await calls.waitForCalls()
        #expect(results.count == 1)
        #expect(results.first?.onQueue == true)
        guard case .failure(.notFound)? = results.first?.result else {
            Issue.record("expected .failure(.notFound), got \(results)")
            return
        }
    }

    @Test("A transport failure also reaches the completion exactly once")
    func transportFailureOnce() async throws {
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
        let calls = CallRecorder<Result<Echo, NetworkError>>()
        Net.performRequest(request: TestRequest<Echo>(provider, "/echo")) { calls.record($0) }
        let results = await calls.waitForCalls()
        #expect(results.count == 1)
        guard case .failure(.reachability)? = results.first else {
            Issue.record("expected .failure(.reachability), got \(results)")
            return
        }
    }

    @Test("A request refused before sending reaches the completion exactly once")
    func invalidRequestOnce() async throws {
        let provider = TestProvider(host: "bad host", httpScheme: .http, port: nil)
        let calls = CallRecorder<Result<Echo, NetworkError>>()
        Net.performRequest(request: TestRequest<Echo>(provider, "/echo")) { calls.record($0) }
        let results = await calls.waitForCalls()
        #expect(results.count == 1)
        guard case .failure(.invalidRequest)? = results.first else {
            Issue.record("expected .failure(.invalidRequest), got \(results)")
            return
        }
    }

    // A command-line program typically blocks its main thread on a semaphore until the
    // completion signals it; nothing must wait for that thread or for a run loop.
    @Test("The completion arrives while the calling thread is blocked waiting for it, with no run loop")
    func worksWithBlockedCaller() async throws {
        let server = try await TestServer.shared()
        let provider = server.provider()
        let outcome: String = await withCheckedContinuation { continuation in
            let thread = Thread {
                let done = DispatchSemaphore(value: 0)
                let calls = CallRecorder<Result<Echo, NetworkError>>()
                Net.performRequest(request: TestRequest<Echo>(provider, "/echo", params: ["cli": "yes"])) { result in
                    calls.record(result)
                    done.signal()
                }
                guard done.wait(timeout: .now() + 5) == .success else {
                    continuation.resume(returning: "timed out")
                    return
                }
                let value = (try? calls.values.first?.get())?.args["cli"]?.first
                continuation.resume(returning: value ?? "no value")
            }
            thread.start()
        }
        #expect(outcome == "yes")
    }

    @Test("A manager's completionQueue setting decides where completions run")
    func customCompletionQueue() async throws {
        let server = try await TestServer.shared()
        // A manager of our own, so the shared one's settings stay untouched.
        let manager = NetworkManager()
        manager.isVerbose = false
        let queue = DispatchQueue(label: "CompletionHandlerTests.custom")
        manager.completionQueue = queue
        let mark = QueueMark(queue)
        let calls = CallRecorder<Bool>()
        manager.performRequest(request: TestRequest<Echo>(server.provider(), "/echo")) { _ in
            calls.record(mark.isCurrent)
        }
        #expect(await calls.waitForCalls() == [true])
    }

    @Test("Dropping the handle does not cancel the request")
    func droppedHandleDoesNotCancel() async throws {
        let server = try await TestServer.shared()
        let calls = CallRecorder<Result<DelayBody, NetworkError>>()
        do {
            _ = Net.performRequest(request: TestRequest<DelayBody>(server.provider(), "/delay/0.3")) { calls.record($0) }
        }
        let results = await calls.waitForCalls()
        #expect(results.count == 1)
        #expect((try? results.first?.get())?.delayed == 0.3)
    }
}
