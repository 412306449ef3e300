import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `BaseRequest.timeout`, released in 2.0.0 in seconds and deprecated for `requestTimeout`: it still
/// works and converts both ways. The test is itself deprecated, so it calls it without a warning.
@Suite("The deprecated BaseRequest.timeout", .sharing)
struct DeprecatedRequestTimeoutTests {
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
}
