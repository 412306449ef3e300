import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// libcurl before 8.1.0 keeps a pointer to the last header its headers API stored past the
/// transfer (curl#11101): a pooled handle's last stored header is quarantined when its transfer
/// ends, so that the pointer never reaches freed memory, and freed for real once the handle's next
/// transfer stored its own. A handle whose last stored header cannot be named is not pooled again.
/// (FoldedHeaderTests has the response that would use the stale pointer.)
@Suite("libcurl's stale header pointer: the quarantine", .sharedServers(faultModes: [.serve]), .sharing)
struct HeaderQuarantineTests {
    @Test("Hundreds of requests on pooled handles keep at most one quarantined header per handle: the quarantine grows with the handles, not with the requests",
          .measuring)
    func quarantineFollowsTheHandles() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        let provider = server.provider()
        let before = CurlEngine.quarantinedHeaders
        let leftOut = CurlEngine.handlesLeftOutOfPool.load(ordering: .relaxed)
        for index in 0..<100 {
            #expect(try await net.perform(TestRequest<Echo>(provider, "/echo/one-after-another-\(index)")).method == "GET")
        }
        let concurrency = 8
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<concurrency {
                group.addTask {
                    for index in 0..<25 {
                        _ = try await net.perform(TestRequest<Echo>(provider, "/echo/side-by-side-\(task)-\(index)"))
                    }
                }
            }
            try await group.waitForAll()
        }
        let after = CurlEngine.quarantinedHeaders
        guard CurlEasyHandle.keepsStaleHeaderPointer else {
            #expect(after == 0, "a libcurl without the stale pointer needs no quarantine")
            return
        }
        #expect(after > 0, "no header was quarantined")
        #expect(after - before <= concurrency, "300 requests on at most \(concurrency) new handles left \(after - before) more headers quarantined")
        #expect(CurlEngine.handlesLeftOutOfPool.load(ordering: .relaxed) == leftOut, "a plain response's handle was not pooled again")
    }

    @Test("A handle whose last stored header the lines cannot name (a 1xx's, the final response having none) is not pooled again; the response is read")
    func unnamedLastHeaderKeepsTheHandleOutOfThePool() async throws {
        let server = try SharedServers.fault(.serve)
        let net = makeManager()
        let leftOut = CurlEngine.handlesLeftOutOfPool.load(ordering: .relaxed)
        #expect(try await net.perform(TestRequest<FaultOK>(server.provider(), "/interim-then-bare")).ok)
        if CurlEasyHandle.keepsStaleHeaderPointer {
            #expect(CurlEngine.handlesLeftOutOfPool.load(ordering: .relaxed) > leftOut)
        }
        #expect(try await net.perform(TestRequest<FaultOK>(server.provider(), "/ok")).ok)
    }
}
