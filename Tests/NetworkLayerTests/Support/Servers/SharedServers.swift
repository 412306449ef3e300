import Testing
@testable import NetworkLayer

/// Servers a whole suite shares: started before its first test, stopped after its last.
///
/// `@Suite(.sharedServers(faultModes: [.serve, .backlog]))`; a test then asks for
/// `try SharedServers.fault(.serve)`. For the suites whose tests measure time: one Python start-up
/// per suite instead of one per test case keeps the two cores for what is measured. Tests that
/// count what a server receives start their own instead.
struct SharedServers: SuiteTrait, TestScoping {
    let faultModes: [FaultServer.Mode]
    /// Also a `test_server.py` with the good `localhost` certificate (trusted by `makeTLSManager()`).
    let legitimateTLS: Bool

    struct Running: Sendable {
        var fault: [FaultServer.Mode: FaultServer] = [:]
        var legitimateTLS: TestServer?
    }

    @TaskLocal static var running: Running?

    var isRecursive: Bool { false }

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let (faultModes, legitimateTLS) = (self.faultModes, self.legitimateTLS)
        let servers = try await offCooperativePool { () throws -> Running in
            var running = Running()
            for mode in faultModes { running.fault[mode] = try FaultServer.start(mode) }
            if legitimateTLS {
                running.legitimateTLS = try TestServer.startTLS(certificate: "localhost-chain.pem", key: "localhost.key")
            }
            return running
        }
        let stopAll: @Sendable () -> Void = {
            for server in servers.fault.values { server.stop() }
            servers.legitimateTLS?.stop()
        }
        do {
            try await Self.$running.withValue(servers) { try await function() }
        } catch {
            await offCooperativePool(stopAll)
            throw error
        }
        await offCooperativePool(stopAll)
    }

    /// The suite's fault server in `mode`.
    static func fault(_ mode: FaultServer.Mode = .serve) throws -> FaultServer {
        guard let server = running?.fault[mode] else {
            throw TestServerError(description: "no shared fault server in mode \(mode.rawValue): add it to the suite's .sharedServers trait")
        }
        return server
    }

    /// The suite's TLS server with a good certificate.
    static func legitimateTLS() throws -> TestServer {
        guard let server = running?.legitimateTLS else {
            throw TestServerError(description: "no shared TLS server: add legitimateTLS: true to the suite's .sharedServers trait")
        }
        return server
    }
}

extension Trait where Self == SharedServers {
    /// Servers shared by every test of the suite, started once and stopped at its end.
    static func sharedServers(faultModes: [FaultServer.Mode] = [], legitimateTLS: Bool = false) -> Self {
        SharedServers(faultModes: faultModes, legitimateTLS: legitimateTLS)
    }
}
