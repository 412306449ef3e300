import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

@Suite("Smoke test", .sharing)
struct SmokeTests {
    @Test("A GET reaches a loopback server with its query")
    func getEchoesOverLoopback() async throws {
        Net.isVerbose = false
        try await withTestServer { server in
            let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", params: ["q": "a b"]))
            #expect(echo.method == "GET")
            #expect(echo.query == "q=a%20b")
        }
    }
}
