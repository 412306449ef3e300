import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A request's `timeout` ends it with `.timeOut`; cancelling its `Task` or its handle ends it
/// with `.cancelled`, promptly, and stops the transfer.
@Suite("Timeout and cancellation", .measuring)
struct TimeoutAndCancellationTests {
    // The requests below run in tasks on a `DedicatedExecutor`, so what is measured is the
    // library, not how long a busy cooperative pool takes to resume the test.

    @Test("A server slower than the request's timeout gives .timeOut once the timeout has passed, not before, not much later")
    func timeout() async throws {
        let server = try await TestServer.shared()
        let provider = server.provider()
        let (error, elapsed) = await Task(executorPreference: DedicatedExecutor()) {
            await measure {
                await networkError { try await Net.perform(TestRequest<DelayBody>(provider, "/delay/5", timeout: 1)) }
            }
        }.value
        guard case .timeOut(let context)? = error else {
            Issue.record("expected .timeOut, got \(String(describing: error))")
            return
        }
        #expect(elapsed >= .milliseconds(950), "\(elapsed)")
        #expect(elapsed < .seconds(3), "\(elapsed)")
        #expect(context.statusCode == nil)
        #expect((context.underlyingError as? CurlError)?.code == 28)  // CURLE_OPERATION_TIMEDOUT
        let curlElapsed = try #require(curlReportedTimeout(error))
        #expect(curlElapsed >= .milliseconds(950) && curlElapsed < .milliseconds(1500), "\(curlElapsed)")
        #expect(error?.errorDescription?.contains("GET http://127.0.0.1:\(server.port)/delay/5") == true)
        #expect(error?.recoverySuggestion?.isEmpty == false)
    }

    @Test("A server that answers within the timeout is waited for")
    func answerWithinTimeout() async throws {
        let server = try await TestServer.shared()
        let body = try await Net.perform(TestRequest<DelayBody>(server.provider(), "/delay/0.5", timeout: 5))
        #expect(body.delayed == 0.5)
    }

    // libcurl's own account of when it gave up (which can read a millisecond short of the
    // timeout), so the check holds however loaded the machine is. Rounded up to whole seconds,
    // the timeout would give up after 1000 ms.
    @Test("A fractional timeout is honoured to the millisecond, not rounded to whole seconds")
    func fractionalTimeout() async throws {
        let server = try await TestServer.shared()
        let error = await networkError {
            try await Net.perform(TestRequest<DelayBody>(server.provider(), "/delay/3", timeout: 0.3))
        }
        #expect(error?.caseName == "timeOut")
        let curlElapsed = try #require(curlReportedTimeout(error), "\(String(describing: error))")
        #expect(curlElapsed >= .milliseconds(250) && curlElapsed < .milliseconds(800), "\(curlElapsed)")
    }

    @Test("Cancelling the Task of a running request throws .cancelled within 100 ms")
    func taskCancellation() async throws {
        let server = try await TestServer.shared()
        let provider = server.provider()
        let clock = ContinuousClock()
        let task = Task(executorPreference: DedicatedExecutor()) {
            let error = await networkError { try await Net.perform(TestRequest<DelayBody>(provider, "/delay/5")) }
            return (error: error, thrownAt: clock.now)
        }
        try await Task.sleep(for: .milliseconds(200))
        let cancelledAt = clock.now
        task.cancel()
        let (error, thrownAt) = await task.value
        guard case .cancelled(let context)? = error else {
            Issue.record("expected .cancelled, got \(String(describing: error))")
            return
        }
        #expect(cancelledAt.duration(to: thrownAt) < .milliseconds(100), "\(cancelledAt.duration(to: thrownAt))")
        #expect(context.request == "GET http://127.0.0.1:\(server.port)/delay/5")
        #expect(error?.recoverySuggestion?.isEmpty == false)
    }

