import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A backend with timeouts of its own.
struct TimedProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme = HTTPScheme.http
    var port: Int?
    var timeouts: Timeouts?
}

@Suite("Connect, request and idle timeouts", .measuring)
struct TimeoutsTests {
    @Test("A server that never accepts fails within connect + 1 s as .timeOut saying connect")
    func connect() async throws {
        let blackhole = try BlackholeListener()
        defer { blackhole.close() }
        let provider = TimedProvider(port: blackhole.port, timeouts: Timeouts(connect: .seconds(1)))
        let started = ContinuousClock.now
        let outcome = await FaultOutcome { () throws(NetworkError) in
            try await makeManager().perform(TestRequest<Echo>(provider, "/echo", timeout: 30))
        }
        let elapsed = started.duration(to: .now)
        #expect(outcome.error?.caseName == "timeOut", "\(outcome)")
        #expect(outcome.error?.context?.reason?.contains("could not connect within the connect timeout of 1 s") == true,
                "\(String(describing: outcome.error?.context?.reason))")
        #expect(elapsed < .seconds(2), "\(elapsed)")
    }

    @Test("The connect timeout applies to each attempt: three attempts at a server that never accepts take three connect timeouts")
    func connectPerAttempt() async throws {
        let blackhole = try BlackholeListener()
        defer { blackhole.close() }
        let log = LogCollector()
        let net = makeManager(log: log)
        let retrying = RetryingProvider(port: blackhole.port, retryPolicy: RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(50)))
        net.timeouts = Timeouts(connect: .seconds(0.5), request: .seconds(20))
        let started = ContinuousClock.now
        let outcome = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<Echo>(retrying, "/echo", timeout: 20)) }
        let elapsed = started.duration(to: .now)
        #expect(outcome.error?.context?.reason?.contains("could not connect within the connect timeout of 0.5 s") == true, "\(outcome)")
        #expect(log.text.contains("attempt 2 of 3 failed"), "\(log.text)")
        #expect(elapsed >= .milliseconds(1500) && elapsed < .seconds(5), "\(elapsed)")
    }

    @Test("The connect timeout applies to each redirect hop: a redirect to a server that never accepts fails saying connect")
    func connectPerRedirectHop() async throws {
        let blackhole = try BlackholeListener()
        defer { blackhole.close() }
        let server = try await TestServer.shared()
        let net = makeManager()
        net.timeouts = Timeouts(connect: .seconds(1))
        let target = "http://127.0.0.1:\(blackhole.port)/echo".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let started = ContinuousClock.now
        let outcome = await FaultOutcome { () throws(NetworkError) in
            try await net.perform(TestRequest<Echo>(server.provider(), "/redirect-to?url=\(target)", timeout: 30))
        }
        #expect(outcome.error?.context?.reason?.contains("could not connect within the connect timeout of 1 s") == true, "\(outcome)")
        #expect(started.duration(to: .now) < .seconds(3))
    }

    @Test("A request timeout shorter than the connect timeout ends the connect, and the error names the request timeout")
    func requestTimeoutEndsTheConnect() async throws {
        let blackhole = try BlackholeListener()
        defer { blackhole.close() }
        let net = makeManager()
        net.timeouts = Timeouts(connect: .seconds(10), request: .seconds(1))
        let started = ContinuousClock.now
        let outcome = await FaultOutcome { () throws(NetworkError) in
            try await net.perform(BaseRequest<Echo>(serviceProvider: TimedProvider(port: blackhole.port), endpoint: "/echo"))
        }
        #expect(outcome.error?.caseName == "timeOut", "\(outcome)")
        #expect(outcome.error?.context?.reason?.contains("within the timeout of 1 s") == true,
                "\(String(describing: outcome.error?.context?.reason))")
        #expect(started.duration(to: .now) < .seconds(3))
    }

    @Test("A response that sends nothing for the idle time fails as .timeOut saying no data for N s")
    func idle() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        net.timeouts = Timeouts(idle: .seconds(1))
        let started = ContinuousClock.now
        let outcome = await FaultOutcome { () throws(NetworkError) in
            try await net.perform(TestRequest<Data>(server.provider(), "/slow-bytes/100000?chunk=1000&interval=4", timeout: 30))
        }
        #expect(outcome.error?.caseName == "timeOut", "\(outcome)")
        #expect(outcome.error?.context?.reason?.contains("no data for 1 s") == true, "\(String(describing: outcome.error?.context?.reason))")
        #expect(started.duration(to: .now) < .seconds(4))
        // A body that keeps coming is not idle, however long it takes in all.
        let steady = try await net.perform(TestRequest<Data>(server.provider(), "/slow-bytes/3000?chunk=1000&interval=0.4", timeout: 30))
        #expect(steady.count == 3000)
    }

    @Test("A slow upload is not idle: a body sent a piece every 400 ms arrives whole under an idle timeout of 1 s")
    func slowUpload() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        net.timeouts = Timeouts(idle: .seconds(1))
        let chunks = PatternChunks(total: 8_000, chunkSize: 1_000, pause: .milliseconds(400))
        let echo = try await net.perform(BodyRequest<Echo>(server.provider(), "/echo", body: .stream(chunks, length: 8_000)))
        #expect(echo.bodyLength == 8_000)
        #expect(Data(base64Encoded: echo.bodyBase64) == Data(chunks.bytes))
    }

    @Test("An upload that stops sending for longer than the idle time fails as .timeOut saying no data")
    func stalledUpload() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        net.timeouts = Timeouts(idle: .seconds(1))
        let stalled = PatternChunks(total: 2_000, chunkSize: 1_000, pause: .seconds(4))
        let started = ContinuousClock.now
        let outcome = await FaultOutcome { () throws(NetworkError) in
            try await net.perform(BodyRequest<Echo>(server.provider(), "/echo", body: .stream(stalled, length: 2_000)))
        }
        #expect(outcome.error?.caseName == "timeOut", "\(outcome)")
        #expect(outcome.error?.context?.reason?.contains("no data for 1 s") == true, "\(String(describing: outcome.error?.context?.reason))")
        #expect(started.duration(to: .now) < .seconds(3))
    }

    @Test("The whole-request timeout: the request's own wins, else the provider's, else the manager's, else 60 s")
    func requestTimeoutPrecedence() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        net.timeouts = Timeouts(request: .seconds(0.5))
        let slow = "/delay/2"
        let managers = await FaultOutcome { () throws(NetworkError) in
            try await net.perform(BaseRequest<DelayBody>(serviceProvider: server.provider(), endpoint: slow))
        }
        #expect(managers.error?.context?.reason?.contains("timeout of 0.5 s") == true, "\(managers)")
        let provider = TimedProvider(port: server.port, timeouts: Timeouts(request: .seconds(0.7)))
        let providers = await FaultOutcome { () throws(NetworkError) in
            try await net.perform(BaseRequest<DelayBody>(serviceProvider: provider, endpoint: slow))
        }
        #expect(providers.error?.context?.reason?.contains("timeout of 0.7 s") == true, "\(providers)")
        let own = BaseRequest<DelayBody>(serviceProvider: provider, endpoint: slow)
        own.requestTimeout = .seconds(5)
        #expect(try await net.perform(own).delayed == 2)
        #expect(BaseRequest<DelayBody>(serviceProvider: TimedProvider(), endpoint: "/").resolved().timeout == 60)
    }

    @Test("A zero or negative connect or idle timeout is .invalidRequest before anything is sent",
          arguments: [Timeouts(connect: .zero), Timeouts(connect: .seconds(-1)), Timeouts(idle: Duration(secondsComponent: 0, attosecondsComponent: -1)),
                      Timeouts(idle: .zero)])
    func invalid(timeouts: Timeouts) async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.timeouts = timeouts
            let outcome = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<Echo>(server.provider(), "/echo")) }
            #expect(outcome.error?.caseName == "invalidRequest", "\(outcome)")
            let received = try await server.receivedRequestCount()
            #expect(received == 0)
        }
    }

    @Test("A connect or idle timeout too large to enforce means no limit: the request succeeds, nothing traps",
          arguments: [Duration.seconds(1e10), .seconds(Int64.max), .seconds(1e20),
                      Duration(secondsComponent: Int64.max, attosecondsComponent: Int64.max)])
    func huge(timeout: Duration) async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.timeouts = Timeouts(connect: timeout, idle: timeout)
            let echo = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
            #expect(echo.path == "/echo")
        }
    }

    @Test("Copy-as-curl carries the connect and idle timeouts")
    func copyAsCurl() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        net.timeouts = Timeouts(connect: .seconds(2.5), idle: .seconds(7))
        let command = try await net.curlCommand(for: TestRequest<Echo>(server.provider(), "/echo"))
        #expect(command.contains("--connect-timeout 2.5"))
        #expect(command.contains("--speed-limit 1 --speed-time 7"))
    }
}
