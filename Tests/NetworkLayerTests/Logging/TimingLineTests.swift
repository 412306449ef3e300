import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The response's timing line in the text log shows `tls` only when the connection was TLS: on a
/// plain connection libcurl has no TLS time, and the connect time must not pass for one.
@Suite("The log's timing line", .sharing)
struct TimingLineTests {
    @Test("Over plain http:// the timing line has dns, connect, first byte and total, and no tls")
    func plainHTTPHasNoTLSTime() async throws {
        try await withTestServer { server in
            let log = LogCollector()
            _ = try await makeManager(log: log).perform(TestRequest<Echo>(server.provider(), "/echo"))
            let timing = try #require(timingLine(in: log.text), "\(log.text)")
            for part in ["dns ", "connect ", "first byte ", "total "] { #expect(timing.contains(part), "\(timing)") }
            #expect(!timing.contains("tls"), "\(timing)")
        }
    }

    @Test("Over https:// the timing line has the TLS time, between connect and first byte")
    func httpsHasTLSTime() async throws {
        try await withLegitServer { server in
            let log = LogCollector()
            let net = makeTLSManager()
            net.logHandler = { log.append($0) }
            net.isVerbose = true
            _ = try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
            let timing = try #require(timingLine(in: log.text), "\(log.text)")
            let connect = try #require(timing.range(of: ", connect "))
            let tls = try #require(timing.range(of: ", tls "), "\(timing)")
            let firstByte = try #require(timing.range(of: ", first byte "))
            #expect(connect.lowerBound < tls.lowerBound && tls.lowerBound < firstByte.lowerBound, "\(timing)")
        }
    }
}
