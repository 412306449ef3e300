import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// One engine serves every request: hundreds in flight at once each get their own answer.
@Suite("Concurrency", .sharing)
struct ConcurrencyTests {
    @Test("200 requests in parallel are each answered with their own parameter")
    func twoHundredInParallel() async throws {
        let server = try await TestServer.shared()
        let provider = server.provider()
        let answers = try await withThrowingTaskGroup(of: (sent: String, received: [String]?).self) { group in
            for index in 0..<200 {
                group.addTask {
                    let sent = "request \(index) & \(UUID().uuidString)"
                    let echo = try await Net.perform(TestRequest<Echo>(provider, "/echo/\(index)", params: ["id": sent]))
                    #expect(echo.path == "/echo/\(index)")
                    return (sent, echo.args["id"])
                }
            }
            var answers: [(sent: String, received: [String]?)] = []
            for try await answer in group { answers.append(answer) }
            return answers
        }
        #expect(answers.count == 200)
        let mismatched = answers.filter { $0.received != [$0.sent] }
        #expect(mismatched.isEmpty, "\(mismatched.prefix(5))")
        #expect(Set(answers.map(\.sent)).count == 200)
    }

    @Test("Parallel POST bodies do not mix: each server-side body is the one its request sent")
    func parallelBodies() async throws {
        let server = try await TestServer.shared()
        let provider = server.provider()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask {
                    let payload = String(repeating: "\(index % 10)", count: 1000 + index)
                    let echo = try await Net.perform(TestRequest<Echo>(provider, "/echo", method: .post,
                                                                       params: ["index": index, "payload": payload]))
                    let json = try JSONSerialization.jsonObject(with: Data(echo.body.utf8)) as? [String: Any]
                    #expect(json?["index"] as? Int == index)
                    #expect(json?["payload"] as? String == payload)
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("Completion-handler requests in parallel each complete once with their own answer")
    func parallelCompletions() async throws {
        let server = try await TestServer.shared()
        let calls = CallRecorder<(index: Int, received: [String]?)>()
        for index in 0..<100 {
            Net.performRequest(request: TestRequest<Echo>(server.provider(), "/echo", params: ["i": index])) { result in
                calls.record((index, (try? result.get())?.args["i"]))
            }
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(10))
        while calls.values.count < 100, clock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(200))
        let results = calls.values
        #expect(results.count == 100)
        #expect(Set(results.map(\.index)).count == 100)
        #expect(results.allSatisfy { $0.received == ["\($0.index)"] })
    }

    @Test("A slow request does not hold up fast ones running beside it", .measuring)
    func slowDoesNotBlockFast() async throws {
        let provider = try await TestServer.shared().provider()
        let slow = Task { try await Net.perform(TestRequest<DelayBody>(provider, "/delay/5")) }
        defer { slow.cancel() }
        try await Task.sleep(for: .milliseconds(100))
        // Measured on an executor of its own, so a busy cooperative pool does not count.
        let elapsed = try await Task(executorPreference: DedicatedExecutor()) {
            try await measure {
                for index in 0..<5 {
                    _ = try await Net.perform(TestRequest<Echo>(provider, "/echo", params: ["i": index]))
                }
            }.elapsed
        }.value
        // Queued behind the slow one, they would take about 5 s; a loaded machine needs well under 2.
        #expect(elapsed < .milliseconds(2500), "\(elapsed)")
    }
}
