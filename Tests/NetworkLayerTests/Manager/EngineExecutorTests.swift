import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `NetworkManager.engineExecutor`: a task that prefers it runs on the libcurl thread, between
/// rounds of I/O, and everything a request does (concurrency, streams with backpressure,
/// uploads, cancellation, timeouts, completion handlers) works there as on the global pool; the
/// engine still sleeps when there is nothing to do, and tasks without the preference are untouched.
@Suite("Engine executor", .serialized, .measuring)
struct EngineExecutorTests {
    @Test("Code in a task preferring the engine executor runs on the libcurl thread, before and after each request")
    func runsOnEngineThread() async throws {
        let provider = try await TestServer.shared().provider()
        let engine = try #require(await engineThreadID(via: provider))
        let threads = try await withTaskExecutorPreference(NetworkManager.engineExecutor) {
            var threads = [currentThreadID()]
            for index in 0..<3 {
                let echo = try await Net.perform(TestRequest<Echo>(provider, "/echo", params: ["i": index]))
                #expect(echo.args["i"] == ["\(index)"])
                threads.append(currentThreadID())
            }
            return threads
        }
        #expect(threads == Array(repeating: engine, count: 4))
    }

    @Test("A request from a task without the preference is unaffected: that task resumes off the libcurl thread")
    func withoutPreferenceUnaffected() async throws {
        let provider = try await TestServer.shared().provider()
        let engine = try #require(await engineThreadID(via: provider))
        let threads = try await Task.detached {
            var threads: [Int32?] = []
            for index in 0..<3 {
                let echo = try await Net.perform(TestRequest<Echo>(provider, "/echo", params: ["i": index]))
                #expect(echo.args["i"] == ["\(index)"])
                threads.append(currentThreadID())
            }
            return threads
        }.value
        #expect(threads.count == 3)
        #expect(!threads.contains(engine))
        #expect(!threads.contains(nil))
    }

    @Test("32 concurrent requests from child tasks on the engine executor each complete with their own answer, on the libcurl thread")
    func thirtyTwoConcurrent() async throws {
        let provider = try await TestServer.shared().provider()
        let engine = try #require(await engineThreadID(via: provider))
        let answers = try await withTaskExecutorPreference(NetworkManager.engineExecutor) {
            try await withThrowingTaskGroup(of: (sent: Int, received: [String]?, thread: Int32?).self) { group in
                for index in 0..<32 {
                    group.addTask {
                        let echo = try await Net.perform(TestRequest<Echo>(provider, "/echo/\(index)", params: ["id": index]))
                        return (index, echo.args["id"], currentThreadID())
                    }
                }
                var answers: [(sent: Int, received: [String]?, thread: Int32?)] = []
                for try await answer in group { answers.append(answer) }
                return answers
            }
        }
        #expect(answers.count == 32)
        #expect(Set(answers.map(\.sent)) == Set(0..<32))
        #expect(answers.allSatisfy { $0.received == ["\($0.sent)"] })
        #expect(answers.allSatisfy { $0.thread == engine })
    }

