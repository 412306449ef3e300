import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A WebSocket's connection is libcurl's: TLS with pins, a proxy's CONNECT tunnel, a Unix socket.
@Suite("WebSocket connections: TLS and pins, proxies, Unix sockets", .sharing)
struct WebSocketTransportTests {
    @Test("wss with a matching pin opens; with a wrong pin fails before the handshake")
    func pinnedTLS() async throws {
        try await withWebSocketServer(tls: ("localhost-chain.pem", "localhost.key")) { server in
            let net = makeManager()
            net.customCABundle = certificatesDirectory.appendingPathComponent("TestCABundle.pem")
            try net.configurePinning([PinningRule(publicKeyHashes: [try pin(of: "localhost.pem")])], isEnabled: true)
            let socket = try await net.perform(SocketRequest(server.provider(scheme: .https, host: "localhost"), "/echo"))
            try await socket.send(.text("secure"))
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .text("secure"))
            try await socket.close()

            try net.configurePinning([PinningRule(publicKeyHashes: [try pin(of: "interceptor.pem")])], isEnabled: true)
            await #expect {
                _ = try await net.perform(SocketRequest(server.provider(scheme: .https, host: "localhost"), "/echo"))
            } throws: { error in
                guard case NetworkError.invalidCertificate = error else { return false }
                return true
            }
        }
    }

    @Test("Through an HTTP proxy, the socket goes through a CONNECT tunnel")
    func throughProxy() async throws {
        try await withWebSocketServer { server in
            try await withTinyProxy { proxy in
                let net = makeManager()
                net.proxy = .http(proxy.url)
                let socket = try await net.perform(SocketRequest(server.provider(), "/echo"))
                try await socket.send(.text("tunnelled"))
                var iterator = socket.makeAsyncIterator()
                #expect(try await iterator.next() == .text("tunnelled"))
                try await socket.close()
                #expect(proxy.requests.contains { $0.hasPrefix("CONNECT 127.0.0.1:\(server.port)") }, "\(proxy.requests)")
            }
        }
    }

    @Test("A provider's Unix socket carries the WebSocket")
    func unixSocket() async throws {
        try await withWebSocketServer(unixSocket: true) { server in
            let provider = SocketProvider(host: "localhost", httpScheme: .http, unixSocketPath: server.socketPath)
            let socket = try await makeManager().perform(SocketRequest(provider, "/echo"))
            try await socket.send(.binary(Data([1, 2, 3])))
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .binary(Data([1, 2, 3])))
            try await socket.close()
        }
    }
}
