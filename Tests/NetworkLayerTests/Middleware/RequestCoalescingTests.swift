import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

@Suite("Request coalescing", .sharing)
struct RequestCoalescingTests {
    @Test("Identical GETs in flight share one transfer, and each caller gets its own decoded value")
    func identicalGETsShareOneTransfer() async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.middlewares = [RequestCoalescing()]
            let values = try await withThrowingTaskGroup(of: Double.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        struct Delayed: Decodable, Sendable { let delayed: Double }
                        return try await net.perform(TestRequest<Delayed>(server.provider(), "/delay/0.5")).delayed
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(values == Array(repeating: 0.5, count: 20))
            let received = try await server.receivedRequestCount()
            #expect(received == 1)

            // Once it has ended, the next call starts a transfer of its own.
            struct Delayed: Decodable, Sendable { let delayed: Double }
            _ = try await net.perform(TestRequest<Delayed>(server.provider(), "/delay/0.5"))
            let afterwards = try await server.receivedRequestCount()
            #expect(afterwards == 2)
        }
    }

    @Test("Callers with different credentials, headers or methods never share")
    func differentCredentialsNeverShare() async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.middlewares = [RequestCoalescing()]
            let alice = AuthProvider(port: server.port, authentication: .bearer("alice"))
            let bob = AuthProvider(port: server.port, authentication: .bearer("bob"))
            struct Delayed: Decodable, Sendable { let delayed: Double }
            // Each in flight while the others are (the server takes 0.3 s): only the key keeps them apart.
            async let first = net.perform(TestRequest<Delayed>(alice, "/delay/0.3"))
            async let second = net.perform(TestRequest<Delayed>(bob, "/delay/0.3"))
            async let third = net.perform(TestRequest<Delayed>(alice, "/delay/0.3", headers: ["X-Other": "1"]))
            async let fourth = net.perform(TestRequest<Delayed>(alice, "/delay/0.3", method: .delete))
            _ = try await [first, second, third, fourth]
            let received = try await server.receivedRequestCount()
            #expect(received == 4)
        }
    }

    @Test("Each caller validates and decodes for itself: the same response is a value for one and a failure for another")
    func eachCallerDecodesForItself() async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.middlewares = [RequestCoalescing()]
            struct Delayed: Decodable, Sendable { let delayed: Double }
            struct Other: Decodable, Sendable { let missing: String }
            async let good = net.perform(TestRequest<Delayed>(server.provider(), "/delay/0.4"))
            async let bad = FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<Other>(server.provider(), "/delay/0.4")) }
            let (value, outcome) = try await (good, bad)
            #expect(value.delayed == 0.4)
            #expect(outcome.error?.caseName == "serialization")
            let received = try await server.receivedRequestCount()
            #expect(received == 1)
        }
    }

    @Test("Cancelling one caller ends its wait at once; the others get the response; cancelling all cancels the transfer", .measuring)
    func cancellation() async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.middlewares = [RequestCoalescing()]
            struct Delayed: Decodable, Sendable { let delayed: Double }
            let kept = Task { try await net.perform(TestRequest<Delayed>(server.provider(), "/delay/1")) }
            let dropped = Task { () async -> FaultOutcome<Delayed> in
                await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<Delayed>(server.provider(), "/delay/1")) }
            }
            try await Task.sleep(for: .milliseconds(200))
            let cancelledAt = ContinuousClock.now
            dropped.cancel()
            let droppedOutcome = await dropped.value
            #expect(droppedOutcome.error?.caseName == "cancelled")
            #expect(cancelledAt.duration(to: .now) < .milliseconds(500))
            let keptValue = try await kept.value
            #expect(keptValue.delayed == 1)
            let received = try await server.receivedRequestCount()
            #expect(received == 1)

            // Every caller cancelled: the shared transfer is cancelled too (the server sees its connection go).
            let slow = "/slow-bytes/100000?chunk=10&interval=0.05"
            let callers = (0..<3).map { _ in
                Task { () async -> FaultOutcome<JSONValue> in
                    await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<JSONValue>(server.provider(), slow)) }
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            for caller in callers { caller.cancel() }
            for caller in callers { #expect(await caller.value.error?.caseName == "cancelled") }
            // A new identical call after that starts afresh, and is not answered by the cancelled transfer.
            let fresh = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<JSONValue>(server.provider(), "/json")) }
            #expect(fresh.value != nil)
        }
    }

    @Test("1,000 identical GETs, half of them cancelled while they wait: the rest succeed, one transfer, no caller hangs")
    func aThousandHalfCancelled() async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.middlewares = [RequestCoalescing()]
            struct Delayed: Decodable, Sendable { let delayed: Double }
            let tasks = (0..<1_000).map { _ in
                Task { () async -> FaultOutcome<Delayed> in
                    await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<Delayed>(server.provider(), "/delay/5")) }
                }
            }
            // The cancellations must come while the shared transfer is in flight: once the server
            // has it (a sanitizer run starts the thousand tasks slowly), well within its 5 s.
            let deadline = ContinuousClock.now + .seconds(4)
            while try await server.receivedRequestCount() == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(300))
            for (index, task) in tasks.enumerated() where index.isMultiple(of: 2) { task.cancel() }
            var succeeded = 0, cancelled = 0
            for task in tasks {
                switch await task.value {
                case .success: succeeded += 1
                case .failure(let error): if error.caseName == "cancelled" { cancelled += 1 }
                }
            }
            #expect(succeeded == 500)
            #expect(cancelled == 500)
            let received = try await server.receivedRequestCount()
            #expect(received == 1)
        }
    }

    @Test("Streams and downloads are never shared")
    func streamsNeverShared() async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.middlewares = [RequestCoalescing()]
            async let first = net.perform(StreamRequest<ByteStream>(server.provider(), "/bytes/1000"))
            async let second = net.perform(StreamRequest<ByteStream>(server.provider(), "/bytes/1000"))
            let streams = try await [first, second]
            for stream in streams {
                var count = 0
                for try await chunk in stream { count += chunk.count }
                #expect(count == 1000)
            }
            let received = try await server.receivedRequestCount()
            #expect(received == 2)
        }
    }
}
