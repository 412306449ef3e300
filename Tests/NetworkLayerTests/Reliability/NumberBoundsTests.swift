import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

extension Reliability {
    /// Every number from a server (Retry-After, Content-Length) or from a caller (timeouts, retry
    /// delays and counts, size limits, ports, key paths) is bounded where it enters: a value or a
    /// clear `NetworkError`, never a trap.
    @Suite("Numbers from servers and callers", .sharing)
    struct NumberBoundsTests {
        /// Retry-After values a hostile or broken server may send.
        static let hostileRetryAfter = [
            "99999999999999999999", "1e16", "1E308", "-5", "-0", "NaN", "nan", "inf", "Infinity", "", "   ", "0x10",
            "1.5", "+3", "3 ", String(repeating: "9", count: 400), "Fri, 31 Dec 9999 23:59:59 GMT",
            "Thu, 01 Jan 1970 00:00:00 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
            "Mon, 99 Foo 2024 99:99:99 GMT", "\u{0000}12",
        ]

        static let fastPolicy = RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(5), maximumDelay: .milliseconds(50))

        @Test("A hostile Retry-After from a live server never traps: the retry waits at most the policy's cap", .measuring,
              arguments: hostileRetryAfter.filter { !$0.contains("\u{0000}") })
        func hostileRetryAfterFromTheServer(value: String) async throws {
            try await withFaultServer { server in
                let net = makeManager()
                let request = TestRequest<FaultOK>(server.provider(), "/retry-after", params: ["value": value], timeout: 5)
                request.retryPolicy = Self.fastPolicy
                let started = ContinuousClock.now
                let error = await networkError { try await net.perform(request) }
                guard case .apiError(let context) = error else { Issue.record("got \(String(describing: error))"); return }
                #expect(context.statusCode == 503)
                #expect(ContinuousClock.now - started < .seconds(3), "the retry waited beyond the 50 ms cap")
            }
        }

        @Test("Every Retry-After, read or not, gives a delay within 0 and the cap", arguments: hostileRetryAfter)
        func retryAfterDelayIsBounded(value: String) {
            for cap in [Duration.zero, .milliseconds(50), .seconds(30), .seconds(Int64.max), .seconds(-5)] {
                let policy = RetryPolicy(maximumAttempts: 3, maximumDelay: cap)
                let delay = policy.delay(after: 1, retryAfter: value)
                #expect(delay >= .zero && delay <= min(max(cap, .zero), RetryPolicy.delayCeiling), "\(value) under \(cap): \(delay)")
            }
        }

        @Test("Retry-After is read as RFC 9110 says: digits, or an HTTP date in its three forms")
        func retryAfterParsing() throws {
            let now = try #require(ISO8601DateFormatter().date(from: "1994-11-06T08:49:00Z"))
            #expect(RetryPolicy.seconds(fromRetryAfter: "120", now: now) == 120)
            #expect(RetryPolicy.seconds(fromRetryAfter: " 7 ", now: now) == 7)
            #expect(RetryPolicy.seconds(fromRetryAfter: "Sun, 06 Nov 1994 08:49:37 GMT", now: now) == 37)
            #expect(RetryPolicy.seconds(fromRetryAfter: "Sunday, 06-Nov-94 08:49:37 GMT", now: now) == 37)
            #expect(RetryPolicy.seconds(fromRetryAfter: "Sun Nov  6 08:49:37 1994", now: now) == 37)
            #expect(RetryPolicy.seconds(fromRetryAfter: "Sat, 05 Nov 1994 08:49:37 GMT", now: now) == 0, "a past date is now")
            for refused in ["1e16", "-5", "1.5", "NaN", "inf", "+3", "0x10", "", "soon"] {
                #expect(RetryPolicy.seconds(fromRetryAfter: refused, now: now) == nil, "\(refused)")
            }
            // Hundreds of digits are a (huge) number, for the caller to cap, not a trap.
            #expect((RetryPolicy.seconds(fromRetryAfter: String(repeating: "9", count: 400), now: now) ?? 0) > 1e300)
        }