    @Test("A request whose Task is already cancelled throws .cancelled and sends nothing")
    func cancelledBeforeStart() async throws {
        try await withTestServer { server in
            let provider = server.provider()
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return await networkError { try await Net.perform(TestRequest<Echo>(provider, "/echo")) }
            }
            let error = await task.value
            #expect(error?.caseName == "cancelled", "\(String(describing: error))")
            let requestsReceived = try await server.receivedRequestCount()
            #expect(requestsReceived == 0)
        }
    }

    @Test("Cancelling the handle calls the completion exactly once, with .cancelled, without waiting for the server")
    func handleCancellation() async throws {
        let server = try await TestServer.shared()
        let clock = ContinuousClock()
        let calls = CallRecorder<(result: Result<DelayBody, NetworkError>, calledAt: ContinuousClock.Instant)>()
        let handle = Net.performRequest(request: TestRequest<DelayBody>(server.provider(), "/delay/10")) {
            calls.record(($0, clock.now))
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(calls.values.isEmpty)
        #expect(!handle.isCancelled)

        let cancelledAt = clock.now
        handle.cancel()
        #expect(handle.isCancelled)
        let results = await calls.waitForCalls()
        handle.cancel()  // a second cancel changes nothing
        try await Task.sleep(for: .milliseconds(100))
        #expect(calls.values.count == 1)
        let first = try #require(results.first)
        guard case .failure(.cancelled) = first.result else {
            Issue.record("expected .failure(.cancelled), got \(first.result)")
            return
        }
        // Far looser than the task's 100 ms, but far short of the server's 10 s: the manager
        // delivers through a task of its own on the cooperative pool, and parallel tests that
        // start their servers synchronously keep that pool busy (2 s stalls were measured).
        #expect(cancelledAt.duration(to: first.calledAt) < .seconds(4), "\(cancelledAt.duration(to: first.calledAt))")
    }

    @Test("Cancelling a handle after its request finished changes nothing: the completion ran once, with the result")
    func cancelAfterCompletion() async throws {
        let server = try await TestServer.shared()
        let calls = CallRecorder<Result<Echo, NetworkError>>()
        let handle = Net.performRequest(request: TestRequest<Echo>(server.provider(), "/echo", params: ["k": "v"])) {
            calls.record($0)
        }
        _ = await calls.waitForFirstCall()
        handle.cancel()
        let results = await calls.waitForCalls()
        #expect(results.count == 1)
        #expect((try? results.first?.get())?.args == ["k": ["v"]])
    }

    // Cancellation that arrives before the transfer reaches libcurl must still stop it there:
    // the provider below ignores cancellation and returns normally, after the task was cancelled.
    @Test("A request cancelled while its provider creates headers is never sent")
    func cancelledWhileCreatingHeaders() async throws {
        try await withTestServer { server in
            let provider = SlowHeadersProvider(port: server.port)
            let task = Task { await networkError { try await Net.perform(TestRequest<Echo>(provider, "/echo")) } }
            try await Task.sleep(for: .milliseconds(50))
            task.cancel()
            let error = await task.value
            #expect(error?.caseName == "cancelled", "\(String(describing: error))")
            let requestsReceived = try await server.receivedRequestCount()
            #expect(requestsReceived == 0)
        }
    }

    @Test("Many requests cancelled at once all end with .cancelled and the manager keeps working")
    func manyCancellations() async throws {
        let server = try await TestServer.shared()
        let provider = server.provider()
        let clock = ContinuousClock()
        let executor = DedicatedExecutor()
        let tasks = (0..<20).map { _ in
            Task(executorPreference: executor) {
                let error = await networkError { try await Net.perform(TestRequest<DelayBody>(provider, "/delay/5")) }
                return (error: error, thrownAt: clock.now)
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        let cancelledAt = clock.now
        for task in tasks { task.cancel() }
        var outcomes: [(error: NetworkError?, thrownAt: ContinuousClock.Instant)] = []
        for task in tasks { outcomes.append(await task.value) }
        #expect(outcomes.allSatisfy { $0.error?.caseName == "cancelled" }, "\(outcomes.map(\.error))")
        let slowest = outcomes.map { cancelledAt.duration(to: $0.thrownAt) }.max() ?? .zero
        #expect(slowest < .milliseconds(250), "\(slowest)")
        let echo = try await Net.perform(TestRequest<Echo>(provider, "/echo"))
        #expect(echo.path == "/echo")
    }
}
