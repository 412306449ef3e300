import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A request that reads what the echo server received from its `x-echo` header.
final class EchoedRequest: BaseRequest<EchoServer.Received> {
    init(_ provider: any ServiceProvider, _ endpoint: String = "/version") {
        super.init(serviceProvider: provider, endpoint: endpoint)
        parser = { try EchoServer.Received.from($0) }
    }
}

/// A backend with a version of its own.
struct VersionedProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme
    var port: Int?
    var httpVersion: HTTPVersion?
}

@Suite("HTTP versions", .sharing)
struct HTTPVersionTests {
    @Test(".automatic speaks HTTP/2 over TLS when offered; .http1_1 stays on HTTP/1.1 against the same server (hypercorn)")
    func overTLS() async throws {
        try await withEchoServer(tls: true) { server in
            let net = makeTLSManager()
            let automatic = VersionedProvider(httpScheme: .https, port: server.port)
            let (received, response) = try await net.performWithResponse(EchoedRequest(automatic))
            #expect(received.httpVersion == "2")
            #expect(response.metrics?.httpVersion == "HTTP/2")

            let old = VersionedProvider(httpScheme: .https, port: server.port, httpVersion: .http1_1)
            let (oldReceived, oldResponse) = try await net.performWithResponse(EchoedRequest(old))
            #expect(oldReceived.httpVersion == "1.1")
            #expect(oldResponse.metrics?.httpVersion == "HTTP/1.1")
        }
    }

    @Test(".http2PriorKnowledge speaks HTTP/2 without TLS (h2c); .automatic on plain http is HTTP/1.1")
    func priorKnowledge() async throws {
        try await withEchoServer { server in
            let net = makeManager()
            // Plain first: an h2c connection, once open, may carry later requests to the same server.
            let plain = VersionedProvider(httpScheme: .http, port: server.port)
            let plainReceived = try await net.perform(EchoedRequest(plain))
            #expect(plainReceived.httpVersion == "1.1")
            let h2c = VersionedProvider(httpScheme: .http, port: server.port, httpVersion: .http2PriorKnowledge)
            let (received, response) = try await net.performWithResponse(EchoedRequest(h2c))
            #expect(received.httpVersion == "2")
            #expect(response.metrics?.httpVersion == "HTTP/2")
        }
    }

    @Test("The manager's version applies unless the provider has its own; copy-as-curl says which, and curl speaks it too")
    func managerDefaultAndCopyAsCurl() async throws {
        try await withEchoServer { server in
            let net = makeManager()
            net.httpVersion = .http2PriorKnowledge
            let own = VersionedProvider(httpScheme: .http, port: server.port, httpVersion: .http1_1)
            let ownReceived = try await net.perform(EchoedRequest(own))
            #expect(ownReceived.httpVersion == "1.1")
            let plain = VersionedProvider(httpScheme: .http, port: server.port)
            let plainReceived = try await net.perform(EchoedRequest(plain))
            #expect(plainReceived.httpVersion == "2")

            let command = try await net.curlCommand(for: EchoedRequest(plain))
            #expect(command.contains("--http2-prior-knowledge"))
            let (status, output) = try await runShell(curlCommand(command, inserting: "-D - -o /dev/null"))
            #expect(status == 0)
            #expect(String(decoding: output, as: UTF8.self).hasPrefix("HTTP/2 200"))
            #expect(try await net.curlCommand(for: EchoedRequest(own)).contains("--http1.1"))
        }
    }
}