    @Test("10,000 jobs from 1,000 tasks that yield ten times each all run, each exactly once")
    func jobsRunOnce() async throws {
        let runs = Counter()
        await withTaskExecutorPreference(NetworkManager.engineExecutor) {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<1000 {
                    group.addTask {
                        for _ in 0..<10 {
                            runs.increment()
                            await Task.yield()
                        }
                    }
                }
            }
        }
        #expect(runs.value == 10_000)
    }

    @Test("A ByteStream 32 times the stream buffer, read slowly on the engine executor, arrives whole and in order; the transfer pauses and resumes")
    func streamWithBackpressure() async throws {
        try await withSSEServer { server in
            let provider = server.provider()
            let engine = try #require(await engineThreadID(via: provider))
            let size = 32 << 20
            let net = makeManager()
            let (total, inOrder, pauses, offEngine) = try await withTaskExecutorPreference(NetworkManager.engineExecutor) {
                let stream = try await net.perform(StreamRequest<ByteStream>(provider, "/bytes?size=\(size)&chunk=1048576",
                                                                             timeout: 60))
                var total = 0
                var inOrder = true
                var offEngine = 0
                for try await chunk in stream {
                    if let first = chunk.first, first != UInt8(truncatingIfNeeded: total) { inOrder = false }
                    if let last = chunk.last, last != UInt8(truncatingIfNeeded: total + chunk.count - 1) { inOrder = false }
                    total += chunk.count
                    if currentThreadID() != engine { offEngine += 1 }
                    try await Task.sleep(for: .microseconds(20))  // a reader slower than loopback
                }
                return (total, inOrder, stream.body.buffer.pauseCount, offEngine)
            }
            #expect(total == size)
            #expect(inOrder)
            #expect(pauses > 0, "the transfer was never paused: the reader was not slower")
            #expect(offEngine == 0, "\(offEngine) chunks were read off the libcurl thread")
        }
    }

    @Test("An EventStream read on the engine executor delivers every event in order")
    func eventStream() async throws {
        try await withSSEServer { server in
            let net = makeManager()
            let (events, error) = try await withTaskExecutorPreference(NetworkManager.engineExecutor) {
                let stream = try await net.perform(StreamRequest<EventStream>(server.provider(), "/sse/ticks?count=300&size=2000"))
                return await collect(stream)
            }
            #expect(error == nil)
            #expect(events.count == 300)
            #expect(events.map { try? JSONDecoder().decode(Tick.self, from: Data($0.data.utf8)).n } == Array(1...300))
        }
    }

    @Test("Cancelling a task on the engine executor ends its request with .cancelled within a second")
    func cancellation() async throws {
        let provider = try await TestServer.shared().provider()
        let task = Task(executorPreference: NetworkManager.engineExecutor) {
            await networkError { try await Net.perform(TestRequest<DelayBody>(provider, "/delay/5")) }
        }
        try await Task.sleep(for: .milliseconds(300))
        let (error, elapsed) = await measure {
            task.cancel()
            return await task.value
        }
        guard case .cancelled? = error else {
            Issue.record("expected .cancelled, got \(String(describing: error))")
            return
        }
        #expect(elapsed < .seconds(1), "\(elapsed)")
    }

    @Test("Cancelling the task reading a stream on the engine executor ends the loop with .cancelled and closes the stream at the server")
    func streamCancellation() async throws {
        try await withSSEServer { server in
            let net = makeManager()
            let provider = server.provider()
            let seen = Counter()
            let reader = Task(executorPreference: NetworkManager.engineExecutor) { () -> NetworkError? in
                do throws(NetworkError) {
                    let stream = try await net.perform(StreamRequest<EventStream>(provider, "/sse/forever?interval=5"))
                    for try await _ in stream { seen.increment() }
                    return nil
                } catch {
                    return error
                }
            }
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(5))
            while seen.value < 3, clock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            reader.cancel()
            let error = await reader.value
            #expect(seen.value >= 3)
            guard case .cancelled? = error else {
                Issue.record("expected .cancelled, got \(String(describing: error))")
                return
            }
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await server.stats().open == 0)
        }
    }

    @Test("A request's timeout still ends it with .timeOut for a task on the engine executor")
    func timeout() async throws {
        let provider = try await TestServer.shared().provider()
        let (error, elapsed) = await withTaskExecutorPreference(NetworkManager.engineExecutor) {
            await measure {
                await networkError { try await Net.perform(TestRequest<DelayBody>(provider, "/delay/5", timeout: 1)) }
            }
        }
        guard case .timeOut? = error else {
            Issue.record("expected .timeOut, got \(String(describing: error))")
            return
        }
        #expect(elapsed >= .milliseconds(950) && elapsed < .seconds(3), "\(elapsed)")
    }

    @Test("An upload from an AsyncSequence sent from the engine executor arrives byte for byte")
    func streamedUpload() async throws {
        try await withSSEServer { server in
            let chunks = PatternChunks(total: 3_000_001, chunkSize: 70_000, pause: .microseconds(100))
            let report = try await withTaskExecutorPreference(NetworkManager.engineExecutor) {
                try await makeManager().perform(StreamUploadRequest<UploadReport>(
                    server.provider(), "/upload", body: .stream(chunks, length: chunks.total)))
            }
            #expect(report.size == 3_000_001)
            #expect(report.sha256 == sha256Hex(chunks.bytes))
        }
    }

    @Test("A completion-handler request started from the engine executor completes once, with its answer")
    func completionHandler() async throws {
        let provider = try await TestServer.shared().provider()
        let calls = Counter()
        let result = await withTaskExecutorPreference(NetworkManager.engineExecutor) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Echo, NetworkError>, Never>) in
                Net.performRequest(request: TestRequest<Echo>(provider, "/echo", params: ["via": "handler"])) { result in
                    calls.increment()
                    continuation.resume(returning: result)
                }
            }
        }
        #expect((try? result.get())?.args["via"] == ["handler"])
        try await Task.sleep(for: .milliseconds(200))
        #expect(calls.value == 1)
    }

    @Test("While tasks on the engine executor wait (for a slow response, in a sleep), the libcurl thread sleeps: under 10% of a core over a second")
    func idleEngineSleeps() async throws {
        let provider = try await TestServer.shared().provider()
        let engine = try #require(await engineThreadID(via: provider))
        let waiting = Task(executorPreference: NetworkManager.engineExecutor) {
            try await Net.perform(TestRequest<DelayBody>(provider, "/delay/2.5"))
        }
        let sleeping = Task(executorPreference: NetworkManager.engineExecutor) {
            try await Task.sleep(for: .seconds(2.5))
        }
        try await Task.sleep(for: .milliseconds(500))
        let before = try #require(cpuTime(ofThread: engine))
        try await Task.sleep(for: .seconds(1))
        let after = try #require(cpuTime(ofThread: engine))
        #expect(after - before < .milliseconds(100), "the libcurl thread used \(after - before) of CPU in a second")
        #expect(try await waiting.value.delayed == 2.5)
        try await sleeping.value
    }

    @Test("A provider's createHTTPHeaders, adapt and parseAndValidate and the request's validator, called by a request on the engine executor, run on the libcurl thread")
    func providerCodeRunsOnTheEngineThread() async throws {
        let server = try await TestServer.shared()
        let engine = try #require(await engineThreadID(via: server.provider()))
        let order = HookOrder()
        @Sendable func place() -> String { currentThreadID() == engine ? "engine" : "pool" }
        var provider = HookProvider(port: server.port, headers: {
            order.append("headers on \(place())")
            return [:]
        }, inspect: { _ in order.append("parseAndValidate on \(place())") })
        provider.adaptRequest = { _ in order.append("adapt on \(place())") }
        let request = TestRequest<Echo>(provider, "/echo")
        request.validator = { _ in order.append("validator on \(place())") }
        _ = try await withTaskExecutorPreference(NetworkManager.engineExecutor) {
            try await Net.perform(request)
        }
        #expect(order.all == ["headers on engine", "adapt on engine", "validator on engine", "parseAndValidate on engine"])
    }

    @Test("A token refresh started by a request on the engine executor runs on the global pool, off the libcurl thread; the token closure runs in the request's task, on it")
    func tokenRefreshRunsOffTheEngineThread() async throws {
        let provider = try await TestServer.shared().provider()
        let engine = try #require(await engineThreadID(via: provider))
        let tokenThread = Protected<Int32?>(nil)
        let refreshThread = Protected<Int32?>(nil)
        let source = BearerTokenSource(token: {
            tokenThread.withLock { $0 = currentThreadID() }
            return "stale"
        }, refresh: {
            refreshThread.withLock { $0 = currentThreadID() }
            return "fresh"
        })
        let authenticated = AuthProvider(port: provider.port, authentication: .bearer(source))
        struct Authorized: Decodable, Sendable { let authorized: Bool }
        let (authorized, requestThread) = try await withTaskExecutorPreference(NetworkManager.engineExecutor) {
            let authorized = try await Net.perform(TestRequest<Authorized>(authenticated, "/auth/bearer?valid=fresh")).authorized
            return (authorized, currentThreadID())
        }
        #expect(authorized, "the request got its 401 with the stale token and succeeded with the refreshed one")
        #expect(requestThread == engine)
        #expect(tokenThread.withLock { $0 } == engine)
        let refreshedOn = try #require(refreshThread.withLock { $0 }, "the token was refreshed")
        #expect(refreshedOn != engine, "the refresh ran on the libcurl thread")
    }
}