        @Test("Property: random Retry-After text, policies and attempt numbers always give a delay within bounds")
        func randomRetryDelays() {
            let seed = UInt64.random(in: 0...UInt64.max)
            var random = SeededRandom(seed: seed)
            let alphabet = Array("0123456789999.-+eEinfaNGMT, :x")
            let durations: [Duration] = [.zero, .nanoseconds(1), .milliseconds(500), .seconds(30), .seconds(-1),
                                         .seconds(Int64.max), .seconds(Int64.min), .seconds(86_400 * 365)]
            for _ in 0..<3000 {
                let length = Int.random(in: 0...(Bool.random(using: &random) ? 24 : 420), using: &random)
                let text = String((0..<length).map { _ in alphabet.randomElement(using: &random) ?? "0" })
                var policy = RetryPolicy(maximumAttempts: Int.random(in: Int.min...Int.max, using: &random))
                policy.baseDelay = durations.randomElement(using: &random) ?? .zero
                policy.maximumDelay = durations.randomElement(using: &random) ?? .zero
                let attempt = [Int.min, -1, 0, 1, 2, 31, 63, 64, 1000, Int.max].randomElement(using: &random) ?? 1
                let delay = policy.delay(after: attempt, retryAfter: Bool.random(using: &random) ? text : nil)
                let cap = min(max(policy.maximumDelay, .zero), RetryPolicy.delayCeiling)
                #expect(delay >= .zero && delay <= cap, "seed \(seed): \(text.debugDescription), \(policy), attempt \(attempt) gave \(delay)")
            }
        }

        @Test("A timeout too large to enforce means no limit; a live request with it succeeds",
              arguments: [Duration.seconds(1e10), .seconds(1e17), .seconds(Int64.max), .seconds(1e20),
                          Duration(secondsComponent: Int64.max, attosecondsComponent: Int64.max)])
        func hugeTimeouts(timeout: Duration) async throws {
            try await withFaultServer { server in
                let ok = try await makeManager().perform(TestRequest<FaultOK>(server.provider(), "/ok", timeout: timeout))
                #expect(ok.ok)
            }
        }

        @Test("A zero or negative timeout is refused before anything is sent",
              arguments: [Duration.zero, .seconds(-1), .seconds(-1e20), .seconds(Int64.min),
                          Duration(secondsComponent: 0, attosecondsComponent: -1)])
        func invalidTimeouts(timeout: Duration) async throws {
            try await withFaultServer { server in
                let error = await networkError {
                    try await makeManager().perform(TestRequest<FaultOK>(server.provider(), "/ok", timeout: timeout))
                }
                guard case .invalidRequest(let context) = error else { Issue.record("got \(String(describing: error))"); return }
                #expect(context.reason?.contains("timeout") == true)
                let stats = try await server.stats()
                #expect(stats.requests == 0)
            }
        }

        @Test("Property: random timeouts (any seconds and attoseconds) end in a value, a timeout or a refusal, never a trap")
        func randomTimeouts() async throws {
            let seed = UInt64.random(in: 0...UInt64.max)
            var random = SeededRandom(seed: seed)
            try await withFaultServer { server in
                let net = makeManager()
                for _ in 0..<40 {
                    // Seconds of any magnitude (shifted by 0 … 63 bits), attoseconds of any value (±9.2 s).
                    let timeout = Duration(secondsComponent: Int64(bitPattern: random.next()) >> (random.next() % 64),
                                           attosecondsComponent: Int64(bitPattern: random.next()))
                    let request = TestRequest<FaultOK>(server.provider(), "/ok", timeout: timeout)
                    do throws(NetworkError) {
                        _ = try await net.perform(request)
                        #expect(timeout > .zero, "seed \(seed): \(timeout) was accepted")
                    } catch .timeOut {
                        #expect(timeout > .zero && timeout < .seconds(1), "seed \(seed): \(timeout) timed out")
                    } catch .invalidRequest {
                        #expect(timeout <= .zero, "seed \(seed): \(timeout) was refused")
                    } catch {
                        Issue.record("seed \(seed): timeout \(timeout) gave \(error)")
                    }
                }
            }
        }

        @Test("A key path with an empty component is refused before anything is sent, never a trap",
              arguments: [".", "..", "data.", ".data", "data..items"])
        func emptyKeyPathComponents(keyPath: String) async throws {
            try await withFaultServer { server in
                let request = TestRequest<Bool>(server.provider(), "/ok")
                request.keyPath = keyPath
                let error = await networkError { try await makeManager().perform(request) }
                guard case .invalidRequest(let context) = error else { Issue.record("got \(String(describing: error))"); return }
                #expect(context.reason?.contains("empty component") == true)
                let stats = try await server.stats()
                #expect(stats.requests == 0)
            }
        }

