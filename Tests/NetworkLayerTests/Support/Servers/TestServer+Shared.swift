import Foundation
@testable import NetworkLayer

// The server the suites share. They only read `Net`'s settings, never change them: these
// suites run in parallel with everything else.
extension TestServer {
    private static let sharedServer = Result { () throws -> TestServer in try TestServer.start() }

    /// One plain-HTTP server for the whole test process, started by the first test that asks.
    ///
    /// Each server costs a Python start-up (about 0.15 s of CPU); hundreds of parameterized
    /// cases each starting their own would make the run CPU-bound and the timing tests flaky.
    /// A test that counts or records the requests a server receives starts its own with
    /// ``withTestServer(_:record:tls:_:)`` instead. This one is never stopped: it exits when the
    /// test process does, as its stdin closes.
    static func shared() async throws -> TestServer {
        try await offCooperativePool { try sharedServer.get() }
    }

    /// How many requests reached the server so far (`/count` itself not included).
    /// A test that expects a request to be refused before any connection checks this is 0.
    func receivedRequestCount() async throws -> Int {
        try await Net.perform(TestRequest<RequestCount>(provider(), "/count")).count
    }

    /// A provider for this server whose `parseAndValidate` can hand back the raw ``HTTPResponse``.
    func rawProvider(headers: [String: String] = [:]) -> RawResponseProvider {
        RawResponseProvider(port: port, headers: headers)
    }
}
