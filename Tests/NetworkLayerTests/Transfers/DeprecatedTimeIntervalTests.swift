import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The `TimeInterval` spellings deprecated for `Duration` ones: one test each, proving it still
/// works and converts both ways. Each test is itself deprecated, so it calls them without a warning.
@Suite("Deprecated TimeInterval spellings", .sharing)
struct DeprecatedTimeIntervalTests {
    @available(*, deprecated)
    @Test("Timeouts(connect:request:idle:) with seconds makes the Durations; NaN stays refused, .infinity stays no limit")
    func timeoutsInitializer() async throws {
        let timeouts = Timeouts(connect: 2.5, request: 30, idle: 0.25)
        #expect(timeouts == Timeouts(connect: .milliseconds(2500), request: .seconds(30), idle: .milliseconds(250)))
        #expect(Timeouts(connect: 5, request: nil) == Timeouts(connect: .seconds(5)))
        #expect(Timeouts(idle: .nan).idleTimeout == .zero)
        #expect(Timeouts(request: .infinity).requestTimeout == .seconds(Int64.max))
        #expect(Timeouts(request: -.infinity).requestTimeout == .seconds(-Int64.max))
        try await withTestServer { server in
            let net = makeManager()
            net.timeouts = Timeouts(idle: .nan)
            let refused = await FaultOutcome { () throws(NetworkError) in try await net.perform(TestRequest<Echo>(server.provider(), "/echo")) }
            #expect(refused.error?.caseName == "invalidRequest", "\(refused)")
            let received = try await server.receivedRequestCount()
            #expect(received == 0)
            net.timeouts = Timeouts(request: .infinity)
            let echo = try await net.perform(BaseRequest<Echo>(serviceProvider: server.provider(), endpoint: "/echo"))
            #expect(echo.path == "/echo")
        }
    }

    @available(*, deprecated)
    @Test("Timeouts.connect reads and writes connectTimeout in seconds")
    func timeoutsConnect() {
        var timeouts = Timeouts(connect: .milliseconds(1500))
        #expect(timeouts.connect == 1.5)
        timeouts.connect = 4
        #expect(timeouts.connectTimeout == .seconds(4))
        timeouts.connect = nil
        #expect(timeouts.connectTimeout == nil && timeouts.connect == nil)
    }

    @available(*, deprecated)
    @Test("Timeouts.request reads and writes requestTimeout in seconds")
    func timeoutsRequest() {
        var timeouts = Timeouts(request: .milliseconds(500))
        #expect(timeouts.request == 0.5)
        timeouts.request = 90
        #expect(timeouts.requestTimeout == .seconds(90))
        timeouts.request = .infinity
        #expect(timeouts.requestTimeout == .seconds(Int64.max))
        #expect(timeouts.request ?? 0 > 1e9)
    }

    @available(*, deprecated)
    @Test("Timeouts.idle reads and writes idleTimeout in seconds")
    func timeoutsIdle() {
        var timeouts = Timeouts(idle: .seconds(7))
        #expect(timeouts.idle == 7)
        timeouts.idle = 0.125
        #expect(timeouts.idleTimeout == .milliseconds(125))
        timeouts.idle = .nan
        #expect(timeouts.idleTimeout == .zero)
    }

    @available(*, deprecated)
    @Test("Timeouts.defaultRequest is defaultRequestTimeout in seconds: 60")
    func timeoutsDefaultRequest() {
        #expect(Timeouts.defaultRequest == 60)
        #expect(Timeouts.defaultRequestTimeout == .seconds(60))
    }

    @available(*, deprecated)
    @Test("ConnectionLimits(perHost:total:idleTimeout:) with seconds makes the Duration; NaN is still libcurl's default")
    func connectionLimitsInitializer() {
        #expect(ConnectionLimits(perHost: 4, total: 8, idleTimeout: 90) == ConnectionLimits(perHost: 4, total: 8, idleTimeout: .seconds(90)))
        #expect(ConnectionLimits(idleTimeout: 0.5 as TimeInterval).idleConnectionTimeout == .milliseconds(500))
        #expect(ConnectionLimits(idleTimeout: TimeInterval.nan).idleConnectionTimeout == nil)
        #expect(ConnectionLimits(idleTimeout: TimeInterval.infinity).idleConnectionTimeout == .seconds(Int64.max))
    }

    @available(*, deprecated)
    @Test("ConnectionLimits.idleTimeout reads and writes idleConnectionTimeout in seconds")
    func connectionLimitsIdleTimeout() {
        var limits = ConnectionLimits(perHost: 2, idleTimeout: .seconds(30))
        #expect(limits.idleTimeout == 30)
        limits.idleTimeout = 2.5
        #expect(limits.idleConnectionTimeout == .milliseconds(2500))
        limits.idleTimeout = nil
        #expect(limits.idleConnectionTimeout == nil && limits == ConnectionLimits(perHost: 2))
    }

    @available(*, deprecated)
    @Test("BaseRequest.timeout reads and writes requestTimeout in seconds; NaN, zero and negative stay refused, .infinity no limit")
    func requestTimeout() async throws {
        let request = BaseRequest<Echo>(serviceProvider: TimedProvider(), endpoint: "/echo")
        #expect(request.timeout == 60)
        request.timeout = 2.5
        #expect(request.requestTimeout == .milliseconds(2500))
        #expect(request.resolved().timeout == 2.5)
        request.requestTimeout = .milliseconds(750)
        #expect(request.timeout == 0.75)
        try await withTestServer { server in
            for refused in [TimeInterval.nan, 0, -1, -TimeInterval.infinity] {
                let request = TestRequest<Echo>(server.provider(), "/echo")
                request.timeout = refused
                let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(request) }
                #expect(outcome.error?.caseName == "invalidRequest", "\(refused): \(outcome)")
            }
            let received = try await server.receivedRequestCount()
            #expect(received == 0)
            let unlimited = TestRequest<Echo>(server.provider(), "/echo")
            unlimited.timeout = .infinity
            #expect(unlimited.requestTimeout == .seconds(Int64.max))
            let echo = try await makeManager().perform(unlimited)
            #expect(echo.path == "/echo")
        }
    }

    @available(*, deprecated)
    @Test("OutgoingRequest.timeout reads and writes attemptTimeout in seconds; NaN is still refused")
    func outgoingTimeout() async throws {
        let server = try await TestServer.shared()
        let seen = Protected<(read: TimeInterval, converted: Duration)?>(nil)
        let request = TestRequest<Echo>(server.provider(), "/echo", timeout: 30)
        request.interceptors = [Rewriter { outgoing in
            let read = outgoing.timeout
            outgoing.timeout = 12.5
            seen.withLock { $0 = (read, outgoing.attemptTimeout) }
        }]
        let echo = try await makeManager().perform(request)
        #expect(echo.path == "/echo")
        let values = seen.withLock { $0 }
        #expect(values.map { $0.read > 29 && $0.read <= 30 } == true, "\(String(describing: values))")
        #expect(values?.converted == .milliseconds(12_500))
        let refused = TestRequest<Echo>(server.provider(), "/echo")
        refused.interceptors = [Rewriter { $0.timeout = .nan }]
        let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(refused) }
        #expect(outcome.error?.caseName == "invalidRequest", "\(outcome)")
    }
}
