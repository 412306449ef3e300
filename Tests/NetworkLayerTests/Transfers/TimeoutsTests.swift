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
        let provider = TimedProvider(port: blackhole.port, timeouts: Timeouts(connect: 1))
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

    @Test("A response that sends nothing for the idle time fails as .timeOut saying no data for N s")
    func idle() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        net.timeouts = Timeouts(idle: 1)
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

    @Test("The whole-request timeout: the request's own wins, else the provider's, else the manager's, else 60 s")
    func requestTimeoutPrecedence() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        net.timeouts = Timeouts(request: 0.5)
        let slow = "/delay/2"
        let managers = await FaultOutcome { () throws(NetworkError) in
            try await net.perform(BaseRequest<DelayBody>(serviceProvider: server.provider(), endpoint: slow))
        }
        #expect(managers.error?.context?.reason?.contains("timeout of 0.5 s") == true, "\(managers)")
        let provider = TimedProvider(port: server.port, timeouts: Timeouts(request: 0.7))
        let providers = await FaultOutcome { () throws(NetworkError) in
            try await net.perform(BaseRequest<DelayBody>(serviceProvider: provider, endpoint: slow))
        }
        #expect(providers.error?.context?.reason?.contains("timeout of 0.7 s") == true, "\(providers)")
        let own = BaseRequest<DelayBody>(serviceProvider: provider, endpoint: slow)
        own.timeout = 5
        #expect(try await net.perform(own).delayed == 2)
        #expect(BaseRequest<DelayBody>(serviceProvider: TimedProvider(), endpoint: "/").resolved().timeout == 60)
    }

    @Test("A zero, negative or NaN connect or idle timeout is .invalidRequest before anything is sent",
          arguments: [Timeouts(connect: 0), Timeouts(connect: -1), Timeouts(idle: .nan), Timeouts(idle: 0)])
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

    @Test("Copy-as-curl carries the connect and idle timeouts")
    func copyAsCurl() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        net.timeouts = Timeouts(connect: 2.5, idle: 7)
        let command = try await net.curlCommand(for: TestRequest<Echo>(server.provider(), "/echo"))
        #expect(command.contains("--connect-timeout 2.5"))
        #expect(command.contains("--speed-limit 1 --speed-time 7"))
    }
}