        @Test("A negative maximum response size is refused; zero and Int.max are limits like any other")
        func maximumResponseSizes() async throws {
            try await withFaultServer { server in
                let net = makeManager()
                let refused = TestRequest<FaultOK>(server.provider(), "/ok")
                refused.maximumResponseSize = -1
                let error = await networkError { try await net.perform(refused) }
                guard case .invalidRequest(let context) = error else { Issue.record("got \(String(describing: error))"); return }
                #expect(context.reason?.contains("maximum response size") == true)
                net.maximumResponseSize = Int.min
                let alsoRefused = await networkError { try await net.perform(TestRequest<FaultOK>(server.provider(), "/ok")) }
                if case .invalidRequest = alsoRefused {} else { Issue.record("got \(String(describing: alsoRefused))") }
                let stats = try await server.stats()
                #expect(stats.requests == 0)

                net.maximumResponseSize = Int.max
                let probe = try await net.perform(TestRequest<FaultOK>(server.provider(), "/ok"))
                #expect(probe.ok)
                net.maximumResponseSize = 0
                let tooLarge = await networkError { try await net.perform(TestRequest<FaultOK>(server.provider(), "/ok")) }
                guard case .transport(let limit) = tooLarge else { Issue.record("got \(String(describing: tooLarge))"); return }
                #expect(limit.reason?.contains("limit of 0 bytes") == true)
            }
        }

        @Test("A hostile Content-Length ends in a response or a clear error, and the next request works",
              arguments: ["99999999999999999999999", "18446744073709551616", "9223372036854775807", "-1", "1e3", "0x10",
                          "+5", "5, 7", " ", String(repeating: "9", count: 300)])
        func hostileContentLength(value: String) async throws {
            try await withFaultServer { server in
                let net = makeManager()
                do throws(NetworkError) {
                    _ = try await net.perform(TestRequest<Data>(server.provider(), "/content-length", params: ["value": value], timeout: 3))
                } catch .transport(let context) {
                    #expect(context.reason?.isEmpty == false)
                } catch {
                    Issue.record("Content-Length \(value.prefix(40)) gave \(error)")
                }
                let probe = try await net.perform(TestRequest<FaultOK>(server.provider(), "/ok"))
                #expect(probe.ok)
            }
        }

        @Test("Property: random numeric text in Content-Length and Retry-After from a live server never traps", .measuring)
        func randomNumericHeadersFromTheServer() async throws {
            let seed = UInt64.random(in: 0...UInt64.max)
            var random = SeededRandom(seed: seed)
            try await withFaultServer { server in
                let net = makeManager()
                for _ in 0..<40 {
                    let length = NumericText.random(using: &random)
                    do throws(NetworkError) {
                        _ = try await net.perform(TestRequest<Data>(server.provider(), "/content-length", params: ["value": length], timeout: 3))
                    } catch .transport(let context) {
                        #expect(context.reason?.isEmpty == false, "seed \(seed): Content-Length \(length.prefix(40))")
                    } catch {
                        Issue.record("seed \(seed): Content-Length \(length.prefix(40)) gave \(error)")
                    }

                    let retryAfter = NumericText.random(using: &random)
                    let request = TestRequest<FaultOK>(server.provider(), "/retry-after", params: ["value": retryAfter], timeout: 3)
                    request.retryPolicy = Self.fastPolicy
                    let started = ContinuousClock.now
                    let error = await networkError { try await net.perform(request) }
                    if case .apiError(let context) = error, context.statusCode == 503 {} else {
                        Issue.record("seed \(seed): Retry-After \(retryAfter.prefix(40)) gave \(String(describing: error))")
                    }
                    #expect(ContinuousClock.now - started < .seconds(2), "seed \(seed): Retry-After \(retryAfter.prefix(40)) waited beyond the cap")
                }
                let probe = try await net.perform(TestRequest<FaultOK>(server.provider(), "/ok"))
                #expect(probe.ok)
            }
        }

        @Test("Property: random provider ports are used when valid and refused before sending otherwise")
        func randomPorts() async throws {
            let seed = UInt64.random(in: 0...UInt64.max)
            var random = SeededRandom(seed: seed)
            let net = makeManager()
            for _ in 0..<200 {
                let port = [Int.min, -1, 0, 65536, Int.max, Int(truncatingIfNeeded: random.next())].randomElement(using: &random) ?? 0
                if (1...65535).contains(port) { continue }  // a valid port: a connection attempt, not this property
                let provider = FaultProvider(host: "127.0.0.1", httpScheme: .http, port: port, headers: [:], authentication: nil)
                let error = await networkError { try await net.perform(TestRequest<FaultOK>(provider, "/ok", timeout: 1)) }
                guard case .invalidRequest(let context) = error else {
                    Issue.record("seed \(seed): port \(port) gave \(String(describing: error))")
                    continue
                }
                #expect(context.reason?.contains("1...65535") == true, "seed \(seed): \(port)")
            }
        }
    }
}
