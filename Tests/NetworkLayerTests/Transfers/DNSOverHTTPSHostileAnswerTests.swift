import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A DNS over HTTPS resolver that answers garbage, too much or nothing: libcurl decodes its
/// answers (at most 3000 bytes of one), and each request ends with a clear error, never a crash.
@Suite("DNS over HTTPS: hostile answers", .sharing)
struct DNSOverHTTPSHostileAnswerTests {
    @Test("Garbage answers end in reachability naming the resolver and the name", arguments: [
        "/random", "/truncated", "/wrong-id", "/ancount-65535", "/pointer-loop", "/cname-only", "/huge",
    ])
    func garbage(_ path: String) async throws {
        let server = try await TestServer.shared()
        try await withDoHServer { doh in
            let net = makeManager()
            net.customCABundle = testCABundle
            let provider = DoHProvider(port: server.port, dnsOverHTTPS: doh.url(path))
            let error = await networkError { try await net.perform(TestRequest<Echo>(provider, "/echo", timeout: 10)) }
            guard case .reachability(let context)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(context.reason?.contains("DNS over HTTPS resolver https://127.0.0.1:\(doh.port)") == true, "\(context)")
            #expect(context.reason?.contains("doh-test.invalid") == true, "\(context)")
            #expect(doh.queries().contains("\(path) 1 doh-test.invalid"), "\(doh.queries())")
        }
    }

    @Test("A resolver that never answers ends in timeOut naming DNS over HTTPS")
    func hangingResolver() async throws {
        let server = try await TestServer.shared()
        try await withDoHServer { doh in
            let net = makeManager()
            net.customCABundle = testCABundle
            let provider = DoHProvider(port: server.port, dnsOverHTTPS: doh.url("/hang"))
            let error = await networkError { try await net.perform(TestRequest<Echo>(provider, "/echo", timeout: 1)) }
            guard case .timeOut(let context)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(context.reason?.contains("DNS over HTTPS resolver https://127.0.0.1:\(doh.port) did not resolve doh-test.invalid") == true,
                    "\(context)")
        }
    }

    @Test("A request cancelled while the resolver hangs ends with .cancelled within 1 s, and the engine serves the next request", .measuring)
    func cancelledWhileResolving() async throws {
        let server = try await TestServer.shared()
        try await withDoHServer { doh in
            let net = makeManager()
            net.customCABundle = testCABundle
            let provider = DoHProvider(port: server.port, dnsOverHTTPS: doh.url("/hang"))
            let clock = ContinuousClock()
            let task = Task(executorPreference: DedicatedExecutor()) {
                let error = await networkError { try await net.perform(TestRequest<Echo>(provider, "/echo", timeout: 30)) }
                return (error: error, thrownAt: clock.now)
            }
            let asked = clock.now
            while !doh.queries().contains("/hang 1 doh-test.invalid"), asked.duration(to: clock.now) < .seconds(10) {
                try await Task.sleep(for: .milliseconds(10))
            }
            let cancelledAt = clock.now
            task.cancel()
            let (error, thrownAt) = await task.value
            #expect(error?.caseName == "cancelled", "\(String(describing: error))")
            #expect(cancelledAt.duration(to: thrownAt) < .seconds(1), "\(cancelledAt.duration(to: thrownAt))")
            print("DNS over HTTPS: cancelled while resolving, thrown after \(cancelledAt.duration(to: thrownAt))")

            // The engine goes on: the next request through a resolver that answers succeeds.
            let working = DoHProvider(port: server.port, dnsOverHTTPS: doh.url())
            _ = try await net.perform(TestRequest<Echo>(working, "/echo"))
        }
    }

    /// Seeded mutations of the resolver's answer (random bytes, flipped bits, cuts, lying counts,
    /// compression pointers to anywhere, lying lengths, hundreds of records, CNAME loops, bad
    /// labels), each fed to libcurl's decoder through a real request: each must end resolved (to
    /// 127.0.0.1, where the server listens) or with a clear error, never a crash or a hang.
    @Test("Mutated resolver answers: each request succeeds or fails with reachability, none crashes or outlives its timeout")
    func mutatedAnswers() async throws {
        let server = try await TestServer.shared()
        let seed = ProcessInfo.processInfo.environment["DOH_FUZZ_SEED"] ?? "53"
        let count = 300
        try await withDoHServer { doh in
            let net = makeManager()
            net.customCABundle = testCABundle
            let outcomes = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                var outcomes: [(Int, String)] = []
                for number in 0..<count {
                    if number >= 4, let outcome = try await group.next() { outcomes.append(outcome) }
                    group.addTask {
                        let provider = DoHProvider(port: server.port, dnsOverHTTPS: doh.url("/fuzz/\(seed)/\(number)"))
                        do {
                            _ = try await net.perform(TestRequest<Echo>(provider, "/echo", timeout: 10))
                            return (number, "success")
                        } catch let error as NetworkError {
                            return (number, error.caseName + ": " + (error.context?.reason ?? ""))
                        }
                    }
                }
                for try await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            let unexpected = outcomes.filter { $0.1 != "success" && !$0.1.hasPrefix("reachability: ") }
            #expect(unexpected.isEmpty, "seed \(seed): \(unexpected.prefix(10))")
            let succeeded = outcomes.filter { $0.1 == "success" }.count
            #expect(succeeded > 0 && succeeded < count, "seed \(seed): \(succeeded) of \(count) resolved; both outcomes must occur")
            print("DNS over HTTPS fuzz, seed \(seed): \(succeeded) of \(count) mutated answers resolved, the rest failed cleanly")
        }
    }
}
